/* dsh: when standard output is flushed -- per command on a terminal, in
 * batches by a thread into a pipe or a file -- and whether it could be
 * written (a run whose results were lost fails).  print.c and jsonl.c
 * write; this file decides when the bytes leave. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dsh.h"

/* ---- output batching ----
 *
 * On a terminal every command's output is flushed when the command ends.
 * Into a pipe or a file, a write(2) per command costs more than printing
 * it (2-3 us a command here, most of `dsh --json`'s time on short
 * commands), so the output is flushed in batches instead: by a thread that
 * wakes every DSH_FLUSH_MS while output is pending, so a line is out
 * within that time even when the next command waits for a long time; by
 * the main thread before anything goes to stderr (dsh_flush_for_stderr),
 * so `2>&1` keeps the order; and at exit. */
#define DSH_FLUSH_MS 20

static struct {
	int mode;             /* 0 not decided, 1 per command, 2 batched */
	atomic_bool dirty, stop;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} F = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* The first write error on standard output (from whichever thread). */
static atomic_int out_errno;

static void *flusher(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&F.mu);
	while (!atomic_load(&F.stop)) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += DSH_FLUSH_MS * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&F.cv, &F.mu, &t);
		if (atomic_exchange(&F.dirty, false)) {
			pthread_mutex_unlock(&F.mu);
			if (fflush(stdout) == EOF)
				atomic_store(&out_errno, errno ? errno : EIO);
			pthread_mutex_lock(&F.mu);
		}
	}
	pthread_mutex_unlock(&F.mu);
	return NULL;
}

static void flusher_stop(void)
{
	pthread_mutex_lock(&F.mu);
	atomic_store(&F.stop, true);
	pthread_cond_signal(&F.cv);
	pthread_mutex_unlock(&F.mu);
	pthread_join(F.tid, NULL);
	F.mode = 1;
	fflush(stdout);
}

static void flusher_start(void)
{
	F.mode = 1;
	if (isatty(STDOUT_FILENO) || getenv("DSH_FLUSH_EACH"))
		return;
	/* the thread takes no signals (SIGPIPE aside, which a write raises
	 * in the writing thread): SIGINT, SIGTERM and the like must reach
	 * the main thread and interrupt its waits */
	sigset_t all, old;
	sigfillset(&all);
	sigdelset(&all, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&F.tid, NULL, flusher, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0 && atexit(flusher_stop) == 0)
		F.mode = 2;
	else if (rc == 0)
		flusher_stop();
}

void dsh_flush(void)
{
	if (!F.mode)
		flusher_start();
	if (F.mode == 2)
		atomic_store(&F.dirty, true);
	else
		dsh_flush_for_stderr(); /* a plain flush that keeps its error */
}

void dsh_flush_for_stderr(void)
{
	if (fflush(stdout) == EOF && !atomic_load(&out_errno) && errno != EINTR)
		atomic_store(&out_errno, errno ? errno : EIO);
}

bool dsh_output_failed(void)
{
	/* A terminal's write cut by Ctrl-C (EINTR) is no lost result. */
	if (ferror(stdout) && !atomic_load(&out_errno) && isatty(STDOUT_FILENO))
		clearerr(stdout);
	return atomic_load(&out_errno) != 0 || ferror(stdout);
}

/* A reader that cannot get the results must not be told the run passed:
 * a full disk, a closed pipe (SIGPIPE ignored), a -o file that fails. */
bool dsh_output_check(struct dsh *d)
{
	dsh_flush_for_stderr();
	if (!dsh_output_failed())
		return false;
	if (!d->io.error) {
		int e = atomic_load(&out_errno);
		d->io.error = true;
		d->run.stop = true;
		fprintf(stderr, "dsh: cannot write standard output%s%s: the run fails\n", e ? ": " : "",
			e ? strerror(e) : "");
	}
	return true;
}
