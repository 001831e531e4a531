/* dsh: replay FILE -- run a journal (--journal) on the current backend,
 * normally the emulator, and report the first divergence: a read, block
 * read or busy query that gives another value, or an operation whose
 * success or failure differs.  A session recorded on a board becomes a
 * test the emulator can run in CI.
 *
 * Writes, waits (with the journal's timeout), delays, flushes and node
 * switches are done as recorded; a wait compares only whether it was met.
 * A read of Controller Reset recorded with 'confirm' is made through
 * dnet_reg_read_effect.  Real hardware is refused: a journal is not a
 * script to run on a board.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dnet/device.h" /* *_block_noflush: the flushes are records of their own */
#include "journal.h"

struct rec {
	enum dnet_tap_kind kind;
	unsigned node;
	uint32_t off;
	unsigned width;
	bool confirm;
	uint64_t val[2];
	uint8_t *data;
	size_t len;
	uint64_t mask, value, timeout, ns;
	enum dnet_cond cond;
	int rc;
};

/* A journal's numbers, as dsh writes them (0x... or decimal), read by
 * libdnet's strict parser. */
static bool parse_u64(const char *s, uint64_t *v)
{
	return dnet_parse_u64(s, UINT64_MAX, v, NULL, NULL) == 0;
}

/* Parse one journal line (comments stripped).  msg names what is wrong. */
static int parse_line(char *line, struct rec *r, char *msg, size_t n)
{
	memset(r, 0, sizeof *r);
	r->rc = 1; /* "missing" */
	char *save = NULL;
	char *tok = strtok_r(line, " \t", &save);
	if (dnet_tap_kind_parse(tok, &r->kind) < 0) {
		snprintf(msg, n, "unknown record '%.40s'", tok);
		return -1;
	}
	while ((tok = strtok_r(NULL, " \t", &save))) {
		if (strcmp(tok, "confirm") == 0) {
			r->confirm = true;
			continue;
		}
		char *eq = strchr(tok, '=');
		if (!eq) {
			snprintf(msg, n, "'%.40s' is not key=value", tok);
			return -1;
		}
		*eq = '\0';
		const char *k = tok, *v = eq + 1;
		uint64_t x = 0;
		bool ok = true;
		if (strcmp(k, "data") == 0) {
			size_t l = strlen(v);
			if (l % 2) {
				ok = false;
			} else {
				free(r->data);
				r->data = malloc(l / 2 + 1);
				if (!r->data) {
					snprintf(msg, n, "out of memory");
					return -1;
				}
				for (size_t i = 0; i < l / 2 && ok; i++) {
					char byte[5] = { '0', 'x', v[2 * i], v[2 * i + 1], '\0' };
					ok = parse_u64(byte, &x);
					r->data[i] = (uint8_t)x;
				}
				r->len = l / 2;
			}
		} else if (strcmp(k, "cond") == 0) {
			static const char *const names[] = { "eq", "ne", "lt", "gt", "le", "ge" };
			ok = false;
			for (unsigned i = 0; i < 6; i++)
				if (strcmp(v, names[i]) == 0) {
					r->cond = (enum dnet_cond)i;
					ok = true;
				}
		} else if (strcmp(k, "val") == 0 && strlen(v) == 34 && v[0] == '0' && v[1] == 'x') {
			char hi[19] = "0x", lo[19] = "0x";
			memcpy(hi + 2, v + 2, 16);
			memcpy(lo + 2, v + 18, 16);
			ok = parse_u64(hi, &r->val[1]) && parse_u64(lo, &r->val[0]);
		} else if (strcmp(k, "rc") == 0) {
			char *end;
			long rc = strtol(v, &end, 10);
			ok = end != v && !*end && rc <= 0 && rc > -100;
			r->rc = (int)rc;
		} else if (!(ok = parse_u64(v, &x))) {
			/* reported below */
		} else if (strcmp(k, "node") == 0) {
			r->node = (unsigned)x;
		} else if (strcmp(k, "off") == 0) {
			r->off = (uint32_t)x;
			ok = x <= UINT32_MAX;
		} else if (strcmp(k, "width") == 0) {
			r->width = (unsigned)x;
			ok = x == 1 || x == 2 || x == 4 || x == 8 || x == 16;
		} else if (strcmp(k, "val") == 0 || strcmp(k, "last") == 0) {
			r->val[0] = x;
		} else if (strcmp(k, "len") == 0) {
			ok = x <= (1u << 24);
			if (ok && !r->data)
				r->len = (size_t)x;
		} else if (strcmp(k, "mask") == 0) {
			r->mask = x;
		} else if (strcmp(k, "value") == 0) {
			r->value = x;
		} else if (strcmp(k, "timeout") == 0) {
			r->timeout = x;
		} else if (strcmp(k, "ns") == 0) {
			r->ns = x;
		} else {
			snprintf(msg, n, "unknown key '%.30s'", k);
			return -1;
		}
		if (!ok) {
			snprintf(msg, n, "bad value '%.40s' for %s", v, k);
			return -1;
		}
	}
	if (r->rc > 0) {
		snprintf(msg, n, "no rc=");
		return -1;
	}
	if ((r->kind == DNET_TAP_READ || r->kind == DNET_TAP_WRITE) && !r->width) {
		snprintf(msg, n, "no width=");
		return -1;
	}
	if ((r->kind == DNET_TAP_READ_BLOCK || r->kind == DNET_TAP_WRITE_BLOCK) &&
	    (!r->data || r->len == 0)) {
		snprintf(msg, n, "no data=");
		return -1;
	}
	return 0;
}

/* Run one record; *diverge describes a difference (empty: none). */
static void run_rec(struct dsh *d, struct rec *r, char *diverge, size_t n)
{
	struct dnet_err e = { 0 };
	int rc = 0;
	uint64_t v[2] = { 0, 0 };
	uint8_t *buf = NULL;
	bool busy = false;
	char where[96];
	diverge[0] = '\0';
	struct dnet_dev *h;
	if (r->node && r->kind != DNET_TAP_NODE && r->node != dnet_node(d->dev)) {
		if (!(h = dnet_node_dev(d->dev, r->node, &e))) {
			snprintf(diverge, n, "node %u: %s", r->node, e.msg);
			return;
		}
		d->dev = h; /* the record's node's handle (D-NODE-HANDLE) */
	}
	switch (r->kind) {
	case DNET_TAP_READ:
		if (r->confirm) {
			const struct dnet_reg *reg = dnet_reg_at(DNET_BLK_SYSTEM, r->off - DNET_SREG_BASE, DNET_ACC_R);
			rc = reg ? dnet_reg_read_effect(d->dev, 0, reg, &v[0], &e)
				 : dnet_seterr(&e, DNET_EINVAL, "'confirm' on 0x%x, no read-effect register", r->off);
		} else {
			rc = dnet_read(d->dev, r->off, v, r->width, &e);
		}
		if (!rc && !r->rc && (v[0] != r->val[0] || v[1] != r->val[1])) {
			if (r->width == 16)
				snprintf(diverge, n, "read of 128 bits at 0x%x (%s): journal 0x%016" PRIx64 "%016" PRIx64
					 ", emulator 0x%016" PRIx64 "%016" PRIx64, r->off,
					 dnet_addr_describe(r->off, false, where, sizeof where), r->val[1], r->val[0],
					 v[1], v[0]);
			else
				snprintf(diverge, n, "read of %u bits at 0x%x (%s): journal 0x%" PRIx64 ", emulator 0x%"
					 PRIx64, r->width * 8, r->off, dnet_addr_describe(r->off, false, where, sizeof where),
					 r->val[0], v[0]);
			return;
		}
		break;
	case DNET_TAP_WRITE:
		rc = dnet_write(d->dev, r->off, r->val, r->width, &e);
		break;
	case DNET_TAP_READ_BLOCK:
		buf = malloc(r->len);
		if (!buf) {
			snprintf(diverge, n, "out of memory");
			return;
		}
		rc = dnet_read_block_noflush(d->dev, r->off, buf, r->len, &e);
		if (!rc && !r->rc && memcmp(buf, r->data, r->len) != 0) {
			size_t i = 0;
			while (buf[i] == r->data[i])
				i++;
			snprintf(diverge, n, "block read of %zu bytes at 0x%x (%s): first difference at byte %zu "
				 "(0x%x): journal 0x%02x, emulator 0x%02x", r->len, r->off,
				 dnet_addr_describe(r->off, false, where, sizeof where), i, r->off + (uint32_t)i,
				 r->data[i], buf[i]);
		}
		free(buf);
		if (diverge[0])
			return;
		break;
	case DNET_TAP_WRITE_BLOCK:
		rc = dnet_write_block_noflush(d->dev, r->off, r->data, r->len, &e);
		break;
	case DNET_TAP_WAIT:
		rc = dnet_wait(d->dev, r->off, r->mask, r->cond, r->value, r->timeout, NULL, &e);
		break;
	case DNET_TAP_DELAY:
		rc = dnet_delay(d->dev, r->ns, &e);
		break;
	case DNET_TAP_WC_FLUSH:
		rc = dnet_wc_flush(d->dev, &e);
		break;
	case DNET_TAP_CACHE_FLUSH:
		rc = dnet_cache_flush(d->dev, r->off, r->len, &e);
		break;
	case DNET_TAP_PREFETCH:
		rc = dnet_prefetch(d->dev, r->off, r->len, &e);
		break;
	case DNET_TAP_NODE:
		if ((h = dnet_node_dev(d->dev, (unsigned)r->val[0], &e)))
			d->dev = h;
		else
			rc = -e.code;
		break;
	case DNET_TAP_BUSY:
		rc = dnet_busy(d->dev, &busy, &e);
		if (!rc && !r->rc && busy != (r->val[0] != 0)) {
			snprintf(diverge, n, "busy: journal %s, emulator %s", r->val[0] ? "busy" : "idle",
				 busy ? "busy" : "idle");
			return;
		}
		break;
	}
	if ((rc < 0) != (r->rc < 0))
		snprintf(diverge, n, "%s: journal %s, emulator %s%s%s", dnet_tap_kind_name(r->kind),
			 r->rc < 0 ? "failed" : "succeeded", rc < 0 ? "failed" : "succeeded",
			 rc < 0 ? ": " : "", rc < 0 ? e.msg : "");
}

/* The recorded session's verdict, from the end record (D-REPLAY-VERDICT). */
struct recorded {
	enum { REC_UNKNOWN, REC_PASSED, REC_FAILED } verdict;
	int exit_status;
};

/* "# end N records" (or "record"), then "; session passed" or "; session
 * failed (exit status S)" (none: an older dsh, the verdict unknown): the
 * end record, N in *n. */
static bool parse_end(const char *l, unsigned long *n, struct recorded *v)
{
	const char *p = l + strlen(DSH_JOURNAL_END);
	if (*p++ != ' ' || *p < '0' || *p > '9')
		return false;
	char *e;
	errno = 0;
	*n = strtoul(p, &e, 10);
	if (errno)
		return false;
	if (strncmp(e, " records", 8) == 0)
		e += 8;
	else if (strncmp(e, " record", 7) == 0)
		e += 7;
	else
		return false;
	v->verdict = REC_UNKNOWN;
	if (!*e)
		return true;
	if (strcmp(e, "; " DSH_JOURNAL_PASSED) == 0) {
		v->verdict = REC_PASSED;
		return true;
	}
	const char *f = "; " DSH_JOURNAL_FAILED " (exit status ";
	if (strncmp(e, f, strlen(f)) != 0)
		return false;
	p = e + strlen(f);
	long x = strtol(p, &e, 10);
	if (e == p || strcmp(e, ")") != 0 || x < 0 || x > 255)
		return false;
	v->verdict = REC_FAILED;
	v->exit_status = (int)x;
	return true;
}

struct jrec {
	struct rec r;
	unsigned line;
};

static void free_recs(struct jrec *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].r.data);
	free(v);
}

/* The journal is read and checked whole before its first record runs: a
 * journal without records, without its end record (cut short, or still
 * being written) or whose count disagrees replays nothing and fails. */
/* An error at LINE of the journal (0: the whole file): "PATH:LINE: msg";
 * for dsh replay FILE the report itself is at PATH:LINE. */
static int __attribute__((format(printf, 4, 5)))
jerr(struct dsh *d, const char *path, unsigned line, const char *fmt, ...)
{
	char m[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	if (d->script.replay_file && strcmp(path, d->script.replay_file) == 0) {
		d->cur.file = line ? d->script.replay_file : NULL;
		d->cur.line = (int)line;
		return line ? dsh_error(d, "%s", m) : dsh_error(d, "%s: %s", path, m);
	}
	return line ? dsh_error(d, "%s:%u: %s", path, line, m) : dsh_error(d, "%s: %s", path, m);
}

int cmd_replay(struct dsh *d, struct dsh_args *a)
{
	if (a->argc != 2)
		return dsh_error(d, "usage: replay FILE");
	if (d->caps & DNET_CAP_REAL_HW)
		return dsh_error(d, "replay runs a journal on the emulator (or a stand-in), not on real "
				 "hardware ('%s')", dnet_dev_spec(d->dev));
	const char *path = a->argv[1];
	if (d->script.replay_file && strcmp(path, d->script.replay_file) == 0)
		d->cur.file = NULL; /* not at the -c line main made of the arguments */
	FILE *f = fopen(path, "r");
	if (!f)
		return dsh_error(d, "cannot open '%s': %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0, nrec = 0, rcap = 0;
	struct jrec *recs = NULL;
	ssize_t got;
	unsigned lineno = 0, end_line = 0;
	unsigned long end_count = 0;
	struct recorded was = { REC_UNKNOWN, 0 };
	bool cut = false;
	int rc = 0;
	while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
		lineno++;
		bool nl = got > 0 && line[got - 1] == '\n';
		line[strcspn(line, "\r\n")] = '\0';
		if (lineno == 1 && strcmp(line, DSH_JOURNAL_MAGIC) != 0) {
			rc = jerr(d, path, 1, "not a dsh journal (the first line must be '%s')", DSH_JOURNAL_MAGIC);
			break;
		}
		if (!nl) {
			cut = true; /* the writer ends every line, the end record too */
			break;
		}
		size_t el = strlen(DSH_JOURNAL_END);
		if (strncmp(line, DSH_JOURNAL_END, el) == 0 && (line[el] == ' ' || line[el] == '\0')) {
			if (end_line)
				rc = jerr(d, path, lineno, "a second end record (the first is at line %u)", end_line);
			else if (!parse_end(line, &end_count, &was))
				rc = jerr(d, path, lineno, "bad end record '%.80s' (the form is '%s N records', then "
					  "'; %s' or '; %s (exit status S)')", line, DSH_JOURNAL_END,
					  DSH_JOURNAL_PASSED, DSH_JOURNAL_FAILED);
			end_line = lineno;
			continue;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		if (line[strspn(line, " \t")] == '\0')
			continue;
		if (end_line) {
			rc = jerr(d, path, lineno, "a record after the end record (line %u)", end_line);
			break;
		}
		if (nrec == rcap) {
			size_t nc = rcap ? rcap * 2 : 64;
			struct jrec *nv = realloc(recs, nc * sizeof *nv);
			if (!nv) {
				rc = dsh_error(d, "out of memory");
				break;
			}
			recs = nv;
			rcap = nc;
		}
		char msg[DNET_ERR_MSG_MAX + 512];
		if (parse_line(line, &recs[nrec].r, msg, sizeof msg) < 0) {
			free(recs[nrec].r.data);
			rc = jerr(d, path, lineno, "%s", msg);
			break;
		}
		recs[nrec++].line = lineno;
	}
	if (rc == 0 && ferror(f))
		rc = dsh_error(d, "cannot read '%s': %s", path, strerror(errno ? errno : EIO));
	free(line);
	fclose(f);
	if (rc == 0) {
		const char *why = "cut short or still being written; nothing was replayed";
		if (lineno == 0)
			rc = dsh_error(d, "%s is empty (not a dsh journal)", path);
		else if (nrec == 0)
			rc = jerr(d, path, 0, "nothing to replay: no records%s",
				       end_line ? "" : " (and the journal ends without its end record: cut short or "
				       "still being written)");
		else if (cut)
			rc = jerr(d, path, lineno, "the journal ends without its end record, in the middle of a "
				  "line: %s", why);
		else if (!end_line)
			rc = jerr(d, path, 0, "the journal ends without its end record ('%s N records'): %s",
				  DSH_JOURNAL_END, why);
		else if (end_count != nrec)
			rc = jerr(d, path, end_line, "the end record says %lu record%s, the journal holds %zu: records "
				       "are missing or were added; nothing was replayed", end_count,
				       end_count == 1 ? "" : "s", nrec);
	}
	/* beside the divergence result, the recorded session's own verdict
	 * (D-REPLAY-VERDICT): a session that failed is reproduced, not passed */
	static const char *const vname[] = { "unknown", "passed", "failed" };
	char said[96];
	if (was.verdict == REC_FAILED)
		snprintf(said, sizeof said, "the recorded session failed (exit status %d)", was.exit_status);
	else
		snprintf(said, sizeof said, "%s", was.verdict == REC_PASSED ? "the recorded session passed"
					 : "the recorded session's verdict is unknown");
	if (rc == 0) {
		out_str(d, "recorded_verdict", NULL, vname[was.verdict]);
		if (was.verdict == REC_FAILED)
			out_u64(d, "recorded_exit_status", NULL, (uint64_t)was.exit_status);
	}
	unsigned done = 0;
	for (size_t i = 0; rc == 0 && i < nrec; i++) {
		char msg[DNET_ERR_MSG_MAX + 512];
		run_rec(d, &recs[i].r, msg, sizeof msg);
		if (msg[0]) {
			out_u64(d, "records", NULL, done);
			out_u64(d, "line", NULL, recs[i].line);
			out_str(d, "divergence", NULL, msg);
			rc = jerr(d, path, recs[i].line, "first divergence after %u record%s: %s (%s)",
				  done, done == 1 ? "" : "s", msg, said);
			break;
		}
		done++;
	}
	free_recs(recs, nrec);
	if (rc == 0) {
		out_text(d, "replay: %s: ", path);
		out_u64(d, "records", "%" PRIu64, done);
		out_text(d, " record%s, no divergence; %s%s\n", done == 1 ? "" : "s", said,
			 was.verdict == REC_UNKNOWN ? " (its end record has none: a journal of an older dsh)" : "");
		if (was.verdict == REC_FAILED)
			rc = jerr(d, path, end_line, "the recorded session failed (exit status %d): the replay "
				  "reproduces a failed session", was.exit_status);
	}
	return rc;
}
