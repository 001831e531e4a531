/* dsh: posted commands.
 *
 * Through dnetd every device access is a round trip (35 us on a loaded
 * 2-CPU machine), which held a script of writes to 19k commands/s.  Commands
 * that only write and print nothing (DSH_C_POSTED) therefore go posted: the
 * requests of that one command are made with posting on, tagged with the
 * command's sequence number, and posting is off again when it returns
 * (dsh_post_end) -- posting is a property of each command's requests, never
 * a mode that outlives the command.  Every posted command has an outcome
 * slot (file, line, command) until dsh_post_sync resolves it: before any
 * other command, at the end of every script and before the summary.  A
 * failure is reported as "FILE:LINE: CMD: message" of its own command and
 * counted as a failed command; under -e the device skips everything posted
 * after it (DNET_POST_STOP), those commands are not counted as run, and
 * the script stops before its next line.  Output that could interleave with
 * those reports (JSON, echo) turns posting off, and so does `set posted
 * off` (a round trip per command, as on a board debugged write by write).
 * On a backend without posting (sim, devmem, pci) every request is done
 * when its call returns and nothing changes.
 */
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

/* Commands between two waits: the ring bounds what a failure must be traced
 * back to (and one round trip per this many commands). */
#define POSTED_MAX 1024u

struct dsh_posted {
	char file[128];
	int line;
	char cmd[32];
};

bool dsh_post_begin(struct dsh *d, const struct dsh_cmd *c, const char *name)
{
	if (!(c->flags & DSH_C_POSTED) || d->post.off || d->io.json || d->opts.echo || !d->dev)
		return false;
	if (d->post.n == POSTED_MAX && (dsh_post_sync(d) < 0 && d->run.stop))
		return false;
	if (!d->post.slots && !(d->post.slots = calloc(POSTED_MAX, sizeof *d->post.slots)))
		return false;
	struct dnet_err e = { 0 };
	if (dnet_set_posted(d->dev, d->opts.bail ? DNET_POST_STOP : DNET_POST_CONTINUE, &e) < 0)
		return false;
	struct dsh_posted *p = &d->post.slots[d->post.n];
	snprintf(p->file, sizeof p->file, "%s", d->cur.file ? d->cur.file : "");
	p->line = d->cur.line;
	snprintf(p->cmd, sizeof p->cmd, "%s", name);
	/* The tag is the command's slot plus the number of slots resolved
	 * before: a tag from an earlier batch can never name this one. */
	dnet_set_tag(d->dev, d->post.base + d->post.n++);
	return true;
}

void dsh_post_end(struct dsh *d)
{
	if (!d->dev)
		return;
	struct dnet_err e = { 0 };
	dnet_set_posted(d->dev, DNET_POST_OFF, &e);
	dnet_set_tag(d->dev, DNET_NO_TAG);
}

int dsh_post_sync(struct dsh *d)
{
	int ret = 0;
	if (!d->dev)
		return 0;
	/* Also with no slot open: anything posted is collected, never lost. */
	for (unsigned round = 0; round <= POSTED_MAX + 1; round++) {
		uint64_t tag = DNET_NO_TAG;
		struct dnet_err e = { 0 };
		if (dnet_sync(d->dev, &tag, &e) == 0)
			break;
		ret = -1;
		uint64_t slot = tag - d->post.base;
		const struct dsh_posted *p = tag != DNET_NO_TAG && tag >= d->post.base && slot < d->post.n ?
			&d->post.slots[slot] : NULL;
		dsh_late_failure(d, p && p->file[0] ? p->file : NULL, p ? p->line : 0,
				 p ? p->cmd : "posted writes", NULL, e.msg);
		if (d->opts.bail) {
			/* DNET_POST_STOP: the commands posted after it were
			 * skipped by the device, so they did not run. */
			if (p && (int)(d->post.n - slot - 1) <= d->run.commands)
				d->run.commands -= (int)(d->post.n - slot - 1);
		}
		if (tag == DNET_NO_TAG && e.code == DNET_EIO)
			break; /* the connection itself: nothing more will come */
	}
	d->post.base += d->post.n;
	d->post.n = 0;
	return ret;
}

void dsh_post_free(struct dsh *d)
{
	free(d->post.slots);
	d->post.slots = NULL;
	d->post.n = 0;
}
