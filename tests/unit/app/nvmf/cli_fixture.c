/* The CLI test fixture (see cli_fixture.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/app/nvmf/cli_fixture.h"

void clit_setup(struct clit *t, bool with_target, const struct loop_host_params *p)
{
	memset(t, 0, sizeof(*t));
	if (with_target)
		t->lh = loop_host_new(p);
}

int clit_run(struct clit *t, ...)
{
	char *argv[64];
	int argc = 0;
	va_list ap;
	argv[argc++] = "nvmf";
	va_start(ap, t);
	for (char *a; argc < 63 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;

	free(t->out);
	free(t->err);
	t->out = t->err = NULL;
	struct cli_env env = {
		/* fmemopen refuses a size of 0: an empty stdin is /dev/null. */
		.in = t->in && t->inlen ? fmemopen((void *)t->in, t->inlen, "r") :
					  fopen("/dev/null", "r"),
		.out = open_memstream(&t->out, &t->outlen),
		.err = open_memstream(&t->err, &t->errlen),
		.transport = t->transport ? t->transport :
			     t->lh        ? loop_host_transport(t->lh) :
					    NULL,
		.hostnqn = LH_HOSTNQN,
		.no_progress = true,
		.interrupted = t->interrupted,
		.dhchap_secret = t->env_secret,
		.dhchap_ctrl_secret = t->env_ctrl_secret,
	};
	int rc = cli_run(argc, argv, &env);
	if (env.in)
		fclose(env.in);
	fclose(env.out);
	fclose(env.err);
	return rc;
}

void clit_teardown(struct clit *t)
{
	free(t->out);
	free(t->err);
	if (t->lh)
		loop_host_free(t->lh);
	memset(t, 0, sizeof(*t));
}
