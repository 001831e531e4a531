/* dsh: the DIMMnet Shell — options, backend, modes, exit status.
 *
 *   dsh [options] [NPROCS PID WID] [FILE.dsh]
 *
 * Exit status: 0 every command and assertion succeeded; 1 a command or an
 * assertion failed; 2 usage error; 3 the backend could not be opened.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dsh.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dsh [options] [NPROCS PID WID] [FILE|-]\n"
		"  -b, --backend SPEC   backend (default: $DSH_BACKEND, else sim):\n");
	unsigned n = 0;
	const struct dnet_backend_desc *b = dnet_backends(&n);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "                         %-28s %s\n", b[i].synopsis, b[i].help);
	fprintf(f,
		"  -N, --nodes N        nodes of the embedded emulator (default 2)\n"
		"  -c 'COMMANDS'        run commands (separated by newlines or ';') and exit\n"
		"  -f FILE              run a script (also: a FILE.dsh argument, or a non-terminal stdin)\n"
		"  -e                   stop at the first failed command or assertion (set -e)\n"
		"  -n, --check          read and check the script or -c commands, run nothing (like sh -n)\n"
		"  -o, --output FILE    write standard output to FILE (%%r: the rank, %%%%: a %%)\n"
		"      --summary        always end with the summary line (or object), also when all passed\n"
		"  -j, --json           one JSON object per command on stdout (schema dsh/1)\n"
		"  -x, --echo           print each command after the prompt, as in a session transcript\n"
		"      --gap DURATION   virtual time let pass after each command (default 10us)\n"
		"      --base ADDR      address printed for device offset 0 (default 0x4213c000)\n"
		"      --timeout DUR    default timeout of waits (default 1s)\n"
		"  -h, --help           this help;  -V, --version  versions\n"
		"NPROCS PID WID: total processes, own PID, own WID (0 or 1: selects the sub-areas).\n"
		"Exit status: 0 ok, 1 a command or assertion failed, 2 usage error, 3 backend not opened.\n");
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

static void cleanup(struct dsh *d)
{
	if (d->shadow) {
		for (unsigned i = 0; i < d->nshadow; i++) {
			struct dsh_shadow *s = d->shadow[i];
			if (!s)
				continue;
			for (unsigned w = 0; w < DNET_NWID; w++) {
				free(s->reg[w]);
				free(s->reg_has[w]);
			}
			free(s);
		}
		free(d->shadow);
	}
	dsh_vars_free(d);
	dsh_sync_free(d);
	dsh_snaps_free(d);
	if (d->dev)
		dnet_close(d->dev);
}

int main(int argc, char **argv)
{
	static struct dsh dd;
	struct dsh *d = &dd;
	d->gap_ns = DSH_DEFAULT_GAP_NS;
	d->base = DSH_DEFAULT_BASE;
	d->timeout_ns = DSH_DEFAULT_TIMEOUT_NS;
	d->nprocs = 1;
	const char *cmds = NULL, *file = NULL;
	static char specbuf[512];
	uint64_t nodes = 0;

	enum { O_GAP = 256, O_BASE, O_TIMEOUT, O_SUMMARY };
	static const struct option lo[] = {
		{ "backend", required_argument, NULL, 'b' }, { "nodes", required_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'j' }, { "echo", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ "gap", required_argument, NULL, O_GAP }, { "base", required_argument, NULL, O_BASE },
		{ "timeout", required_argument, NULL, O_TIMEOUT }, { "check", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' }, { "summary", no_argument, NULL, O_SUMMARY },
		{ NULL, 0, NULL, 0 },
	};
	struct dnet_err e = { 0 };
	int o;
	opterr = 0;
	bool check_only = false, want_summary = false;
	const char *outfile = NULL;
	while ((o = getopt_long(argc, argv, "b:N:c:f:ejno:xhV", lo, NULL)) != -1) {
		switch (o) {
		case 'b': d->spec = optarg; break;
		case 'N':
			if (dnet_parse_u64(optarg, 3072, &nodes, "nodes", &e) < 0 || nodes == 0)
				return usage_error("-N: %s", e.msg[0] ? e.msg : "at least 1 node");
			break;
		case 'c':
			if (cmds)
				return usage_error("%s", "-c given twice");
			cmds = optarg;
			break;
		case 'f':
			if (file)
				return usage_error("%s", "-f given twice");
			file = optarg;
			break;
		case 'e': d->bail = true; break;
		case 'n': check_only = true; break;
		case 'o': outfile = optarg; break;
		case O_SUMMARY: want_summary = true; break;
		case 'j': d->json = true; break;
		case 'x': d->echo = true; break;
		case 'h': usage(stdout); return 0;
		case 'V':
			printf("%s\ndsh %s, libdnet %s\n", DSH_ORIG_VERSION, DSH_VERSION, dnet_version());
			return 0;
		case O_GAP:
			if (dnet_parse_duration(optarg, &d->gap_ns, "--gap", &e) < 0)
				return usage_error("%s", e.msg);
			break;
		case O_TIMEOUT:
			if (dnet_parse_duration(optarg, &d->timeout_ns, "--timeout", &e) < 0)
				return usage_error("%s", e.msg);
			break;
		case O_BASE: {
			uint64_t b;
			if (dnet_parse_u64(optarg, UINT32_MAX - DNET_MAP_SIZE, &b, "--base", &e) < 0)
				return usage_error("%s", e.msg);
			d->base = (uint32_t)b;
			break;
		}
		case '?':
		default:
			if (optopt && optopt < 256 && strchr("bNcfo", optopt))
				return usage_error("option -%s needs an argument", (char[]){ (char)optopt, 0 });
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	/* positional: [NPROCS PID WID] [FILE.dsh] */
	int np = argc - optind;
	/* The script is the last positional: any file (not only *.dsh), or
	 * "-" for standard input; NPROCS PID WID come before it. */
	if (np == 1 || np == 4 || (np > 0 && ends_with(argv[argc - 1], ".dsh"))) {
		if (file)
			return usage_error("%s", "both -f and a script argument given");
		file = argv[argc - 1];
		np--;
	}
	if (np != 0 && np != 3)
		return usage_error("expected NPROCS PID WID (three numbers), got '%s'", argv[optind]);
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
		d->nprocs = (unsigned)v[0];
		d->pid = (unsigned)v[1];
		d->wid = (unsigned)v[2];
	}
	if (cmds && file)
		return usage_error("%s", "-c and a script are exclusive");

	/* backend spec */
	const char *spec = d->spec;
	if (!spec)
		spec = getenv("DSH_BACKEND");
	if (!spec || !*spec)
		spec = "sim";
	bool is_sim = strncmp(spec, "sim", 3) == 0 && (spec[3] == 0 || spec[3] == ':');
	if (nodes && !is_sim)
		return usage_error("-N applies to the sim backend, not '%s'", spec);
	if (is_sim && !strstr(spec, "nodes=")) {
		snprintf(specbuf, sizeof(specbuf), "%s%snodes=%" PRIu64, spec, spec[3] ? "," : ":",
			 nodes ? nodes : 2);
		spec = specbuf;
	} else if (is_sim && nodes) {
		return usage_error("%s", "-N and nodes= in the backend spec are both given");
	}
	FILE *script = NULL;
	if (file) {
		script = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
		if (!script) {
			fprintf(stderr, "dsh: cannot open script '%s': %s\n", file, strerror(errno));
			return DSH_EXIT_USAGE;
		}
	}
	if (dnet_open(spec, &d->dev, &e) < 0 || !d->dev) {
		fprintf(stderr, "dsh: cannot open backend '%s': %s\n", spec, e.msg);
		if (script && script != stdin)
			fclose(script);
		return DSH_EXIT_BACKEND;
	}
	d->spec = spec;
	d->caps = dnet_dev_caps(d->dev);
	char serr[256];
	if (dsh_sync_init(d, serr, sizeof serr) < 0 || dsh_sync_attach(d, serr, sizeof serr) < 0) {
		fprintf(stderr, "dsh: %s\n", serr);
		cleanup(d);
		return DSH_EXIT_USAGE;
	}
	if (outfile && redirect_output(outfile, d->rank) < 0) {
		cleanup(d);
		return DSH_EXIT_USAGE;
	}
	{
		char num[16];
		snprintf(num, sizeof num, "%u", d->rank);
		dsh_var_set(d, "rank", num);
		snprintf(num, sizeof num, "%u", d->size);
		dsh_var_set(d, "size", num);
	}
	d->regs = dnet_regs(&d->nregs);
	d->nshadow = dnet_node_count(d->dev);
	d->shadow = calloc(d->nshadow ? d->nshadow : 1, sizeof(*d->shadow));
	if (!d->shadow) {
		fprintf(stderr, "dsh: out of memory\n");
		cleanup(d);
		return DSH_EXIT_BACKEND;
	}

	if (!isatty(STDIN_FILENO) || cmds || script)
		dsh_batch_signals();
	if (check_only && !cmds && !script)
		return usage_error("%s", "-n checks a script or -c commands: give one");
	if (cmds) {
		/* -c commands are checked whole too, before any of them runs. */
		int nerr = dsh_check_text(d, cmds, strlen(cmds), "-c");
		if (nerr) {
			dsh_not_run(d, "-c", nerr);
			cleanup(d);
			return DSH_EXIT_USAGE;
		}
		if (!check_only)
			dsh_run_string(d, cmds, "-c");
	} else if (script) {
		int rc = dsh_run_checked(d, script, file, check_only);
		if (script != stdin)
			fclose(script);
		if (rc == DSH_NOT_RUN) {
			cleanup(d);
			return DSH_EXIT_USAGE;
		}
	} else if (isatty(STDIN_FILENO)) {
		d->interactive = true;
		dsh_interactive(d);
	} else {
		dsh_run_stream(d, stdin, "<stdin>");
	}
	int sig = dsh_term_signal();
	/* The summary also when a command failed without any assertion, so a
	 * reader of the log is not told "0 failed" about a failed run. */
	if (want_summary || d->asserts_pass + d->asserts_fail > 0 || d->errors > 0 || (sig && d->json))
		out_summary(d);
	fflush(stdout);
	int rc = DSH_EXIT_OK;
	if (!d->interactive && (d->failures > 0 || d->asserts_fail > 0))
		rc = DSH_EXIT_FAIL;
	cleanup(d);
	if (sig) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return rc;
}
