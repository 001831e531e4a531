/* Fuzz target: dsh's script path -- the whole-script check (check.c), the
 * line splitter and tokenizer (args.c), the runner (script.c: units,
 * repeat..end, set -e, variables) and every command it reaches (cmd_*.c),
 * on a fresh embedded emulator (sim:nodes=2) per input, set up as dsh's
 * main() does (dsh/main.c is not linked: it owns main()).
 *
 * Input: [mode] [script text].  mode bit 0 --json, bit 1 -e, bit 2 skip the
 * check (an interactive line is run unchecked), bit 3 --pretty, bit 4 -x.
 * Output goes to /dev/null (stdout and stderr as FILE*s: sanitizer reports
 * still reach fd 2) unless FUZZ_DSH_SHOW is set.  A crash, a sanitizer report or a leak is a finding,
 * and so is a run that outlives its --max-time (MAX_TIME_NS of real time,
 * which every long command is meant to honour) by seconds: the fuzzer's
 * -timeout catches it.  Virtual time is cut by small defaults (--gap 1us,
 * --timeout 100us); a script can still ask for more, --max-time bounds it.
 *
 * Commands that read or write files, fork or probe the machine (bench,
 * replay, source, probe) are stubbed by the link (-Wl,--wrap, Makefile's
 * FUZZ_DSH_WRAP): they fail with a message, as they would on a bad file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"
#include "journal.h"
#include "fuzz.h"

const char fuzz_name[] = "fuzz_dsh";
const unsigned long fuzz_default_iters = 1000;

#define MAX_TIME_NS 200000000ull /* 200 ms of real time per input */

int __wrap_cmd_bench(struct dsh *d, struct dsh_args *a);
int __wrap_cmd_replay(struct dsh *d, struct dsh_args *a);
int __wrap_cmd_source(struct dsh *d, struct dsh_args *a);
int __wrap_cmd_probe(struct dsh *d, struct dsh_args *a);
static int stub(struct dsh *d, struct dsh_args *a)
{
	return dsh_error(d, "%s: not run under the fuzzer", a->argv[0]);
}
int __wrap_cmd_bench(struct dsh *d, struct dsh_args *a) { return stub(d, a); }
int __wrap_cmd_replay(struct dsh *d, struct dsh_args *a) { return stub(d, a); }
int __wrap_cmd_source(struct dsh *d, struct dsh_args *a) { return stub(d, a); }
int __wrap_cmd_probe(struct dsh *d, struct dsh_args *a) { return stub(d, a); }

static void set_num(struct dsh *d, const char *name, unsigned v)
{
	char num[16];
	snprintf(num, sizeof num, "%u", v);
	dsh_var_set(d, name, num);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	if (size < 1)
		return 0;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	char *text = malloc(size);
	if (!text)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	size_t len = size - 1;
	uint8_t mode = data[0];

	static struct dsh dd;
	struct dsh *d = &dd;
	memset(d, 0, sizeof *d);
	d->opts.gap_ns = 1000;
	d->opts.base = DSH_DEFAULT_BASE;
	d->opts.timeout_ns = 100000;
	d->opts.nprocs = 1;
	d->run.quit_code = -1;
	d->io.json = mode & 1;
	d->opts.bail = mode & 2;
	d->io.pretty = mode & 8;
	d->opts.echo = mode & 16;
	d->opts.spec = "sim:nodes=2";
	struct dnet_err e = { 0 };
	if (dnet_open(d->opts.spec, &d->dev, &e) < 0) {
		fprintf(stderr, "fuzz_dsh: %s\n", e.msg);
		abort();
	}
	d->caps = dnet_dev_caps(d->dev);
	char serr[256];
	if (dsh_sync_init(d, serr, sizeof serr) < 0 || dsh_sync_attach(d, serr, sizeof serr) < 0) {
		fprintf(stderr, "fuzz_dsh: %s\n", serr);
		abort();
	}
	set_num(d, "rank", d->ranks.rank);
	set_num(d, "size", d->ranks.size);
	set_num(d, "next", (d->ranks.rank + 1) % d->ranks.size);
	set_num(d, "prev", (d->ranks.rank + d->ranks.size - 1) % d->ranks.size);
	set_num(d, "clid", d->ranks.peer[d->ranks.rank].node);
	d->reg.db = dnet_regs(&d->reg.ndb);
	d->reg.nshadow = dnet_node_count(d->dev);
	d->reg.shadow = calloc(d->reg.nshadow ? d->reg.nshadow : 1, sizeof *d->reg.shadow);
	if (!d->reg.shadow)
		abort();
	d->opts.home_node = dnet_node(d->dev);

	FILE *out = stdout, *err = stderr;
	fflush(stdout);
	fflush(stderr);
	if (!getenv("FUZZ_DSH_SHOW")) /* to see what an input does */
		stdout = stderr = null;
	int nerr = dsh_check_text(d, text, len, "fuzz");
	if (!nerr || (mode & 4)) {
		dsh_set_max_time(d, MAX_TIME_NS);
		dsh_run_string(d, text, "fuzz");
		dsh_post_sync(d); /* as main(): posted commands finish */
		dsh_set_max_time(d, 0);
	}
	if (d->io.json || d->run.errors) {
		struct dsh_run_verdict v;
		dsh_run_verdict(d, &v);
		out_summary(d, &v);
	}
	fflush(null);
	stdout = out;
	stderr = err;
	dsh_release(d);
	free(text);
	return 0;
}

const struct fuzz_seed *fuzz_seeds(size_t *n)
{
#define S(x) { (const uint8_t *)(x), sizeof(x) - 1 }
	static const struct fuzz_seed seeds[] = {
		S("\x00" "llcm_write from=0 it=2 val=0x1234 inc=1\nllcm_read 0 16\nassert last == 0x1234\n"),
		S("\x01" "set x 0x40; ww_write ww=0 from=$x val=0xdead_beef; pw_read 0 8 # comment\n"),
		S("\x02" "prim VS size=0x200 src=0x400 dst=0x600\nwait ctl_status.status_empty == 0 timeout=50us\n"
		  "status\nwait all\n"),
		S("\x00" "repeat 3 i\n  echo \"a;b\" 'c#d' $i\n  sleep 1us\nend\nlh\n"),
		S("\x05" "reg ctl_status\nureg_read module_state\nsreg_read sma_lid\ndecode req 0x4000000200014018\n"),
		S("\x00" "rllcm_write 2 0x100 0x55\n@2 llcm_read 0x100 8\nnode 2\nnode 1\n"),
		S("\x00" "snapshot a\nllcm_write from=8 val=1\nsnapshot b\ndiff a b\nwatch ctl_status 1us 3\n"),
		S("\x01" "send 0 7 size=64\nrecv 0 7 size=64\nstat\ninfo\nfault\namt\n"),
		S("\x00" "expect last == 0\nset -e\nunset x\nhelp llcm_read\nversion\nexit 3\n"),
		S("\x04" "dump llcm 0 64\nsodimm read 0x100 32\npeek llcm 0 64\npoke llcm 8 0x55\n'unterminated\n"),
		S("\x00" "prim RVS dl=2 ef=1 size=128 src=0x1000 dst=0x3000\nwait all\n@2 status 0\nbarrier\n"),
	};
#undef S
	*n = sizeof seeds / sizeof seeds[0];
	return seeds;
}
