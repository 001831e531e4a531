/* dsh-run: one dsh per rank, every script on every rank, one report.
 * Internal declarations shared by the files of dsh/run/.
 *
 *   main.c    options, the node table, the run loop, progress, exit status
 *   launch.c  starting ranks (local, mpirun, srun, pdsh), timeouts, killing
 *             everything started on any exit
 *   rankenv.c what each rank is given: backend, token, rank map, PGID
 *   procs.c   processes: signals, spawn and kill, the private dnetd
 *   rankexec.c  --exec-rank: in front of dsh on every rank a launcher starts,
 *             its own exit status in a file, whatever the launcher reports
 *   result.c  reading each rank's JSON Lines output into a test result
 *   report.c  CTRF JSON (libcjson) and JUnit XML
 *   isolate.c the device state every script starts from (D-RUN-STATE)
 *   hosts.c   the node table's hosts given to the launchers, and checked
 *             against where each rank reports it ran (D-RUN-HOSTS)
 *   paths.c   the report files: two names of one file refused, an earlier
 *             run's reports removed when the command line is (D-REPORT-PATHS)
 */
#ifndef DSH_RUN_H
#define DSH_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "../sigtime.h"

#define RUN_MAX_RANKS 480   /* dsh's signal words (DSH_SYNC_MAX_RANKS) */

enum launcher { L_LOCAL, L_MPIRUN, L_SRUN, L_PDSH };

/* One line of the node table. */
struct rank_node {
	char host[128];
	char backend[512];     /* "" = the private dnetd; no token= (D-RUN-SECRETS) */
	char shown[512];       /* the backend as given, token=*** */
	char token[256];       /* its token= ("" none) */
	unsigned clid, wid, pgid;
	bool has_pgid;
	int line;              /* of the node table */
};

/* The outcome of one script on one rank (a CTRF test). */
enum status { ST_PASSED, ST_FAILED, ST_SKIPPED, ST_OTHER };
struct failure {
	char file[256];
	int line;
	char cmd[64];
	char message[512];
};
/* One command of a rank's run, for the report's per-command detail. */
struct cmdrec {
	int line;
	char cmd[24];
	bool ok;
	signed char passed;    /* assertions: 1 held, 0 did not; -1 not an assertion */
};
struct result {
	unsigned rank;
	const char *script;
	enum status status;
	char message[1200];    /* first failure, or why the rank did not finish */
	int exit_code;         /* -1 unknown, 128+N killed */
	bool timed_out;
	bool never_started;    /* a launcher did not start it (no status file) */
	bool vanished;         /* started, ended without an exit status (killed) */
	bool dnetd_died;       /* the private dnetd died under it (said once) */
	bool not_run;          /* never started: the run stopped before it (D-REPORT-NOT-RUN) */
	uint64_t start_ms, stop_ms;
	/* from the rank's summary object */
	int passed, failed, errors, commands;
	bool have_summary, summary_ok;
	struct cmdrec *cmds;   /* every command object, in order */
	unsigned ncmds;
	struct failure *fail;  /* every failed command and assertion */
	unsigned nfail;
	unsigned nasserts;     /* assertions seen */
	char last_file[256];   /* the last command object's file ("" none) */
	char out_path[4400], err_path[4400];
	char ran_on[128];      /* the host the rank reported (uname's nodename), "" unknown */
	char launcher_err[4400]; /* the launcher's stderr ("" local) */
};

struct run {
	unsigned n;                     /* ranks */
	enum launcher launcher;
	const char *backend;            /* -b for every rank without token=, NULL = private dnetd */
	char backend_buf[512], backend_shown[512], token[256]; /* -b's, token= taken out */
	struct rank_node *table;        /* [n] or NULL */
	const char *table_path;
	const char *rcmd;               /* --rcmd: pdsh's rcmd module, NULL = pdsh's default */
	char self_host[128];            /* our uname nodename: "localhost" in a table, local ranks */
	uint64_t timeout_ms;            /* per script */
	uint64_t total_timeout_ms;      /* 0 = none */
	const char *report, *junit;
	FILE *report_out, *junit_out;   /* the report that goes to standard output (D-OUT-STDOUT) */
	const char *dsh, *dnetd;        /* programs */
	const char *self;               /* dsh-run itself, for --exec-rank */
	char tmp[4096];                 /* private directory */
	char sock[4200];
	pid_t dnetd_pid;
	bool progress;                  /* stderr is a terminal */
	bool verbose;
	bool lockstep;                  /* private dnetd serves in virtual-time order */
	bool no_reset;                  /* --no-reset: scripts share the device state */
	const char **scripts;
	unsigned nscripts;
	struct result *res;             /* [nscripts * n] */
	uint64_t start_ms, stop_ms;
	char cmdline[2048];
	uint32_t run_base;              /* run ids: run_base + script index */
	int signal;                     /* caught */
	char abort_why[2048];           /* why no script ran (preflight), for the reports */
	char **restore;                 /* [n]: rank k's backend's parameters as the run found
	                                   them, as dsh commands (isolate.c), NULL: none */
	char dnetd_death[256];          /* how the private dnetd died, "" alive */
	bool private_dnetd;             /* dsh-run serves the ranks a dnetd */
};

/* hosts.c: where ranks run (D-RUN-HOSTS) */
/* The host a launcher is asked to start rank k on: the table's HOST, with
 * "localhost" meaning this machine (r->self_host). */
const char *rank_host(const struct run *r, unsigned k);
/* Whether a rank that reported nodename ran_on ran on table host want. */
bool host_same(const char *ran_on, const char *want);
/* Write PATH with one host per line, rank 0 first (mpirun's sequential
 * mapper, Slurm's arbitrary distribution); -1 with errno on failure. */
int hosts_file(const struct run *r, const char *path);
/* "h0,h1,..." (malloc'd), pdsh's -w in rank order. */
char *hosts_list(const struct run *r);
/* Fail every result of script s whose rank ran elsewhere than the table says. */
void hosts_check(const struct run *r, unsigned s);

/* procs.c: the processes dsh-run starts; the bottom, calling no other file */
uint64_t now_ms(void);
/* CLOCK_MONOTONIC in ms: deadlines and elapsed times. */
static inline uint64_t run_mono_ms(void) { return dsh_mono_ns() / 1000000u; }
void run_signals_install(void);
int run_signal_caught(void);
void run_nap(unsigned ms);
/* fork + exec argv with stdout/stderr to files (NULL: inherited) and extra
 * environment "K=V" strings, in a process group of its own. */
pid_t run_spawn(char *const argv[], const char *out, const char *errf, char *const *env, unsigned nenv);
/* SIGTERM to the process group, SIGKILL after a grace time, reaped. */
void run_kill_group(pid_t p);
/* The first line of a file (a program's own complaint), "" if none. */
void run_first_line(const char *path, char *buf, size_t n);
int dnetd_start(struct run *r);
void dnetd_stop(struct run *r);
/* The private dnetd accepts connections (-1: said why). */
int run_wait_listening(struct run *r);

/* rankenv.c: what each rank is given */
/* Rank k's own backend (node table, else -b); NULL: the private dnetd. */
const char *rank_backend(const struct run *r, unsigned k);
/* "remote:unix:SOCK" for the private dnetd, in buf. */
const char *run_private_backend(const struct run *r, char *buf, size_t n);
/* Rank k's token: its backend's token=, else $DNET_TOKEN, else NULL.  It
 * reaches a rank only through its environment or a 0600 file, never a
 * command line (D-RUN-SECRETS). */
const char *rank_token(const struct run *r, unsigned k);
/* "DNET_TOKEN=..." for a child's environment (malloc'd), NULL if none. */
char *rank_token_env(const struct run *r, unsigned k);
/* "DSH_RANKMAP=CLID:WID,..." from the node table, for putenv (malloc'd). */
char *run_rankmap_env(const struct run *r);
/* fmt with the string a (or, when a is NULL, the number v), malloc'd; out of
 * memory exits. */
char *run_envf(const char *fmt, const char *a, unsigned long v);
int pgid_setup(struct run *r);

/* launch.c */
/* Run script s on every rank; fills r->res[s * n + k]. */
int run_script(struct run *r, unsigned s);
void kill_all(struct run *r);

/* rankexec.c */
int rank_exec(int argc, char **argv);
/* Unset the rank variables dsh reads and dsh-run sets (D-RUN-ENV). */
void rank_env_clear(void);
/* What DIR/rankK.host says (the nodename the rank ran on) into buf, "" if none. */
void rank_host_read(const char *dir, unsigned rank, char *buf, size_t n);
/* What DIR/rankK.status says: *code set when RANK_ENDED (128+N: signal N). */
enum { RANK_NEVER_STARTED, RANK_RUNNING, RANK_ENDED };
int rank_status_read(const char *dir, unsigned rank, int *code);

/* isolate.c: before script s, a fresh private dnetd (s > 0) and a Controller
 * Reset with cleared LLCM/Write Windows of the nodes of user-given backends,
 * unless --no-reset; -1 (a message printed) when the script must not run. */
int run_isolate(struct run *r, unsigned s);
void run_isolate_free(struct run *r);
/* For the report: "restart", "reset", "restart, reset", "process" or "none". */
const char *run_isolation(const struct run *r);

/* preflight.c (D-RUN-PREFLIGHT): a probe line of one rank's backend
 * ("ok CLUSTER NODES CAPS HOST" or "error MESSAGE"); the judgement of every
 * rank's line (NULL: not yet known), -1 with the reason in why; the probe of
 * every local rank from here before the first script (-1: said). */
/* scriptcheck.c: every script through `dsh -n` once, before any rank
 * (D-RUN-CHECK); -1 with why when one does not pass (its messages shown). */
int run_scripts_check(struct run *r, char *why, size_t wn);
void preflight_probe(const char *spec, const char *token, char *line, size_t n);
int preflight_judge(const struct run *r, char *const *lines, char *why, size_t wn);
int preflight_local(struct run *r);

/* result.c */
void result_read(struct result *res);
void result_free(struct result *res);

/* paths.c (D-REPORT-PATHS) */
struct option;
/* a and b are one file: the same device and inode when both exist (not a
 * character device, which takes both), else the same resolved path. */
bool report_paths_same(const char *a, const char *b);
/* The command line was refused: the regular files its --report and
 * --junit name (argv read again with getopt_long) are removed, said. */
void reports_remove(int argc, char **argv, const char *optstring, const struct option *lo, int o_report,
		    int o_junit);

/* report.c */
/* p absolute (from the working directory) and lexically normal; malloc'd. */
char *run_abs_path(const char *p);
/* The start of a file, at most max bytes, cut between UTF-8 characters,
 * what was left out said; NULL if there is no such file (malloc'd). */
char *run_excerpt(const char *path, size_t max);
int report_ctrf(const struct run *r, const char *path);
int report_junit(const struct run *r, const char *path);

#endif
