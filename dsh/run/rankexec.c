/* dsh-run --exec-rank DIR -- CMD [ARG...]: what a launcher (mpirun, srun,
 * pdsh) starts on every rank, in front of dsh.
 *
 * A launcher returns one exit status for the whole job, if that: mpirun
 * the first failure, pdsh and srun their own.  So each rank reports itself
 * through files in DIR, dsh-run's directory of the script (on a shared file
 * system when the ranks are on other hosts):
 *   DIR/env         KEY=VALUE lines set before CMD runs (DSH_RUN_ID,
 *                   DSH_RANKMAP...): the same for every launcher, whatever
 *                   environment it forwards
 *   DIR/rank-from   the variable the launcher gives the rank in
 *                   (OMPI_COMM_WORLD_RANK, SLURM_PROCID, DSH_RANK for pdsh):
 *                   the rank is taken from it alone, and dsh gets it as
 *                   DSH_RANK (D-RUN-ENV)
 *   DIR/backends    line k is rank k's backend (no token=), given to dsh as
 *                   "-b SPEC"
 *   DIR/tokens      optional, mode 0600: line k is rank k's token, given to
 *                   dsh as DNET_TOKEN (never on a command line; ssh and
 *                   mpirun forward no environment); removed after the script
 *   DIR/preflight   present for the first script: the rank opens its backend
 *                   once and writes what it reached to DIR/rankK.hello
 *                   (preflight.c, D-RUN-PREFLIGHT); a rank that cannot does
 *                   not run CMD
 *   DIR/rankK.status  written here: "started PID" before CMD runs, then
 *                   "exit N" or "signal N" when it ended
 *   DIR/rankK.host  written here before CMD runs: uname's nodename, where
 *                   the rank ran, checked against the node table (hosts.c)
 *   DIR/rankK.err   CMD's standard error, for dsh-run to quote (D-RUN-DIAG)
 * dsh-run reads them (launch.c): no file, the rank never started; "started"
 * only, it hung (killed at the timeout) or this process was killed; else
 * the rank's own status, also for a crash of dsh or of a --dsh wrapper.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "run.h"

/* The variables of a rank's environment that dsh reads and dsh-run sets
 * (D-RUN-ENV): whatever dsh-run's own environment or a rank's login held
 * under these names is cleared first, so a stale DSH_RANKMAP cannot move
 * a rank to another node nor a stale DSH_RANK make every rank rank 0. */
void rank_env_clear(void)
{
	static const char *const vars[] = { "DSH_RANK", "DSH_SIZE", "DSH_RANKMAP", "DSH_RUN_ID", "DSH_PGID" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
}

/* The variable the launcher gives the rank in (DIR/rank-from, written by
 * dsh-run), "" if that file is missing. */
static void rank_from(const char *dir, char *var, size_t n)
{
	char path[4300];
	snprintf(path, sizeof path, "%s/rank-from", dir);
	run_first_line(path, var, n);
}

/* The rank: from the launcher's own variable (from), else as dsh finds it
 * (dsh/ranks.c dsh_sync_init, same order). */
static int env_rank(const char *from, unsigned *rank)
{
	static const char *const vars[] = { "DSH_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					    "SLURM_PROCID" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(*from ? from : vars[i]);
		char *end;
		if (!v || !*v)
			continue;
		errno = 0;
		unsigned long r = strtoul(v, &end, 10);
		if (errno || *end || r >= RUN_MAX_RANKS)
			return -1;
		*rank = (unsigned)r;
		return 0;
	}
	return -1;
}

/* Write DIR/rankK.WHAT whole (a new file renamed over the old one), so a
 * reader never sees half a line. */
static void put_file(const char *dir, unsigned rank, const char *what, const char *text)
{
	char path[4300], tmp[4400];
	snprintf(path, sizeof path, "%s/rank%u.%s", dir, rank, what);
	snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", text);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		unlink(tmp);
}

static void put_status(const char *dir, unsigned rank, const char *fmt, long v)
{
	char text[64];
	snprintf(text, sizeof text, fmt, v);
	put_file(dir, rank, "status", text);
}

/* DIR/rankK.host: the nodename this rank runs on. */
static void put_host(const char *dir, unsigned rank)
{
	struct utsname u;
	if (uname(&u) == 0)
		put_file(dir, rank, "host", u.nodename);
}

void rank_host_read(const char *dir, unsigned rank, char *buf, size_t n)
{
	char path[4300];
	snprintf(path, sizeof path, "%s/rank%u.host", dir, rank);
	run_first_line(path, buf, n);
}

static int set_env_file(const char *dir)
{
	char path[4300], *line = NULL;
	size_t cap = 0;
	snprintf(path, sizeof path, "%s/env", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		char *eq = strchr(line, '=');
		if (eq && eq > line) {
			*eq = 0;
			setenv(line, eq + 1, 1);
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* Line rank of DIR/NAME (malloc'd), NULL if there is no such file. */
static char *line_of(const char *dir, const char *name, unsigned rank, int *err)
{
	char path[4300], *line = NULL;
	size_t cap = 0;
	*err = 0;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	if (!f) {
		*err = errno == ENOENT ? 0 : -1;
		return NULL;
	}
	unsigned k = 0;
	char *found = NULL;
	while (getline(&line, &cap, f) > 0) {
		if (k++ == rank) {
			line[strcspn(line, "\n")] = 0;
			found = line;
			line = NULL;
			break;
		}
	}
	free(line);
	fclose(f);
	if (!found)
		*err = -1;
	return found;
}

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

int rank_exec(int argc, char **argv)
{
	/* argv: dsh-run --exec-rank DIR -- CMD [ARG...] */
	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "dsh-run --exec-rank: usage: dsh-run --exec-rank DIR -- CMD [ARG...]\n");
		return 2;
	}
	const char *dir = argv[2];
	unsigned rank;
	char from[64], num[16];
	rank_from(dir, from, sizeof from);
	if (env_rank(from, &rank) < 0) {
		fprintf(stderr, "dsh-run --exec-rank: no rank in the environment (%s)\n",
			*from ? from : "DSH_RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK or SLURM_PROCID");
		return 2;
	}
	/* D-RUN-ENV: only what dsh-run set (DIR/env) and the rank found here */
	rank_env_clear();
	snprintf(num, sizeof num, "%u", rank);
	if (setenv("DSH_RANK", num, 1) != 0 || set_env_file(dir) < 0) {
		fprintf(stderr, "dsh-run --exec-rank: cannot read %s/env: %s\n", dir, strerror(errno));
		return 2;
	}
	int berr;
	char *backend = line_of(dir, "backends", rank, &berr);
	if (berr) {
		fprintf(stderr, "dsh-run --exec-rank: no backend for rank %u in %s/backends\n", rank, dir);
		return 2;
	}
	char *token = line_of(dir, "tokens", rank, &berr);
	if (berr) {
		fprintf(stderr, "dsh-run --exec-rank: no line for rank %u in %s/tokens\n", rank, dir);
		free(backend);
		return 2;
	}
	if (token && *token && setenv("DNET_TOKEN", token, 1) != 0) {
		free(backend);
		free(token);
		return 2;
	}
	/* the first script: say what this rank's backend is (preflight.c);
	 * the token is in the environment now, as dsh will have it */
	char path[4300];
	snprintf(path, sizeof path, "%s/preflight", dir);
	if (access(path, F_OK) == 0) {
		char line[1200];
		preflight_probe(backend ? backend : "", NULL, line, sizeof line);
		put_file(dir, rank, "hello", line);
		if (strncmp(line, "ok ", 3) != 0) {
			fprintf(stderr, "dsh-run --exec-rank: rank %u cannot reach its backend: %s\n", rank, line + 6);
			free(backend);
			free(token);
			put_status(dir, rank, "exit %ld", 2);
			return 2;
		}
	}
	free(token);
	/* CMD, with "-b SPEC" after its name */
	int n = argc - 4;
	char **cmd = calloc((size_t)n + 3, sizeof *cmd);
	if (!cmd)
		return 2;
	int a = 0;
	cmd[a++] = argv[4];
	if (backend) {
		cmd[a++] = (char *)"-b";
		cmd[a++] = backend;
	}
	for (int i = 5; i < argc; i++)
		cmd[a++] = argv[i];
	cmd[a] = NULL;

	put_host(dir, rank);
	put_status(dir, rank, "started %ld", (long)getpid());
	term_signals_catch(forward);
	pid_t p = fork();
	if (p < 0) {
		put_status(dir, rank, "exit %ld", 127);
		return 127;
	}
	if (p == 0) {
		term_signals_default();
		/* the rank's stderr in DIR/rankK.err, for dsh-run's messages and
		 * reports (else it stays in the launcher's merged stream) */
		char ep[4300];
		snprintf(ep, sizeof ep, "%s/rank%u.err", dir, rank);
		int fd = open(ep, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
		execvp(cmd[0], cmd);
		fprintf(stderr, "dsh-run --exec-rank: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	child_pid = p;
	int st = 0;
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	free(cmd);
	free(backend);
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		put_status(dir, rank, "signal %ld", sig);
		/* the launcher sees the rank end as it did */
		term_signal_reraise(sig);
		return 128 + sig;
	}
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 127;
	put_status(dir, rank, "exit %ld", code);
	return code;
}

int rank_status_read(const char *dir, unsigned rank, int *code)
{
	char path[4300], word[16] = "";
	long v = 0;
	snprintf(path, sizeof path, "%s/rank%u.status", dir, rank);
	FILE *f = fopen(path, "r");
	if (!f)
		return RANK_NEVER_STARTED;
	int got = fscanf(f, "%15s %ld", word, &v);
	fclose(f);
	if (got != 2)
		return RANK_NEVER_STARTED;
	if (!strcmp(word, "exit")) {
		*code = (int)v;
		return RANK_ENDED;
	}
	if (!strcmp(word, "signal")) {
		*code = 128 + (int)v;
		return RANK_ENDED;
	}
	return RANK_RUNNING;
}
