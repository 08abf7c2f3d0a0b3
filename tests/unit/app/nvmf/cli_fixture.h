/* Running whole `nvmf` command lines in-process for the CLI tests: the subcommands write
 * to memory streams and reach our target through the loop host transport. */
#ifndef NVMF_TESTS_UNIT_CLI_FIXTURE_H
#define NVMF_TESTS_UNIT_CLI_FIXTURE_H
#include <stdio.h>
#include "app/nvmf/cli.h"
#include "tests/unit/loop/host/loop_host.h"

struct clit {
	struct loop_host *lh; /* NULL: no target (parsing tests) */
	char *out, *err;      /* what the last run printed, NUL terminated */
	size_t outlen, errlen;
	const void *in; /* stdin contents for the next run (NULL: empty) */
	size_t inlen;
	const char *env_secret, *env_ctrl_secret;    /* the $NVMF_DHCHAP_* defaults (NULL: unset) */
	const struct nvmf_host_transport *transport; /* NULL: the loop host's */
	volatile sig_atomic_t *interrupted;          /* env.interrupted (NULL: none) */
};

/* clit_setup - a loop host target per @p (NULL: defaults; @with_target false: none). */
void clit_setup(struct clit *t, bool with_target, const struct loop_host_params *p);
/* clit_run - run `nvmf ARGS...` (NULL terminated, without the program name) and return
 * the exit status; t->out / t->err hold the output. */
int clit_run(struct clit *t, ...) __attribute__((sentinel));
void clit_teardown(struct clit *t);

#endif
