/* dsh-run: starting the ranks (the private dnetd and the processes: procs.c;
 * what each rank is given: rankenv.c), timeouts, and killing
 * everything started on any exit (also on SIGINT/SIGTERM/SIGHUP).
 *
 * Every rank's dsh writes JSON Lines to its own file (-o with %r), so the
 * launchers that merge outputs (mpirun, srun, pdsh) lose nothing.  A rank's
 * environment carries DSH_RUN_ID (fresh for every script: a barrier of one
 * script can never be satisfied by flags of the one before), DSH_SIZE and,
 * for the local and pdsh launchers, DSH_RANK (under mpirun and srun
 * --exec-rank sets it from the launcher's variable); nothing else of the
 * kind comes from dsh-run's own environment (D-RUN-ENV).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "run.h"

/* The children of one step: their pids (one per rank, or one launcher). */
static pid_t *g_pids;
static unsigned g_npids;

void kill_all(struct run *r)
{
	for (unsigned i = 0; i < g_npids; i++)
		if (g_pids[i] > 0) {
			run_kill_group(g_pids[i]);
			g_pids[i] = 0;
		}
	dnetd_stop(r);
}

/* The dsh command line of one rank (or of every rank, for a launcher). */
static unsigned dsh_argv(const struct run *r, const char *backend, const char *script, const char *out,
			 char **argv)
{
	unsigned a = 0;
	argv[a++] = (char *)r->dsh;
	argv[a++] = (char *)"--json";
	argv[a++] = (char *)"--summary";
	if (backend) {
		argv[a++] = (char *)"-b";
		argv[a++] = (char *)backend;
	}
	argv[a++] = (char *)"-o";
	argv[a++] = (char *)out;
	argv[a++] = (char *)"-f";
	argv[a++] = (char *)script;
	argv[a] = NULL;
	return a;
}

static void progress(const struct run *r, unsigned s, unsigned done, unsigned failed, unsigned running)
{
	if (!r->progress)
		return;
	fprintf(stderr, "\r\033[Kdsh-run: [%u/%u] %s: %u ranks: %u done, %u failed, %u running", s + 1,
		r->nscripts, r->scripts[s], r->n, done, failed, running);
	fflush(stderr);
}

/* A launcher's ranks learn their environment and backend from files
 * (rankexec.c), whatever the launcher forwards: DIR/env, DIR/backends. */
static int rank_dir_setup(const struct run *r, unsigned s, const char *backend, char *const *env,
			  unsigned nenv, char *dir, size_t n)
{
	snprintf(dir, n, "%s/s%u.ranks", r->tmp, s);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	char path[4400];
	snprintf(path, sizeof path, "%s/env", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	for (unsigned i = 0; i < nenv; i++)
		fprintf(f, "%s\n", env[i]);
	fprintf(f, "DSH_SIZE=%u\n", r->n);
	if (fclose(f) != 0)
		return -1;
	/* DIR/rank-from: the one variable the launcher gives the rank in (D-RUN-ENV) */
	snprintf(path, sizeof path, "%s/rank-from", dir);
	if (!(f = fopen(path, "w")))
		return -1;
	fprintf(f, "%s\n", r->launcher == L_MPIRUN ? "OMPI_COMM_WORLD_RANK" : r->launcher == L_SRUN ? "SLURM_PROCID" : "DSH_RANK");
	if (fclose(f) != 0)
		return -1;
	/* DIR/tokens: line k rank k's token (ssh and mpirun forward no
	 * environment), readable by us only, removed when the script ends */
	bool any = false;
	for (unsigned k = 0; k < r->n; k++)
		any |= rank_token(r, k) && *rank_token(r, k);
	if (any) {
		snprintf(path, sizeof path, "%s/tokens", dir);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || fchmod(fd, 0600) < 0 || !(f = fdopen(fd, "w"))) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		for (unsigned k = 0; k < r->n; k++)
			fprintf(f, "%s\n", rank_token(r, k) ? rank_token(r, k) : "");
		if (fclose(f) != 0)
			return -1;
	}
	if (s == 0) { /* the ranks probe their backends first (preflight.c) */
		snprintf(path, sizeof path, "%s/preflight", dir);
		if (!(f = fopen(path, "w")) || fclose(f) != 0)
			return -1;
	}
	snprintf(path, sizeof path, "%s/backends", dir);
	if (!(f = fopen(path, "w")))
		return -1;
	for (unsigned k = 0; k < r->n; k++)
		fprintf(f, "%s\n", rank_backend(r, k) ? rank_backend(r, k) : backend);
	return fclose(f);
}

/* Under a launcher, each rank's own end (rankexec.c): read at the timeout
 * before anything is killed (a rank that ended keeps its status), and when
 * the launcher has ended. */
static void launcher_statuses(struct result *res, unsigned n, const char *dir, bool at_timeout)
{
	for (unsigned k = 0; k < n; k++) {
		int code = 0;
		if (res[k].exit_code != -1 || res[k].timed_out || res[k].never_started || res[k].vanished)
			continue; /* decided at the timeout */
		switch (rank_status_read(dir, k, &code)) {
		case RANK_ENDED:
			res[k].exit_code = code;
			break;
		case RANK_RUNNING:
			if (at_timeout)
				res[k].timed_out = true;
			else
				res[k].vanished = true;
			break;
		default:
			res[k].never_started = true;
			break;
		}
	}
}

/* Whether the private dnetd ended (reaped here): said once, with its exit
 * status and the last line of its log, in r->dnetd_death. */
static bool dnetd_dead(struct run *r)
{
	int st;
	if (waitpid(r->dnetd_pid, &st, WNOHANG) != r->dnetd_pid)
		return false;
	char log[4300], last[200] = "", line[200];
	snprintf(log, sizeof log, "%s/dnetd.log", r->tmp);
	FILE *f = fopen(log, "r");
	while (f && fgets(line, sizeof line, f))
		if (line[0] != '\n')
			snprintf(last, sizeof last, "%s", line);
	if (f)
		fclose(f);
	last[strcspn(last, "\n")] = 0;
	if (WIFSIGNALED(st))
		snprintf(r->dnetd_death, sizeof r->dnetd_death, "(pid %ld) was killed by signal %d (%s)%s%.120s",
			 (long)r->dnetd_pid, WTERMSIG(st), strsignal(WTERMSIG(st)), last[0] ? "; its log: " : "", last);
	else
		snprintf(r->dnetd_death, sizeof r->dnetd_death, "(pid %ld) exited with status %d%s%.120s",
			 (long)r->dnetd_pid, WEXITSTATUS(st), last[0] ? "; its log: " : "", last);
	r->dnetd_pid = 0;
	return true;
}

/* A rank that did not finish: the first line of its stderr, else its
 * launcher's, appended to its message (cut between UTF-8 characters). */
static void say_stderr(struct result *t)
{
	const char *src[2] = { t->err_path, t->launcher_err };
	for (unsigned i = 0; i < 2; i++) {
		char *x = src[i][0] ? run_excerpt(src[i], 240) : NULL, *p = x;
		while (p && (*p == '\n' || *p == ' '))
			p++;
		if (p && *p) {
			p[strcspn(p, "\n")] = 0;
			size_t l = strlen(t->message);
			snprintf(t->message + l, sizeof t->message - l, "; %s said: %s", i ? "its launcher" : "it", p);
			free(x);
			return;
		}
		free(x);
	}
}

/* The launcher's ranks' probes (DIR/rankK.hello, preflight.c) read as they
 * come: 1 all judged good, 0 not all there yet, -1 bad (why says why).
 * Partial: judge what is there (the launcher has ended). */
static int launcher_preflight(const struct run *r, const char *dir, char **lines, bool partial, char *why,
			      size_t wn)
{
	unsigned have = 0;
	bool bad = false;
	for (unsigned k = 0; k < r->n; k++) {
		if (!lines[k]) {
			char path[4400], line[1200];
			snprintf(path, sizeof path, "%s/rank%u.hello", dir, k);
			FILE *f = fopen(path, "r");
			if (f) {
				if (fgets(line, sizeof line, f)) {
					line[strcspn(line, "\n")] = 0;
					lines[k] = strdup(line);
				}
				fclose(f);
			}
		}
		have += lines[k] != NULL;
		bad |= lines[k] && !strncmp(lines[k], "error ", 6);
	}
	if (have < r->n && !bad && !partial)
		return 0;
	return preflight_judge(r, lines, why, wn) < 0 ? -1 : 1;
}

int run_script(struct run *r, unsigned s)
{
	unsigned n = r->n;
	struct result *res = &r->res[(size_t)s * n];
	char out_pat[4200], backend_buf[4400];
	snprintf(out_pat, sizeof out_pat, "%s/s%u.rank%%r.json", r->tmp, s);
	/* every rank without a backend of its own (no -b; a node table's "-") uses the private dnetd */
	const char *backend = r->backend;
	if (!backend && r->private_dnetd) /* also a node table's "-" rows */
		backend = run_private_backend(r, backend_buf, sizeof backend_buf);
	char *env[8];
	unsigned nenv = 0;
	env[nenv++] = run_envf("DSH_RUN_ID=%lu", NULL, (unsigned long)(r->run_base + s));
	if (r->table)
		env[nenv++] = run_rankmap_env(r);
	for (unsigned k = 0; k < n; k++) {
		res[k].rank = k;
		res[k].script = r->scripts[s];
		snprintf(res[k].out_path, sizeof res[k].out_path, "%s/s%u.rank%u.json", r->tmp, s, k);
		snprintf(res[k].err_path, sizeof res[k].err_path, "%s/s%u.rank%u.err", r->tmp, s, k);
		res[k].exit_code = -1;
		res[k].timed_out = res[k].never_started = res[k].vanished = false;
	}
	char rdir[4300] = "", lerr[4300];
	snprintf(lerr, sizeof lerr, "%s/s%u.launcher.err", r->tmp, s);
	for (unsigned k = 0; r->launcher != L_LOCAL && k < n; k++) { /* rankexec.c writes it */
		snprintf(res[k].err_path, sizeof res[k].err_path, "%s/s%u.ranks/rank%u.err", r->tmp, s, k);
		snprintf(res[k].launcher_err, sizeof res[k].launcher_err, "%s", lerr);
	}
	if (r->launcher != L_LOCAL && rank_dir_setup(r, s, backend, env, nenv, rdir, sizeof rdir) < 0) {
		fprintf(stderr, "dsh-run: cannot write the ranks' files in %s: %s\n", r->tmp, strerror(errno));
		return -1;
	}
	free(g_pids);
	g_npids = r->launcher == L_LOCAL ? n : 1;
	g_pids = calloc(g_npids, sizeof *g_pids);
	if (!g_pids)
		return -1;
	uint64_t t0 = run_mono_ms();
	uint64_t start = now_ms();
	char *argv[64];
	if (r->launcher == L_LOCAL) {
		for (unsigned k = 0; k < n; k++) {
			char *renv[12];
			unsigned m = 0;
			for (unsigned i = 0; i < nenv; i++)
				renv[m++] = env[i];
			renv[m++] = run_envf("DSH_RANK=%lu", NULL, k);
			renv[m++] = run_envf("DSH_SIZE=%lu", NULL, n);
			char *tok = rank_token_env(r, k);
			if (tok)
				renv[m++] = tok;
			const char *b = rank_backend(r, k) ? rank_backend(r, k) : backend;
			dsh_argv(r, b, r->scripts[s], out_pat, argv);
			res[k].start_ms = start;
			g_pids[k] = run_spawn(argv, NULL, res[k].err_path, renv, m);
			for (unsigned i = nenv; i < m; i++)
				free(renv[i]);
		}
	} else {
		/* One launcher process starts every rank; dsh takes its rank from
		 * the launcher's environment (OMPI_COMM_WORLD_RANK, SLURM_PROCID) or,
		 * for pdsh, from DSH_RANK=%n on its command line; with a node table,
		 * rank k is placed on the table's host for k (hosts.c). */
		char np[16], wlist[64], fan[16], sz[32], hfile[4300];
		char *lenv[12], *hlist = NULL;
		unsigned ln = 0;
		for (unsigned i = 0; i < nenv; i++)
			lenv[ln++] = env[i];
		snprintf(np, sizeof np, "%u", n);
		snprintf(hfile, sizeof hfile, "%s/hosts", r->tmp);
		/* the table's hosts, rank 0 first (hosts.c, D-RUN-HOSTS) */
		if (r->table && r->launcher != L_PDSH && hosts_file(r, hfile) < 0) {
			fprintf(stderr, "dsh-run: cannot write %s: %s\n", hfile, strerror(errno));
			for (unsigned i = 0; i < nenv; i++)
				free(env[i]);
			return -1;
		}
		unsigned a = 0;
		if (r->launcher == L_MPIRUN) {
			argv[a++] = (char *)"mpirun";
			argv[a++] = (char *)"-np";
			argv[a++] = np;
			if (geteuid() == 0)
				argv[a++] = (char *)"--allow-run-as-root";
			argv[a++] = (char *)"--oversubscribe";
			/* D-RUN-LAUNCHER-ABORT: one rank's failure must not kill the others
			 * (Open MPI 4 aborts the job at the first non-zero exit by default;
			 * srun's counterpart is --kill-on-bad-exit=0) */
			argv[a++] = (char *)"--mca";
			argv[a++] = (char *)"orte_abort_on_non_zero_status";
			argv[a++] = (char *)"0";
			if (r->table) { /* the sequential mapper: rank k on line k */
				argv[a++] = (char *)"--hostfile";
				argv[a++] = hfile;
				argv[a++] = (char *)"--map-by";
				argv[a++] = (char *)"seq";
			}
		} else if (r->launcher == L_SRUN) {
			argv[a++] = (char *)"srun";
			argv[a++] = (char *)"-n";
			argv[a++] = np;
			argv[a++] = (char *)"--kill-on-bad-exit=0";
			if (r->table) { /* task k on line k of SLURM_HOSTFILE */
				argv[a++] = (char *)"--distribution=arbitrary";
				lenv[ln++] = run_envf("SLURM_HOSTFILE=%s", hfile, 0);
			}
		} else {
			snprintf(fan, sizeof fan, "%u", n);
			snprintf(sz, sizeof sz, "DSH_SIZE=%u", n);
			argv[a++] = (char *)"pdsh";
			if (!r->table || r->rcmd) {
				argv[a++] = (char *)"-R";
				argv[a++] = (char *)(r->table ? r->rcmd : "exec");
			}
			argv[a++] = (char *)"-f";
			argv[a++] = fan;
			argv[a++] = (char *)"-w";
			if (r->table) { /* pdsh keeps -w's order: %n is the rank */
				if (!(hlist = hosts_list(r))) {
					fprintf(stderr, "dsh-run: out of memory\n");
					exit(2);
				}
				argv[a++] = hlist;
			} else {
				snprintf(wlist, sizeof wlist, "rank[0-%u]", n - 1);
				argv[a++] = wlist;
			}
			argv[a++] = (char *)"env";
			argv[a++] = (char *)"DSH_RANK=%n";
			argv[a++] = sz;
		}
		/* every rank through --exec-rank: its own exit status, its
		 * environment and its backend from files */
		argv[a++] = (char *)r->self;
		argv[a++] = (char *)"--exec-rank";
		argv[a++] = rdir;
		argv[a++] = (char *)"--";
		dsh_argv(r, NULL, r->scripts[s], out_pat, argv + a); /* -b from DIR/backends */
		for (unsigned k = 0; k < n; k++)
			res[k].start_ms = start;
		g_pids[0] = run_spawn(argv, NULL, lerr, lenv, ln);
		for (unsigned i = nenv; i < ln; i++)
			free(lenv[i]);
		free(hlist);
	}
	for (unsigned i = 0; i < nenv; i++)
		free(env[i]);
	/* Wait for every process, the timeout, or a signal. */
	unsigned left = g_npids, failed = 0, polls = 0;
	bool timed_out = false;
	char **hello = s == 0 && r->launcher != L_LOCAL ? calloc(n, sizeof *hello) : NULL;
	int judged = hello ? 0 : 1;
	while (left) {
		if (r->dnetd_pid > 0 && dnetd_dead(r)) {
			for (unsigned i = 0; i < g_npids; i++) /* its ranks cannot go on */
				if (g_pids[i] > 0) {
					run_kill_group(g_pids[i]);
					g_pids[i] = 0;
				}
			for (unsigned k = 0; k < n; k++) {
				res[k].dnetd_died = true;
				res[k].stop_ms = now_ms();
			}
			break;
		}
		if (!judged && polls++ % 10 == 0 &&
		    (judged = launcher_preflight(r, rdir, hello, false, r->abort_why, sizeof r->abort_why)) < 0)
			break; /* a rank on the wrong cluster: stop now, not at a barrier's timeout */
		for (unsigned i = 0; i < g_npids; i++) {
			if (g_pids[i] <= 0)
				continue;
			int st;
			pid_t w = waitpid(g_pids[i], &st, WNOHANG);
			if (w != g_pids[i])
				continue;
			int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			g_pids[i] = 0;
			left--;
			if (code)
				failed++;
			if (r->launcher == L_LOCAL) {
				res[i].exit_code = code;
				res[i].stop_ms = now_ms();
			} else {
				for (unsigned k = 0; k < n; k++)
					res[k].stop_ms = now_ms();
			}
		}
		progress(r, s, g_npids - left - (failed < g_npids - left ? 0 : 0), failed, left);
		if (!left)
			break;
		uint64_t el = run_mono_ms() - t0;
		if (run_signal_caught() || (r->timeout_ms && el >= r->timeout_ms) ||
		    (r->total_timeout_ms && now_ms() >= r->start_ms + r->total_timeout_ms)) {
			timed_out = !run_signal_caught();
			if (r->launcher != L_LOCAL && timed_out)
				launcher_statuses(res, n, rdir, true); /* before anything is killed */
			for (unsigned i = 0; i < g_npids; i++)
				if (g_pids[i] > 0) {
					run_kill_group(g_pids[i]);
					g_pids[i] = 0;
					if (r->launcher == L_LOCAL) {
						res[i].timed_out = timed_out;
						res[i].exit_code = -2;
						res[i].stop_ms = now_ms();
					} else {
						for (unsigned k = 0; k < n; k++)
							res[k].stop_ms = now_ms();
					}
				}
			break;
		}
		run_nap(left > 64 ? 20 : 5);
	}
	/* died while the ranks ran: they may have ended on their own, each
	 * with "the daemon closed the connection"; the cause is said once */
	if (r->dnetd_pid > 0 && dnetd_dead(r))
		for (unsigned k = 0; k < n; k++)
			res[k].dnetd_died = true;
	if (!judged && !run_signal_caught())
		judged = launcher_preflight(r, rdir, hello, true, r->abort_why, sizeof r->abort_why);
	for (unsigned k = 0; hello && k < n; k++)
		free(hello[k]);
	free(hello);
	if (judged < 0) {
		for (unsigned i = 0; i < g_npids; i++)
			if (g_pids[i] > 0) {
				run_kill_group(g_pids[i]);
				g_pids[i] = 0;
			}
		if (r->progress)
			fprintf(stderr, "\r\033[K");
		fprintf(stderr, "dsh-run: before the first script: %s\n", r->abort_why);
		for (unsigned k = 0; k < n; k++)
			res[k].script = NULL; /* reported "not run", with the reason */
		char tp[4400];
		snprintf(tp, sizeof tp, "%s/tokens", rdir);
		unlink(tp);
		return -1;
	}
	if (r->progress)
		fprintf(stderr, "\r\033[K");
	if (r->launcher != L_LOCAL && !run_signal_caught())
		launcher_statuses(res, n, rdir, false);
	if (rdir[0]) { /* the secret outlives no script, --keep or not */
		char tp[4400];
		snprintf(tp, sizeof tp, "%s/tokens", rdir);
		unlink(tp);
	}
	for (unsigned k = 0; k < n; k++) {
		/* where it ran: its own word under a launcher, here for local ranks */
		if (r->launcher != L_LOCAL)
			rank_host_read(rdir, k, res[k].ran_on, sizeof res[k].ran_on);
		else
			snprintf(res[k].ran_on, sizeof res[k].ran_on, "%s", r->self_host);
		result_read(&res[k]);
		if (res[k].dnetd_died && !res[k].have_summary) {
			res[k].status = ST_FAILED;
			snprintf(res[k].message, sizeof res[k].message, "rank %u did not finish %s: the private dnetd %s",
				 k, r->scripts[s], r->dnetd_death);
			continue;
		}
		if (res[k].dnetd_died && res[k].status != ST_PASSED) {
			size_t l = strlen(res[k].message);
			snprintf(res[k].message + l, sizeof res[k].message - l, " (the private dnetd %s)", r->dnetd_death);
		}
		/* what only dsh-run sees: a rank that never started or vanished */
		if (res[k].never_started || res[k].vanished) {
			res[k].status = ST_FAILED;
			snprintf(res[k].message, sizeof res[k].message, "rank %u %s (script %s)", k,
				 res[k].never_started ? "never started" :
				 "ended without an exit status (killed, or its launcher stopped it)", r->scripts[s]);
		} else if (!res[k].timed_out && res[k].exit_code > 128 && res[k].exit_code < 128 + 65 &&
			   !res[k].nfail) {
			int sig = res[k].exit_code - 128;
			res[k].status = ST_FAILED;
			snprintf(res[k].message, sizeof res[k].message, "rank %u: %s: killed by signal %d (%s)%s", k,
				 r->scripts[s], sig, strsignal(sig), res[k].have_summary ? " after writing its summary" : "");
		}
		if (!res[k].have_summary) /* why, in its own words or its launcher's */
			say_stderr(&res[k]);
	}
	hosts_check(r, s);
	return 0;
}
