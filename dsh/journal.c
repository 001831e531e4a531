/* dsh: journal and dry run (journal.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "../common/outfile.h"

static struct {
	FILE *journal;
	FILE *dry;
	char *line;
	size_t cap;
	unsigned long records;   /* lines written to the journal */
} J;

static const char *const cond_names[] = { "eq", "ne", "lt", "gt", "le", "ge" };

static size_t put(char *buf, size_t n, size_t at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t n, size_t at, const char *fmt, ...)
{
	if (at >= n)
		return at;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + at, n - at, fmt, ap);
	va_end(ap);
	return w < 0 ? at : at + (size_t)w;
}

void dsh_journal_format(const struct dnet_tap_rec *r, char *buf, size_t n)
{
	size_t at = put(buf, n, 0, "%s node=%u", dnet_tap_kind_name(r->kind), r->node);
	char where[96] = "";
	switch (r->kind) {
	case DNET_TAP_READ:
	case DNET_TAP_WRITE:
		at = put(buf, n, at, " off=0x%" PRIx32 " width=%u", r->off, r->width);
		if (r->width == 16)
			at = put(buf, n, at, " val=0x%016" PRIx64 "%016" PRIx64, r->val[1], r->val[0]);
		else
			at = put(buf, n, at, " val=0x%0*" PRIx64, (int)r->width * 2, r->val[0]);
		if (r->confirmed)
			at = put(buf, n, at, " confirm");
		dnet_addr_describe(r->off, r->kind == DNET_TAP_WRITE, where, sizeof where);
		break;
	case DNET_TAP_READ_BLOCK:
	case DNET_TAP_WRITE_BLOCK:
		at = put(buf, n, at, " off=0x%" PRIx32 " len=%zu data=", r->off, r->len);
		for (size_t i = 0; i < r->len && at < n; i++)
			at = put(buf, n, at, "%02x", ((const uint8_t *)r->data)[i]);
		dnet_addr_describe(r->off, r->kind == DNET_TAP_WRITE_BLOCK, where, sizeof where);
		break;
	case DNET_TAP_WAIT:
		at = put(buf, n, at, " off=0x%" PRIx32 " mask=0x%" PRIx64 " cond=%s value=0x%" PRIx64
			 " timeout=%" PRIu64 " last=0x%" PRIx64, r->off, r->mask,
			 (unsigned)r->cond < 6 ? cond_names[r->cond] : "?", r->value, r->timeout_ns, r->val[0]);
		dnet_addr_describe(r->off, false, where, sizeof where);
		break;
	case DNET_TAP_DELAY:
		at = put(buf, n, at, " ns=%" PRIu64, r->ns);
		break;
	case DNET_TAP_CACHE_FLUSH:
	case DNET_TAP_PREFETCH:
		at = put(buf, n, at, " off=0x%" PRIx32 " len=%zu", r->off, r->len);
		dnet_addr_describe(r->off, false, where, sizeof where);
		break;
	case DNET_TAP_NODE:
	case DNET_TAP_BUSY:
		at = put(buf, n, at, " val=%" PRIu64, r->val[0]);
		break;
	case DNET_TAP_WC_FLUSH:
		break;
	}
	at = put(buf, n, at, " rc=%d", r->rc);
	if (where[0] || r->msg)
		at = put(buf, n, at, "  # %s%s", where, where[0] && r->msg ? ": " : "");
	/* the message whole, on its one line (a line end in it would make a
	 * record of the rest) */
	for (const char *m = r->msg; m && *m && at < n; m++)
		at = *m == '\n' || *m == '\r' ? put(buf, n, at, "\\%c", *m == '\n' ? 'n' : 'r')
					  : put(buf, n, at, "%c", *m);
	/* never cut silently: a line that does not fit says so at its end */
	static const char cut[] = " ...(cut)";
	if (at >= n && n > sizeof cut)
		memcpy(buf + n - sizeof cut, cut, sizeof cut);
}

size_t dsh_journal_line_max(const struct dnet_tap_rec *r)
{
	/* the fields, a 16-byte value, the region (dnet_addr_describe: < 96),
	 * the block's data as hex, the message with every character escaped */
	return 512 + 2 * r->len + (r->msg ? 2 * strlen(r->msg) : 0);
}

void dsh_journal_tap(void *ctx, const struct dnet_tap_rec *r)
{
	(void)ctx;
	size_t need = dsh_journal_line_max(r);
	if (need > J.cap) {
		char *p = realloc(J.line, need);
		if (!p)
			return;
		J.line = p;
		J.cap = need;
	}
	dsh_journal_format(r, J.line, J.cap);
	if (J.journal) {
		fprintf(J.journal, "%s\n", J.line);
		J.records++;
	}
	if (J.dry == stderr)
		dsh_flush_for_stderr();
	if (J.dry)
		fprintf(J.dry, "dry: %s\n", J.line);
}

int dsh_journal_start(struct dsh *d, const char *path, char *msg, size_t n)
{
	/* "-" or the file standard output is: one stream, dsh's own output
	 * moves to standard error (D-OUT-STDOUT) */
	J.journal = out_is_stdout(path) ? out_stdout_take() : fopen(path, "w");
	if (!J.journal) {
		snprintf(msg, n, "--journal: cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	fprintf(J.journal, "%s\n# backend %s\n", DSH_JOURNAL_MAGIC, dnet_dev_spec(d->dev));
	J.records = 0;
	dnet_set_tap(d->dev, dsh_journal_tap, NULL);
	return 0;
}

void dsh_dry_start(struct dsh *d, FILE *out)
{
	J.dry = out;
	fprintf(out, "dry: %s  (nothing is done: reads give 0, waits are taken as met)\n",
		dnet_dev_spec(d->dev));
	dnet_set_tap(d->dev, dsh_journal_tap, NULL);
}

int dsh_journal_stop(const struct dsh_run_verdict *v)
{
	bool bad = false;
	if (J.journal) {
		/* the end record: a journal without it was cut short; the
		 * session's own verdict, for replay to report (D-REPLAY-VERDICT) */
		fprintf(J.journal, DSH_JOURNAL_END " %lu record%s", J.records, J.records == 1 ? "" : "s");
		if (v && v->ok && v->exit_status == 0)
			fprintf(J.journal, "; " DSH_JOURNAL_PASSED);
		else if (v)
			fprintf(J.journal, "; " DSH_JOURNAL_FAILED " (exit status %d)", v->exit_status);
		fputc('\n', J.journal);
		bad = ferror(J.journal) != 0;
		if (fclose(J.journal) != 0)
			bad = true;
	}
	J.records = 0;
	if (J.dry)
		fflush(J.dry);
	J.journal = J.dry = NULL;
	free(J.line);
	J.line = NULL;
	J.cap = 0;
	return bad ? -1 : 0;
}
