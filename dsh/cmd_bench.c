/* dsh: bench -- the thesis's evaluation re-run on the emulator
 * (bench_exp.c), whatever backend the shell is attached to: each
 * experiment opens its own two-node sim with per-host timelines.
 *
 *   bench [E1 ... E9 | all] [quick] [json=FILE] [out=DIR] [trace=FILE] [traces=FILE|DIR]
 *         [coll=rd|binomial|none] [partners=recv|any] [ranks=N]      (E8)
 *
 * E8 is a trace analysis (bench_e8.c): traces=FILE|DIR reads message traces
 * there instead of writing a Chrome trace.
 * Prints one line per headline figure (model, thesis, difference), writes
 * every curve to json=FILE, and with out=DIR a .dat file per figure and,
 * when gnuplot is installed, its PNG and SVG with the thesis's calibration
 * points beside the model's curve.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "dsh.h"
#include "../common/outfile.h"
#include "bench/bench.h"
#include "sigtime.h"

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The calibration points apart from the predictions: how many of them the
 * model meets and the median |residual| (docs/timing-model.md). */
static void calibration_summary(struct dsh *d, const struct bench_out *b)
{
	double r[BENCH_MAX_VALS];
	unsigned n = 0, in5 = 0, in10 = 0, npred = 0;
	for (unsigned v = 0; v < b->nval; v++) {
		const struct bench_val *x = &b->val[v];
		if (!strcmp(x->kind, "prediction"))
			npred++;
		if (strcmp(x->kind, "calibration") || isnan(x->thesis))
			continue;
		r[n] = fabs(x->model / x->thesis - 1) * 100;
		in5 += r[n] <= 5;
		in10 += r[n] <= 10;
		n++;
	}
	if (!n)
		return;
	qsort(r, n, sizeof r[0], cmp_dbl);
	double med = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
	out_text(d, "calibration: %u points, %u within 5 %%, %u within 10 %%, median |residual| %.1f %%, "
		 "max %.1f %%; predictions: %u (withheld)\n", n, in5, in10, med, r[n - 1], npred);
}

static void e8_table(struct dsh *d, const struct bench_out *b, unsigned from)
{
	out_text(d, "Table 7.3 (model): IPUSH receive area, N = one ring\n");
	out_text(d, "  %-8s %-8s %5s %9s %10s %10s %8s %8s\n", "app", "source", "P", "at max", "IPUSH", "PUSH",
		 "ratio", "mean P");
	for (unsigned i = from; i < b->ne8; i++) {
		const struct bench_e8row *r = &b->e8[i];
		char ip[16], pu[16];
		snprintf(ip, sizeof ip, "%u x N", r->p_max + 1);
		snprintf(pu, sizeof pu, "%u x N", r->ranks);
		out_text(d, "  %-8s %-8s %5u %9u %10s %10s %7.2f%% %8.2f\n", r->app, r->source, r->p_max, r->at_max, ip, pu,
			 100.0 * (r->p_max + 1) / r->ranks, r->p_mean);
	}
}

/* One .dat per figure (blocks per series, gnuplot's index), a .gp script,
 * and the PNG and SVG when gnuplot is there. */
static int write_plots(struct dsh *d, const char *dir, const struct bench_out *b, bool *plotted)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return dsh_error(d, "out=%s: %s", dir, strerror(errno));
	bool gp = system("command -v gnuplot >/dev/null 2>&1") == 0;
	*plotted = false;
	for (unsigned i = 0; i < b->nfig; i++) {
		const struct bench_fig *f = &b->fig[i];
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.dat", dir, f->id);
		FILE *o = fopen(path, "w");
		if (!o)
			return dsh_error(d, "%s: %s", path, strerror(errno));
		for (unsigned s = 0; s < f->ns; s++) {
			fprintf(o, "# %s\n", f->s[s].name);
			for (unsigned k = 0; k < f->s[s].n; k++)
				fprintf(o, "%g %g\n", f->s[s].x[k], f->s[s].y[k]);
			fprintf(o, "\n\n");
		}
		if (fclose(o))
			return dsh_error(d, "%s: write failed", path);
		snprintf(path, sizeof path, "%s/%s.gp", dir, f->id);
		o = fopen(path, "w");
		if (!o)
			return dsh_error(d, "%s: %s", path, strerror(errno));
		for (int fmt = 0; fmt < 2; fmt++) {
			fprintf(o, "set terminal %s size 800,560\nset output '%s/%s.%s'\n", fmt ? "svg" : "pngcairo",
				dir, f->id, fmt ? "svg" : "png");
			fprintf(o, "set title '%s (model)'\nset xlabel '%s'\nset ylabel '%s'\nset key left top\n%s%s", f->title,
				f->xlabel, f->ylabel, f->logx ? "set logscale x\n" : "unset logscale x\n",
				f->logy ? "set logscale y\n" : "unset logscale y\n");
			/* calibration points of this figure, as the thesis gives them */
			fprintf(o, "$calib << EOD\n");
			for (unsigned v = 0; v < b->nval; v++)
				if (!strcmp(b->val[v].fig, f->id))
					fprintf(o, "%g %g\n", b->val[v].x, b->val[v].thesis);
			fprintf(o, "EOD\nplot ");
			for (unsigned s = 0; s < f->ns; s++)
				fprintf(o, "'%s/%s.dat' index %u with lines title '%s', ", dir, f->id, s, f->s[s].name);
			fprintf(o, "$calib with points pt 7 ps 1.5 title 'thesis (calibration)'\n");
		}
		if (fclose(o))
			return dsh_error(d, "%s: write failed", path);
		if (gp) {
			char cmd[4200];
			snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", path);
			if (system(cmd) == 0)
				*plotted = true;
		}
	}
	if (b->ne8) {
		char path[4096];
		snprintf(path, sizeof path, "%s/table7.3.txt", dir);
		FILE *o = fopen(path, "w");
		if (!o)
			return dsh_error(d, "%s: %s", path, strerror(errno));
		fprintf(o, "# app source ranks P processes_with_P ipush_rings push_rings ratio mean_P\n");
		for (unsigned i = 0; i < b->ne8; i++) {
			const struct bench_e8row *r = &b->e8[i];
			fprintf(o, "%s %s %u %u %u %u %u %.6f %.4f\n", r->app, r->source, r->ranks, r->p_max, r->at_max,
				r->p_max + 1, r->ranks, (double)(r->p_max + 1) / r->ranks, r->p_mean);
		}
		if (fclose(o))
			return dsh_error(d, "%s: write failed", path);
	}
	return 0;
}

int cmd_bench(struct dsh *d, struct dsh_args *a)
{
	/* coll=binomial by default: MPICH-1's collectives (D-BENCH-E8-COLL). */
	struct bench_opts o = { .stop = dsh_stop_hook, .stop_ctx = d, .e8_coll = BENCH_E8_COLL_BINOMIAL };
	const char *json = NULL, *dir = NULL, *e8opt = NULL;
	const char *want[16];
	unsigned nwant = 0;
	for (int i = 1; i < a->argc; i++) {
		const char *w = a->argv[i];
		if (!strcmp(w, "quick"))
			o.quick = true;
		else if (!strncmp(w, "json=", 5) && w[5])
			json = w + 5;
		else if (!strncmp(w, "out=", 4) && w[4])
			dir = w + 4;
		else if (!strncmp(w, "trace=", 6) && w[6])
			o.trace = w + 6;
		else if (!strncmp(w, "traces=", 7) && w[7])
			o.e8_trace = w + 7, e8opt = w; /* read, never written: its own name */
		else if (!strncmp(w, "coll=", 5)) {
			unsigned k = 0;
			while (bench_e8_coll_names[k] && strcmp(bench_e8_coll_names[k], w + 5))
				k++;
			if (!bench_e8_coll_names[k])
				return dsh_error(d, "argument %d: coll=%s: rd, binomial or none", i, w + 5);
			o.e8_coll = (int)k;
			e8opt = w;
		}
		else if (!strcmp(w, "partners=recv") || !strcmp(w, "partners=any"))
			o.e8_any = !strcmp(w, "partners=any"), e8opt = w;
		else if (!strncmp(w, "ranks=", 6)) {
			char *end;
			errno = 0;
			unsigned long r = strtoul(w + 6, &end, 10);
			if (!w[6] || *end || errno || r < 2 || r > 4096 || w[6] == '-')
				return dsh_error(d, "argument %d: ranks=%s: a number of processes 2-4096", i, w + 6);
			o.e8_ranks = (unsigned)r;
			e8opt = w;
		}
		else if (!strncmp(w, "timing.", 7) && strchr(w, '=') && strchr(w, '=') > w + 7 && strchr(w, '=')[1]) {
			if (o.ntiming == sizeof o.timing / sizeof o.timing[0])
				return dsh_error(d, "argument %d: at most %zu timing.NAME=VALUE", i,
						 sizeof o.timing / sizeof o.timing[0]);
			o.timing[o.ntiming++] = w; /* checked by the first emulator opened */
		}
		else if (!strcasecmp(w, "all"))
			continue;
		else {
			unsigned k = 0;
			while (bench_experiments[k] && strcasecmp(bench_experiments[k], w))
				k++;
			if (!bench_experiments[k])
				return dsh_error(d, "argument %d: '%s' is not an experiment (E1-E9, all), quick, json=FILE, "
						 "out=DIR, trace=FILE, traces=FILE|DIR, coll=rd|binomial|none, partners=recv|any, ranks=N or timing.NAME=VALUE",
						 i, w);
			if (nwant < 16)
				want[nwant++] = bench_experiments[k];
		}
	}
	if (!nwant)
		for (unsigned k = 0; bench_experiments[k]; k++)
			want[nwant++] = bench_experiments[k];
	/* D-OUT-STDOUT: standard output carries the bench's table (or, with
	 * --json, its result object): a trace or JSON file there would be cut
	 * into it */
	if ((o.trace && out_is_stdout(o.trace)) || (json && out_is_stdout(json)))
		return dsh_error(d, "%s=%s: standard output carries the bench's table: give a file (dsh --json "
				 "gives the results as JSON on standard output)", o.trace && out_is_stdout(o.trace) ?
				 "trace" : "json", o.trace && out_is_stdout(o.trace) ? o.trace : json);
	if (o.trace && nwant != 1)
		return dsh_error(d, "trace=%s: name one experiment (its first run is traced)", o.trace);
	bool e8 = false;
	for (unsigned i = 0; i < nwant; i++)
		e8 |= !strcmp(want[i], "E8");
	if (e8opt && !e8)
		return dsh_error(d, "%s: an option of E8 (the IPUSH trace analysis) only", e8opt);
	if (o.trace && e8)
		return dsh_error(d, "trace=%s: E8 runs no emulator, there is nothing to trace (its input "
				 "traces are traces=FILE|DIR)", o.trace);
	o.outdir = dir;
	struct bench_out *b = calloc(1, sizeof *b);
	if (!b)
		return dsh_error(d, "out of memory");
	int rc = 0;
	char err[256] = "";
	out_text(d, "%-4s %-11s %-66s %12s %12s %8s\n", "exp", "kind", "figure", "model", "thesis", "diff");
	for (unsigned i = 0; i < nwant && !rc; i++) {
		uint64_t t0 = dsh_mono_ns();
		unsigned v0 = b->nval, e0 = b->ne8;
		if (bench_experiment(want[i], &o, b, err, sizeof err)) {
			rc = dsh_error(d, "bench %s: %s", want[i], err);
			break;
		}
		uint64_t t1 = dsh_mono_ns();
		for (unsigned v = v0; v < b->nval; v++) {
			const struct bench_val *x = &b->val[v];
			char th[32] = "withheld", df[16] = "";
			if (!isnan(x->thesis)) {
				snprintf(th, sizeof th, "%.3f", x->thesis);
				snprintf(df, sizeof df, "%+.1f%%", (x->model / x->thesis - 1) * 100);
			} else if (!strcmp(x->kind, "new")) {
				snprintf(th, sizeof th, "-");
			}
			out_text(d, "%-4s %-11s %-66.66s %7.3f %-4s %12s %8s\n", x->exp, x->kind, x->what, x->model, x->unit,
				 th, df);
			if (x->mechanism)
				out_text(d, "     %-11s %s [rests on: %s]\n", "mechanism", x->mechanism, x->constants);
		}
		if (b->ne8 > e0)
			e8_table(d, b, e0);
		dsh_flush_for_stderr();
		fprintf(stderr, "dsh: bench %s: %.1f s\n", want[i], (double)(t1 - t0) / 1e9);
	}
	if (!rc)
		calibration_summary(d, b);
	if (!rc && d->io.json) {
		out_json_item(d, "values", bench_values_json(b));
		cJSON *t = bench_table_json(b);
		if (t)
			out_json_item(d, "table7_3", t);
	}
	if (!rc && json && bench_write_json(json, b, &o, err, sizeof err))
		rc = dsh_error(d, "%s", err);
	if (!rc && dir) {
		bool plotted = false;
		rc = write_plots(d, dir, b, &plotted);
		if (!rc)
			out_text(d, "figures: %s/*.dat and *.gp%s\n", dir,
				 plotted ? ", *.png, *.svg" : " (install gnuplot for PNG and SVG)");
	}
	free(b);
	return rc;
}
