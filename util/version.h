/* SPDX-License-Identifier: MIT */
/*
 * The project's version, written once: nvmf-target --version and its version method,
 * nvmf --version, nvmf-targetctl --version, and libnvmf.pc (the Makefile reads the
 * string from this line) all say this.
 */
#ifndef NVMF_UTIL_VERSION_H
#define NVMF_UTIL_VERSION_H

#define NVMF_VERSION "0.1.0"

#endif
