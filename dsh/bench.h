/* dsh bench: the thesis's evaluation (spec/evaluation.md E1-E9) re-run on
 * the emulator with concurrent host timelines (bench_exp.c), and the
 * report (cmd_bench.c). */
#ifndef DSH_BENCH_H
#define DSH_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#define BENCH_MAX_PTS 256
#define BENCH_MAX_SERIES 6
#define BENCH_MAX_FIGS 24
#define BENCH_MAX_VALS 96

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
	unsigned ns;
	struct bench_series s[BENCH_MAX_SERIES];
};

/* A headline figure: the model's value beside the thesis's.  kind is
 * "calibration" (the model was calibrated on it), "prediction" (withheld
 * in spec/evaluation.md: the model predicts it) or "new" (the thesis has
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
};

struct bench_out {
	struct bench_fig fig[BENCH_MAX_FIGS];
	unsigned nfig;
	struct bench_val val[BENCH_MAX_VALS];
	unsigned nval;
};

struct bench_opts {
	bool quick;           /* fewer sizes and iterations */
	const char *trace;    /* NULL or a Chrome trace-event file */
};

/* Run experiment "E1".."E9" (case-insensitive), appending to out.
 * Returns 0, or -1 with a message in err. */
int bench_experiment(const char *id, const struct bench_opts *o, struct bench_out *out, char *err,
		     size_t errlen);
extern const char *const bench_experiments[]; /* "E1".."E9", NULL */

#endif
