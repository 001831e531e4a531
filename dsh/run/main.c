/* dsh-run: run dsh scripts on every rank of a DIMMnet-2 cluster at once.
 *
 *   dsh-run -n N [options] SCRIPT...
 *
 * Each script runs on all ranks together (rank r drives CLID r+1, WID 0,
 * unless a node table says otherwise), then the next script, each from a
 * reset device (isolate.c).  Without a backend or node table dsh-run serves
 * an emulated cluster itself (dnetd, sim:nodes=N, on a private socket, a
 * fresh one for every script) and stops it at the end.  Every process
 * it started is killed on any exit.  Exit status: 0 every rank passed every
 * script, 1 a rank failed or timed out, 2 usage or a report not written (over
 * 1: a missing report is no ordinary failure), 130/143/129 a signal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "dnet/device.h"
#include "dnet/parse.h"
#include "run.h"
#include "../../common/optlist.h" /* --list-options */
#include "../../common/outfile.h"
#include "../../common/optsuggest.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dsh-run -n N [options] SCRIPT...\n"
		"  -n, --ranks N          ranks (1-%d); rank r drives CLID r+1, WID 0\n"
		"  -b, --backend SPEC     backend of every rank (e.g. remote:unix:PATH); default: an\n"
		"                         emulated cluster served by a private dnetd (sim:nodes=N);\n"
		"                         its token=T reaches the ranks as DNET_TOKEN, never on a\n"
		"                         command line, and is shown as token=***\n"
		"      --nodes FILE       node table: RANK HOST BACKEND CLID WID [PGID] per line\n"
		"      --lockstep         the private dnetd gives every node's host its own virtual\n"
		"                         clock and serves the ranks in virtual-time order: the same\n"
		"                         run gives the same virtual times every time\n"
		"      --no-reset         scripts share the device state: one private dnetd for the\n"
		"                         run, no Controller Reset of -b/--nodes backends before each\n"
		"                         script (default: every script starts from a reset device)\n"
		"  -l, --launcher NAME    local (default), mpirun, srun or pdsh; with --nodes, rank r is\n"
		"                         started on the table's HOST for r and must report that it ran\n"
		"                         there\n"
		"      --rcmd NAME        pdsh's rcmd module (e.g. ssh) to reach the table's hosts\n"
		"                         (default: pdsh's own default); only with -l pdsh --nodes\n"
		"  -t, --timeout DUR      per script and rank (default 60s; at least 1ms); a rank\n"
		"                         still running is killed and named\n"
		"      --total-timeout DUR  for the whole run (default none)\n"
		"      --report FILE      CTRF JSON report (docs/reports.md); - (or /dev/stdout): standard\n"
		"                         output, the summary then goes to standard error (also --junit)\n"
		"      --junit FILE       JUnit XML report (not the --report file); a run that cannot\n"
		"                         start writes its tests as errors, a refused command line\n"
		"                         removes an earlier run's reports\n"
		"      --dsh PATH         the dsh to run (default: next to dsh-run, else $PATH)\n"
		"      --dnetd PATH       the dnetd to start (same default)\n"
		"      --keep             keep the private directory of outputs (its path is printed)\n"
		"  -v, --verbose          print every failure (without it: every failure of every rank up\n"
		"                         to 20 lines, then how many more)\n"
		"  -h, --help             this help;  -V, --version\n"
		"  --list-options         every option, one a line (for shell completion)\n"
		"Exit status: 0 all passed, 1 a rank failed or timed out, 2 usage or a report could\n"
		"not be written, 128+N signal N.\n",
		RUN_MAX_RANKS);
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "dsh-run: ");
	fprintf(stderr, msg, arg);
	fprintf(stderr, "\n(dsh-run --help for usage)\n");
	return 2;
}

/* The program next to ours, else the bare name for $PATH. */
static const char *sibling(const char *self, const char *name, char *buf, size_t n)
{
	char exe[PATH_MAX - 16];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (l > 0) {
		exe[l] = 0;
		char *s = strrchr(exe, '/');
		if (s) {
			*s = 0;
			snprintf(buf, n, "%s/%s", exe, name);
			if (access(buf, X_OK) == 0)
				return buf;
		}
	}
	(void)self;
	return name;
}

/* Node table: "RANK HOST BACKEND CLID WID [PGID]" per line, '#' comments,
 * BACKEND "-" for the private dnetd; ranks 0..N-1 each exactly once. */
static int read_table(struct run *r, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "dsh-run: cannot open node table '%s': %s\n", path, strerror(errno));
		return -1;
	}
	struct rank_node *t = calloc(RUN_MAX_RANKS, sizeof *t);
	bool *seen = calloc(RUN_MAX_RANKS, sizeof *seen);
	char line[1024];
	int ln = 0, errs = 0;
	unsigned maxrank = 0, count = 0;
	while (t && seen && fgets(line, sizeof line, f)) {
		ln++;
		char *h = strchr(line, '#');
		if (h)
			*h = 0;
		char rank[32], host[128], be[512], clid[32], wid[32], pgid[32], extra[8];
		int n = sscanf(line, "%31s %127s %511s %31s %31s %31s %7s", rank, host, be, clid, wid, pgid, extra);
		if (n <= 0)
			continue;
		uint64_t rv, cv, wv, pv = 0;
		struct dnet_err e = { 0 };
		if (n < 5 || n > 6) {
			fprintf(stderr, "dsh-run: %s:%d: expected RANK HOST BACKEND CLID WID [PGID]\n", path, ln);
			errs++;
			continue;
		}
		if (dnet_parse_u64(rank, RUN_MAX_RANKS - 1, &rv, "RANK", &e) < 0 ||
		    dnet_parse_u64(clid, 0xbff, &cv, "CLID", &e) < 0 || cv == 0 ||
		    dnet_parse_u64(wid, 1, &wv, "WID", &e) < 0 ||
		    (n == 6 && dnet_parse_u64(pgid, 255, &pv, "PGID", &e) < 0)) {
			fprintf(stderr, "dsh-run: %s:%d: %s\n", path, ln, e.msg[0] ? e.msg : "CLID 0 is reserved");
			errs++;
			continue;
		}
		if (seen[rv]) {
			fprintf(stderr, "dsh-run: %s:%d: rank %s given twice\n", path, ln, rank);
			errs++;
			continue;
		}
		seen[rv] = true;
		count++;
		maxrank = rv > maxrank ? (unsigned)rv : maxrank;
		struct rank_node *x = &t[rv];
		snprintf(x->host, sizeof x->host, "%s", host);
		if (strcmp(be, "-")) {
			if (dnet_spec_tokens(be) > 1) { /* D-SPEC-ONCE: the ranks would never see the second */
				fprintf(stderr, "dsh-run: %s:%d: the backend spec gives token= more than once: give "
					"it once\n", path, ln);
				errs++;
				continue;
			}
			dnet_spec_take_token(be, x->backend, sizeof x->backend, x->token, sizeof x->token);
			dnet_spec_redact(be, x->shown, sizeof x->shown);
		}
		x->clid = (unsigned)cv;
		x->wid = (unsigned)wv;
		x->pgid = (unsigned)pv;
		x->has_pgid = n == 6;
		x->line = ln;
	}
	fclose(f);
	if (!t || !seen) {
		fprintf(stderr, "dsh-run: out of memory\n");
		return -1;
	}
	if (!errs && count == 0) {
		fprintf(stderr, "dsh-run: %s: no ranks\n", path);
		errs++;
	}
	if (!errs && count != maxrank + 1) {
		fprintf(stderr, "dsh-run: %s: ranks must be 0..%u, each once (%u given)\n", path, maxrank, count);
		errs++;
	}
	free(seen);
	/* D-SYNC-PEERS: two ranks on one CLID:WID would share a flag area */
	for (unsigned k = 0; !errs && k < count; k++)
		for (unsigned j = 0; j < k; j++)
			if (t[j].clid == t[k].clid && t[j].wid == t[k].wid) {
				fprintf(stderr, "dsh-run: %s:%d: rank %u is on CLID %u WID %u, as rank %u (line %d): two "
					"ranks on one CLID:WID would share a flag area and pass each other's barriers "
					"(every rank needs its own CLID:WID)\n", path, t[k].line, k, t[k].clid, t[k].wid, j,
					t[j].line);
				errs++;
				break;
			}
	if (errs) {
		free(t);
		return -1;
	}
	if (r->n && r->n != count) {
		fprintf(stderr, "dsh-run: -n %u but the node table has %u ranks\n", r->n, count);
		free(t);
		return -1;
	}
	r->n = count;
	r->table = t;
	return 0;
}

/* pdsh reads -w as a host list: a comma or brackets in a HOST would make
 * other hosts of it, and the ranks' order (%n) would be lost. */
static int pdsh_hosts_check(const struct run *r)
{
	for (unsigned k = 0; k < r->n; k++)
		if (r->table[k].host[strcspn(r->table[k].host, ",[]")]) {
			fprintf(stderr, "dsh-run: %s: rank %u: host '%s' has a character pdsh's -w reads as a host list (',' '[' ']')\n",
				r->table_path, k, r->table[k].host);
			return -1;
		}
	return 0;
}

/* A row "-" is the private dnetd, on a UNIX socket here: a rank the
 * launcher starts on another host could never reach it. */
static int private_rows_check(const struct run *r)
{
	for (unsigned k = 0; k < r->n; k++)
		if (!r->table[k].backend[0] && !host_same(r->self_host, rank_host(r, k))) {
			fprintf(stderr, "dsh-run: %s: rank %u runs on %s, but its backend '-' is dsh-run's private "
					"dnetd, a UNIX socket on this machine (%s): give it a backend that host reaches\n",
				r->table_path, k, rank_host(r, k), r->self_host);
			return -1;
		}
	return 0;
}

/* Every failure of every failed test (capped without -v); a cause shared by many (the private dnetd
 * died, the preflight stopped the run) once, with the ranks it hit. */
/* D-RUN-FAILURES: without -v every failure of every rank, up to this many
 * lines, then "... and N more"; -v lists them all. */
#define FAIL_LINES_MAX 20

static void print_failures(const struct run *r)
{
	size_t nt = (size_t)r->nscripts * r->n;
	unsigned notrun = 0, shown = 0, more = 0;
	for (size_t i = 0; i < nt; i++) {
		const struct result *t = &r->res[i];
		if (t->status == ST_PASSED)
			continue;
		if (t->not_run && r->abort_why[0]) {
			notrun++;
			continue;
		}
		if (t->dnetd_died) { /* one line for the script */
			unsigned m = 0, first = r->n;
			for (size_t j = i - t->rank; j < i - t->rank + r->n; j++)
				if (r->res[j].dnetd_died && r->res[j].status == ST_FAILED) {
					m++;
					first = first < r->res[j].rank ? first : r->res[j].rank;
				}
			const char *cause = strstr(t->message, "the private dnetd");
			if (t->rank == first)
				fprintf(stderr, "dsh-run: FAIL %s: %u rank%s failed: %.*s\n", t->script, m,
					m == 1 ? "" : "s", cause ? (int)strlen(cause) - (cause[-1] == '(') : 0,
					cause ? cause : "");
			continue;
		}
		if (r->verbose || shown < FAIL_LINES_MAX) {
			fprintf(stderr, "dsh-run: FAIL %s\n", t->message);
			shown++;
		} else
			more++;
		for (unsigned k = 1; k < t->nfail; k++) {
			if (!r->verbose && shown >= FAIL_LINES_MAX) {
				more++;
				continue;
			}
			fprintf(stderr, "dsh-run:      rank %u: %s:%d: %s: %s\n", t->rank, t->fail[k].file,
				t->fail[k].line, t->fail[k].cmd, t->fail[k].message);
			shown++;
		}
	}
	if (more)
		fprintf(stderr, "dsh-run: ... and %u more failure%s (-v lists them all)\n", more, more == 1 ? "" : "s");
	if (notrun)
		fprintf(stderr, "dsh-run: %s%u test%s not run: %s\n", r->signal ? "" : "ERROR: ", notrun,
			notrun == 1 ? "" : "s", r->abort_why);
}

/* Our private directory holds files (outputs, logs, the socket) and the
 * launchers' per-script directories of files (rankexec.c). */
static void rm_tree(const char *dir)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	struct dirent *de;
	while ((de = readdir(dp)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    unlinkat(dirfd(dp), de->d_name, 0) != 0 && errno == EISDIR) {
			char sub[PATH_MAX];
			snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
			rm_tree(sub);
		}
	closedir(dp);
	if (rmdir(dir) != 0)
		fprintf(stderr, "dsh-run: could not remove %s: %s\n", dir, strerror(errno));
}

enum { O_NODES = 256, O_TOTAL, O_REPORT, O_JUNIT, O_DSH, O_DNETD, O_KEEP, O_LOCKSTEP, O_NO_RESET, O_RCMD, O_LIST };
static const char optstring[] = "n:b:l:t:vhV";
static const struct option lo[] = {
	{ "ranks", required_argument, NULL, 'n' }, { "backend", required_argument, NULL, 'b' },
	{ "nodes", required_argument, NULL, O_NODES }, { "launcher", required_argument, NULL, 'l' },
	{ "timeout", required_argument, NULL, 't' }, { "total-timeout", required_argument, NULL, O_TOTAL },
	{ "report", required_argument, NULL, O_REPORT }, { "junit", required_argument, NULL, O_JUNIT },
	{ "dsh", required_argument, NULL, O_DSH }, { "dnetd", required_argument, NULL, O_DNETD },
	{ "keep", no_argument, NULL, O_KEEP }, { "verbose", no_argument, NULL, 'v' },
	{ "lockstep", no_argument, NULL, O_LOCKSTEP }, { "no-reset", no_argument, NULL, O_NO_RESET },
	{ "rcmd", required_argument, NULL, O_RCMD },
	{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
	{ "list-options", no_argument, NULL, O_LIST },
	{ NULL, 0, NULL, 0 },
};

/* Why the run stopped before its tests, for every test not run (the first
 * reason only: the later ones follow from it). */
static void run_abort(struct run *r, const char *why)
{
	if (!r->abort_why[0] && !run_signal_caught()) /* a signal is its own reason */
		snprintf(r->abort_why, sizeof r->abort_why, "%s", why);
}

static int run_main(struct run *r, int argc, char **argv);
static bool g_reports_due; /* the command line was taken: the reports will be written */

int main(int argc, char **argv)
{
	static struct run run;
	if (argc > 1 && strcmp(argv[1], "--exec-rank") == 0)
		return rank_exec(argc, argv); /* on a rank, under a launcher */
	rank_env_clear(); /* D-RUN-ENV: every rank, reset and probe gets only what dsh-run sets */
	int rc = run_main(&run, argc, argv);
	/* D-REPORT-PATHS: the command line was refused, no report of this run
	 * can say which tests it had; an earlier run's must not stand for it */
	if (rc == 2 && !g_reports_due)
		reports_remove(argc, argv, optstring, lo, O_REPORT, O_JUNIT);
	return rc;
}

static int run_main(struct run *r, int argc, char **argv)
{
	r->timeout_ms = 60000;
	char dshbuf[PATH_MAX], dnetdbuf[PATH_MAX], selfbuf[PATH_MAX];
	r->dsh = sibling(argv[0], "dsh", dshbuf, sizeof dshbuf);
	r->dnetd = sibling(argv[0], "dnetd", dnetdbuf, sizeof dnetdbuf);
	r->self = sibling(argv[0], "dsh-run", selfbuf, sizeof selfbuf);
	bool keep = false;
	size_t cl = 0;
	for (int i = 0; i < argc && cl + 2 < sizeof r->cmdline; i++) { /* for the report: no secrets */
		char shown[1024];
		cl += (size_t)snprintf(r->cmdline + cl, sizeof r->cmdline - cl, "%s%s", i ? " " : "",
				       dnet_spec_redact(argv[i], shown, sizeof shown));
	}
	struct dnet_err e = { 0 };
	uint64_t v;
	int o;
	opterr = 0;
	for (int before = optind; (o = getopt_long(argc, argv, optstring, lo, NULL)) != -1; before = optind) {
		switch (o) {
		case O_LIST: opt_list(stdout, optstring, lo); return 0;
		case 'n':
			if (dnet_parse_u64(optarg, UINT32_MAX, &v, "-n", &e) < 0 || v == 0)
				return usage_error("%s", e.msg[0] ? e.msg : "-n: at least 1 rank");
			if (v > RUN_MAX_RANKS) {
				fprintf(stderr, "dsh-run: -n %s: at most %d ranks (dsh's synchronisation area, 4 KB of "
					"every node's LLCM, holds one signal word per rank; dsh-run(1), LIMITS)\n", optarg,
					RUN_MAX_RANKS);
				return 2;
			}
			r->n = (unsigned)v;
			break;
		case 'b':
			if (strlen(optarg) >= sizeof r->backend_buf)
				return usage_error("%s", "-b: the backend spec is longer than 511 bytes");
			if (dnet_spec_tokens(optarg) > 1) /* D-SPEC-ONCE: the ranks would never see the second */
				return usage_error("%s", "-b: the backend spec gives token= more than once: give it once");
			/* the token is handed on by environment or file only */
			dnet_spec_take_token(optarg, r->backend_buf, sizeof r->backend_buf, r->token, sizeof r->token);
			dnet_spec_redact(optarg, r->backend_shown, sizeof r->backend_shown);
			r->backend = r->backend_buf;
			break;
		case O_NODES: r->table_path = optarg; break;
		case 'l':
			if (!strcmp(optarg, "local")) r->launcher = L_LOCAL;
			else if (!strcmp(optarg, "mpirun")) r->launcher = L_MPIRUN;
			else if (!strcmp(optarg, "srun")) r->launcher = L_SRUN;
			else if (!strcmp(optarg, "pdsh")) r->launcher = L_PDSH;
			else return usage_error("--launcher '%s': one of local, mpirun, srun, pdsh", optarg);
			break;
		case 't':
		case O_TOTAL:
			if (dnet_parse_duration(optarg, &v, o == 't' ? "--timeout" : "--total-timeout", &e) < 0)
				return usage_error("%s", e.msg);
			if (v < 1000000)
				return usage_error("%s: at least 1ms", o == 't' ? "--timeout" : "--total-timeout");
			*(o == 't' ? &r->timeout_ms : &r->total_timeout_ms) = v / 1000000;
			break;
		case O_REPORT: r->report = optarg; break;
		case O_JUNIT: r->junit = optarg; break;
		case O_DSH: r->dsh = optarg; break;
		case O_DNETD: r->dnetd = optarg; break;
		case O_KEEP: keep = true; break;
		case O_LOCKSTEP: r->lockstep = true; break;
		case O_NO_RESET: r->no_reset = true; break;
		case O_RCMD:
			if (!*optarg || optarg[strspn(optarg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")])
				return usage_error("--rcmd '%s': the name of a pdsh rcmd module (ssh, rsh, exec...)", optarg);
			r->rcmd = optarg;
			break;
		case 'v': r->verbose = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("dsh-run 0.1.0\n"); return 0;
		default:
			if (optopt && strchr("nblt", optopt))
				return usage_error("option -%s needs an argument", (char[]){ (char)optopt, 0 });
			{
				char m[256];
				return usage_error("%s", opt_unknown_msg(opt_seen(argc, argv, before), lo, m, sizeof m));
			}
		}
	}
	r->scripts = (const char **)argv + optind;
	r->nscripts = (unsigned)(argc - optind);
	if (!r->nscripts)
		return usage_error("%s", "no script given");
	if (r->table_path && r->backend)
		return usage_error("%s", "--nodes and -b are exclusive (the table names each rank's backend)");
	if (r->table_path && read_table(r, r->table_path) < 0)
		return 2;
	if (!r->n)
		return usage_error("%s", "-n N is needed (or a node table)");
	if (r->rcmd && (r->launcher != L_PDSH || !r->table))
		return usage_error("%s", "--rcmd goes with -l pdsh and --nodes (pdsh reaches the table's hosts with it)");
	if (r->table && r->launcher == L_PDSH && pdsh_hosts_check(r) < 0)
		return 2;
	struct utsname un;
	if (uname(&un) == 0)
		snprintf(r->self_host, sizeof r->self_host, "%s", un.nodename);
	if (r->table && r->launcher != L_LOCAL && private_rows_check(r) < 0)
		return 2;
	bool need_dnetd = false;
	if (!r->backend) {
		need_dnetd = !r->table;
		for (unsigned k = 0; r->table && k < r->n; k++)
			need_dnetd |= !r->table[k].backend[0];
	}
	if (r->lockstep && (!need_dnetd || r->table))
		return usage_error("%s", "--lockstep goes with the private emulated cluster (no -b, no --nodes)");
	/* D-REPORT-PATHS: one report written over the other would leave one */
	if (r->report && r->junit && report_paths_same(r->report, r->junit)) {
		fprintf(stderr, "dsh-run: --report '%s' and --junit '%s' are the same file: give each report its own\n",
			r->report, r->junit);
		return 2;
	}
	/* D-OUT-STDOUT: a report on standard output ("-", /dev/stdout, the file
	 * or pipe it is) is written through one stream, a duplicate of it
	 * taken now; the summary, the messages and the ranks' stray output go
	 * to standard error from here on, so the report stays valid */
	bool report_stdout = out_is_stdout(r->report); /* before descriptor 1 moves */
	if (report_stdout || out_is_stdout(r->junit)) {
		FILE *f = out_stdout_take();
		if (!f) {
			fprintf(stderr, "dsh-run: cannot take standard output for a report: %s\n", strerror(errno));
			return 2;
		}
		*(report_stdout ? &r->report_out : &r->junit_out) = f;
	}
	r->res = calloc((size_t)r->nscripts * r->n, sizeof *r->res);
	if (!r->res) {
		fprintf(stderr, "dsh-run: out of memory\n");
		return 2;
	}
	g_reports_due = true;
	/* From here every exit writes both reports: a run that cannot start
	 * has each test not run as an error, with the reason (D-REPORT-NOT-RUN). */
	int rc = 0;
	r->start_ms = now_ms();
	for (unsigned s = 0; s < r->nscripts && !rc; s++)
		if (access(r->scripts[s], R_OK) != 0) {
			char why[4400];
			snprintf(why, sizeof why, "cannot read script '%s': %s", r->scripts[s], strerror(errno));
			fprintf(stderr, "dsh-run: %s\n", why);
			run_abort(r, why);
			rc = 2;
		}
	const char *td = getenv("TMPDIR");
	snprintf(r->tmp, sizeof r->tmp, "%s/dsh-run.XXXXXX", td && *td ? td : "/tmp");
	if (!rc && !mkdtemp(r->tmp)) {
		char why[4400];
		snprintf(why, sizeof why, "cannot create a private directory (%s): %s", r->tmp, strerror(errno));
		fprintf(stderr, "dsh-run: %s\n", why);
		run_abort(r, why);
		rc = 2;
	}
	if (rc)
		r->tmp[0] = 0; /* none to remove */
	r->progress = isatty(2);
	r->run_base = (uint32_t)((uint64_t)getpid() << 16 ^ now_ms()) & 0x7fff0000u;
	run_signals_install();
	r->private_dnetd = need_dnetd;
	if (!rc) { /* D-RUN-CHECK: a script that cannot pass fails once, here */
		char why[4400];
		if (run_scripts_check(r, why, sizeof why) < 0) {
			run_abort(r, why);
			rc = 2;
		}
	}
	if (!rc && need_dnetd && dnetd_start(r) < 0) {
		run_abort(r, "the private dnetd could not be started (dsh-run's messages say why)");
		rc = 2;
	}
	if (!rc && pgid_setup(r) < 0) {
		run_abort(r, "the node table's PGIDs could not be set (dsh-run's messages say why)");
		rc = 2;
	}
	/* every rank reaches its backend, one emulated cluster (D-RUN-PREFLIGHT);
	 * a launcher's ranks check themselves as the first script starts */
	if (!rc && r->launcher == L_LOCAL && preflight_local(r) < 0) {
		run_abort(r, "the ranks' backends failed the check before the first script");
		rc = 2;
	}
	for (unsigned s = 0; !rc && s < r->nscripts && !run_signal_caught(); s++) {
		if (run_isolate(r, s) < 0) { /* isolate.c: D-RUN-STATE */
			char why[4400];
			snprintf(why, sizeof why, "the device could not be reset before %s (dsh-run's messages say why)",
				 r->scripts[s]);
			run_abort(r, why);
			rc = 2;
		} else if (run_script(r, s) < 0) {
			char why[4400];
			snprintf(why, sizeof why, "%s could not be started on the ranks (dsh-run's messages say why)",
				 r->scripts[s]);
			run_abort(r, why);
			rc = 2;
		}
		if (r->dnetd_death[0] && r->no_reset) { /* nothing to run the rest on */
			snprintf(r->abort_why, sizeof r->abort_why, "the private dnetd %s", r->dnetd_death);
			break;
		}
		r->dnetd_death[0] = 0; /* a fresh one serves the next script (isolate.c) */
	}
	r->signal = run_signal_caught();
	kill_all(r);
	r->stop_ms = now_ms();
	size_t nt = (size_t)r->nscripts * r->n;
	unsigned passed = 0, failed = 0, errors = 0;
	for (size_t i = 0; i < nt; i++) {
		if (!r->res[i].script) { /* never started (signal, or the run could not go on) */
			r->res[i].rank = (unsigned)(i % r->n);
			r->res[i].script = r->scripts[i / r->n];
			r->res[i].not_run = true;
			/* D-REPORT-NOT-RUN: stopped by the user (a signal) it is
			 * skipped; by an error it is an error, never a skip a
			 * dashboard shows green */
			r->res[i].status = r->signal || !r->abort_why[0] ? ST_SKIPPED : ST_OTHER;
			snprintf(r->res[i].message, sizeof r->res[i].message, "rank %u: %s not run%s%.900s",
				 r->res[i].rank, r->res[i].script, r->abort_why[0] ? ": " : "", r->abort_why);
			r->res[i].start_ms = r->res[i].stop_ms = r->stop_ms;
		}
		passed += r->res[i].status == ST_PASSED;
		failed += r->res[i].status == ST_FAILED;
		errors += r->res[i].status == ST_OTHER;
	}
	print_failures(r);
	if (r->report && report_ctrf(r, r->report) < 0 && !rc)
		rc = 2;
	if (r->junit && report_junit(r, r->junit) < 0 && !rc)
		rc = 2;
	printf("%u passed, %u failed", passed, failed);
	if (errors)
		printf(", %u error%s (not run)", errors, errors == 1 ? "" : "s");
	if (nt - passed - failed - errors)
		printf(", %zu not run", nt - passed - failed - errors);
	printf(" (%u rank%s x %u script%s)\n", r->n, r->n == 1 ? "" : "s", r->nscripts,
	       r->nscripts == 1 ? "" : "s");
	fflush(stdout);
	for (size_t i = 0; i < nt; i++)
		result_free(&r->res[i]);
	if (keep && r->tmp[0])
		fprintf(stderr, "dsh-run: outputs kept in %s\n", r->tmp);
	else if (r->tmp[0])
		rm_tree(r->tmp);
	free(r->res);
	run_isolate_free(r);
	free(r->table);
	if (r->signal)
		return 128 + r->signal;
	if (rc)
		return rc;
	return failed || passed != nt ? 1 : 0;
}
