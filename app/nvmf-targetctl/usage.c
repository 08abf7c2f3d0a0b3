// SPDX-License-Identifier: MIT
/* nvmf-targetctl --help: the command list, one group's commands, or one command's usage,
 * all from the command table (request.c) so that help and parsing cannot disagree. */
#include <ctype.h>
#include <string.h>

#include "app/nvmf-targetctl/targetctl.h"
#include "control/schema.h"

#define GLOBAL_HELP                                                                           \
	"Global options (anywhere on the line):\n"                                            \
	"  -s, --socket PATH    the target's control socket (default: see below)\n"           \
	"      --json           print the target's answer as JSON\n"                          \
	"      --timeout SECS   wait at most SECS for the answer (default 30; 0: no limit)\n" \
	"  -h, --help           this help; after a command: the command's help\n"             \
	"      --version        print this tool's version (the target's: version)\n"

static void command_line(FILE *f, const struct tctl_command *c)
{
	char name[64];
	tctl_command_name(c, name, sizeof(name));
	fprintf(f, "  %-26s %s\n", name, c->summary);
}

static void top(FILE *f)
{
	fprintf(f, "Usage: " TCTL_PROG " [-s|--socket PATH] [--json] [--timeout SECS] COMMAND ...\n"
		   "Configure a running nvmf-target through its control socket.\n\n"
		   "Commands:\n");
	for (const struct tctl_command *c = tctl_commands; c->group; c++)
		command_line(f, c);
	fprintf(f, "\n" GLOBAL_HELP "\n"
		   "The default socket is /run/nvmf-target.sock for root; for other users\n"
		   "$XDG_RUNTIME_DIR/nvmf-target.sock, or /tmp/nvmf-target-UID.sock without it.\n"
		   "Run '" TCTL_PROG " COMMAND --help' for one command.\n"
		   "Exit status: 0 done, 1 the target refused or failed, 2 usage error,\n"
		   "3 cannot connect to the socket.\n");
}

static void group(FILE *f, const char *g)
{
	fprintf(f, "Usage: " TCTL_PROG " [GLOBAL OPTIONS] %s COMMAND ...\n\nCommands:\n", g);
	for (const struct tctl_command *c = tctl_commands; c->group; c++)
		if (!strcmp(c->group, g))
			command_line(f, c);
	fprintf(f, "\nRun '" TCTL_PROG " %s COMMAND --help' for one command.\n", g);
}

/* The parameters of @method as its description (control/schema.c) gives them: what the
 * command sends, and what a call of the method may pass. */
static void method_params(FILE *f, const char *method)
{
	const struct nvmf_rpc_schema *s = method ? nvmf_ctl_schema_find(method) : NULL;
	char text[160];
	if (!s)
		return;
	fprintf(f, "\nParameters of method %s:%s\n", s->name, s->params[0].name ? "" : " none");
	for (const struct nvmf_rpc_param *p = s->params; p->name; p++)
		fprintf(f, "  %s\n      %s\n", nvmf_rpc_param_text(p, text, sizeof(text)), p->help);
}

/* call --help: every method of the target, from the descriptions. */
static void method_list(FILE *f)
{
	fprintf(f, "\nMethods:\n");
	for (const struct nvmf_rpc_schema *s = nvmf_ctl_schema; s->name; s++)
		fprintf(f, "  %-26s %s\n", s->name, s->summary);
}

static void command(FILE *f, const struct tctl_command *c)
{
	char name[64];
	tctl_command_name(c, name, sizeof(name));
	fprintf(f, "Usage: " TCTL_PROG " [GLOBAL OPTIONS] %s%s%s\n", name, *c->synopsis ? " " : "",
		c->synopsis);
	fprintf(f, "%c%s", toupper((unsigned char)c->summary[0]), c->summary + 1);
	if (c->method_arg)
		fprintf(f, " (method %s; with %s, %s)", c->method, c->args[c->nreq], c->method_arg);
	else if (c->method)
		fprintf(f, " (method %s)", c->method);
	fprintf(f, ".\n");
	if (c->help)
		fprintf(f, "\n%s%s", c->help[0] == ' ' ? "Options:\n" : "", c->help);
	if (c->method) {
		method_params(f, c->method);
		method_params(f, c->method_arg);
	} else {
		method_list(f);
	}
	fprintf(f, "\n" GLOBAL_HELP);
}

void tctl_usage(FILE *f, const struct tctl_request *req)
{
	if (req->cmd)
		command(f, req->cmd);
	else if (req->group)
		group(f, req->group);
	else
		top(f);
}
