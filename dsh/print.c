/* dsh: the one print layer.  Every command writes through these calls; in
 * text mode they print the original dsh formats on stdout, in JSON mode
 * (--json) they fill the result object of the command, which jsonl.c
 * prints as one JSON Lines object when the command ends
 * (docs/json-schema.md); flush.c decides when the bytes leave.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "dnet/bytes.h"
#include "dsh.h"

#define JSON_SAFE_BITS 53

/* The JSON helpers under the out_* calls (print.c's own). */
static cJSON *out_res(struct dsh *d);
static void jhex(cJSON *o, const char *k, uint64_t v);
static void jnum(cJSON *o, const char *k, uint64_t v);
static void jstr(cJSON *o, const char *k, const char *s);

int dsh_error(struct dsh *d, const char *fmt, ...)
{
	if (!d->cur.have_err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(d->cur.errmsg, sizeof(d->cur.errmsg), fmt, ap);
		va_end(ap);
		d->cur.have_err = true;
	}
	return -1;
}

void dsh_warn(struct dsh *d, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dsh_flush_for_stderr();
	if (d->cur.file)
		fprintf(stderr, "dsh: %s:%d: warning: %s\n", d->cur.file, d->cur.line, msg);
	else
		fprintf(stderr, "dsh: warning: %s\n", msg);
	cJSON *res = out_res(d);
	if (res) {
		cJSON *w = cJSON_GetObjectItem(res, "warnings");
		if (!w)
			w = cJSON_AddArrayToObject(res, "warnings");
		cJSON_AddItemToArray(w, cJSON_CreateString(msg));
	}
}

/* A packet for a CLID that is no node of an emulated cluster is dropped by
 * the switch (stat unroutable_drops); say so instead of failing silently. */
int dsh_unicast_clid(struct dsh *d, unsigned clid, const char *what)
{
	if (clid == 0)
		return dsh_error(d, "%s: CLID 0 is reserved (Tab. 4.6)", what);
	if (clid > DNET_CLID_MAX_UNICAST)
		return dsh_error(d, "%s: CLID 0x%x is %s (Tab. 4.6: unicast CLIDs are 0x001-0x%x); the emulated "
				 "switch has no multicast groups", what, clid,
				 clid == DNET_CLID_INIT ? "used during initialisation" : "a multicast group",
				 DNET_CLID_MAX_UNICAST);
	return 0;
}

void dsh_check_clid(struct dsh *d, unsigned clid)
{
	unsigned n = dnet_node_count(d->dev);
	if ((d->caps & DNET_CAP_MULTINODE) && clid > DNET_CLID_MAX_UNICAST && clid != DNET_CLID_INIT)
		dsh_warn(d, "CLID 0x%x is a multicast group (Tab. 4.6): the emulated switch drops the packet "
			 "(stat multicast_drops)", clid);
	else if ((d->caps & DNET_CAP_MULTINODE) && (clid < 1 || clid > n))
		dsh_warn(d, "CLID %u is not a node of this %u-node cluster (CLIDs 1-%u): the packet will be dropped",
			 clid, n, n);
}

int dsh_derr(struct dsh *d, const struct dnet_err *e)
{
	return dsh_error(d, "%s", e->msg[0] ? e->msg : dnet_strerror(e->code));
}

static cJSON *out_res(struct dsh *d)
{
	return d->io.json ? d->io.res : NULL;
}

void out_text(struct dsh *d, const char *fmt, ...)
{
	if (d->io.json)
		return;
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* ---- one call per field ---- */

/* The object or array a field goes into (NULL in text mode). */
static cJSON *out_cur(struct dsh *d)
{
	if (!d->io.json)
		return NULL;
	return d->io.odepth ? d->io.onest[d->io.odepth - 1] : d->io.res;
}

static void out_add(struct dsh *d, const char *key, cJSON *item)
{
	cJSON *c = out_cur(d);
	if (!c || !item) {
		cJSON_Delete(item);
		return;
	}
	if (cJSON_IsArray(c))
		cJSON_AddItemToArray(c, item);
	else
		cJSON_AddItemToObject(c, key, item);
}

static void out_textf(struct dsh *d, const char *fmt, ...)
{
	if (d->io.json || !fmt)
		return;
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void out_u64(struct dsh *d, const char *key, const char *fmt, uint64_t v)
{
	if (d->io.json) {
		if (key) {
			char b[24];
			out_add(d, key, v < (1ull << JSON_SAFE_BITS) ? cJSON_CreateNumber((double)v)
								  : cJSON_CreateString(hexstr(b, sizeof b, v)));
		}
		return;
	}
	out_textf(d, fmt, v);
}

void out_hex(struct dsh *d, const char *key, const char *fmt, uint64_t v)
{
	if (d->io.json) {
		char b[24];
		if (key)
			out_add(d, key, cJSON_CreateString(hexstr(b, sizeof b, v)));
		return;
	}
	out_textf(d, fmt, v);
}

void out_int(struct dsh *d, const char *key, const char *fmt, long long v)
{
	if (d->io.json) {
		if (key)
			out_add(d, key, cJSON_CreateNumber((double)v));
		return;
	}
	out_textf(d, fmt, v);
}

void out_dbl(struct dsh *d, const char *key, const char *fmt, double v)
{
	if (d->io.json) {
		if (key)
			out_add(d, key, cJSON_CreateNumber(v));
		return;
	}
	out_textf(d, fmt, v);
}

void out_str(struct dsh *d, const char *key, const char *fmt, const char *s)
{
	if (d->io.json) {
		if (key)
			out_add(d, key, cJSON_CreateString(s ? s : ""));
		return;
	}
	out_textf(d, fmt, s ? s : "");
}

void out_bool(struct dsh *d, const char *key, const char *fmt, bool b)
{
	if (d->io.json) {
		if (key)
			out_add(d, key, cJSON_CreateBool(b));
		return;
	}
	if (b && fmt)
		fputs(fmt, stdout);
}

void out_json_item(struct dsh *d, const char *key, cJSON *item)
{
	if (d->io.json && key)
		out_add(d, key, item);
	else
		cJSON_Delete(item);
}

void out_null(struct dsh *d, const char *key)
{
	if (d->io.json && key)
		out_add(d, key, cJSON_CreateNull());
}

static void out_open(struct dsh *d, const char *key, cJSON *item)
{
	if (!d->io.json) {
		cJSON_Delete(item);
		return;
	}
	if (d->io.odepth >= DSH_OUT_DEPTH) { /* a bug: nested too deep; keep the closes balanced */
		cJSON_Delete(item);
		d->io.odepth++;
		return;
	}
	cJSON *c = out_cur(d);
	out_add(d, key, item);
	d->io.onest[d->io.odepth++] = c ? item : NULL;
}

void out_obj_open(struct dsh *d, const char *key)
{
	out_open(d, key, d->io.json ? cJSON_CreateObject() : NULL);
}

void out_arr_open(struct dsh *d, const char *key)
{
	out_open(d, key, d->io.json ? cJSON_CreateArray() : NULL);
}

void out_close(struct dsh *d)
{
	if (d->io.json && d->io.odepth)
		d->io.onest[--d->io.odepth] = NULL;
}

/* "0x%" PRIx64 without the printf machinery (JSON results are full of them). */
char *hexstr(char *buf, size_t n, uint64_t v)
{
	char t[20];
	int i = sizeof t;
	do {
		t[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	t[--i] = 'x';
	t[--i] = '0';
	size_t len = sizeof t - (size_t)i;
	if (n) {
		if (len > n - 1)
			len = n - 1;
		memcpy(buf, t + i, len);
		buf[len] = 0;
	}
	return buf;
}

static void jhex(cJSON *o, const char *k, uint64_t v)
{
	char b[24];
	if (o)
		cJSON_AddStringToObject(o, k, hexstr(b, sizeof(b), v));
}

/* Numbers that fit a double exactly are numbers; larger ones hex strings. */
static void jnum(cJSON *o, const char *k, uint64_t v)
{
	if (!o)
		return;
	if (v < (1ull << JSON_SAFE_BITS))
		cJSON_AddNumberToObject(o, k, (double)v);
	else
		jhex(o, k, v);
}

static void jstr(cJSON *o, const char *k, const char *s)
{
	if (o)
		cJSON_AddStringToObject(o, k, s ? s : "");
}

/* A duration for a message: scaled and readable at any size
 * (dnet_format_time); four calls may share one message. */
const char *dsh_dur(uint64_t ns)
{
	static char b[4][24];
	static unsigned i;
	i = (i + 1) % 4;
	return dnet_format_time(ns, b[i], sizeof b[i]);
}

void dsh_set_last(struct dsh *d, uint64_t v)
{
	d->script.has_last = true;
	d->script.last = v;
}

void out_banner(struct dsh *d, const char *title)
{
	if (d->io.json) {
		jstr(d->io.res, "title", title);
		return;
	}
	printf("####### %s #######\n", title);
}

void out_dump_header(struct dsh *d)
{
	if (!d->io.json)
		printf("# ADDR     7 6 5 4 3 2 1 0 F E D C B A 9 8\n");
}


void out_dump(struct dsh *d, const char *region, unsigned wid, uint32_t devoff, uint32_t regoff,
	      const uint8_t *buf, size_t len)
{
	out_dump_known(d, region, wid, devoff, regoff, buf, len, NULL);
}

/* known (may be NULL): one byte per 8-byte word of buf, bit k set when byte
 * k of the word is known (struct dsh_shadow's ww_known).  A byte not known
 * (the Write Window: this shell did not write it) is shown as unknown --
 * "??" in the text's hex word and in JSON bytes, and a word not wholly
 * known is null in JSON words -- never as a zero the device may not hold. */
void out_dump_known(struct dsh *d, const char *region, unsigned wid, uint32_t devoff, uint32_t regoff,
		    const uint8_t *buf, size_t len, const uint8_t *known)
{
	if (d->io.json) {
		cJSON *r = d->io.res;
		jstr(r, "region", region);
		jnum(r, "wid", wid);
		jhex(r, "offset", regoff);
		jhex(r, "device_offset", devoff);
		jhex(r, "address", (uint64_t)d->opts.base + devoff);
		jnum(r, "length", len);
		cJSON *w = cJSON_AddArrayToObject(r, "words");
		char b[24];
		for (size_t i = 0; i + 8 <= len; i += 8) {
			snprintf(b, sizeof(b), "0x%016" PRIx64, dnet_get64(buf + i));
			cJSON_AddItemToArray(w, !known || known[i / 8] == 0xff ? cJSON_CreateString(b) : cJSON_CreateNull());
		}
		char *hex = malloc(len * 2 + 1);
		if (hex) {
			for (size_t i = 0; i < len; i++)
				snprintf(hex + 2 * i, 3, known && !(known[i / 8] >> (i % 8) & 1) ? "??" : "%02x", buf[i]);
			hex[len * 2] = 0;
			jstr(r, "bytes", hex);
			free(hex);
		}
		return;
	}
	out_dump_header(d);
	for (size_t i = 0; i < len; i += 16) {
		uint32_t addr = d->opts.base + devoff + (uint32_t)i;
		char w0[20], w1[20];
		for (size_t k = 0; k < 2 && i + 8 * k < len; k++) {
			char *o = k ? w1 : w0;
			if (known && known[i / 8 + k] != 0xff) {
				/* most significant byte first, as the word is printed */
				for (int by = 7; by >= 0; by--)
					snprintf(o + 2 * (7 - by), 3, known[i / 8 + k] >> by & 1 ? "%02x" : "??",
						 buf[i + 8 * k + (size_t)by]);
			} else {
				snprintf(o, 20, "%016" PRIx64, dnet_get64(buf + i + 8 * k));
			}
		}
		if (i + 16 <= len)
			printf("#%08" PRIx32 ": %s %s\n", addr, w0, w1);
		else
			printf("#%08" PRIx32 ": %s\n", addr, w0);
	}
}

void out_regword(struct dsh *d, uint32_t devoff, uint64_t v)
{
	if (d->io.json) {
		jhex(d->io.res, "address", (uint64_t)d->opts.base + devoff);
		jhex(d->io.res, "device_offset", devoff);
		jhex(d->io.res, "value", v);
		return;
	}
	printf("#%08" PRIx32 ": %016" PRIx64 "\n", d->opts.base + devoff, v);
}

void out_fields(struct dsh *d, const struct dnet_reg *r, uint64_t v, const struct dnet_field *only)
{
	cJSON *fo = NULL, *mo = NULL;
	if (d->io.json) {
		fo = cJSON_AddObjectToObject(d->io.res, "fields");
		mo = cJSON_AddObjectToObject(d->io.res, "meanings");
	}
	for (unsigned i = 0; i < r->nfields; i++) {
		const struct dnet_field *f = &r->fields[i];
		if (only && f != only)
			continue;
		uint64_t fv = dnet_field_get(f, v);
		char mb[128];
		const char *m = dnet_field_meaning(f, fv, mb, sizeof(mb));
		if (d->io.json) {
			if (f->width > 52)
				jhex(fo, f->name, fv);
			else
				jnum(fo, f->name, fv);
			if (m)
				jstr(mo, f->name, m);
			continue;
		}
		char bits[16];
		if (f->width == 1)
			snprintf(bits, sizeof(bits), "[%u]", f->lsb);
		else
			snprintf(bits, sizeof(bits), "[%u:%u]", f->lsb + f->width - 1, f->lsb);
		printf("  %-20s %-8s = 0x%-8" PRIx64 " %s%s%s%s\n", f->name, bits, fv, f->desc ? f->desc : "",
		       m ? " [" : "", m ? m : "", m ? "]" : "");
	}
}

void out_result_begin(struct dsh *d)
{
	d->io.odepth = 0;
	if (d->io.json) {
		d->io.res = cJSON_CreateObject();
		d->io.extra = cJSON_CreateObject();
	}
}

void out_result_drop(struct dsh *d)
{
	cJSON_Delete(d->io.res);
	cJSON_Delete(d->io.extra);
	d->io.res = d->io.extra = NULL;
	d->io.odepth = 0;
}

void out_result_save(struct dsh *d, struct dsh_out_saved *s)
{
	s->res = d->io.res;
	s->extra = d->io.extra;
	s->depth = d->io.odepth;
	d->io.res = d->io.extra = NULL;
	d->io.odepth = 0;
}

void out_result_restore(struct dsh *d, const struct dsh_out_saved *s)
{
	d->io.res = s->res;
	d->io.extra = s->extra;
	d->io.odepth = s->depth;
}

void out_summary(struct dsh *d, const struct dsh_run_verdict *vp)
{
	if (d->io.json) {
		out_json_summary(d, vp);
		return;
	}
	struct dsh_run_verdict v = *vp;
	printf("%d passed, %d failed", v.passed, v.failed);
	if (v.skipped)
		printf(", %d skipped", v.skipped);
	if (v.errors)
		printf(", %d error%s", v.errors, v.errors == 1 ? "" : "s");
	if (v.exit_requested >= 0)
		printf(" (the script asked to exit %d at %s%s)", v.exit_requested, d->run.quit_at,
		       v.exit_requested == 0 && !v.ok ? "; the failure wins" : "");
	putchar('\n');
	fflush(stdout);
}

void dsh_report_at(const char *file, int line, const char *cmd, const char *msg)
{
	/* The command's output first: through a pipe (2>&1 | tee) the error
	 * must follow the lines that led to it. */
	fflush(stdout);
	fputs("dsh: ", stderr);
	if (file) {
		dsh_fputs_safe(file, stderr);
		fprintf(stderr, ":%d: ", line);
	}
	dsh_fputs_safe(cmd, stderr);
	fputs(": ", stderr);
	dsh_fputs_safe(msg, stderr);
	fputc('\n', stderr);
	fflush(stderr);
}

/* Text for a terminal or a log: C0 controls, DEL, C1 controls (raw or as
 * UTF-8 U+0080-U+009F) and bytes that are not valid UTF-8 become \xNN, so a
 * message quoting a hostile line cannot drive the terminal. */
void dsh_fputs_safe(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned char c = *p;
		int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = n > 0;
		for (int k = 1; ok && k < n; k++)
			ok = (p[k] & 0xc0) == 0x80;
		if (ok && n == 2 && c == 0xc2 && p[1] < 0xa0)
			ok = false; /* U+0080..U+009F: C1 controls */
		if (ok && n == 2 && c < 0xc2)
			ok = false; /* overlong */
		if (ok && n == 1 && (c < 0x20 || c == 0x7f) && c != '\t')
			ok = false;
		if (!ok) {
			fprintf(f, "\\x%02x", c);
			p++;
			continue;
		}
		fwrite(p, 1, (size_t)n, f);
		p += n;
	}
}
