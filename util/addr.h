/* SPDX-License-Identifier: MIT */
/*
 * IP addresses as text, written once: socket addresses for messages and the canonical
 * text of an address (RFC 5952 for IPv6, as inet_ntop writes it).
 */
#ifndef NVMF_UTIL_ADDR_H
#define NVMF_UTIL_ADDR_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* "[" INET6 "]:" 65535 and the NUL: room for any nvmf_sockaddr_str. */
#define NVMF_SOCKADDR_STRLEN (INET6_ADDRSTRLEN + 8)

/*
 * nvmf_sockaddr_str - @sa as "1.2.3.4:4420" (AF_INET) or "[fd77::1]:4420" (AF_INET6;
 * brackets as in RFC 3986 so the port reads apart), the port in decimal from network
 * order; "?" for NULL or another family. Truncated to @len (NUL-terminated, @len > 0).
 * Returns @buf, for use in a message's arguments.
 */
const char *nvmf_sockaddr_str(const struct sockaddr *sa, char *buf, size_t len);

/* nvmf_sockaddr_host - the address of @sa alone, without port or brackets ("fd77::1"),
 * into @out of @len bytes (INET6_ADDRSTRLEN is enough). false for NULL, another family
 * than AF_INET/AF_INET6, or @len too small (@out then unspecified). */
bool nvmf_sockaddr_host(const struct sockaddr *sa, char *out, size_t len);

/*
 * nvmf_ip_parse - @text as an IPv4 dotted quad or an IPv6 address (inet_pton's
 * grammars, no brackets, no port, no zone): AF_INET with the 4 bytes in @bin, AF_INET6
 * with the 16 (network order), or 0 when it is neither.
 */
int nvmf_ip_parse(const char *text, unsigned char bin[16]);

/* nvmf_ip_str - the canonical text of @family's address @bin (4 or 16 bytes, network
 * order) into @out of @len bytes (INET6_ADDRSTRLEN is enough). false for another
 * family or @len too small. */
bool nvmf_ip_str(int family, const void *bin, char *out, size_t len);

/* nvmf_port_parse - @text as a TCP/UDP port number: decimal digits only, 1 to 65535 (not
 * taken modulo 65536 as getaddrinfo takes "79956"). 0 with *@port, or -EINVAL. */
int nvmf_port_parse(const char *text, uint16_t *port);

#endif
