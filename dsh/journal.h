/* dsh: the journal of a session's device accesses (--journal FILE), the dry
 * run (--dry-run) and the replay of a journal (replay FILE).
 *
 * One line per device operation that libdnet's tap reports (dnet/tap.h),
 * "KIND key=value ... rc=N  # where", e.g.
 *
 *   # dsh journal 1
 *   # backend devmem:0x80000000,privileged
 *   wc_flush node=1 rc=0
 *   wait node=1 off=0x40200 mask=0x5 cond=eq value=0x0 timeout=1000000000 last=0x0 rc=0  # ureg0+0x200 ctl_status
 *   write node=1 off=0x40010 width=8 val=0x0000060000000400 rc=0  # ureg0+0x10 cmd0_upper
 *   read node=1 off=0x20000 width=16 val=0x...(32 hex digits, high then low) rc=0  # llcm0+0x0
 *   read_block node=1 off=0x10000 len=16 data=00112233... rc=0  # pw0+0x0
 *   # end 4 records; session failed (exit status 1)
 *
 * The end record, written when the journal is closed (at exit, also after
 * failures and the signals dsh catches), counts the records: replay
 * refuses a journal without it (cut short, or still being written) or whose
 * count disagrees, and one without records (nothing to replay).  After the
 * count, the recorded session's own verdict: "; session passed" or
 * "; session failed (exit status N)" (D-REPLAY-VERDICT; a journal of an
 * older dsh has none: its verdict is unknown).  It is a comment, so the
 * format stays "1" and readers that skip comments still read it.
 *
 * A record's message (after "#") is kept whole, a line end in it written
 * as \n; a line that would not fit its buffer ends in " ...(cut)".
 *
 * A dry run prints the same lines, prefixed "dry: ", instead of doing them.
 */
#ifndef DSH_JOURNAL_H
#define DSH_JOURNAL_H

#include <stdio.h>
#include "dsh.h"

#define DSH_JOURNAL_MAGIC "# dsh journal 1"
#define DSH_JOURNAL_END "# end"   /* "# end N records[; VERDICT]", the last line */
#define DSH_JOURNAL_PASSED "session passed"
#define DSH_JOURNAL_FAILED "session failed"

/* Record every operation of d->dev into path (created or truncated).
 * Returns 0, or -1 with a message in msg. */
int dsh_journal_start(struct dsh *d, const char *path, char *msg, size_t n);
/* Print every operation of d->dev (opened with dnet_open_dry) to out. */
void dsh_dry_start(struct dsh *d, FILE *out);
/* Flush and close the journal (at exit), its end record with the session's
 * verdict v (NULL: not known).  -1 if it could not be written whole: the
 * caller reports it, and the run fails. */
int dsh_journal_stop(const struct dsh_run_verdict *v);

/* One tap record as a journal line (no newline); one longer than n - 1
 * ends in " ...(cut)".  dsh_journal_line_max: a buffer it always fits. */
void dsh_journal_format(const struct dnet_tap_rec *r, char *buf, size_t n);
size_t dsh_journal_line_max(const struct dnet_tap_rec *r);
/* The tap both install: record r goes to the journal and the dry run's
 * output (its unit test calls it with records of its own). */
void dsh_journal_tap(void *ctx, const struct dnet_tap_rec *r);

int cmd_replay(struct dsh *d, struct dsh_args *a);

#endif
