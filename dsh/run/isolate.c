/* dsh-run: every script starts from a device state it can rely on
 * (decision D-RUN-STATE in docs/decisions.md; dsh-run(1), ISOLATION).
 *
 * Before each script, unless --no-reset:
 *   - the private dnetd (no -b, or "-" rows of a node table) is stopped and
 *     a fresh one started on the same socket (from the second script on;
 *     the first has a fresh one already), the node table's PGIDs written
 *     again: every node of the emulated cluster as at power-on;
 *   - every node a rank drives through a user-given backend (-b, a node
 *     table's BACKEND) other than an in-process emulator (sim, fresh in
 *     every dsh) gets a Controller Reset and its LLCM and Write Windows of
 *     both WIDs zeroed, by one `dsh -e` per node with the rank's own
 *     environment (so through the same backend, node and grant as the
 *     rank).  A board (devmem, pci) is one node, reset once; under a
 *     launcher other than local (ranks maybe on other hosts) dsh-run
 *     refuses to start with one.  That needs a privileged connection; when
 *     it fails dsh-run stops before the script (exit 2), naming the node
 *     and why.  Every writable parameter of such a backend (an emulator
 *     behind a dnetd: fault rules, fault seed, SWIF timeout, step costs;
 *     dsh's fault and params commands) is set back to what it was before
 *     the first script, read then (D-RUN-STATE), once per backend.  Not
 *     reset there: SO-DIMM contents, Prefetch Windows, the System Register
 *     settings (Controller Reset keeps them), an emulator's virtual time
 *     and statistics (fault and SWIF counters too), nodes no rank drives.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dnet/spec.h"
#include "run.h"

/* What one node's reset does: Controller Reset (App. B: any access; the
 * confirmed read, D-REG-READ-EFFECT), then zeroes for LLCM (32 KB, the
 * flag area too: 'force') and the four 512-byte Write Windows of each WID. */
static const char RESET_SCRIPT[] =
	"reg ctl_reset confirm\n"
	"set wid 0\n"
	"llcm_write from=0 it=8192 val=0 inc=0 force\n"
	"ww_write ww=0 it=128 val=0\nww_write ww=1 it=128 val=0\n"
	"ww_write ww=2 it=128 val=0\nww_write ww=3 it=128 val=0\n"
	"set wid 1\n"
	"llcm_write from=0 it=8192 val=0 inc=0 force\n"
	"ww_write ww=0 it=128 val=0\nww_write ww=1 it=128 val=0\n"
	"ww_write ww=2 it=128 val=0\nww_write ww=3 it=128 val=0\n";

/* A rank's backend: NULL for the private dnetd. */
/* An in-process emulator: every dsh builds its own, fresh. */
static bool per_process(const char *b)
{
	return dnet_spec_is(b, "sim");
}

/* A board of the machine the backend is opened on (devmem, pci): one
 * node, whatever CLID the rank drives on it. */
static bool local_board(const char *b)
{
	return dnet_spec_is(b, "devmem") || dnet_spec_is(b, "pci");
}

static unsigned clid_of(const struct run *r, unsigned k)
{
	return r->table ? r->table[k].clid : k + 1;
}

/* Ranks whose node dsh-run resets (a user-given backend, not sim), each
 * node of each backend once: the first rank that drives it. */
static bool resets(const struct run *r, unsigned k)
{
	const char *b = rank_backend(r, k);
	if (r->no_reset || !b || per_process(b))
		return false;
	for (unsigned j = 0; j < k; j++) {
		const char *o = rank_backend(r, j);
		if (o && !strcmp(o, b) && (local_board(b) || clid_of(r, j) == clid_of(r, k)))
			return false;
	}
	return true;
}

const char *run_isolation(const struct run *r)
{
	if (r->no_reset)
		return "none";
	bool priv = false, reset = false;
	for (unsigned k = 0; k < r->n; k++) {
		priv |= !rank_backend(r, k);
		reset |= resets(r, k);
	}
	if (priv && reset)
		return "restart, reset";
	return priv ? "restart" : reset ? "reset" : "process";
}

/* The rank whose reset also restores its backend's parameters: the first
 * that resets a node of that backend (parameters are the backend's). */
static bool params_owner(const struct run *r, unsigned k)
{
	if (!resets(r, k))
		return false;
	for (unsigned j = 0; j < k; j++)
		if (resets(r, j) && !strcmp(rank_backend(r, j), rank_backend(r, k)))
			return false;
	return true;
}

/* dsh -e -b B [--json] -c SCRIPT with the rank's environment, stdout to
 * out (NULL: /dev/null), stderr to errf; its own process group, so that a
 * kill reaches it whole. */
static pid_t start_dsh(const struct run *r, unsigned k, const char *script, const char *out, const char *errf)
{
	char rank[32], size[32], *map = NULL;
	snprintf(rank, sizeof rank, "DSH_RANK=%u", k);
	snprintf(size, sizeof size, "DSH_SIZE=%u", r->n);
	if (r->table && !(map = run_rankmap_env(r)))
		return -1;
	char *argv[] = { (char *)r->dsh, (char *)"-e", (char *)"-b", (char *)rank_backend(r, k), (char *)"-c",
			 (char *)script, out ? (char *)"--json" : NULL, NULL };
	char *tok = rank_token_env(r, k); /* not on the command line (D-RUN-SECRETS) */
	pid_t p = fork();
	if (p == 0) {
		setpgid(0, 0);
		term_signals_default();
		int in = open("/dev/null", O_RDWR), err = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int o = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : in;
		if (in < 0 || err < 0 || o < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(err, 2) < 0)
			_exit(126);
		putenv(rank);
		putenv(size);
		if (map)
			putenv(map);
		else
			unsetenv("DSH_RANKMAP");
		unsetenv("DSH_PGID");
		if (tok)
			putenv(tok);
		execvp(argv[0], argv);
		fprintf(stderr, "dsh-run: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (p > 0)
		setpgid(p, p);
	free(map);
	free(tok);
	return p;
}

/* The dsh commands that set the writable parameters of a `dsh --json -c
 * params` listing (file) back to their values there; "" when it has none,
 * NULL (why in msg) when it cannot be read or a value cannot be quoted. */
static char *restore_script(const char *file, char *msg, size_t mn)
{
	FILE *f = fopen(file, "r");
	char *line = NULL, *out = NULL;
	size_t cap = 0, len = 0, room = 0;
	cJSON *list = NULL, *j = NULL;
	snprintf(msg, mn, "no parameter listing in %.400s", file);
	while (f && !list && getline(&line, &cap, f) > 0) {
		cJSON_Delete(j);
		j = cJSON_Parse(line);
		cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "result");
		list = cJSON_GetObjectItemCaseSensitive(res, "params");
		if (list && !cJSON_IsArray(list))
			list = NULL;
	}
	if (f)
		fclose(f);
	free(line);
	if (!list || !(out = calloc(1, room = 256))) {
		cJSON_Delete(j);
		return NULL;
	}
	const cJSON *p;
	cJSON_ArrayForEach(p, list) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "name"));
		const char *acc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "access"));
		const char *val = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "value"));
		if (!name || !acc || !val || strcmp(acc, "rw"))
			continue;
		if (strchr(val, '\'') || strchr(name, '\'')) {
			snprintf(msg, mn, "parameter %s: its value cannot be quoted for dsh", name);
			free(out);
			cJSON_Delete(j);
			return NULL;
		}
		size_t need = len + strlen(name) + strlen(val) + 16;
		if (need > room) {
			char *n2 = realloc(out, room = 2 * need);
			if (!n2) {
				free(out);
				cJSON_Delete(j);
				return NULL;
			}
			out = n2;
		}
		/* a text value of several lines (the fault rules, one a line) as
		 * one: '+' separates rules, as in faults=... */
		len += (size_t)sprintf(out + len, "params %s '", name);
		for (const char *c = val; *c; c++)
			out[len++] = *c == '\n' ? '+' : *c;
		len += (size_t)sprintf(out + len, "'\n");
	}
	cJSON_Delete(j);
	return out;
}

/* Before the first script: the writable parameters of every backend that
 * dsh-run resets, as they are now (r->restore[k] for its params_owner). */
static int snapshot_params(struct run *r)
{
	if (!(r->restore = calloc(r->n, sizeof *r->restore)))
		return -1;
	int rc = 0;
	for (unsigned k = 0; k < r->n && rc == 0; k++) {
		if (!params_owner(r, k))
			continue;
		char out[4400], errf[4400], msg[600];
		snprintf(out, sizeof out, "%s/params.rank%u.json", r->tmp, k);
		snprintf(errf, sizeof errf, "%s/params.rank%u.err", r->tmp, k);
		pid_t p = start_dsh(r, k, "params", out, errf);
		int st = 0;
		uint64_t until = run_mono_ms() + r->timeout_ms;
		while (p > 0 && waitpid(p, &st, WNOHANG) != p) {
			if (run_signal_caught() || run_mono_ms() >= until) {
				kill(-p, SIGKILL);
				kill(p, SIGKILL);
				waitpid(p, &st, 0);
				st = -1;
				break;
			}
			struct timespec ts = { 0, 5000000 };
			nanosleep(&ts, NULL);
		}
		if (p > 0 && st == 0)
			r->restore[k] = restore_script(out, msg, sizeof msg);
		else
			run_first_line(errf, msg, sizeof msg);
		if (!r->restore[k]) {
			fprintf(stderr, "dsh-run: cannot read the parameters of %s (rank %u) before the first script: %s\n",
				rank_backend(r, k), k, msg[0] ? msg : "no message");
			if (!r->abort_why[0])
				snprintf(r->abort_why, sizeof r->abort_why, "could not read the parameters of rank %u's "
					 "backend before the first script: %.1500s", k, msg);
			rc = -1;
		}
	}
	return rc;
}

void run_isolate_free(struct run *r)
{
	for (unsigned k = 0; r->restore && k < r->n; k++)
		free(r->restore[k]);
	free(r->restore);
	r->restore = NULL;
}

/* The reset of rank k's node before script s: RESET_SCRIPT, and from the
 * second script on the parameters set back (params_owner). */
static pid_t start_reset(const struct run *r, unsigned k, unsigned s, const char *errf)
{
	const char *extra = s > 0 && r->restore && r->restore[k] ? r->restore[k] : "";
	size_t n = sizeof RESET_SCRIPT + strlen(extra);
	char *script = malloc(n);
	if (!script)
		return -1;
	snprintf(script, n, "%s%s", RESET_SCRIPT, extra);
	pid_t p = start_dsh(r, k, script, NULL, errf);
	free(script);
	return p;
}

/* Controller Reset and zeroed LLCM/Write Windows of every node a rank
 * drives through a user-given backend, all nodes at once. */
static int reset_nodes(struct run *r, unsigned s)
{
	pid_t *pid = calloc(r->n, sizeof *pid);
	if (!pid)
		return -1;
	int rc = 0;
	char errf[4400];
	for (unsigned k = 0; k < r->n; k++) {
		if (!resets(r, k))
			continue;
		snprintf(errf, sizeof errf, "%s/reset.s%u.rank%u.err", r->tmp, s, k);
		if ((pid[k] = start_reset(r, k, s, errf)) < 0) {
			fprintf(stderr, "dsh-run: cannot start %s: %s\n", r->dsh, strerror(errno));
			pid[k] = 0;
			rc = -1;
		}
	}
	uint64_t until = run_mono_ms() + r->timeout_ms;
	for (unsigned left = 1; left;) {
		left = 0;
		for (unsigned k = 0; k < r->n; k++) {
			if (pid[k] <= 0)
				continue;
			int st;
			if (waitpid(pid[k], &st, WNOHANG) != pid[k]) {
				left++;
				continue;
			}
			pid[k] = 0;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				continue;
			char msg[512];
			snprintf(errf, sizeof errf, "%s/reset.s%u.rank%u.err", r->tmp, s, k);
			run_first_line(errf, msg, sizeof msg);
			if (!msg[0])
				snprintf(msg, sizeof msg, "no message");
			fprintf(stderr, "dsh-run: could not reset node %u (rank %u, %s) before %s: %s\n"
				"dsh-run: (a Controller Reset and clearing LLCM and Write Windows need a privileged "
				"connection; --no-reset runs every script on the state the one before left)\n",
				clid_of(r, k), k, rank_backend(r, k), r->scripts[s], msg);
			if (!r->abort_why[0]) /* the reason of the tests not run, in the reports */
				snprintf(r->abort_why, sizeof r->abort_why, "could not reset node %u (rank %u) before "
					 "the script: %.1500s", clid_of(r, k), k, msg);
			rc = -1;
		}
		if (!left)
			break;
		bool sig = run_signal_caught();
		if (sig || run_mono_ms() >= until) {
			for (unsigned k = 0; k < r->n; k++)
				if (pid[k] > 0) {
					if (!sig)
						fprintf(stderr, "dsh-run: the reset of node %u (rank %u, %s) did not finish "
							"within %llu ms\n", clid_of(r, k), k, rank_backend(r, k),
							(unsigned long long)r->timeout_ms);
					kill(-pid[k], SIGKILL);
					kill(pid[k], SIGKILL);
					waitpid(pid[k], NULL, 0);
					pid[k] = 0;
				}
			rc = -1;
			break;
		}
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
	}
	free(pid);
	return rc;
}

/* A fresh private dnetd on the same socket; the last one's log is kept as
 * dnetd.sN.log (N: the script it served, from 0). */
static int restart_dnetd(struct run *r, unsigned s)
{
	char log[4200], old[4200];
	dnetd_stop(r);
	snprintf(log, sizeof log, "%s/dnetd.log", r->tmp);
	snprintf(old, sizeof old, "%s/dnetd.s%u.log", r->tmp, s - 1);
	rename(log, old);
	unlink(r->sock); /* a dnetd killed hard leaves it; dnetd_start waits for a new one */
	if (dnetd_start(r) < 0 || run_wait_listening(r) < 0 || pgid_setup(r) < 0)
		return -1;
	return 0;
}

int run_isolate(struct run *r, unsigned s)
{
	if (r->no_reset)
		return 0;
	/* dsh-run resets from this machine: under a launcher the ranks' boards
	 * may be other hosts' */
	for (unsigned k = 0; s == 0 && r->launcher != L_LOCAL && k < r->n; k++)
		if (resets(r, k) && local_board(rank_backend(r, k))) {
			fprintf(stderr, "dsh-run: cannot reset rank %u's board (%s) before each script: under a "
				"launcher the ranks may run on other hosts, and dsh-run resets from this one "
				"(--no-reset runs every script on the state the one before left)\n", k,
				rank_backend(r, k));
			return -1;
		}
	if (s > 0 && r->private_dnetd && restart_dnetd(r, s) < 0) /* also after it died */
		return -1;
	if (s == 0 && r->dnetd_pid > 0 && run_wait_listening(r) < 0)
		return -1;
	if (run_signal_caught())
		return -1;
	if (s == 0 && snapshot_params(r) < 0)
		return -1;
	return reset_nodes(r, s);
}
