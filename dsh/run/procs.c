/* dsh-run: the processes it starts -- the signals it stops on, a child
 * spawned in its own process group and killed with it, and the private
 * dnetd started, awaited and stopped.  The bottom of dsh-run's files: it
 * calls none of them (D-LAYOUT). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "run.h"

#define KILL_GRACE_MS 2000u

void run_signals_install(void)
{
	term_signals_watch();
}

int run_signal_caught(void)
{
	return term_signal_caught();
}

uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void run_nap(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* fork + exec argv with stdout/stderr to files (NULL: inherited) and extra
 * environment "K=V" strings; the child gets its own process group so that
 * a kill reaches everything it started (mpirun's daemons, pdsh's children). */
pid_t run_spawn(char *const argv[], const char *out, const char *errf, char *const *env, unsigned nenv)
{
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		setpgid(0, 0);
		term_signals_default();
		if (out) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || dup2(fd, 1) < 0)
				_exit(126);
			close(fd);
		}
		if (errf) {
			int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || dup2(fd, 2) < 0)
				_exit(126);
			close(fd);
		}
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0) {
			dup2(devnull, 0);
			close(devnull);
		}
		for (unsigned i = 0; i < nenv; i++)
			putenv(env[i]);
		execvp(argv[0], argv);
		fprintf(stderr, "dsh-run: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(p, p);
	return p;
}

/* SIGTERM to the process group, then SIGKILL after the grace time. */
void run_kill_group(pid_t p)
{
	if (p <= 0)
		return;
	kill(-p, SIGTERM);
	kill(p, SIGTERM);
	uint64_t until = run_mono_ms() + KILL_GRACE_MS;
	while (run_mono_ms() < until) {
		if (waitpid(p, NULL, WNOHANG) == p)
			break;
		run_nap(10);
	}
	kill(-p, SIGKILL);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	/* the group's other members (a wrapper's dsh, a launcher's ranks) are
	 * gone once init has reaped them: wait for that, bounded, so nothing
	 * started outlives dsh-run */
	for (until = run_mono_ms() + KILL_GRACE_MS; kill(-p, 0) == 0 && run_mono_ms() < until;)
		run_nap(5);
}

/* The first line of a file (a launcher's or dnetd's own complaint), or "". */
void run_first_line(const char *path, char *buf, size_t n)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)n, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* Clients the private dnetd must admit at once: every rank, and as many
 * again for the one-per-rank dsh processes dsh-run itself starts (PGID
 * set-up, checks before a script) and for connections of ended processes
 * dnetd has not yet seen close; a few for dsh-run's own probes.  dnetd
 * raises its descriptor limit to fit (up to the hard limit) or says why
 * it cannot. */
static unsigned dnetd_clients(const struct run *r)
{
	return 2 * r->n + 8;
}

int dnetd_start(struct run *r)
{
	snprintf(r->sock, sizeof r->sock, "%s/dnetd.sock", r->tmp);
	char nodes[16], listen[4300], log[4200], clients[16];
	snprintf(nodes, sizeof nodes, "%u", r->n);
	snprintf(clients, sizeof clients, "%u", dnetd_clients(r));
	snprintf(listen, sizeof listen, "unix:%s", r->sock);
	snprintf(log, sizeof log, "%s/dnetd.log", r->tmp);
	/* --max-unauth too: hundreds of ranks connect in one burst, and on a
	 * busy machine a HELLO may wait its turn for over a second (the
	 * private socket admits nobody else). */
	char *argv[] = { (char *)r->dnetd, "--sim", "-N", nodes, "--listen", listen, "--max-clients", clients,
			 "--max-unauth", clients, r->lockstep ? "--lockstep" : NULL, nodes, NULL };
	r->dnetd_pid = run_spawn(argv, log, log, NULL, 0);
	if (r->dnetd_pid < 0) {
		fprintf(stderr, "dsh-run: cannot start %s: %s\n", r->dnetd, strerror(errno));
		return -1;
	}
	for (unsigned i = 0; i < 500; i++) {
		struct stat st;
		if (stat(r->sock, &st) == 0 && S_ISSOCK(st.st_mode))
			return 0;
		if (waitpid(r->dnetd_pid, NULL, WNOHANG) == r->dnetd_pid) {
			r->dnetd_pid = 0;
			char why[300];
			run_first_line(log, why, sizeof why);
			fprintf(stderr, "dsh-run: %s exited at start%s%s (log: %s)\n", r->dnetd, why[0] ? ": " : "",
				why, log);
			return -1;
		}
		run_nap(10);
	}
	fprintf(stderr, "dsh-run: %s did not open %s within 5 s\n", r->dnetd, r->sock);
	return -1;
}

void dnetd_stop(struct run *r)
{
	if (r->dnetd_pid > 0)
		run_kill_group(r->dnetd_pid);
	r->dnetd_pid = 0;
}

/* The private dnetd accepts connections (dnetd renames its socket into
 * place once it listens, but --dnetd may name another program). */
int run_wait_listening(struct run *r)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if (strlen(r->sock) >= sizeof sa.sun_path)
		return 0; /* dnetd itself refused it already */
	memcpy(sa.sun_path, r->sock, strlen(r->sock) + 1);
	uint64_t until = run_mono_ms() + 5000;
	for (;;) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			break;
		int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa), e = errno;
		close(fd);
		if (rc == 0)
			return 0;
		if ((e != ECONNREFUSED && e != ENOENT) || run_mono_ms() >= until || run_signal_caught())
			break;
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
	if (!run_signal_caught())
		fprintf(stderr, "dsh-run: %s does not accept connections on %s\n", r->dnetd, r->sock);
	return -1;
}
