/* dsh's journal lines (dsh/journal.c and common/outfile.c, linked in): a
 * record's message is kept whole however long (issue 31: it was cut at 255
 * characters without a marker), a line end in it cannot start a record of
 * its own, and a line that does not fit a caller's buffer says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "journal.h"
#include "harness.h"

void dsh_flush_for_stderr(void) {}

/* The line r makes in a journal: a journal started on a dry device, r
 * written through its tap, the journal closed; its third line (after the
 * magic and backend lines, before the end record), with its newline. */
static char *journal_of(const struct dnet_tap_rec *r)
{
	static char buf[1 << 16];
	char path[] = "/tmp/test_journal_format.XXXXXX", msg[256];
	int fd = mkstemp(path);
	struct dnet_err err;
	struct dsh d;
	memset(&d, 0, sizeof d);
	if (fd < 0 || dnet_open_dry("sim:nodes=1", &d.dev, &err) != 0 ||
	    dsh_journal_start(&d, path, msg, sizeof msg) != 0) {
		fprintf(stderr, "journal_of: cannot start a journal in %s\n", path);
		return NULL;
	}
	dsh_journal_tap(NULL, r);
	int rc = dsh_journal_stop(NULL);
	dnet_close(d.dev);
	FILE *f = fdopen(fd, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	unlink(path);
	char *l = strchr(buf, '\n');
	l = l ? strchr(l + 1, '\n') : NULL;
	char *end = l ? strchr(l + 1, '\n') : NULL;
	if (rc != 0 || !end || strcmp(end + 1, DSH_JOURNAL_END " 1 record\n") != 0)
		return NULL;
	end[1] = 0;
	return l + 1;
}

static void long_message(void)
{
	char msg[1001];
	for (unsigned i = 0; i < 1000; i++)
		msg[i] = (char)('a' + i % 26);
	msg[1000] = 0;
	msg[999] = 'Z'; /* the end of it must be in the journal */
	struct dnet_tap_rec r = { .kind = DNET_TAP_WRITE, .node = 1, .off = 0x20000, .width = 8, .rc = -5,
				  .msg = msg };
	char *l = journal_of(&r);
	CHECK(l && strstr(l, msg) != NULL);
	CHECK(l && strlen(l) > 1000 && l[strlen(l) - 1] == '\n' && l[strlen(l) - 2] == 'Z');
	CHECK(l && !strstr(l, "...(cut)"));
	/* a block's data and a long message together */
	uint8_t data[300];
	memset(data, 0xab, sizeof data);
	struct dnet_tap_rec b = { .kind = DNET_TAP_WRITE_BLOCK, .node = 1, .off = 0x20000, .len = sizeof data,
				  .data = data, .rc = -5, .msg = msg };
	l = journal_of(&b);
	CHECK(l && strstr(l, msg) != NULL && strstr(l, "data=abab"));
}

static void line_ends(void)
{
	struct dnet_tap_rec r = { .kind = DNET_TAP_READ, .node = 1, .off = 0x20000, .width = 8, .rc = -5,
				  .msg = "first\nwrite node=1 off=0x0 width=8 val=0x1 rc=0\rend" };
	char *l = journal_of(&r);
	CHECK(l && strchr(l, '\n') == l + strlen(l) - 1); /* one line */
	CHECK(l && strstr(l, "first\\nwrite node=1") && strstr(l, "rc=0\\rend"));
}

static void cut_said(void)
{
	struct dnet_tap_rec r = { .kind = DNET_TAP_READ, .node = 1, .off = 0x20000, .width = 8, .rc = -5,
				  .msg = "a message longer than the buffer it is formatted into" };
	char buf[64];
	dsh_journal_format(&r, buf, sizeof buf);
	CHECK_EQ(strlen(buf), sizeof buf - 1);
	CHECK(strstr(buf, " ...(cut)") == buf + sizeof buf - 1 - strlen(" ...(cut)"));
	char big[1024];
	dsh_journal_format(&r, big, sizeof big);
	CHECK(!strstr(big, "(cut)") && strstr(big, "formatted into"));
	CHECK(dsh_journal_line_max(&r) > strlen(big));
}

int main(void)
{
	RUN(long_message);
	RUN(line_ends);
	RUN(cut_said);
	return t_summary("test_journal_format");
}
