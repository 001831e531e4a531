/* dsh bench: its results as JSON -- the document json=FILE writes (every
 * value, curve and Table 7.3 row) and the values and table of the bench
 * command's result (cmd_bench.c puts them in the shell's output). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "dnet/dnet.h"
#include "bench.h"

static cJSON *fig_json(const struct bench_fig *f)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", f->id);
	cJSON_AddStringToObject(o, "title", f->title);
	cJSON_AddStringToObject(o, "xlabel", f->xlabel);
	cJSON_AddStringToObject(o, "ylabel", f->ylabel);
	cJSON_AddBoolToObject(o, "logx", f->logx);
	cJSON_AddBoolToObject(o, "logy", f->logy);
	cJSON *ss = cJSON_AddArrayToObject(o, "series");
	for (unsigned i = 0; i < f->ns; i++) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "name", f->s[i].name);
		cJSON *pts = cJSON_AddArrayToObject(s, "points");
		for (unsigned k = 0; k < f->s[i].n; k++) {
			cJSON *p = cJSON_CreateArray();
			cJSON_AddItemToArray(p, cJSON_CreateNumber(f->s[i].x[k]));
			cJSON_AddItemToArray(p, cJSON_CreateNumber(round(f->s[i].y[k] * 1e4) / 1e4));
			cJSON_AddItemToArray(pts, p);
		}
		cJSON_AddItemToArray(ss, s);
	}
	return o;
}

static cJSON *val_json(const struct bench_val *v)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "experiment", v->exp);
	cJSON_AddStringToObject(o, "what", v->what);
	cJSON_AddStringToObject(o, "kind", v->kind);
	cJSON_AddStringToObject(o, "unit", v->unit);
	cJSON_AddNumberToObject(o, "model", round(v->model * 1e4) / 1e4);
	if (isnan(v->thesis)) {
		cJSON_AddNullToObject(o, "thesis");
	} else {
		cJSON_AddNumberToObject(o, "thesis", v->thesis);
		cJSON_AddNumberToObject(o, "error_pct", round((v->model / v->thesis - 1) * 1e4) / 100);
	}
	if (v->mechanism) {
		cJSON_AddStringToObject(o, "mechanism", v->mechanism);
		cJSON_AddStringToObject(o, "constants", v->constants);
	}
	return o;
}

static cJSON *e8_json(const struct bench_e8row *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "application", r->app);
	cJSON_AddStringToObject(o, "source", r->source);
	cJSON_AddNumberToObject(o, "ranks", r->ranks);
	cJSON_AddNumberToObject(o, "partners", r->p_max);
	cJSON_AddNumberToObject(o, "processes_with_max", r->at_max);
	cJSON_AddNumberToObject(o, "partners_min", r->p_min);
	cJSON_AddNumberToObject(o, "partners_mean", round(r->p_mean * 1e4) / 1e4);
	cJSON_AddNumberToObject(o, "ipush_rings", r->p_max + 1);
	cJSON_AddNumberToObject(o, "push_rings", r->ranks);
	cJSON_AddNumberToObject(o, "ratio", round((double)(r->p_max + 1) / r->ranks * 1e6) / 1e6);
	cJSON_AddNumberToObject(o, "messages", (double)r->msgs);
	cJSON_AddNumberToObject(o, "bytes", (double)r->bytes);
	return o;
}

int bench_write_json(const char *path, const struct bench_out *b, const struct bench_opts *o, char *err,
		     size_t errlen)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "tool", "dsh bench");
	cJSON_AddStringToObject(root, "version", DNET_VERSION_STRING);
	cJSON_AddStringToObject(root, "model", "sim:nodes=2,timelines (backends/sim/timing.c)");
	cJSON_AddBoolToObject(root, "quick", o->quick);
	if (o->ntiming) { /* a what-if, not the model: say so */
		cJSON *t = cJSON_AddArrayToObject(root, "timing_overrides");
		for (unsigned i = 0; i < o->ntiming; i++)
			cJSON_AddItemToArray(t, cJSON_CreateString(o->timing[i]));
	}
	cJSON *vals = cJSON_AddArrayToObject(root, "values");
	for (unsigned i = 0; i < b->nval; i++)
		cJSON_AddItemToArray(vals, val_json(&b->val[i]));
	cJSON *figs = cJSON_AddArrayToObject(root, "figures");
	for (unsigned i = 0; i < b->nfig; i++)
		cJSON_AddItemToArray(figs, fig_json(&b->fig[i]));
	if (b->ne8) {
		cJSON *t = cJSON_AddArrayToObject(root, "table7_3");
		for (unsigned i = 0; i < b->ne8; i++)
			cJSON_AddItemToArray(t, e8_json(&b->e8[i]));
	}
	char *txt = cJSON_Print(root);
	cJSON_Delete(root);
	if (!txt) {
		snprintf(err, errlen, "json=%s: out of memory", path);
		return -1;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		free(txt);
		snprintf(err, errlen, "json=%s: %s", path, strerror(errno));
		return -1;
	}
	int bad = fputs(txt, f) < 0 || fputc('\n', f) < 0;
	bad |= fclose(f) != 0;
	free(txt);
	if (bad) {
		snprintf(err, errlen, "json=%s: write failed", path);
		return -1;
	}
	return 0;
}

struct cJSON *bench_values_json(const struct bench_out *b)
{
	cJSON *vals = cJSON_CreateArray();
	for (unsigned i = 0; vals && i < b->nval; i++)
		cJSON_AddItemToArray(vals, val_json(&b->val[i]));
	return vals;
}

struct cJSON *bench_table_json(const struct bench_out *b)
{
	if (!b->ne8)
		return NULL;
	cJSON *t = cJSON_CreateArray();
	for (unsigned i = 0; t && i < b->ne8; i++)
		cJSON_AddItemToArray(t, e8_json(&b->e8[i]));
	return t;
}
