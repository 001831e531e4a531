/* dsh: posted commands.
 *
 * Through dnetd every device access is a round trip (35 us on a loaded
 * 2-CPU machine), which held a script of writes to 19k commands/s.  Commands
 * that only write and print nothing (DSH_C_POSTED) therefore go posted
 * (dnet_set_posted): their requests leave in batches and are answered only
 * if they fail.  A verdict is still the command's own: before any other
 * command, at the end of a script and at the prompt, dsh waits for them
 * (dnet_sync) and reports each failure as "FILE:LINE: CMD: message", counted
 * as a failed command; under -e the device skips everything after it and the
 * script stops there, as it would have without posting.  Output that could
 * interleave with those reports (JSON, echo) turns posting off, and so does
 * `set posted off` (a round trip per command, as on a board being debugged
 * write by write).
 * On a backend without posting (sim, devmem, pci) every request is done when
 * its call returns and nothing changes.
 */
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

/* Commands between two waits: each a tag; the ring bounds what a failure
 * must be traced back to (and one round trip per this many commands). */
#define POSTED_MAX 1024u

struct dsh_posted {
	char file[128];
	int line;
	char cmd[32];
};

bool dsh_post_begin(struct dsh *d, const struct dsh_cmd *c, const char *name)
{
	if (!(c->flags & DSH_C_POSTED) || d->no_post || d->json || d->echo || !d->dev)
		return false;
	if (d->nposted == POSTED_MAX && dsh_post_sync(d) < 0 && d->stop)
		return false;
	if (!d->posted && !(d->posted = calloc(POSTED_MAX, sizeof *d->posted)))
		return false;
	struct dnet_err e = { 0 };
	if (dnet_set_posted(d->dev, d->bail ? DNET_POST_STOP : DNET_POST_CONTINUE, &e) < 0)
		return false;
	struct dsh_posted *p = &d->posted[d->nposted];
	snprintf(p->file, sizeof p->file, "%s", d->cur_file ? d->cur_file : "");
	p->line = d->cur_line;
	snprintf(p->cmd, sizeof p->cmd, "%s", name);
	dnet_set_tag(d->dev, d->nposted++);
	return true;
}

int dsh_post_sync(struct dsh *d)
{
	int ret = 0;
	if (!d->nposted || !d->dev)
		return 0;
	for (;;) {
		uint64_t tag = DNET_NO_TAG;
		struct dnet_err e = { 0 };
		if (dnet_sync(d->dev, &tag, &e) == 0)
			break;
		ret = -1;
		const struct dsh_posted *p = tag < d->nposted ? &d->posted[tag] : NULL;
		dsh_report_at(p && p->file[0] ? p->file : NULL, p ? p->line : 0, p ? p->cmd : "posted writes",
			      e.msg);
		d->failures++;
		d->errors++;
		d->has_last = false;
		if (d->bail)
			d->stop = true;
		if (tag == DNET_NO_TAG && e.code == DNET_EIO)
			break; /* the connection itself: nothing more will come */
	}
	d->nposted = 0;
	return ret;
}

void dsh_post_free(struct dsh *d)
{
	free(d->posted);
	d->posted = NULL;
	d->nposted = 0;
}
