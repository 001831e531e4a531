/* dsh: the one print layer.  Every command writes through these calls; in
 * text mode they print the original dsh formats on stdout, in JSON mode
 * (--json) they fill the result object of the command, which is printed as
 * one JSON Lines object when the command ends (docs/json-schema.md).
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
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
	if (!d->have_err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(d->errmsg, sizeof(d->errmsg), fmt, ap);
		va_end(ap);
		d->have_err = true;
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
	if (d->cur_file)
		fprintf(stderr, "dsh: %s:%d: warning: %s\n", d->cur_file, d->cur_line, msg);
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
	return d->json ? d->res : NULL;
}

void out_text(struct dsh *d, const char *fmt, ...)
{
	if (d->json)
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
	if (!d->json)
		return NULL;
	return d->odepth ? d->onest[d->odepth - 1] : d->res;
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
	if (d->json || !fmt)
		return;
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void out_u64(struct dsh *d, const char *key, const char *fmt, uint64_t v)
{
	if (d->json) {
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
	if (d->json) {
		char b[24];
		if (key)
			out_add(d, key, cJSON_CreateString(hexstr(b, sizeof b, v)));
		return;
	}
	out_textf(d, fmt, v);
}

void out_int(struct dsh *d, const char *key, const char *fmt, long long v)
{
	if (d->json) {
		if (key)
			out_add(d, key, cJSON_CreateNumber((double)v));
		return;
	}
	out_textf(d, fmt, v);
}

void out_dbl(struct dsh *d, const char *key, const char *fmt, double v)
{
	if (d->json) {
		if (key)
			out_add(d, key, cJSON_CreateNumber(v));
		return;
	}
	out_textf(d, fmt, v);
}

void out_str(struct dsh *d, const char *key, const char *fmt, const char *s)
{
	if (d->json) {
		if (key)
			out_add(d, key, cJSON_CreateString(s ? s : ""));
		return;
	}
	out_textf(d, fmt, s ? s : "");
}

void out_bool(struct dsh *d, const char *key, const char *fmt, bool b)
{
	if (d->json) {
		if (key)
			out_add(d, key, cJSON_CreateBool(b));
		return;
	}
	if (b && fmt)
		fputs(fmt, stdout);
}

void out_json_item(struct dsh *d, const char *key, cJSON *item)
{
	if (d->json && key)
		out_add(d, key, item);
	else
		cJSON_Delete(item);
}

void out_null(struct dsh *d, const char *key)
{
	if (d->json && key)
		out_add(d, key, cJSON_CreateNull());
}

static void out_open(struct dsh *d, const char *key, cJSON *item)
{
	if (!d->json) {
		cJSON_Delete(item);
		return;
	}
	if (d->odepth >= DSH_OUT_DEPTH) { /* a bug: nested too deep; keep the closes balanced */
		cJSON_Delete(item);
		d->odepth++;
		return;
	}
	cJSON *c = out_cur(d);
	out_add(d, key, item);
	d->onest[d->odepth++] = c ? item : NULL;
}

void out_obj_open(struct dsh *d, const char *key)
{
	out_open(d, key, d->json ? cJSON_CreateObject() : NULL);
}

void out_arr_open(struct dsh *d, const char *key)
{
	out_open(d, key, d->json ? cJSON_CreateArray() : NULL);
}

void out_close(struct dsh *d)
{
	if (d->json && d->odepth)
		d->onest[--d->odepth] = NULL;
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
	d->has_last = true;
	d->last = v;
}

void out_banner(struct dsh *d, const char *title)
{
	if (d->json) {
		jstr(d->res, "title", title);
		return;
	}
	printf("####### %s #######\n", title);
}

void out_dump_header(struct dsh *d)
{
	if (!d->json)
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
	if (d->json) {
		cJSON *r = d->res;
		jstr(r, "region", region);
		jnum(r, "wid", wid);
		jhex(r, "offset", regoff);
		jhex(r, "device_offset", devoff);
		jhex(r, "address", (uint64_t)d->base + devoff);
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
		uint32_t addr = d->base + devoff + (uint32_t)i;
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
	if (d->json) {
		jhex(d->res, "address", (uint64_t)d->base + devoff);
		jhex(d->res, "device_offset", devoff);
		jhex(d->res, "value", v);
		return;
	}
	printf("#%08" PRIx32 ": %016" PRIx64 "\n", d->base + devoff, v);
}

void out_fields(struct dsh *d, const struct dnet_reg *r, uint64_t v, const struct dnet_field *only)
{
	cJSON *fo = NULL, *mo = NULL;
	if (d->json) {
		fo = cJSON_AddObjectToObject(d->res, "fields");
		mo = cJSON_AddObjectToObject(d->res, "meanings");
	}
	for (unsigned i = 0; i < r->nfields; i++) {
		const struct dnet_field *f = &r->fields[i];
		if (only && f != only)
			continue;
		uint64_t fv = dnet_field_get(f, v);
		char mb[128];
		const char *m = dnet_field_meaning(f, fv, mb, sizeof(mb));
		if (d->json) {
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

/* ---- output batching ----
 *
 * On a terminal every command's output is flushed when the command ends.
 * Into a pipe or a file, a write(2) per command costs more than printing
 * it (2-3 us a command here, most of `dsh --json`'s time on short
 * commands), so the output is flushed in batches instead: by a thread that
 * wakes every DSH_FLUSH_MS while output is pending, so a line is out
 * within that time even when the next command waits for a long time; by
 * the main thread before anything goes to stderr (dsh_flush_for_stderr),
 * so `2>&1` keeps the order; and at exit. */
#define DSH_FLUSH_MS 20

static struct {
	int mode;             /* 0 not decided, 1 per command, 2 batched */
	atomic_bool dirty, stop;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} F = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* The first write error on standard output (from whichever thread). */
static atomic_int out_errno;

static void *flusher(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&F.mu);
	while (!atomic_load(&F.stop)) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += DSH_FLUSH_MS * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&F.cv, &F.mu, &t);
		if (atomic_exchange(&F.dirty, false)) {
			pthread_mutex_unlock(&F.mu);
			if (fflush(stdout) == EOF)
				atomic_store(&out_errno, errno ? errno : EIO);
			pthread_mutex_lock(&F.mu);
		}
	}
	pthread_mutex_unlock(&F.mu);
	return NULL;
}

static void flusher_stop(void)
{
	pthread_mutex_lock(&F.mu);
	atomic_store(&F.stop, true);
	pthread_cond_signal(&F.cv);
	pthread_mutex_unlock(&F.mu);
	pthread_join(F.tid, NULL);
	F.mode = 1;
	fflush(stdout);
}

static void flusher_start(void)
{
	F.mode = 1;
	if (isatty(STDOUT_FILENO) || getenv("DSH_FLUSH_EACH"))
		return;
	/* the thread takes no signals (SIGPIPE aside, which a write raises
	 * in the writing thread): SIGINT, SIGTERM and the like must reach
	 * the main thread and interrupt its waits */
	sigset_t all, old;
	sigfillset(&all);
	sigdelset(&all, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&F.tid, NULL, flusher, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0 && atexit(flusher_stop) == 0)
		F.mode = 2;
	else if (rc == 0)
		flusher_stop();
}

void dsh_flush(void)
{
	if (!F.mode)
		flusher_start();
	if (F.mode == 2)
		atomic_store(&F.dirty, true);
	else
		dsh_flush_for_stderr(); /* a plain flush that keeps its error */
}

void dsh_flush_for_stderr(void)
{
	if (fflush(stdout) == EOF && !atomic_load(&out_errno) && errno != EINTR)
		atomic_store(&out_errno, errno ? errno : EIO);
}

bool dsh_output_failed(void)
{
	/* A terminal's write cut by Ctrl-C (EINTR) is no lost result. */
	if (ferror(stdout) && !atomic_load(&out_errno) && isatty(STDOUT_FILENO))
		clearerr(stdout);
	return atomic_load(&out_errno) != 0 || ferror(stdout);
}

/* A reader that cannot get the results must not be told the run passed:
 * a full disk, a closed pipe (SIGPIPE ignored), a -o file that fails. */
bool dsh_output_check(struct dsh *d)
{
	dsh_flush_for_stderr();
	if (!dsh_output_failed())
		return false;
	if (!d->output_error) {
		int e = atomic_load(&out_errno);
		d->output_error = true;
		d->stop = true;
		fprintf(stderr, "dsh: cannot write standard output%s%s: the run fails\n", e ? ": " : "",
			e ? strerror(e) : "");
	}
	return true;
}

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

/* Length of the valid UTF-8 sequence at p (1-4), 0 if p[0] starts none. */
static int utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf; /* no overlongs, no surrogates */
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
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

void out_result_begin(struct dsh *d)
{
	d->odepth = 0;
	if (d->json) {
		d->res = cJSON_CreateObject();
		d->extra = cJSON_CreateObject();
	}
}

void out_result_drop(struct dsh *d)
{
	cJSON_Delete(d->res);
	cJSON_Delete(d->extra);
	d->res = d->extra = NULL;
	d->odepth = 0;
}

void out_result_save(struct dsh *d, struct dsh_out_saved *s)
{
	s->res = d->res;
	s->extra = d->extra;
	s->depth = d->odepth;
	d->res = d->extra = NULL;
	d->odepth = 0;
}

void out_result_restore(struct dsh *d, const struct dsh_out_saved *s)
{
	d->res = s->res;
	d->extra = s->extra;
	d->odepth = s->depth;
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
	if (d->cur_cmd) {
		JW_LIT(",\"line\":");
		jw_str(d->cur_cmd);
	}
	if (d->cur_file) {
		JW_LIT(",\"file\":");
		jw_str(d->cur_file);
		JW_LIT(",\"lineno\":");
		jw_int(d->cur_line);
	}
	JW_LIT(",\"node\":");
	if (d->dev)
		jw_u64(dnet_node(d->dev));
	else
		JW_LIT("null");
	JW_LIT(",\"wid\":");
	jw_u64(d->wid);
	if (ok)
		JW_LIT(",\"ok\":true");
	else
		JW_LIT(",\"ok\":false");
	JW_LIT(",\"error\":");
	if (ok || !d->have_err)
		JW_LIT("null");
	else
		jw_str(d->errmsg);
	if (d->extra && d->extra->child) {
		jw_ch(',');
		jw_members(d->extra->child, true);
	}
	JW_LIT(",\"result\":");
	if (d->res)
		jw_value(d->res);
	else
		JW_LIT("{}");
	JW_LIT("}\n");
	/* the result and the extras are used up */
	cJSON_Delete(d->res);
	d->res = NULL;
	d->odepth = 0;
	while (d->extra && d->extra->child)
		cJSON_Delete(cJSON_DetachItemViaPointer(d->extra, d->extra->child));
	if (W.oom) {
		fputs("dsh: out of memory writing a JSON result\n", stderr);
		return;
	}
	if (d->pretty) {
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

void out_summary(struct dsh *d, const struct dsh_run_verdict *vp)
{
	if (d->json) {
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
		printf(" (the script asked to exit %d at %s%s)", v.exit_requested, d->quit_at,
		       v.exit_requested == 0 && !v.ok ? "; the failure wins" : "");
	putchar('\n');
	fflush(stdout);
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
	if (d->check_errors) {
		cJSON_AddNumberToObject(s, "check_errors", d->check_errors);
		cJSON_AddBoolToObject(s, "ran", false);
	}
	if (dsh_term_signal())
		cJSON_AddNumberToObject(s, "signal", dsh_term_signal());
	if (d->out_of_time)
		cJSON_AddBoolToObject(s, "max_time_reached", true);
	if (v.exit_requested >= 0) {
		cJSON_AddNumberToObject(s, "exit_requested", v.exit_requested);
		cJSON_AddStringToObject(s, "exit_at", d->quit_at);
	}
	cJSON_AddNumberToObject(s, "exit_status", dsh_term_signal() ? 128 + dsh_term_signal() : v.exit_status);
	cJSON_AddBoolToObject(s, "ok", v.ok);
	char *t = d->pretty ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
	if (t) {
		puts(t);
		fflush(stdout);
		free(t);
	}
	cJSON_Delete(o);
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
