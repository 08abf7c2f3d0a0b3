/* SPDX-License-Identifier: MIT */
/* IP addresses as text (see addr.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include "util/addr.h"

bool nvmf_ip_str(int family, const void *bin, char *out, size_t len)
{
	if (family != AF_INET && family != AF_INET6)
		return false;
	return inet_ntop(family, bin, out, (socklen_t)(len > 0x7fffffff ? 0x7fffffff : len)) !=
	       NULL;
}

int nvmf_ip_parse(const char *text, unsigned char bin[16])
{
	if (inet_pton(AF_INET, text, bin) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, text, bin) == 1)
		return AF_INET6;
	return 0;
}

bool nvmf_sockaddr_host(const struct sockaddr *sa, char *out, size_t len)
{
	if (!sa)
		return false;
	if (sa->sa_family == AF_INET)
		return nvmf_ip_str(AF_INET,
				   &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
				   len);
	if (sa->sa_family == AF_INET6)
		return nvmf_ip_str(AF_INET6,
				   &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
				   len);
	return false;
}

const char *nvmf_sockaddr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	if (!nvmf_sockaddr_host(sa, host, sizeof(host))) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (sa->sa_family == AF_INET)
		snprintf(buf, len, "%s:%u", host,
			 ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port));
	else
		snprintf(buf, len, "[%s]:%u", host,
			 ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port));
	return buf;
}

int nvmf_port_parse(const char *text, uint16_t *port)
{
	if (!text || *text < '0' || *text > '9')
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long v = strtoul(text, &end, 10);
	if (*end || errno || v == 0 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}
