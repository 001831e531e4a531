/* dsh: what a shell holds (device, shadows, variables, message layer,
 * AMT map, synchronisation, snapshots, posted commands, journal),
 * released -- at exit, and by the fuzz target after every input. */
#include <stdlib.h>
#include "dsh.h"
#include "journal.h"

void dsh_release(struct dsh *d)
{
	dsh_post_free(d);
	dsh_pending_free(d);
	if (d->reg.shadow) {
		for (unsigned i = 0; i < d->reg.nshadow; i++) {
			struct dsh_shadow *s = d->reg.shadow[i];
			if (!s)
				continue;
			for (unsigned w = 0; w < DNET_NWID; w++) {
				free(s->reg[w]);
				free(s->reg_has[w]);
			}
			free(s);
		}
		free(d->reg.shadow);
	}
	dsh_vars_free(d);
	dsh_msg_free(d);
	dsh_amt_free(d);
	dsh_sync_free(d);
	dsh_snaps_free(d);
	if (d->dev)
		dnet_close(d->dev); /* any node's handle closes the device */
	d->dev = NULL;
	dsh_journal_stop(NULL); /* main stopped it with the verdict, unless it ended early */
}
