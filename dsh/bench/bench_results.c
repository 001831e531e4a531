/* dsh bench: the results -- figures, series, headline values (bench.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"

struct bench_fig *bench_fig_new(struct bench_out *o, const char *id, const char *title, const char *xl,
				 const char *yl, bool logx)
{
	if (o->nfig >= BENCH_MAX_FIGS)
		return NULL;
	struct bench_fig *f = &o->fig[o->nfig++];
	memset(f, 0, sizeof *f);
	snprintf(f->id, sizeof f->id, "%s", id);
	snprintf(f->title, sizeof f->title, "%s", title);
	f->xlabel = xl;
	f->ylabel = yl;
	f->logx = logx;
	return f;
}

struct bench_series *bench_series_new(struct bench_fig *f, const char *name)
{
	if (!f || f->ns >= BENCH_MAX_SERIES)
		return NULL;
	struct bench_series *s = &f->s[f->ns++];
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	return s;
}

void bench_point(struct bench_series *s, double x, double y)
{
	if (s && s->n < BENCH_MAX_PTS) {
		s->x[s->n] = x;
		s->y[s->n] = y;
		s->n++;
	}
}

void bench_val(struct bench_out *o, const char *exp, const char *kind, const char *unit, double model,
		double thesis, const char *fmt, ...)
{
	if (o->nval >= BENCH_MAX_VALS)
		return;
	struct bench_val *v = &o->val[o->nval++];
	snprintf(v->exp, sizeof v->exp, "%s", exp);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->what, sizeof v->what, fmt, ap);
	va_end(ap);
	v->model = model;
	v->thesis = thesis;
	v->unit = unit;
	v->kind = kind;
	v->fig[0] = 0;
	v->x = NAN;
	v->mechanism = v->constants = NULL;
	if (!strcmp(kind, "prediction"))
		v->mechanism = bench_why(exp, v->what, &v->constants);
}

/* The value just added is a thesis point to draw on figure fig at x. */
void bench_val_plot(struct bench_out *o, const char *fig, double x)
{
	struct bench_val *v = &o->val[o->nval - 1];
	snprintf(v->fig, sizeof v->fig, "%s", fig);
	v->x = x;
}

double bench_series_max(const struct bench_series *s, double *at)
{
	double m = 0;
	for (unsigned i = 0; i < s->n; i++)
		if (s->y[i] > m) {
			m = s->y[i];
			if (at)
				*at = s->x[i];
		}
	return m;
}

double bench_series_min(const struct bench_series *s, double *at)
{
	double m = INFINITY;
	for (unsigned i = 0; i < s->n; i++)
		if (s->y[i] < m) {
			m = s->y[i];
			if (at)
				*at = s->x[i];
		}
	return m;
}

/* The smallest size whose throughput reaches half of the series' maximum,
 * interpolated linearly between the two sizes around it. */
double bench_half_peak(const struct bench_series *s)
{
	double half = bench_series_max(s, NULL) / 2;
	for (unsigned i = 0; i < s->n; i++)
		if (s->y[i] >= half) {
			if (i == 0)
				return s->x[0];
			double f = (half - s->y[i - 1]) / (s->y[i] - s->y[i - 1]);
			return s->x[i - 1] + f * (s->x[i] - s->x[i - 1]);
		}
	return NAN;
}

