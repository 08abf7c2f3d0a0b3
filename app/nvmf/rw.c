/* SPDX-License-Identifier: MIT */
/*
 * `nvmf read` / `nvmf write`: move a range of a namespace to a file or stdout, or from a
 * file or stdin, with the blocking libnvmf helpers (which split by MDTS). The range is
 * given in blocks (--slba, --nlb: 1's based count) or in bytes (--offset, --length:
 * multiples of the block size); -s stays the port as in every nvme-cli fabrics command.
 * Data moves in chunks of CHUNK bytes through one registered buffer, so any length
 * works in bounded memory (except a write from a pipe with no length given, which has
 * to be read whole first to know its size). With -a repeated, over a multipath handle
 * (conn.c): the same calls, with failover between the paths.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "app/nvmf/cli.h"
#include "util/size.h"

#define CHUNK (4u << 20) /* bytes per blocking call; the library splits further */

static const char read_usage[] =
	"Usage: nvmf read -a ADDR [-a ADDR ...] -n NQN [-s PORT ...] [--ns NSID]\n"
	"                 (--slba LBA --nlb COUNT | [--offset BYTES] --length BYTES) [-o FILE]\n"
	"Read logical blocks of namespace NSID (default 1) to FILE or stdout.\n"
	"  --slba LBA, --nlb COUNT      first block and number of blocks (1's based)\n"
	"  --offset B, --length B       the same in bytes (multiples of the block size;\n"
	"                               K, M, G, T, P suffixes: 4k = 4096; docs/operating.md#sizes)\n"
	"  -o, --output FILE            write the data to FILE instead of stdout\n"
	"  -a/--traddr, -s/--trsvcid, -n/--nqn, -q/--hostnqn, -I/--hostid,\n"
	"  -S/--dhchap-secret, -C/--dhchap-ctrl-secret, -t/--transport, -g/--hdr-digest,\n"
	"  -G/--data-digest, --tls, --tls-key-file, --tls-key, --tls-identity, --tls-compat,\n"
	"  -v/--verbose as for identify\n" CLI_RECOVERY_USAGE CLI_MULTIPATH_USAGE;

static const char write_usage[] =
	"Usage: nvmf write -a ADDR [-a ADDR ...] -n NQN [-s PORT ...] [--ns NSID]\n"
	"                  [--slba LBA [--nlb COUNT] | --offset BYTES [--length BYTES]] [-i FILE]\n"
	"Write FILE or stdin to namespace NSID (default 1) at block LBA (or byte offset). With\n"
	"no count the whole input is written; its size must be a multiple of the block size.\n"
	"  --slba LBA, --nlb COUNT      first block and number of blocks (1's based)\n"
	"  --offset B, --length B       the same in bytes (multiples of the block size)\n"
	"  -i, --input FILE             read the data from FILE instead of stdin\n"
	"  -a/--traddr, -s/--trsvcid, -n/--nqn, -q/--hostnqn, -I/--hostid,\n"
	"  -S/--dhchap-secret, -C/--dhchap-ctrl-secret, -t/--transport, -g/--hdr-digest,\n"
	"  -G/--data-digest, --tls, --tls-key-file, --tls-key, --tls-identity, --tls-compat,\n"
	"  -v/--verbose as for identify\n" CLI_RECOVERY_USAGE CLI_MULTIPATH_USAGE;

int cli_rw_parse_args(int argc, char **argv, bool write, struct cli_rw_opts *o, FILE *err)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "ns", required_argument, NULL, OPT_NS },
		{ "namespace-id", required_argument, NULL, OPT_NS },
		{ "slba", required_argument, NULL, OPT_SLBA },
		{ "nlb", required_argument, NULL, OPT_NLB },
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "length", required_argument, NULL, OPT_LENGTH },
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = write ? "write" : "read";
	char msg[256];
	int key, rc;

	memset(o, 0, sizeof(*o));
	o->nsid = 1;
	o->c.multipath_ok = true;
	optind = 0;
	opterr = 0;
	while ((key = getopt_long(argc, argv,
				  write ? CLI_COMMON_SHORTOPTS "i:" : CLI_COMMON_SHORTOPTS "o:",
				  longopts, NULL)) != -1) {
		const char *name = cli_optname(argv, optind);
		rc = cli_common_opt(&o->c, key, optarg, cmd, name, err);
		if (rc != 1) {
			if (rc)
				return rc;
			continue;
		}
		switch (key) {
		case OPT_NS:
			if ((rc = cli_opt_nsid(optarg, &o->nsid, cmd, err)))
				return rc;
			break;
		case OPT_SLBA:
			if (cli_parse_u64(optarg, 0, UINT64_MAX, &o->slba, msg, sizeof(msg)))
				return cli_usage_error(err, cmd, "--slba: %s", msg);
			o->have_blocks = true;
			break;
		case OPT_NLB:
			if (cli_parse_u64(optarg, 1, UINT32_MAX, &o->nlb, msg, sizeof(msg)))
				return cli_usage_error(err, cmd, "--nlb: block count %s", msg);
			o->have_blocks = o->have_count = true;
			break;
		case OPT_OFFSET:
			if (nvmf_size_parse_msg(optarg, "--offset", &o->offset, msg, sizeof(msg)))
				return cli_usage_error(err, cmd, "%s", msg);
			o->have_bytes = true;
			break;
		case OPT_LENGTH:
			if (nvmf_size_parse_msg(optarg, "--length", &o->length, msg, sizeof(msg)))
				return cli_usage_error(err, cmd, "%s", msg);
			if (!o->length)
				return cli_usage_error(err, cmd, "--length: must be more than 0");
			o->have_bytes = o->have_count = true;
			break;
		case 'o':
		case 'i':
			o->file = optarg;
			break;
		default:
			return cli_usage_error(err, cmd, "unknown option '%s'", name);
		}
	}
	if (o->c.help)
		return CLI_OK;
	if (optind < argc)
		return cli_usage_error(err, cmd, "unexpected argument '%s'", argv[optind]);
	if ((rc = cli_check_common(&o->c, CLI_NQN_NVM, cmd, err)))
		return rc;
	if (o->have_blocks && o->have_bytes)
		return cli_usage_error(err, cmd,
				       "give the range in blocks (--slba, --nlb) or in "
				       "bytes (--offset, --length), not both");
	if (!write && !o->have_count)
		return cli_usage_error(err, cmd, "how much to read: --nlb COUNT or --length BYTES");
	return CLI_OK;
}

int cli_rw_extent(const struct cli_rw_opts *o, const char *cmd, uint64_t nsze, uint32_t block_size,
		  uint64_t input_len, uint64_t *slba, uint64_t *nlb, FILE *err)
{
	uint64_t first, count;
	if (o->have_blocks) {
		first = o->slba;
		if (o->have_count) {
			count = o->nlb;
		} else {
			if (input_len % block_size)
				return cli_usage_error(err, cmd,
						       "the input is %" PRIu64 " bytes, not a "
						       "multiple of the block size (%u bytes)",
						       input_len, block_size);
			count = input_len / block_size;
		}
	} else {
		uint64_t len = o->have_count ? o->length : input_len;
		if (o->offset % block_size)
			return cli_usage_error(err, cmd,
					       "--offset %" PRIu64 " is not a multiple of "
					       "the block size (%u bytes)",
					       o->offset, block_size);
		if (len % block_size)
			return cli_usage_error(err, cmd,
					       "%s %" PRIu64 " is not a multiple of the "
					       "block size (%u bytes)",
					       o->have_count ? "--length" : "the input length", len,
					       block_size);
		first = o->offset / block_size;
		count = len / block_size;
	}
	if (!count)
		return cli_usage_error(err, cmd, "nothing to %s: the input is empty", cmd);
	if (first >= nsze || count > nsze - first)
		return cli_usage_error(err, cmd,
				       "blocks %" PRIu64 "..%" PRIu64 " are beyond the "
				       "end of namespace %u (%" PRIu64 " blocks of %u bytes)",
				       first, first + count - 1, o->nsid, nsze, block_size);
	*slba = first;
	*nlb = count;
	return CLI_OK;
}

/* Read all of @f into a malloc'ed buffer (a pipe: its length is known only at EOF). */
static int slurp(FILE *f, uint8_t **data, uint64_t *len)
{
	size_t cap = 1 << 20, n = 0;
	uint8_t *p = malloc(cap);
	if (!p)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			uint8_t *q = realloc(p, cap * 2);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
			cap *= 2;
		}
		size_t got = fread(p + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f)) {
				free(p);
				return -EIO;
			}
			break;
		}
	}
	*data = p;
	*len = n;
	return 0;
}

/* The input's remaining length when it is a regular file, else UINT64_MAX. */
static uint64_t input_size(FILE *f)
{
	struct stat st;
	int fd = fileno(f);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return UINT64_MAX;
	off_t pos = ftello(f);
	return pos >= 0 && pos <= st.st_size ? (uint64_t)(st.st_size - pos) : UINT64_MAX;
}

static int io_error(const struct cli_env *env, struct cli_conn *k, const char *cmd, uint64_t lba,
		    uint64_t n, int rc)
{
	char what[160];
	snprintf(what, sizeof(what), "%s of %" PRIu64 " blocks at lba %" PRIu64, cmd, n, lba);
	return cli_io_error(env->err, what, rc, cli_conn_errmsg(k));
}

/* Move @nlb blocks from @slba in chunks; the data comes from @src (write, when not
 * NULL), from @in (write), or goes to @out (read). */
static int transfer(const struct cli_env *env, struct cli_conn *k, bool write,
		    const struct cli_rw_opts *o, uint32_t bsz, uint64_t slba, uint64_t nlb,
		    const uint8_t *src, FILE *in, FILE *out)
{
	const char *cmd = write ? "write" : "read";
	uint64_t per = CHUNK / bsz ? CHUNK / bsz : 1;
	size_t buflen = (size_t)(per < nlb ? per : nlb) * bsz;
	uint8_t *buf = aligned_alloc(4096, (buflen + 4095) & ~(size_t)4095);
	if (!buf)
		return cli_lib_error(env->err, cmd, -ENOMEM, NULL);
	/* Zero copy when the library can register it; the bounce pool otherwise. */
	bool reg = cli_conn_mem_register(k, buf, buflen) == 0;
	int rc = CLI_OK;
	for (uint64_t done = 0; done < nlb && rc == CLI_OK;) {
		uint64_t n = nlb - done < per ? nlb - done : per;
		size_t bytes = (size_t)n * bsz;
		uint64_t lba = slba + done;
		int lrc;
		if (write) {
			if (src) {
				memcpy(buf, src + done * bsz, bytes);
			} else {
				size_t got = fread(buf, 1, bytes, in);
				if (got != bytes) {
					fprintf(env->err,
						"nvmf: write: %s ended after %" PRIu64 " bytes; "
						"%" PRIu64 " expected\n",
						o->file ? o->file : "stdin", done * bsz + got,
						nlb * bsz);
					rc = CLI_ERR;
					break;
				}
			}
			lrc = cli_conn_write(k, o->nsid, lba, (uint32_t)n, buf);
		} else {
			lrc = cli_conn_read(k, o->nsid, lba, (uint32_t)n, buf);
		}
		if (lrc) {
			rc = io_error(env, k, cmd, lba, n, lrc);
			break;
		}
		if (!write && fwrite(buf, 1, bytes, out) != bytes) {
			fprintf(env->err, "nvmf: read: writing %s: %s\n",
				o->file ? o->file : "stdout", strerror(errno));
			rc = CLI_ERR;
		}
		done += n;
	}
	if (reg)
		cli_conn_mem_unregister(k, buf);
	free(buf);
	return rc;
}

static int run(int argc, char **argv, const struct cli_env *env, bool write)
{
	const char *cmd = write ? "write" : "read";
	struct cli_rw_opts o;
	int rc = cli_rw_parse_args(argc, argv, write, &o, env->err);
	if (rc)
		return rc;
	if (o.c.help) {
		fputs(write ? write_usage : read_usage, env->out);
		return CLI_OK;
	}

	/* Open the file before connecting: a typo in a path should not cost a connect. */
	FILE *f = write ? env->in : env->out;
	if (o.file && !(f = fopen(o.file, write ? "rb" : "wb"))) {
		fprintf(env->err, "nvmf: %s: cannot open %s: %s\n", cmd, o.file, strerror(errno));
		return CLI_ERR;
	}
	uint8_t *data = NULL;
	uint64_t input_len = UINT64_MAX;
	struct cli_conn k = { 0 };
	if (write && !o.have_count) {
		input_len = input_size(f);
		if (input_len == UINT64_MAX && slurp(f, &data, &input_len)) {
			fprintf(env->err, "nvmf: write: reading %s: %s\n",
				o.file ? o.file : "stdin", strerror(errno ? errno : EIO));
			rc = CLI_ERR;
			goto out;
		}
	}
	if ((rc = cli_conn_open(&o.c, env, cmd, 1, 0, &k)))
		goto out;
	struct nvmf_ns_info ns;
	int lrc = cli_conn_ns_info(&k, o.nsid, &ns);
	if (lrc) {
		char what[64];
		snprintf(what, sizeof(what), "%s: namespace %u", cmd, o.nsid);
		rc = cli_lib_error(env->err, what, lrc, cli_conn_errmsg(&k));
		goto out;
	}
	uint64_t slba = 0, nlb = 0; /* set unless cli_rw_extent fails (then unused) */
	rc = cli_rw_extent(&o, cmd, ns.nsze, ns.block_size, input_len, &slba, &nlb, env->err);
	if (rc)
		goto out;
	rc = transfer(env, &k, write, &o, ns.block_size, slba, nlb, data, f, f);
	if (o.c.verbose)
		cli_conn_print_paths(&k, env->err);
out:
	cli_conn_close(&k);
	free(data);
	if (!o.file) { /* stdin or stdout: the caller's, left open */
		if (!write)
			fflush(f);
	} else if (fclose(f) && rc == CLI_OK) {
		fprintf(env->err, "nvmf: %s: closing %s: %s\n", cmd, o.file, strerror(errno));
		rc = CLI_ERR;
	}
	return rc;
}

int cli_read(int argc, char **argv, const struct cli_env *env)
{
	return run(argc, argv, env, false);
}

int cli_write(int argc, char **argv, const struct cli_env *env)
{
	return run(argc, argv, env, true);
}
