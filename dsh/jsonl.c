/* dsh: JSON mode's output -- one JSON Lines object per command (the
 * envelope and the result print.c's out_* calls filled) and the run's
 * summary object (docs/json-schema.md). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"
#include "../common/utf8.h"

/* ---- the JSON Lines writer ----
 *
 * One object per command, written straight into a buffer that is reused
 * from command to command: no cJSON tree for the envelope, no
 * cJSON_PrintUnformatted (a realloc'ed copy, and an sprintf plus sscanf
 * round trip per number).  The bytes are those cJSON prints (numbers as
 * its print_number: integers in %d, else %1.15g or %1.17g when that does
 * not read back; strings escaped as its print_string_ptr), except that a
 * byte that is not part of valid UTF-8 becomes U+FFFD, so every line is
 * valid JSON whatever a script line holds.  --pretty indents that line
 * with cJSON_Print. */
static struct {
	char *p;
	size_t n, cap;
	bool oom;
} W;

static bool jw_room(size_t k)
{
	if (W.n + k <= W.cap)
		return true;
	size_t cap = W.cap ? W.cap : 4096;
	while (cap < W.n + k)
		cap *= 2;
	char *p = realloc(W.p, cap);
	if (!p) {
		W.oom = true;
		return false;
	}
	W.p = p;
	W.cap = cap;
	return true;
}

static void jw_put(const char *s, size_t k)
{
	if (jw_room(k)) {
		memcpy(W.p + W.n, s, k);
		W.n += k;
	}
}

#define JW_LIT(s) jw_put(s, sizeof(s) - 1)

static void jw_ch(char c)
{
	if (jw_room(1))
		W.p[W.n++] = c;
}

static void jw_str(const char *str)
{
	const unsigned char *p = (const unsigned char *)(str ? str : "");
	jw_ch('"');
	for (;;) {
		/* the run of bytes that need nothing */
		const unsigned char *q = p;
		while (*q >= 0x20 && *q != '"' && *q != '\\' && *q < 0x80)
			q++;
		if (q > p)
			jw_put((const char *)p, (size_t)(q - p));
		p = q;
		unsigned char c = *p;
		if (!c)
			break;
		if (c >= 0x80) {
			int n = utf8_len(p);
			if (n) {
				jw_put((const char *)p, (size_t)n);
				p += n;
			} else {
				JW_LIT("\xef\xbf\xbd"); /* U+FFFD for a stray byte */
				p++;
			}
			continue;
		}
		char e[8] = { '\\', 0 };
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default: {
			static const char hx[] = "0123456789abcdef";
			memcpy(e + 1, "u00", 3);
			e[4] = hx[c >> 4];
			e[5] = hx[c & 15];
			jw_put(e, 6);
			p++;
			continue;
		}
		}
		jw_put(e, 2);
		p++;
	}
	jw_ch('"');
}

static void jw_u64(uint64_t v)
{
	char b[24];
	int i = sizeof b;
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jw_put(b + i, sizeof b - (size_t)i);
}

static void jw_int(long long v)
{
	if (v < 0) {
		jw_ch('-');
		jw_u64((uint64_t)0 - (uint64_t)v);
	} else {
		jw_u64((uint64_t)v);
	}
}

/* As cJSON 1.7's print_number. */
static void jw_num(double v)
{
	if (isnan(v) || isinf(v)) {
		JW_LIT("null");
		return;
	}
	/* an integer below 10^15 prints the same in %d and %1.15g */
	if (v > -1e15 && v < 1e15 && v == (double)(long long)v) {
		jw_int((long long)v);
		return;
	}
	char b[32];
	int n = snprintf(b, sizeof b, "%1.15g", v);
	double t = strtod(b, NULL);
	double m = fabs(t) > fabs(v) ? fabs(t) : fabs(v);
	if (!(fabs(t - v) <= m * DBL_EPSILON))
		n = snprintf(b, sizeof b, "%1.17g", v);
	jw_put(b, (size_t)n);
}

static void jw_value(const cJSON *v);

static void jw_members(const cJSON *c, bool keys)
{
	for (bool first = true; c; c = c->next, first = false) {
		if (!first)
			jw_ch(',');
		if (keys) {
			jw_str(c->string);
			jw_ch(':');
		}
		jw_value(c);
	}
}

static void jw_value(const cJSON *v)
{
	switch (v->type & 0xff) {
	case cJSON_False: JW_LIT("false"); break;
	case cJSON_True: JW_LIT("true"); break;
	case cJSON_NULL: JW_LIT("null"); break;
	case cJSON_Number: jw_num(v->valuedouble); break;
	case cJSON_String: jw_str(v->valuestring); break;
	case cJSON_Raw:
		if (v->valuestring)
			jw_put(v->valuestring, strlen(v->valuestring));
		break;
	case cJSON_Array:
		jw_ch('[');
		jw_members(v->child, false);
		jw_ch(']');
		break;
	case cJSON_Object:
		jw_ch('{');
		jw_members(v->child, true);
		jw_ch('}');
		break;
	default: JW_LIT("null"); break;
	}
}

void out_json_command(struct dsh *d, const struct dsh_args *a, bool ok)
{
	/* the envelope: schema, cmd, args, line, file, lineno, node, wid, ok, error, extras, result */
	W.n = 0;
	W.oom = false;
	JW_LIT("{\"schema\":");
	jw_str(DSH_SCHEMA);
	JW_LIT(",\"cmd\":");
	jw_str(a->argc > 0 ? a->argv[0] : "");
	JW_LIT(",\"args\":[");
	for (int i = 1; i < a->argc; i++) {
		if (i > 1)
			jw_ch(',');
		jw_str(a->argv[i]);
	}
	jw_ch(']');
	if (d->cur.cmd) {
		JW_LIT(",\"line\":");
		jw_str(d->cur.cmd);
	}
	if (d->cur.file) {
		JW_LIT(",\"file\":");
		jw_str(d->cur.file);
		JW_LIT(",\"lineno\":");
		jw_int(d->cur.line);
	}
	JW_LIT(",\"node\":");
	if (d->dev)
		jw_u64(dnet_node(d->dev));
	else
		JW_LIT("null");
	JW_LIT(",\"wid\":");
	jw_u64(d->opts.wid);
	if (ok)
		JW_LIT(",\"ok\":true");
	else
		JW_LIT(",\"ok\":false");
	JW_LIT(",\"error\":");
	if (ok || !d->cur.have_err)
		JW_LIT("null");
	else
		jw_str(d->cur.errmsg);
	if (d->io.extra && d->io.extra->child) {
		jw_ch(',');
		jw_members(d->io.extra->child, true);
	}
	JW_LIT(",\"result\":");
	if (d->io.res)
		jw_value(d->io.res);
	else
		JW_LIT("{}");
	JW_LIT("}\n");
	/* the result and the extras are used up */
	cJSON_Delete(d->io.res);
	d->io.res = NULL;
	d->io.odepth = 0;
	while (d->io.extra && d->io.extra->child)
		cJSON_Delete(cJSON_DetachItemViaPointer(d->io.extra, d->io.extra->child));
	if (W.oom) {
		fputs("dsh: out of memory writing a JSON result\n", stderr);
		return;
	}
	if (d->io.pretty) {
		/* Indented from the line just written, whose strings are valid
		 * UTF-8 already (cJSON_Print of the raw tree would copy a
		 * script's stray bytes as they are). */
		jw_ch(0);
		cJSON *o = W.oom ? NULL : cJSON_Parse(W.p);
		char *s = o ? cJSON_Print(o) : NULL;
		if (s) {
			fputs(s, stdout);
			fputc('\n', stdout);
		} else {
			fputs("dsh: out of memory writing a JSON result\n", stderr);
		}
		free(s);
		cJSON_Delete(o);
		dsh_flush();
		return;
	}
	fwrite(W.p, 1, W.n, stdout);
	dsh_flush();
}

void out_json_summary(struct dsh *d, const struct dsh_run_verdict *vp)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return;
	cJSON_AddStringToObject(o, "schema", DSH_SCHEMA);
	struct dsh_run_verdict v = *vp;
	cJSON *s = cJSON_AddObjectToObject(o, "summary");
	cJSON_AddNumberToObject(s, "passed", v.passed);
	cJSON_AddNumberToObject(s, "failed", v.failed);
	cJSON_AddNumberToObject(s, "skipped", v.skipped);
	cJSON_AddNumberToObject(s, "commands", v.commands);
	cJSON_AddNumberToObject(s, "failed_commands", v.failed_commands);
	cJSON_AddNumberToObject(s, "errors", v.errors);
	if (d->run.check_errors) {
		cJSON_AddNumberToObject(s, "check_errors", d->run.check_errors);
		cJSON_AddBoolToObject(s, "ran", false);
	}
	if (dsh_term_signal())
		cJSON_AddNumberToObject(s, "signal", dsh_term_signal());
	if (d->run.out_of_time)
		cJSON_AddBoolToObject(s, "max_time_reached", true);
	if (v.exit_requested >= 0) {
		cJSON_AddNumberToObject(s, "exit_requested", v.exit_requested);
		cJSON_AddStringToObject(s, "exit_at", d->run.quit_at);
	}
	cJSON_AddNumberToObject(s, "exit_status", dsh_term_signal() ? 128 + dsh_term_signal() : v.exit_status);
	cJSON_AddBoolToObject(s, "ok", v.ok);
	char *t = d->io.pretty ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
	if (t) {
		puts(t);
		fflush(stdout);
		free(t);
	}
	cJSON_Delete(o);
}
