/* dsh: the DIMMnet Shell — shared declarations.
 *
 * One concern per file; each file's opening comment names its concern (the
 * first lines of the .c files list them all), and docs/architecture.md
 * draws the layers.  No index here: a list kept by hand went stale (it
 * named 14 of 31 files).
 */
#ifndef DSH_DSH_H
#define DSH_DSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "dnet/dnet.h"

#define DSH_ORIG_VERSION "DIMMnet-2 Shell version 2.1a released by Yomi"
#define DSH_VERSION "0.1.0"
#define DSH_SCHEMA "dsh/1"

#define DSH_MAX_ARGS 128
#define DSH_LINE_MAX 4096
#define DSH_PHYS_LINE_MAX 65536          /* bytes of one physical line of input */
#define DSH_SCRIPT_MAX (64u << 20)       /* bytes of one script, read whole */
#define DSH_VAR_NAME_MAX 63              /* characters of a variable name */
#define DSH_DEFAULT_BASE 0x4213c000u     /* the thesis's mapping address (App. C) */
#define DSH_DEFAULT_GAP_NS 10000u        /* 10 us of virtual time between commands */
#define DSH_DEFAULT_TIMEOUT_NS 1000000000ull /* 1 s */

/* Exit codes (issue 4). */
enum { DSH_EXIT_OK = 0, DSH_EXIT_FAIL = 1, DSH_EXIT_USAGE = 2, DSH_EXIT_BACKEND = 3 };

/* One tokenized command. */
struct dsh_args {
	int argc;
	char *argv[DSH_MAX_ARGS];
	char buf[DSH_LINE_MAX * 2];
};

struct dsh;
typedef int (*dsh_handler)(struct dsh *d, struct dsh_args *a);

/* Command flags. */
#define DSH_C_NODEV  0x100u /* does not need the device (help, echo, set...) */
#define DSH_C_POSTED 0x200u /* only writes, prints nothing: may go posted (post.c) */
#define DSH_C_ARITY  0x400u /* every word is one of args' or a key: the check counts them (complete.c) */

struct dsh_cmd {
	const char *name;
	const char *alias[3];
	dsh_handler fn;
	const char *usage;    /* "llcm_read [Offset] [Size(Byte)]" */
	const char *summary;  /* one line */
	const char *example;  /* one line, may be NULL */
	const char *keys;     /* key= completion hints, space separated, or NULL */
	unsigned flags;       /* DSH_C_* */
	const char *details;  /* more text for help CMD, may be NULL */
	const char *args;     /* what each word is (grammar: complete.c), or NULL */
};

const struct dsh_cmd *dsh_cmds(unsigned *n);
const char *dsh_cmd_suggest(const char *name); /* "did you mean", NULL none */
/* "did you mean 'X'? " for the name of the blank-separated list nearest to
 * word (libdnet's dnet_suggest), "" when none is near; in buf. */
const char *dsh_did_you_mean(const char *word, const char *list, char *buf, size_t n);
const struct dsh_cmd *dsh_cmd_find(const char *name);

/* A named variable. */
struct dsh_var {
	char *name;
	char *value;
	struct dsh_var *next;
};

/* A register snapshot. */
struct dsh_snap {
	char *name;
	unsigned node, wid;
	uint64_t *val;   /* indexed like dnet_regs() */
	bool *has;
	struct dsh_snap *next;
};

/* Host-side shadows of what cannot be read back: the Write Window and the
 * write-only registers, per node and WID.  ww_known has one byte per 64-bit
 * word of the window area, bit k set when this shell wrote byte k of the
 * word (a 32-bit ww_write leaves the other half unknown). */
struct dsh_shadow {
	uint8_t ww[DNET_NWID][DNET_WINAREA_SIZE];
	uint8_t ww_known[DNET_NWID][DNET_WINAREA_SIZE / 8];
	uint64_t *reg[DNET_NWID];
	bool *reg_has[DNET_NWID];
};

/* struct dsh, the shell's state, by concern (the sub-structs below); the
 * device handle and its capabilities, which every command uses, stand at
 * its top. */

/* The configuration: the command line and `set`. */
struct dsh_opts {
	const char *spec;
	unsigned nodes;     /* -N */
	bool echo;
	bool bail;          /* -e / set -e */
	bool interactive;
	bool dry;           /* --dry-run: nothing touches a device */
	uint64_t gap_ns;
	uint32_t base;      /* printed address = base + device offset */
	uint64_t timeout_ns;
	unsigned nprocs, pid, wid;
	unsigned home_node; /* the node the shell started on (the prompt names others) */
};

/* The output, text or JSON (print.c, jsonl.c, flush.c). */
struct dsh_io {
	bool json;
	bool pretty;        /* --pretty: indented JSON */
	bool error;         /* stdout could not be written (counted once) */
	cJSON *res;         /* result object of the current command (JSON mode) */
	cJSON *extra;       /* top-level extras of the current command (JSON mode) */
	/* print.c: the objects and arrays opened inside res (out_obj_open) */
#define DSH_OUT_DEPTH 8
	cJSON *onest[DSH_OUT_DEPTH];
	unsigned odepth;
};

/* Ranks (ranks.c, cmd_sync.c). */
struct dsh_ranks {
	unsigned rank, size;
	const char *from;            /* the environment variable the rank came from */
	uint32_t run_id;
	struct dnet_msg_rank *peer;  /* [size]: each rank's node (CLID) and WID */
	bool rankmap;                /* DSH_RANKMAP gave the peers (their WIDs fixed: D-SYNC-WID) */
	uint32_t sync_area;          /* LLCM offset of the synchronisation area */
	bool sync_used;              /* barrier, signal or waitfor ran: the area is reserved */
	struct dnet_sync *sync;      /* libdnet's barrier and signals, opened on first use */
};

/* send/recv (cmd_msg.c): the message job, set up on first use; amt map
 * (cmd_amt.c): this shell's Address Table writes, newest last (the
 * register cannot be read back). */
struct dsh_msg {
	struct dnet_msg_job *job;
	struct dnet_dev *job_dev;    /* the device the job was opened on */
	struct dsh_amt_map { unsigned clid, wid, index; } *amt_maps;
	unsigned amt_nmaps;
};

/* The register database and the shadows (shadow.c). */
struct dsh_regs {
	const struct dnet_reg *db;
	unsigned ndb;
	struct dsh_shadow **shadow;  /* [node - 1], lazily allocated */
	unsigned nshadow;
};

/* The run's state and verdict (verdict.c, flags.c, signals.c). */
struct dsh_run {
	bool quit;
	bool stop;          /* bail-out requested */
	int failures;       /* failed commands */
	int errors;         /* failed commands other than a failed assertion */
	int quit_code;      /* exit N: the exit status; -1 none */
	char quit_at[160];  /* where the script asked to exit: "FILE:LINE" */
	bool input_unread;  /* standard input failed before its first line: nothing ran */
	bool backend_unopened; /* the backend could not be opened: nothing ran (exit 3) */
	bool setup_failed;     /* the journal or the sync set-up failed: nothing ran (exit 2) */
	int check_errors;   /* errors the whole-script check found (nothing ran) */
	bool out_of_time;   /* --max-time stopped the run */
	uint64_t deadline_ns; /* --max-time: CLOCK_MONOTONIC instant it ends (signals.c), 0 none */
	bool verdict;       /* the command running is an assertion that did not hold */
	int commands;
	int asserts_pass, asserts_fail, asserts_skipped;
	struct dsh_pending *pending; /* primitive verdicts not judged yet (flags.c) */
};

/* The script's state (script.c): the last value, variables, snapshots. */
struct dsh_script {
	bool has_last;
	uint64_t last;
	struct dsh_var *vars;
	struct dsh_snap *snaps;
	int depth;          /* source nesting */
	unsigned sources_after; /* -c/-f sources of the run still to come (D-VERDICT-EXIT0) */
	/* dsh replay FILE: the journal named on the command line; replay's
	 * errors in it are reported at FILE:LINE, not at the -c line */
	const char *replay_file;
};

/* The command running: where it is, and its error. */
struct dsh_cur {
	const char *file;
	int line;
	const char *cmd;
	char errmsg[DNET_ERR_MSG_MAX + 256];
	bool have_err;
};

/* Posted commands not yet confirmed by the device (post.c). */
struct dsh_post {
	struct dsh_posted *slots;
	unsigned n;
	uint64_t base;      /* posted commands resolved before the open slots */
	bool off;           /* set posted off: a round trip per command */
};

struct dsh {
	struct dnet_dev *dev;
	unsigned caps;
	struct dsh_opts opts;
	struct dsh_io io;
	struct dsh_ranks ranks;
	struct dsh_msg msg;
	struct dsh_regs reg;
	struct dsh_run run;
	struct dsh_script script;
	struct dsh_cur cur;
	struct dsh_post post;
};

/* ---- release.c ---- */
/* Free everything the shell holds and close its device. */
void dsh_release(struct dsh *d);

/* ---- post.c ---- */
/* Through dnetd, a run of commands flagged DSH_C_POSTED goes posted (no
 * round trip each); any other command, the end of a script and the prompt
 * first wait for them (dsh_post_sync), and a failure is reported then as
 * the failure of its own command and line.  Returns whether cmd may run
 * posted now; tags the device's requests with it. */
bool dsh_post_begin(struct dsh *d, const struct dsh_cmd *c, const char *name);
/* The command that dsh_post_begin let post has returned: posting off. */
void dsh_post_end(struct dsh *d);
/* Wait for the posted commands; report each that failed.  -1 if any did. */
int dsh_post_sync(struct dsh *d);
void dsh_post_free(struct dsh *d);

/* ---- args.c ---- */
int dsh_tokenize(struct dsh *d, const char *line, struct dsh_args *a);
/* End of the command that starts at l[start]: the ';' or comment '#' that
 * ends it, or len.  *last: nothing of the line follows; *open_quote: the
 * quote left open at the end of the line, or 0. */
size_t dsh_split_next(const char *l, size_t len, size_t start, bool *last, char *open_quote);
const char *dsh_var_get(struct dsh *d, const char *name);
int dsh_var_set(struct dsh *d, const char *name, const char *value);
bool dsh_var_name_ok(const char *name);
void dsh_vars_free(struct dsh *d);
/* Strict number of argument i ("argument i"), max inclusive. */
int dsh_num(struct dsh *d, struct dsh_args *a, int i, uint64_t max, const char *what, uint64_t *v);
int dsh_num_str(struct dsh *d, const char *s, uint64_t max, const char *what, uint64_t *v);
int dsh_dur_str(struct dsh *d, const char *s, const char *what, uint64_t *ns);

/* Declarative key=value parsing.  Every key of the command must be in the
 * spec; a key not listed is rejected; duplicates are rejected.  Nothing is
 * written to *val for a key that is not given. */
#define DSH_KV_REQ  0x1u  /* required */
#define DSH_KV_STR  0x2u  /* string value (sval) */
#define DSH_KV_DUR  0x4u  /* duration */
struct dsh_kv {
	const char *key;
	uint64_t max;
	unsigned flags;
	const char *what;
	uint64_t val;
	const char *sval;
	bool given;
};
/* Parse a.argv[start..end) as key=value pairs. */
int dsh_kv_parse(struct dsh *d, struct dsh_args *a, int start, int end, struct dsh_kv *kv, unsigned n);
struct dsh_kv *dsh_kv_get(struct dsh_kv *kv, unsigned n, const char *key);
/* Remove the bare word w from the arguments from start on; true if it was there. */
bool dsh_take_word(struct dsh_args *a, int start, const char *w);

struct dsh_run_verdict;

/* ---- print.c ---- */
int dsh_error(struct dsh *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning on stderr (with file:line in scripts) and in the JSON result. */
void dsh_warn(struct dsh *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dsh_check_clid(struct dsh *d, unsigned clid);
/* -1 (message set) unless clid is a unicast CLID (Tab. 4.6). */
int dsh_unicast_clid(struct dsh *d, unsigned clid, const char *what);
int dsh_derr(struct dsh *d, const struct dnet_err *e); /* report a libdnet error */
void out_text(struct dsh *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_banner(struct dsh *d, const char *title);
void out_dump_header(struct dsh *d);
/* A hex dump of len bytes (multiple of 8) whose first byte is at device offset devoff. */
void out_dump(struct dsh *d, const char *region, unsigned wid, uint32_t devoff, uint32_t regoff,
	      const uint8_t *buf, size_t len);
void out_dump_known(struct dsh *d, const char *region, unsigned wid, uint32_t devoff, uint32_t regoff,
		    const uint8_t *buf, size_t len, const uint8_t *known);
/* A register word line. */
void out_regword(struct dsh *d, uint32_t devoff, uint64_t v);
void out_fields(struct dsh *d, const struct dnet_reg *r, uint64_t v, const struct dnet_field *only);
/* One call per field, for text and JSON (iproute2's print_uint(PRINT_ANY,
 * key, fmt, v)): in JSON mode key: v goes into the object or array open
 * (the command's result unless out_obj_open/out_arr_open opened one; in
 * an array the key only names the element); in text mode fmt is printed
 * with v.  key NULL: text only; fmt NULL: JSON only.  fmt is a printf format that
 * takes exactly the value (uint64_t: PRIu64 / PRIx64). */
void out_u64(struct dsh *d, const char *key, const char *fmt, uint64_t v);   /* a number (hex string from 2^53) */
void out_hex(struct dsh *d, const char *key, const char *fmt, uint64_t v);   /* "0x..." in JSON */
void out_int(struct dsh *d, const char *key, const char *fmt, long long v);
void out_dbl(struct dsh *d, const char *key, const char *fmt, double v);
void out_str(struct dsh *d, const char *key, const char *fmt, const char *s);
/* text: fmt (no conversion) printed when b is true */
void out_bool(struct dsh *d, const char *key, const char *fmt, bool b);
void out_null(struct dsh *d, const char *key);   /* JSON only */
/* Objects and arrays: JSON only (text prints nothing); close what was opened. */
void out_obj_open(struct dsh *d, const char *key);
void out_arr_open(struct dsh *d, const char *key);
void out_close(struct dsh *d);
/* A value built elsewhere (a report's own JSON tree, the bench's values) under key:
 * JSON only; print.c takes it over (deletes it in text mode). */
void out_json_item(struct dsh *d, const char *key, cJSON *item);
char *hexstr(char *buf, size_t n, uint64_t v);
/* "1.500 us": a duration for a message (four may be used in one). */
const char *dsh_dur(uint64_t ns);
void dsh_set_last(struct dsh *d, uint64_t v);
/* The result of the command that starts (JSON mode; its extras too), and
 * its end without an object written (out_json_command uses them up). */
void out_result_begin(struct dsh *d);
void out_result_drop(struct dsh *d);
/* A command that runs others (source) or a late failure written between
 * commands keeps its own result aside meanwhile. */
struct dsh_out_saved { cJSON *res, *extra; unsigned depth; };
void out_result_save(struct dsh *d, struct dsh_out_saved *s);
void out_result_restore(struct dsh *d, const struct dsh_out_saved *s);
/* Emit the JSON object of one command (jsonl.c). */
void out_json_command(struct dsh *d, const struct dsh_args *a, bool ok);
/* A command's output is complete: flushed now on a terminal, within 20 ms
 * into a pipe or file (flush.c, output batching; DSH_FLUSH_EACH=1 in the
 * environment flushes every command).  Before writing to stderr call
 * dsh_flush_for_stderr, so that 2>&1 keeps the order. */
void dsh_flush(void);
void dsh_flush_for_stderr(void);
/* The run's summary object (jsonl.c). */
void out_json_summary(struct dsh *d, const struct dsh_run_verdict *v);
/* Print s with control bytes and invalid UTF-8 escaped as \xNN. */
void dsh_fputs_safe(const char *s, FILE *f);
/* "dsh: FILE:LINE: CMD: MSG" on stderr (file NULL: no location). */
void dsh_report_at(const char *file, int line, const char *cmd, const char *msg);
/* "N passed, M failed[, K errors]" or the JSON summary object of the
 * run's verdict v (verdict.c). */
void out_summary(struct dsh *d, const struct dsh_run_verdict *v);

/* ---- register access with shadows (shadow.c) ---- */
struct dsh_shadow *dsh_shadow(struct dsh *d);
unsigned dsh_reg_index(struct dsh *d, const struct dnet_reg *r);
/* The WID whose shadow holds r (the System Register has one, kept as WID 0). */
unsigned dsh_shadow_wid(struct dsh *d, const struct dnet_reg *r);
/* Which access rule (libdnet's dnet_access_check, the one place they are
 * coded) refuses reading (write false) or writing r on the current node
 * and WID: DNET_RULE_NONE if none; its message in e (may be NULL); D-ACCESS-RULES. */
enum dnet_rule dsh_reg_rule(struct dsh *d, const struct dnet_reg *r, bool write, struct dnet_err *e);
/* Readable from the device without a side effect (no rule refuses it). */
bool dsh_reg_readable(struct dsh *d, const struct dnet_reg *r);
/* The decode listings of ureg_read module_state / prim_counter (Fig. C.13, C.14). */
void dsh_modstate_listing(struct dsh *d, uint64_t v);
void dsh_counter_listing(struct dsh *d, uint64_t v);
int dsh_reg_read(struct dsh *d, const struct dnet_reg *r, uint64_t *v, bool *shadow);
/* What dsh last wrote to register NAME of the current node (false: never). */
bool dsh_shadow_of(struct dsh *d, const char *name, uint64_t *v);
/* Bytes of the current process's SO-DIMM area. */
uint64_t dsh_area_bytes(struct dsh *d);
int dsh_reg_write(struct dsh *d, const struct dnet_reg *r, uint64_t v);
/* After any access to Controller Reset made through dsh (shadow.c,
 * D-RESET-SEEN): the node's shadows forgotten, and -1 (an error naming the
 * counter) unless the counters the reset clears read 0. */
int dsh_ctl_reset_done(struct dsh *d);
const struct dnet_reg *dsh_reg_at(unsigned block, uint32_t off, unsigned acc);
int dsh_parse_regspec(struct dsh *d, const char *spec, const struct dnet_reg **r,
		      const struct dnet_field **f);
/* cmd_snapshot.c */
void dsh_snaps_free(struct dsh *d);

/* ---- conditions (cond.c): TARGET [& MASK] OP VALUE, one meaning for
 * assert, expect and wait ---- */
enum dsh_cond_kind { DSH_COND_LAST, DSH_COND_REG, DSH_COND_MEM };
struct dsh_cond {
	enum dsh_cond_kind kind;
	const struct dnet_reg *reg;
	const struct dnet_field *field;
	enum dnet_region region;
	bool sodimm;
	uint32_t off;
	uint64_t mask;      /* the target's bits unless '&' narrows them; never 0 */
	enum dnet_cond op;
	uint64_t value;     /* == !=: inside mask; < > <= >=: at most mask (checked when parsed) */
	char desc[160];
};
int dsh_cond_parse(struct dsh *d, struct dsh_args *a, int start, int end, struct dsh_cond *c);
/* assert, expect and wait read and check the target here (cond.c,
 * D-COND-ONE): wait_ns NULL reads once, else waits up to *wait_ns for the
 * condition.  -1 on an error (the message set); else r says. */
struct dsh_cond_result {
	uint64_t value;     /* the masked target (the raw word after an error) */
	bool holds;
	bool interrupted;   /* a wait stopped by the user */
	uint64_t elapsed;   /* ns waited */
};
int dsh_cond_eval(struct dsh *d, const struct dsh_cond *c, const uint64_t *wait_ns, struct dsh_cond_result *r);
bool dsh_cond_holds(const struct dsh_cond *c, uint64_t masked);
/* In the raw register/word: mask and value for dnet_wait, and back. */
void dsh_cond_device(const struct dsh_cond *c, uint64_t *mask, uint64_t *value);
uint64_t dsh_cond_from_device(const struct dsh_cond *c, uint64_t raw);

/* ---- flags.c: the error flags a primitive caused, on the issuer and the
 * destination ---- */
struct dsh_vnode {
	unsigned node, wid;
	uint64_t cs;        /* Controller Status */
	uint64_t pgid;      /* the backend's pgid_drops count, if has_pgid */
	bool has_pgid;
	bool readable;      /* this client may read the node (else not judged) */
};
struct dsh_verdict {
	unsigned nn;
	struct dsh_vnode n[2];   /* issuer, destination */
	unsigned dest;           /* the node its packets go to (the issuer if local), 0: unknown */
	int vs_window;           /* VS family: the source window, else -1 */
	bool attributed;         /* the backend counts errors per request (flags.c) */
	uint64_t caused;         /* then: the issuer's w<W>_errors_caused before */
	bool has_req;            /* ... and its request ids (D-VERDICT-IDENTITY) */
	uint32_t req_before;     /* w<W>_requests before the issue */
	uint32_t req;            /* this primitive's own request id, 0: not known */
	char what[256];          /* " by prim at FILE:LINE" for a pending verdict */
};
/* rq may be NULL (BOTF: the issuer only). */
int dsh_verdict_begin(struct dsh *d, const struct dnet_otype_info *oi, const struct dnet_req *rq,
		      struct dsh_verdict *v);
/* After the issue: the primitive's own request id, where the backend has ids. */
int dsh_verdict_issued(struct dsh *d, struct dsh_verdict *v);
/* -1 (with the message set) if a flag rose that allow (comma list, may be
 * NULL) does not name, or a flag allow names did not rise.  list: one
 * object per raised flag goes into the JSON array open (out_arr_open). */
int dsh_verdict_end(struct dsh *d, struct dsh_verdict *v, const char *allow, bool list);
int dsh_verdict_check_allow(struct dsh *d, const char *allow);
/* The flag names allow= takes, in Controller Status order. */
const char *const *dsh_verdict_flags(unsigned *n);
/* Verdicts of primitives issued without wait (flags.c), each its own
 * (D-VERDICT-PENDING): v begun before the issue and dsh_verdict_issued
 * after it; allow (may be NULL) is that primitive's own. */
int dsh_pending_push(struct dsh *d, const struct dsh_verdict *v, const char *allow);
/* Judge the pending verdicts: only_finished leaves the primitives still in
 * flight pending; as_late: each failure its own command's, else the
 * running command fails with them all. */
int dsh_pending_judge(struct dsh *d, bool as_late, bool only_finished);
/* wait allow=: the one pending primitive, finished within timeout_ns,
 * judged with allow. */
int dsh_pending_judge_one(struct dsh *d, const char *allow, uint64_t timeout_ns);
int dsh_pending_settle(struct dsh *d);
/* wait's syntax, shared with the checker (cmd_prim.c). */
void dsh_wait_split(const struct dsh_args *a, int *end, int *tmo, int *alw);
bool dsh_wait_idle_form(const struct dsh_args *a, int end);
void dsh_pending_free(struct dsh *d);

/* ---- verdict.c: the run's one verdict, read by the text summary, the JSON
 * summary and the exit status ---- */
struct dsh_run_verdict {
	int passed, failed, skipped;   /* assertions (assert, expect) */
	int commands, failed_commands, errors;
	bool ok;
	int exit_status;               /* what dsh exits with (a signal aside) */
	int exit_requested;            /* exit N / quit N of the script, or -1 */
};
void dsh_run_verdict(const struct dsh *d, struct dsh_run_verdict *v);
/* A command that already ended failed after all (a posted write, a pending
 * primitive verdict, --max-time): reported at its own FILE:LINE, counted,
 * a failed JSON object, -e stops. */
void dsh_late_failure(struct dsh *d, const char *file, int line, const char *cmd, const char *text,
		      const char *msg);
/* Standard output (or -o FILE) could not be written (flush.c): the run
 * fails.  dsh_output_check flushes, says so once on stderr and counts it. */
bool dsh_output_failed(void);
bool dsh_output_check(struct dsh *d);

/* ---- ranks.c: ranks, the barrier, signals between ranks (commands: cmd_sync.c) ---- */
/* The synchronisation area: at d->ranks.sync_area (default DSH_SYNC_AREA, set
 * sync_area ADDR) of every process's LLCM, offsets within it below. */
#define DSH_SYNC_AREA       DNET_SYNC_AREA       /* default: the last 4 KB of LLCM */
#define DSH_SYNC_AREA_SIZE  DNET_SYNC_AREA_SIZE  /* layout: dnet/sync.h */
#define DSH_SYNC_MAX_RANKS  DNET_SYNC_MAX_RANKS
int dsh_sync_init(struct dsh *d, char *err, size_t errlen);
int dsh_sync_attach(struct dsh *d, char *err, size_t errlen);
void dsh_sync_free(struct dsh *d);
/* set sync_area ADDR */
int dsh_sync_area_set(struct dsh *d, const char *v);
/* set wid W: the shell's WID, and the flag WID while it may move (D-SYNC-WID) */
int dsh_sync_wid_set(struct dsh *d, unsigned w);
#define DSH_SYNC_TIMEOUT_NS 30000000000ull /* default: 30 s of real time */
/* The barrier of every rank of the run (libdnet's dnet_sync_barrier with
 * dsh's hooks, D-DSH-BARRIER; the first joins the run, D-SYNC-RUN): its
 * number and number of rounds.  -1 (message set) on a timeout. */
int dsh_barrier(struct dsh *d, uint64_t timeout_ns, uint32_t *gen, unsigned *rounds);
/* Signal rank r / wait for rank r's next signal: the signal's count. */
int dsh_signal(struct dsh *d, unsigned r, uint64_t timeout_ns, uint32_t *count);
int dsh_waitfor(struct dsh *d, unsigned r, uint64_t timeout_ns, uint32_t *count);
/* ---- cmd_msg.c: send, recv ---- */
void dsh_msg_free(struct dsh *d);
/* cmd_amt.c */
void dsh_amt_free(struct dsh *d);

/* ---- device_ops.c: the device as the commands use it ---- */
/* Store val into LLCM off of process (clid, dwid) with an RVS/lflag packet
 * built in Write Window ww and sent by BOTF. */
int dsh_rllcm_store(struct dsh *d, unsigned clid, unsigned dwid, uint32_t off, uint64_t val, unsigned ww);
int dsh_wait_idle(struct dsh *d, bool all_nodes, uint64_t timeout_ns, uint64_t *elapsed);
int dsh_now(struct dsh *d, uint64_t *ns);
int dsh_issue(struct dsh *d, enum dnet_cmdsel sel, const struct dnet_cmd *cmd);
int dsh_sodimm_rw(struct dsh *d, uint64_t off, void *buf, size_t len, bool write, const char **how);
/* Bytes of one WID's SO-DIMM area, as sdimm_capacity was last written (else the default). */
uint64_t dsh_sodimm_capacity(struct dsh *d);
/* len bytes at off of a region of the current WID (the Write Window: its shadow). */
int dsh_region_read(struct dsh *d, enum dnet_region reg, uint32_t off, uint8_t *buf, size_t len);
/* Write into the current WID's Write Window area (offset inside the 2 KB area), keeping the shadow. */
int dsh_ww_store(struct dsh *d, uint32_t off, const void *buf, size_t len);
/* Record in the shadow that len bytes at off of the current node's and WID's
 * Write Window area were written with buf. */
void dsh_ww_shadow(struct dsh *d, uint32_t off, const void *buf, size_t len);
/* The 64-bit word at off of a region; need: the bits the caller looks at.
 * The Write Window comes from the shadow: -1 (message set) if this shell
 * has not written every byte need touches. */
int dsh_mem_word(struct dsh *d, enum dnet_region r, bool sodimm, uint32_t off, uint64_t need, uint64_t *v);
/* The area is reserved where ranks synchronise: a run of more than one
 * rank, or once barrier, signal or waitfor was used (D-SYNC-AREA). */
bool dsh_sync_reserved(const struct dsh *d);
/* -1 (message set) if [off, off+len) of LLCM touches the reserved area. */
int dsh_sync_area_guard(struct dsh *d, uint32_t off, uint32_t len);

/* ---- script.c ---- */
int dsh_run_string(struct dsh *d, const char *text, const char *name);
/* Run a sourced file; DSH_NOT_RUN (message set): unreadable or check errors. */
int dsh_run_file(struct dsh *d, const char *path);
/* Read the whole script from f, check it (check.c), then run it unless
 * check_only.  DSH_NOT_RUN: unreadable or errors found (listed on stderr). */
#define DSH_NOT_RUN (-2)
int dsh_run_checked(struct dsh *d, FILE *f, const char *path, bool check_only);
/* ---- check.c ---- */
int dsh_load_script(struct dsh *d, const char *path, FILE *f, char **text, size_t *len);
/* Number of errors found (each printed as dsh: NAME:LINE: message). */
int dsh_check_text(struct dsh *d, const char *text, size_t len, const char *name);
/* -n: the same, and every `source FILE` it can resolve checked too, at that
 * file's lines (D-CHECK-SOURCES). */
int dsh_check_tree(struct dsh *d, const char *text, size_t len, const char *name);
/* Whether a script holds any command; an empty one fails the run at its
 * line 1 (D-SCRIPT-EMPTY). */
bool dsh_text_has_command(const char *text, size_t len);
void dsh_empty_script(struct dsh *d, const char *name);
/* Report that NAME was not run because of nerr check errors. */
void dsh_not_run(struct dsh *d, const char *name, int nerr);
int dsh_run_stream(struct dsh *d, FILE *f, const char *name);
/* Lines from a callback (malloc'd, NULL at end; cont: inside a block). */
int dsh_run_reader(struct dsh *d, char *(*cb)(void *ctx, bool cont), void *ctx, const char *name);
int dsh_exec(struct dsh *d, const char *cmd, const char *file, int line);

/* ---- interactive.c ---- */
int dsh_interactive(struct dsh *d);

/* ---- signals.c: what stops a run ---- */
/* Ctrl-C was typed (interactive only): the running command and the rest of
 * the line or block stop; the shell goes on. */
bool dsh_interrupted(struct dsh *d);
/* dsh_interrupted as libdnet's stop hook (ctx: the struct dsh): on the
 * device (dnet_set_stop) for every blocking call, and on the barrier. */
bool dsh_stop_hook(void *ctx);
void dsh_interrupt_clear(void);
/* The interactive SIGINT handler (interactive.c installs it) and its flag. */
void dsh_on_sigint(int sig);
bool dsh_sigint_pending(void);
/* Batch runs: catch SIGINT/SIGTERM/SIGHUP so the summary is written; the
 * signal caught (0 if none). */
void dsh_batch_signals(void);
int dsh_term_signal(void);
/* --max-time: a limit on the real time of the whole run (0: none). */
void dsh_set_max_time(struct dsh *d, uint64_t ns);
bool dsh_out_of_time(const struct dsh *d);

/* ---- complete.c: a command's words from its table entry's args ---- */
struct dsh_completion {
	char **v;            /* the candidates, sorted, each starting with the word */
	size_t n, cap;
	size_t word;         /* where the word being completed starts in the line */
	bool files;          /* the word is a file name (readline completes it) */
	bool no_space;       /* one candidate that is completed further (key=, REG.) */
};
/* Candidates for the word that ends at point of line.  Returns their number. */
int dsh_complete(struct dsh *d, const char *line, size_t point, struct dsh_completion *c);
void dsh_completion_free(struct dsh_completion *c);
/* The number of words (key= words included) a DSH_C_ARITY command takes;
 * *max -1: no limit.  false for other commands. */
bool dsh_cmd_arity(const struct dsh_cmd *cmd, int *min, int *max);
/* help CMD: what each <kind> of its args is. */
void dsh_help_args(struct dsh *d, const struct dsh_cmd *cmd);

/* ---- help.c ---- */
void dsh_help_all(struct dsh *d);
int dsh_help_cmd(struct dsh *d, const char *name);

/* Handlers (cmdtab.c wires them). */
int cmd_help(struct dsh *d, struct dsh_args *a);
int cmd_bench(struct dsh *d, struct dsh_args *a);
int cmd_version(struct dsh *d, struct dsh_args *a);
int cmd_quit(struct dsh *d, struct dsh_args *a);
int cmd_llcm_read(struct dsh *d, struct dsh_args *a);
int cmd_llcm_write(struct dsh *d, struct dsh_args *a);
int cmd_evpbuf_read(struct dsh *d, struct dsh_args *a);
int cmd_pw_read(struct dsh *d, struct dsh_args *a);
int cmd_ww_write(struct dsh *d, struct dsh_args *a);
int cmd_dump(struct dsh *d, struct dsh_args *a);
int cmd_sodimm(struct dsh *d, struct dsh_args *a);
int cmd_ureg_read(struct dsh *d, struct dsh_args *a);
int cmd_ureg_write(struct dsh *d, struct dsh_args *a);
int cmd_sreg_read(struct dsh *d, struct dsh_args *a);
int cmd_sreg_write(struct dsh *d, struct dsh_args *a);
int cmd_reg(struct dsh *d, struct dsh_args *a);
int cmd_snapshot(struct dsh *d, struct dsh_args *a);
int cmd_diff(struct dsh *d, struct dsh_args *a);
int cmd_watch(struct dsh *d, struct dsh_args *a);
int cmd_status(struct dsh *d, struct dsh_args *a);
int cmd_lh(struct dsh *d, struct dsh_args *a);
int cmd_decode(struct dsh *d, struct dsh_args *a);
int cmd_prim(struct dsh *d, struct dsh_args *a);
int cmd_botf(struct dsh *d, struct dsh_args *a);
int cmd_rllcm_write(struct dsh *d, struct dsh_args *a);
int cmd_wait(struct dsh *d, struct dsh_args *a);
int cmd_node(struct dsh *d, struct dsh_args *a);
int cmd_info(struct dsh *d, struct dsh_args *a);
int cmd_stat(struct dsh *d, struct dsh_args *a);
int cmd_fault(struct dsh *d, struct dsh_args *a);   /* cmd_fault.c */
int cmd_params(struct dsh *d, struct dsh_args *a);  /* cmd_params.c */
int cmd_echo(struct dsh *d, struct dsh_args *a);
int cmd_sleep(struct dsh *d, struct dsh_args *a);
int cmd_set(struct dsh *d, struct dsh_args *a);
int cmd_unset(struct dsh *d, struct dsh_args *a);
int cmd_assert(struct dsh *d, struct dsh_args *a);
int cmd_source(struct dsh *d, struct dsh_args *a);
int cmd_repeat(struct dsh *d, struct dsh_args *a);
int cmd_end(struct dsh *d, struct dsh_args *a);
int cmd_barrier(struct dsh *d, struct dsh_args *a);
int cmd_send(struct dsh *d, struct dsh_args *a);
int cmd_amt(struct dsh *d, struct dsh_args *a);
int cmd_recv(struct dsh *d, struct dsh_args *a);
int cmd_peek(struct dsh *d, struct dsh_args *a);
int cmd_poke(struct dsh *d, struct dsh_args *a);
/* peek/poke's words after the name (w[0..n)) in their grammar, or why not
 * (msg); vars: a word holding '$' is not known yet (the script check). */
int dsh_raw_form(const char *cmd, int n, const char *const *w, bool vars, char *msg, size_t len);
int cmd_signal(struct dsh *d, struct dsh_args *a);
int cmd_waitfor(struct dsh *d, struct dsh_args *a);

#endif
