/* SPDX-License-Identifier: MIT */
/* Secrets in text: DH-HMAC-CHAP secrets (NVMe Base 2.1 section 8.3.5.5, "DHHC-1:") and TLS
 * PSKs in the NVMe/TCP interchange format ("NVMeTLSkey-1:"), found and replaced. */
#ifndef NVMF_UTIL_SECRET_H
#define NVMF_UTIL_SECRET_H
#include <stdbool.h>

/* Whether text @s holds a secret anywhere: a DH-HMAC-CHAP secret in its DHHC-1 form
 * ("DHHC-1:") or a TLS PSK in its interchange form ("NVMeTLSkey-1:"), say one given where
 * a name was expected. Such text is never a name, and messages, logs and terminals must
 * not show it (secret.c). NULL holds none. */
bool nvmf_text_has_secret(const char *s);

/* nvmf_text_redact_secrets - replace, in place, each secret in @s (as above: its prefix and
 * the base64 and ':'-separated fields after it) with "<secret>". For a line about to be
 * logged or printed that may quote what a user typed. Returns how many it replaced. */
unsigned nvmf_text_redact_secrets(char *s);

#endif
