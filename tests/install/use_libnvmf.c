/* Built against an installed libnvmf through pkg-config (make install-check): the public
 * headers compile on their own, the library links, and a call returns a named status. */
#include <nvmf.h>
#include <nvmf-wire.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	const char *s = nvmf_strerror(0x4182); /* Connect Invalid Parameters, DNR */
	if (sizeof(struct nvme_sqe) != 64 || !strstr(s, "CONNECT_INVALID_PARAM")) {
		fprintf(stderr, "use_libnvmf: unexpected: %s\n", s);
		return 1;
	}
	printf("use_libnvmf: linked against libnvmf: %s\n", s);
	return 0;
}
