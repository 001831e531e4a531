/* dsh: the DIMMnet Shell — options, backend, modes, exit status.
 *
 *   dsh [options] [NPROCS PID WID] [FILE.dsh]
 *   dsh [options] replay JOURNAL
 *   dsh [options] probe [sysfs=PATH] [dump=FILE] [id=VVVV:DDDD,...]
 *
 * Exit status: 0 every command and assertion succeeded; 1 a command or an
 * assertion failed; 2 usage error; 3 the backend could not be opened.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dsh.h"
#include "journal.h"
#include "../common/outfile.h"
#include "../common/optsuggest.h"
#include "sigtime.h"
#include "../common/optlist.h" /* --list-options */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dsh [options] [NPROCS PID WID] [FILE|-]\n"
		"       dsh [options] replay JOURNAL   (run a --journal on the emulator: the first divergence,\n"
		"                                      and the recorded session's verdict)\n"
		"       dsh [options] probe [ARGS]     (where a board can be: chipset, DIMM decode, PCI BARs;\n"
		"                                      ARGS as the command probe: sysfs= dump= id=)\n"
		"  -b, --backend SPEC   backend (default: $DSH_BACKEND, else sim):\n");
	unsigned n = 0;
	const struct dnet_backend_desc *b = dnet_backends(&n);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "                         %-28s %s\n", b[i].synopsis, b[i].help);
	fprintf(f,
		"  -N, --nodes N        nodes of the embedded emulator (default 2, at most 3071)\n"
		"  -c, --command 'CMDS' run commands (separated by newlines or ';'); may be repeated\n"
		"  -f, --file FILE      run a script (- is standard input); may be repeated; -c and -f run\n"
		"                       in the order given, then a FILE argument\n"
		"  -i, --interactive    stay interactive (the prompt) after the commands and scripts\n"
		"  -e, --errexit        stop at the first failed command or assertion (set -e)\n"
		"  -n, --check          read and check the scripts and -c commands, and the files they\n"
		"                       source, run nothing (like sh -n)\n"
		"  -j, --json           one JSON object per command on stdout (schema dsh/1)\n"
		"      --pretty         with --json: indented objects\n"
		"  -o, --output FILE    write standard output to FILE (%%r: the rank, %%%%: a %%)\n"
		"                       (FILE - is standard output, for -o, --journal and --trace; a journal\n"
		"                       or trace there moves dsh's own output to standard error)\n"
		"      --summary        always end with the summary line (or object), also when all passed\n"
		"  -x, --echo           print each command after the prompt, as in a session transcript\n"
		"      --norc           do not read ~/.dshrc at an interactive start\n"
		"      --gap DUR        virtual time let pass after each command (default 10us)\n"
		"      --base ADDR      address printed for device offset 0 (default 0x4213c000)\n"
		"      --timeout DUR    default timeout of waits (default 1s)\n"
		"      --max-time DUR   limit on the real time of the whole run: past it the command\n"
		"                       running stops, nothing more runs, exit 1\n"
		"      --dry-run        touch no device: print every access (address, width, value,\n"
		"                       region) instead; reads give 0, waits are taken as met\n"
		"      --journal FILE   record every device access with its result in FILE (for replay)\n"
		"      --trace FILE     the emulator writes a Chrome trace-event / Perfetto JSON of every\n"
		"                       host access and primitive stage in virtual time to FILE\n"
		"  -h, --help           this help;  -V, --version  versions\n"
		"  --list-options       every option, one a line (for shell completion)\n"
		"  --list-backends      every backend name, one a line\n"
		"DUR: a number and a unit, ns us ms s m (or min) h: 10us, 1s, 5m; a bare number is\n"
		"refused (0 aside).\n"
		"NPROCS PID WID: total processes, own PID, own WID (0 or 1: selects the sub-areas).\n"
		"Exit status: 0 ok, 1 a command or assertion failed, 2 usage error or a script that does not\n"
		"pass the check, 3 backend not opened, N after 'exit N', 128+N a signal.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "dsh: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(dsh --help for usage)\n");
	return DSH_EXIT_USAGE;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

#define DSH_MAX_SOURCES 64

/* A -c string or a script, read whole before anything runs. */
struct source {
	bool file;
	const char *arg;
	const char *name;   /* "-c", the path, "<stdin>" */
	char *text;
	size_t len;
};

static int load_source(struct dsh *d, struct source *s)
{
	if (!s->file) {
		s->name = "-c";
		s->len = strlen(s->arg);
		s->text = strdup(s->arg);
		if (!s->text) {
			fprintf(stderr, "dsh: out of memory\n");
			return -1;
		}
		return 0;
	}
	bool in = strcmp(s->arg, "-") == 0;
	s->name = in ? "<stdin>" : s->arg;
	FILE *f = in ? stdin : fopen(s->arg, "r");
	if (!f) {
		fprintf(stderr, "dsh: cannot open script '%s': %s\n", s->arg, strerror(errno));
		return -1;
	}
	int rc = dsh_load_script(d, s->name, f, &s->text, &s->len);
	if (!in)
		fclose(f);
	return rc;
}

static void free_sources(struct source *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(s[i].text);
		s[i].text = NULL;
	}
}

/* ~/.dshrc (an interactive start, unless --norc): put before the others. */
static void load_rc(struct dsh *d, struct source *src, unsigned *nsrc)
{
	const char *home = getenv("HOME");
	static char path[4096];
	if (!home || !*home || *nsrc == DSH_MAX_SOURCES)
		return;
	snprintf(path, sizeof path, "%s/.dshrc", home);
	if (access(path, F_OK) != 0)
		return;
	memmove(src + 1, src, *nsrc * sizeof *src);
	memset(src, 0, sizeof *src);
	src->file = true;
	src->arg = path;
	if (load_source(d, src) < 0) {
		memmove(src, src + 1, *nsrc * sizeof *src);
		return;
	}
	(*nsrc)++;
}

/* The whole-input check of every source (-n: also the files they source,
 * D-CHECK-SOURCES): the number of errors. */
static int check_sources(struct dsh *d, const struct source *src, unsigned nsrc, bool check_only)
{
	int nerr = 0;
	for (unsigned i = 0; i < nsrc; i++)
		nerr += check_only ? dsh_check_tree(d, src[i].text, src[i].len, src[i].name)
				   : dsh_check_text(d, src[i].text, src[i].len, src[i].name);
	return nerr;
}

/* -o FILE: standard output goes to FILE, "%r" replaced by the rank (one
 * file per rank under a launcher that merges the ranks' outputs). */
static int redirect_output(const char *pattern, unsigned rank)
{
	char path[4096];
	size_t n = 0;
	for (const char *p = pattern; *p; p++) {
		int w;
		if (p[0] == '%' && p[1] == 'r') {
			w = snprintf(path + n, sizeof path - n, "%u", rank);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			w = snprintf(path + n, sizeof path - n, "%%");
			p++;
		} else {
			w = snprintf(path + n, sizeof path - n, "%c", *p);
		}
		if (w < 0 || (size_t)w >= sizeof path - n) {
			fprintf(stderr, "dsh: -o: path too long\n");
			return -1;
		}
		n += (size_t)w;
	}
	if (!freopen(path, "w", stdout)) {
		fprintf(stderr, "dsh: -o: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}


/* A run that stops before its first command (the backend, the journal, the
 * synchronisation set-up) still writes, with --json, its failed object
 * (cmd WHAT, the message in d->cur.errmsg) and the summary: a reader of the
 * JSON must not see an empty output, which reads as nothing failed
 * (docs/json-schema.md). */
static void json_setup_failure(struct dsh *d, const char *what, const char *arg)
{
	if (!d->io.json)
		return;
	struct dsh_args a = { .argc = arg ? 2 : 1 };
	a.argv[0] = (char *)what;
	a.argv[1] = (char *)arg;
	d->cur.have_err = true;
	out_json_command(d, &a, false);
	d->run.failures++;
	d->run.errors++;
	struct dsh_run_verdict v;
	dsh_run_verdict(d, &v);
	out_json_summary(d, &v);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static struct dsh dd;
	struct dsh *d = &dd;
	d->opts.gap_ns = DSH_DEFAULT_GAP_NS;
	d->opts.base = DSH_DEFAULT_BASE;
	d->opts.timeout_ns = DSH_DEFAULT_TIMEOUT_NS;
	d->ranks.sync_area = DSH_SYNC_AREA;
	d->opts.nprocs = 1;
	d->run.quit_code = -1;
	static char specbuf[512];
	uint64_t nodes = 0;
	const char *trace = NULL;   /* --trace FILE: the emulator's Chrome trace */

	enum { O_GAP = 256, O_BASE, O_TIMEOUT, O_SUMMARY, O_PRETTY, O_NORC, O_MAXTIME, O_DRY, O_JOURNAL, O_TRACE, O_LIST, O_LIST_BACKENDS };
	static const struct option lo[] = {
		{ "backend", required_argument, NULL, 'b' }, { "nodes", required_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'j' }, { "echo", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ "gap", required_argument, NULL, O_GAP }, { "base", required_argument, NULL, O_BASE },
		{ "timeout", required_argument, NULL, O_TIMEOUT }, { "check", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' }, { "summary", no_argument, NULL, O_SUMMARY },
		{ "command", required_argument, NULL, 'c' }, { "file", required_argument, NULL, 'f' },
		{ "errexit", no_argument, NULL, 'e' }, { "interactive", no_argument, NULL, 'i' },
		{ "pretty", no_argument, NULL, O_PRETTY }, { "norc", no_argument, NULL, O_NORC },
		{ "max-time", required_argument, NULL, O_MAXTIME },
		{ "dry-run", no_argument, NULL, O_DRY }, { "journal", required_argument, NULL, O_JOURNAL },
		{ "trace", required_argument, NULL, O_TRACE },
		{ "list-options", no_argument, NULL, O_LIST },
		{ "list-backends", no_argument, NULL, O_LIST_BACKENDS },
		{ NULL, 0, NULL, 0 },
	};
	struct dnet_err e = { 0 };
	int o;
	opterr = 0;
	bool check_only = false, want_summary = false, stay = false, norc = false;
	uint64_t max_time = 0;
	const char *outfile = NULL, *journal = NULL;
	bool dry = false;
	static struct source src[DSH_MAX_SOURCES];
	unsigned nsrc = 0;
	static const char optstring[] = "b:N:c:f:eijno:xhV";
	for (int before = optind; (o = getopt_long(argc, argv, optstring, lo, NULL)) != -1; before = optind) {
		switch (o) {
		case O_LIST: opt_list(stdout, optstring, lo); return 0;
		case O_LIST_BACKENDS: {
			unsigned nb = 0;
			const struct dnet_backend_desc *bd = dnet_backends(&nb);
			for (unsigned i = 0; i < nb; i++)
				printf("%s\n", bd[i].name);
			return 0;
		}
		case 'b': d->opts.spec = optarg; break;
		case O_TRACE: trace = optarg; break;
		case 'N':
			if (dnet_parse_u64(optarg, 3071, &nodes, "nodes", &e) < 0 || nodes == 0)
				return usage_error("-N: %s", e.msg[0] ? e.msg : "at least 1 node");
			break;
		case 'c':
		case 'f':
			if (nsrc == DSH_MAX_SOURCES)
				return usage_error("more than %s -c and -f options", "64");
			src[nsrc].file = o == 'f';
			src[nsrc++].arg = optarg;
			break;
		case 'i': stay = true; break;
		case O_PRETTY: d->io.pretty = true; break;
		case O_NORC: norc = true; break;
		case O_DRY: dry = true; break;
		case O_JOURNAL: journal = optarg; break;
		case O_MAXTIME:
			if (dnet_parse_duration(optarg, &max_time, "--max-time", &e) < 0 || max_time == 0)
				return usage_error("%s", e.msg[0] ? e.msg : "--max-time: at least 1ns");
			break;
		case 'e': d->opts.bail = true; break;
		case 'n': check_only = true; break;
		case 'o': outfile = optarg; break;
		case O_SUMMARY: want_summary = true; break;
		case 'j': d->io.json = true; break;
		case 'x': d->opts.echo = true; break;
		case 'h': usage(stdout); return 0;
		case 'V':
			printf("dsh %s (libdnet %s)\n%s\n", DSH_VERSION, dnet_version(), DSH_ORIG_VERSION);
			return 0;
		case O_GAP:
			if (dnet_parse_duration(optarg, &d->opts.gap_ns, "--gap", &e) < 0)
				return usage_error("%s", e.msg);
			break;
		case O_TIMEOUT:
			if (dnet_parse_duration(optarg, &d->opts.timeout_ns, "--timeout", &e) < 0)
				return usage_error("%s", e.msg);
			break;
		case O_BASE: {
			uint64_t b;
			if (dnet_parse_u64(optarg, UINT32_MAX - DNET_MAP_SIZE, &b, "--base", &e) < 0)
				return usage_error("%s", e.msg);
			d->opts.base = (uint32_t)b;
			break;
		}
		case '?':
		default:
			if (optopt && optopt < 256 && strchr("bNcfo", optopt))
				return usage_error("option -%s needs an argument", (char[]){ (char)optopt, 0 });
			{
				char m[256];
				return usage_error("%s", opt_unknown_msg(opt_seen(argc, argv, before), lo, m, sizeof m));
			}
		}
	}
	/* dsh [options] replay JOURNAL, dsh [options] probe [ARGS]: the command
	 * of that name with the arguments, each quoted as one word. */
	static char sub_cmd[4200];
	if (argc - optind >= 1 && (strcmp(argv[optind], "replay") == 0 || strcmp(argv[optind], "probe") == 0)) {
		const char *sub = argv[optind];
		bool replay = sub[0] == 'r';
		if (replay && argc - optind != 2)
			return usage_error("%s", "replay takes one journal file: dsh replay FILE");
		size_t n = (size_t)snprintf(sub_cmd, sizeof sub_cmd, "%s", sub);
		for (int i = optind + 1; i < argc; i++) {
			if (strlen(argv[i]) > 4096 || strpbrk(argv[i], "'\n;") ||
			    n + strlen(argv[i]) + 4 >= sizeof sub_cmd) {
				fprintf(stderr, "dsh: %s: unusable argument '%s' (no ', ; or line end)\n"
					"(dsh --help for usage)\n", sub, argv[i]);
				return DSH_EXIT_USAGE;
			}
			n += (size_t)snprintf(sub_cmd + n, sizeof sub_cmd - n, " '%s'", argv[i]);
		}
		if (nsrc == DSH_MAX_SOURCES)
			return usage_error("more than %s -c and -f options", "64");
		if (replay)
			d->script.replay_file = argv[optind + 1];
		src[nsrc].file = false;
		src[nsrc++].arg = sub_cmd;
		optind = argc;
	}
	/* positional: [NPROCS PID WID] [FILE|-] */
	const char *file = NULL;
	int np = argc - optind;
	/* The script is the last positional: any file (not only *.dsh), or
	 * "-" for standard input; NPROCS PID WID come before it. */
	if (np == 1 || np == 4 || (np > 0 && ends_with(argv[argc - 1], ".dsh"))) {
		file = argv[argc - 1];
		np--;
	}
	if (np != 0 && np != 3) {
		/* a word that is no number before the script: a second script
		 * (dsh a.dsh b.dsh), not a bad NPROCS */
		for (int i = optind; file && i < argc - 1; i++) {
			uint64_t v;
			struct dnet_err ne = { 0 };
			if (dnet_parse_u64(argv[i], UINT64_MAX, &v, NULL, &ne) < 0) {
				fprintf(stderr, "dsh: more than one script: '%s' and '%s'; dsh runs one FILE argument: "
						"give each with -f (dsh -f %s -f %s runs them in order), or run them "
						"on every rank with dsh-run\n(dsh --help for usage)\n",
					argv[i], file, argv[i], file);
				return DSH_EXIT_USAGE;
			}
		}
		if (file)
			return usage_error("expected NPROCS PID WID (three numbers) before the script, got %s",
					   np == 1 ? "one" : np == 2 ? "two" : "more than three");
		fprintf(stderr, "dsh: expected [NPROCS PID WID] [FILE] (three numbers, then one script), got %d "
				"arguments from '%s'\n(dsh --help for usage)\n", argc - optind, argv[optind]);
		return DSH_EXIT_USAGE;
	}
	if (np == 3) {
		uint64_t v[3];
		static const char *const what[3] = { "NPROCS", "PID", "WID" };
		for (int i = 0; i < 3; i++)
			if (dnet_parse_u64(argv[optind + i], i == 2 ? 1 : 6144, &v[i], what[i], &e) < 0)
				return usage_error("%s", e.msg);
		if (v[0] < 1)
			return usage_error("%s", "NPROCS must be at least 1");
		if (v[1] >= v[0])
			return usage_error("PID %s must be below NPROCS", argv[optind + 1]);
		d->opts.nprocs = (unsigned)v[0];
		d->opts.pid = (unsigned)v[1];
		d->opts.wid = (unsigned)v[2];
	}
	if (file) {
		if (nsrc == DSH_MAX_SOURCES)
			return usage_error("more than %s -c and -f options", "64");
		src[nsrc].file = true;
		src[nsrc++].arg = file;
	}
	unsigned nstdin = 0;
	for (unsigned i = 0; i < nsrc; i++)
		nstdin += src[i].file && strcmp(src[i].arg, "-") == 0;
	if (nstdin > 1)
		return usage_error("%s", "standard input (-) given more than once");

	/* backend spec; shown only redacted (D-RUN-SECRETS) */
	char redacted[1024];
	const char *spec = d->opts.spec;
	if (!spec)
		spec = getenv("DSH_BACKEND");
	if (!spec || !*spec)
		spec = "sim";
	bool is_sim = dnet_spec_is(spec, "sim");
	if (nodes && !is_sim)
		return usage_error("-N applies to the sim backend, not '%s'", dnet_spec_redact(spec, redacted, sizeof redacted));
	if (is_sim && dnet_spec_get(spec, "nodes", NULL, 0, NULL) < 0) {
		char n[24];
		struct dnet_err serr;
		snprintf(n, sizeof n, "%" PRIu64, nodes ? nodes : 2);
		if (dnet_spec_set(spec, "nodes", n, specbuf, sizeof specbuf, &serr) < 0)
			return usage_error("backend spec: %s", serr.msg);
		spec = specbuf;
	} else if (is_sim && nodes) {
		return usage_error("%s", "-N and nodes= in the backend spec are both given");
	}
	/* D-OUT-STDOUT: "-" (or the file standard output is) for -o, --journal,
	 * --trace is standard output; a journal or a trace there takes it whole
	 * and dsh's own output goes to standard error, so one of them only. */
	bool journal_out = out_is_stdout(journal), trace_out = out_is_stdout(trace);
	if (journal_out && trace_out)
		return usage_error("%s", "--journal and --trace both name standard output: give one a file");
	if (outfile && out_is_stdout(outfile)) {
		if (journal_out || trace_out)
			return usage_error("-o names standard output, which %s takes: give -o a file",
					   journal_out ? "--journal" : "--trace");
		outfile = NULL; /* it is there already */
	}
	if (journal_out)
		journal = "-"; /* decided now: descriptor 1 may move before the journal opens */
	if (trace_out)
		trace = "-"; /* the emulator's trace=-: a stream of its own on descriptor 1 */
	if (trace) {
		/* The emulator writes it (sim option trace=, backends/sim/trace.c). */
		static char tracebuf[1024];
		if (!is_sim)
			return usage_error("--trace needs the emulator (sim), not '%s'",
					   dnet_spec_redact(spec, redacted, sizeof redacted));
		if (strchr(trace, ',') || strlen(spec) + strlen(trace) + 8 >= sizeof tracebuf)
			return usage_error("--trace: unusable file name '%s' (no commas)", trace);
		snprintf(tracebuf, sizeof tracebuf, "%s%strace=%s", spec, spec[3] ? "," : ":", trace);
		spec = tracebuf;
	}
	/* Every script and -c string is read before the backend opens. */
	for (unsigned i = 0; i < nsrc; i++)
		if (load_source(d, &src[i]) < 0)
			return DSH_EXIT_USAGE;
	if ((dry ? dnet_open_dry(spec, &d->dev, &e) : dnet_open(spec, &d->dev, &e)) < 0 || !d->dev) {
		d->dev = NULL;
		/* A script that fails the check would not run on any backend: that
		 * is its verdict (exit 2), as where the backend opens (the check
		 * needs no device). */
		int nerr = check_sources(d, src, nsrc, check_only);
		if (nerr) {
			dsh_not_run(d, nsrc == 1 ? src[0].name : "the commands", nerr);
			free_sources(src, nsrc);
			return DSH_EXIT_USAGE;
		}
		d->cur.have_err = true;
		snprintf(d->cur.errmsg, sizeof d->cur.errmsg, "cannot open backend '%s': %s",
			 dnet_spec_redact(spec, redacted, sizeof redacted), e.msg);
		fprintf(stderr, "dsh: %s\n", d->cur.errmsg);
		d->run.backend_unopened = true;
		json_setup_failure(d, "backend", redacted);
		free_sources(src, nsrc);
		return DSH_EXIT_BACKEND;
	}
	if (trace_out && !out_stdout_take()) { /* the trace has descriptor 1; dsh's output to stderr */
		fprintf(stderr, "dsh: --trace -: %s\n", strerror(errno));
		free_sources(src, nsrc);
		dsh_release(d);
		return DSH_EXIT_USAGE;
	}
	d->opts.spec = spec;
	d->opts.dry = dry;
	d->caps = dnet_dev_caps(d->dev);
	/* Ctrl-C, SIGTERM/SIGHUP and --max-time stop every blocking call of
	 * libdnet (a sleep, a wait, a poll) within a poll interval. */
	dnet_set_stop(d->dev, dsh_stop_hook, d);
	/* The journal and the dry run see every access from here on. */
	if (dry)
		dsh_dry_start(d, d->io.json ? stderr : stdout);
	if (journal) {
		char jerr[512];
		if (dsh_journal_start(d, journal, jerr, sizeof jerr) < 0) {
			fprintf(stderr, "dsh: %s\n", jerr);
			snprintf(d->cur.errmsg, sizeof d->cur.errmsg, "%s", jerr);
			d->run.setup_failed = true;
			json_setup_failure(d, "--journal", NULL);
			free_sources(src, nsrc);
			dsh_release(d);
			return DSH_EXIT_USAGE;
		}
	}
	char serr[256];
	if (dsh_sync_init(d, serr, sizeof serr) < 0 || dsh_sync_attach(d, serr, sizeof serr) < 0) {
		fprintf(stderr, "dsh: %s\n", serr);
		snprintf(d->cur.errmsg, sizeof d->cur.errmsg, "%s", serr);
		d->run.setup_failed = true;
		json_setup_failure(d, "sync", NULL);
		free_sources(src, nsrc);
		dsh_release(d);
		return DSH_EXIT_USAGE;
	}
	if (outfile && redirect_output(outfile, d->ranks.rank) < 0) {
		dsh_release(d);
		return DSH_EXIT_USAGE;
	}
	{
		char num[16];
		snprintf(num, sizeof num, "%u", d->ranks.rank);
		dsh_var_set(d, "rank", num);
		snprintf(num, sizeof num, "%u", d->ranks.size);
		dsh_var_set(d, "size", num);
		/* Ring neighbours for bring-up scripts (no arithmetic in dsh):
		 * ranks and the CLIDs they drive. */
		unsigned next = (d->ranks.rank + 1) % d->ranks.size, prev = (d->ranks.rank + d->ranks.size - 1) % d->ranks.size;
		snprintf(num, sizeof num, "%u", next);
		dsh_var_set(d, "next", num);
		snprintf(num, sizeof num, "%u", prev);
		dsh_var_set(d, "prev", num);
		snprintf(num, sizeof num, "%u", d->ranks.peer[d->ranks.rank].node);
		dsh_var_set(d, "clid", num);
		snprintf(num, sizeof num, "%u", d->ranks.peer[next].node);
		dsh_var_set(d, "next_clid", num);
		snprintf(num, sizeof num, "%u", d->ranks.peer[prev].node);
		dsh_var_set(d, "prev_clid", num);
	}
	d->reg.db = dnet_regs(&d->reg.ndb);
	d->reg.nshadow = dnet_node_count(d->dev);
	d->reg.shadow = calloc(d->reg.nshadow ? d->reg.nshadow : 1, sizeof(*d->reg.shadow));
	if (!d->reg.shadow) {
		fprintf(stderr, "dsh: out of memory\n");
		dsh_release(d);
		return DSH_EXIT_BACKEND;
	}

	d->opts.home_node = dnet_node(d->dev);
	bool tty = isatty(STDIN_FILENO);
	bool interactive = (nsrc == 0 && tty) || (stay && tty);
	if (!interactive)
		dsh_batch_signals();
	if (check_only && !nsrc) {
		dsh_release(d);
		return usage_error("%s", "-n checks scripts or -c commands: give one");
	}
	if (stay && !tty) {
		dsh_release(d);
		return usage_error("%s", "-i needs a terminal on standard input");
	}
	/* The rc file of an interactive start runs first; it is checked too. */
	if (interactive && !norc && !check_only)
		load_rc(d, src, &nsrc);
	/* All checked before any runs (issue: half a script applied is worse
	 * than none). */
	int nerr = check_sources(d, src, nsrc, check_only);
	if (nerr) {
		dsh_not_run(d, nsrc == 1 ? src[0].name : "the commands", nerr);
		free_sources(src, nsrc);
		dsh_release(d);
		return DSH_EXIT_USAGE;
	}
	dsh_set_max_time(d, max_time);
	for (unsigned i = 0; i < nsrc && !check_only && !d->run.quit && !d->run.stop && !dsh_term_signal() &&
			     !dsh_out_of_time(d); i++) {
		d->script.sources_after = nsrc - 1 - i; /* exit 0 before the last one fails (cmd_quit) */
		if (!interactive && !dsh_text_has_command(src[i].text, src[i].len))
			dsh_empty_script(d, src[i].name); /* D-SCRIPT-EMPTY: it tests nothing */
		else
			dsh_run_string(d, src[i].text, src[i].name);
	}
	d->script.sources_after = 0;
	if (dsh_out_of_time(d)) {
		char b[24], msg[128];
		snprintf(msg, sizeof msg, "the run reached its --max-time of %s and was stopped",
			 dnet_format_duration(max_time, b, sizeof b));
		d->run.out_of_time = true;
		dsh_late_failure(d, NULL, 0, "max-time", NULL, msg);
	}
	free_sources(src, nsrc);
	if (interactive && !check_only && !d->run.quit && !d->run.stop) {
		d->opts.interactive = true;
		dsh_interactive(d);
	} else if (!nsrc && !tty && !check_only) {
		/* a read error before the first line: nothing ran (exit 2, as -f -) */
		d->run.input_unread = dsh_run_stream(d, stdin, "<stdin>") == DSH_NOT_RUN;
	}
	/* posted commands and pending verdicts are part of the run's verdict:
	 * every outcome still open is resolved before any summary is written */
	dsh_post_sync(d);
	dsh_pending_settle(d);
	struct dsh_run_verdict jv;
	dsh_run_verdict(d, &jv); /* the session's verdict, in the end record (D-REPLAY-VERDICT) */
	if (journal && dsh_journal_stop(&jv) < 0) /* a journal cut short is a result lost */
		dsh_late_failure(d, NULL, 0, "--journal", NULL, "the journal could not be written completely");
	int sig = dsh_term_signal();
	/* The summary also when a command failed without any assertion, so a
	 * reader of the log is not told "0 failed" about a failed run; and
	 * when the script asked to exit, which the summary names. */
	if (want_summary || d->run.asserts_pass + d->run.asserts_fail + d->run.asserts_skipped > 0 || d->run.errors > 0 ||
	    (sig && d->io.json) || (d->run.quit_code >= 0 && !d->opts.interactive)) {
		struct dsh_run_verdict sv;
		dsh_run_verdict(d, &sv);
		out_summary(d, &sv);
	}
	dsh_output_check(d);
	struct dsh_run_verdict v;
	dsh_run_verdict(d, &v);
	int rc = v.exit_status;
	dsh_release(d);
	if (sig)
		term_signal_reraise(sig);
	return rc;
}
