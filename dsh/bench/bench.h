/* dsh bench: the thesis's evaluation (docs/timing-model.md E1-E9) re-run on
 * the emulator with concurrent host timelines (bench_exp.c E1-E7, bench_e9.c;
 * building blocks in bench_prog.c, results in bench_results.c).  The
 * interface of the library dsh/bench/ is: the shell's bench command
 * (dsh/cmd_bench.c, the report) sees only this header (D-LAYOUT). */
#ifndef DSH_BENCH_H
#define DSH_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#define BENCH_MAX_PTS 256
#define BENCH_MAX_SERIES 6
#define BENCH_MAX_FIGS 24
#define BENCH_MAX_VALS 160

struct bench_series {
	char name[48];
	unsigned n;
	double x[BENCH_MAX_PTS], y[BENCH_MAX_PTS];
};

struct bench_fig {
	char id[24];          /* "fig6.3" */
	char title[96];
	const char *xlabel, *ylabel;
	bool logx;
	bool logy;            /* a latency over sizes from 8 B to 1 MB */
	unsigned ns;
	struct bench_series s[BENCH_MAX_SERIES];
};

/* A headline figure: the model's value beside the thesis's.  kind is
 * "calibration" (the model was calibrated on it), "prediction" (withheld
 * in docs/timing-model.md: the model predicts it) or "new" (the thesis has
 * no such measurement). */
struct bench_val {
	char exp[8];
	char what[112];
	double model;
	double thesis;        /* NAN when withheld or absent */
	const char *unit;
	const char *kind;
	char fig[24];         /* a calibration point: drawn on this figure at x */
	double x;
	/* a prediction: the mechanism that sets it and the timing constants
	 * it rests on (bench_why.c), NULL if none is written */
	const char *mechanism, *constants;
};

/* E8 (bench_e8.c): one row of Table 7.3 per application. */
#define BENCH_MAX_E8 16
struct bench_e8row {
	char app[32];
	char source[16];      /* "built-in" or "trace" */
	unsigned ranks;
	unsigned p_max;       /* P: the most distinct partners of any process */
	unsigned p_min, at_max; /* the fewest; how many processes have P */
	double p_mean;
	unsigned long long msgs, bytes;
};

struct bench_out {
	struct bench_fig fig[BENCH_MAX_FIGS];
	unsigned nfig;
	struct bench_val val[BENCH_MAX_VALS];
	unsigned nval;
	struct bench_e8row e8[BENCH_MAX_E8];
	unsigned ne8;
};

struct bench_opts {
	bool quick;           /* fewer sizes and iterations */
	const char *trace;    /* NULL or a Chrome trace-event file */
	const char *outdir;   /* out=DIR (E8 writes its generated traces there) */
	/* E8 */
	const char *e8_trace; /* traces=FILE|DIR: message traces instead of the built-in NPB patterns */
	unsigned e8_ranks;    /* ranks=N (0: 64) */
	bool e8_any;          /* partners=any: senders and receivers (default: senders) */
	int e8_coll;          /* coll=: BENCH_E8_COLL_* */
	/* timing.NAME=VALUE: step costs of the model set in every emulator the
	 * experiments open (a what-if: the sensitivity table) */
	const char *timing[16];
	unsigned ntiming;
	/* Ctrl-C, SIGTERM/SIGHUP, --max-time: the shell's stop hook (dsh_stop_hook),
	 * asked before every measurement and set on every emulator opened */
	bool (*stop)(void *ctx);
	void *stop_ctx;
};

/* The stop hook says stop: err gets "interrupted" (bench_prog.c). */
bool bench_stopped(const struct bench_opts *o, char *err, size_t errlen);

/* Run experiment "E1".."E9" (case-insensitive), appending to out.
 * Returns 0, or -1 with a message in err. */
int bench_experiment(const char *id, const struct bench_opts *o, struct bench_out *out, char *err,
		     size_t errlen);
extern const char *const bench_experiments[]; /* "E1".."E9", NULL */

/* Results (bench_results.c): a figure, a series of it, a point of a series, a
 * headline value; all ignore overflow of the fixed tables. */
struct bench_fig *bench_fig_new(struct bench_out *o, const char *id, const char *title, const char *xl,
				const char *yl, bool logx);
struct bench_series *bench_series_new(struct bench_fig *f, const char *name);
void bench_point(struct bench_series *s, double x, double y);
void bench_val(struct bench_out *o, const char *exp, const char *kind, const char *unit, double model,
	       double thesis, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* The mechanism and constants of a prediction (bench_why.c), or NULL. */
const char *bench_why(const char *exp, const char *what, const char **constants);
/* The value just added is a thesis point to draw on figure fig at x. */
void bench_val_plot(struct bench_out *o, const char *fig, double x);
/* A series' largest / smallest y (and its x in *at, if not NULL). */
double bench_series_max(const struct bench_series *s, double *at);
double bench_series_min(const struct bench_series *s, double *at);
/* The smallest x whose y reaches half of the series' maximum, interpolated
 * linearly between the two points around it. */
double bench_half_peak(const struct bench_series *s);

/* E8, the IPUSH receive-area trace analysis (bench_e8.c).  coll=: MPI
 * collectives as point-to-point messages (recursive doubling, binomial
 * trees) or left out. */
enum { BENCH_E8_COLL_RD, BENCH_E8_COLL_BINOMIAL, BENCH_E8_COLL_NONE };
extern const char *const bench_e8_coll_names[]; /* "rd", "binomial", "none", NULL */
int bench_e8(const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen);
/* E9, LHS against IPUSH alone (bench_e9.c). */
int bench_e9(const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen);

/* The results as JSON (bench_json.c): the json=FILE document (0, or -1 with
 * a message in err), and the values and the Table 7.3 rows (NULL when E8 did
 * not run) of the bench command's JSON result, trees the caller owns. */
struct cJSON;
int bench_write_json(const char *path, const struct bench_out *b, const struct bench_opts *o, char *err,
		     size_t errlen);
struct cJSON *bench_values_json(const struct bench_out *b);
struct cJSON *bench_table_json(const struct bench_out *b);

#endif
