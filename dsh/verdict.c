/* dsh: the run's verdict, decided in one place.
 *
 * The text summary, the JSON summary and the exit status all read
 * dsh_run_verdict(); dsh-run reads the JSON summary it writes.  The rules
 * (dsh(1) EXIT STATUS, dsh-script(5), docs/reports.md):
 *   - a run is ok when no command failed (posted ones and late primitive
 *     verdicts included), no assertion failed, the check found nothing, no
 *     signal or --max-time stopped it, standard output could be written,
 *     and the script did not ask to exit with a non-zero status;
 *   - assertions that did not run (--dry-run) are skipped, never passed;
 *   - `exit N` / `quit N` chooses the status only among failures: after a
 *     failure, exit 0 still exits 1 (the failure wins), a non-zero N is
 *     kept; with everything passing, a non-zero N fails the run.
 * Before any of it is written, every open outcome is resolved (main.c,
 * dsh_post_sync and dsh_pending_settle): a summary is never written while
 * a posted command or a primitive's verdict is still unknown.
 */
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

void dsh_run_verdict(const struct dsh *d, struct dsh_run_verdict *v)
{
	memset(v, 0, sizeof *v);
	v->passed = d->run.asserts_pass;
	v->failed = d->run.asserts_fail;
	v->skipped = d->run.asserts_skipped;
	v->commands = d->run.commands;
	v->failed_commands = d->run.failures;
	v->errors = d->run.errors;
	v->exit_requested = d->run.quit_code;
	bool failed = d->run.failures > 0 || d->run.asserts_fail > 0 || d->run.check_errors > 0 || d->run.out_of_time ||
		      d->io.error || dsh_term_signal() != 0;
	v->ok = !failed && d->run.quit_code <= 0;
	if (d->run.backend_unopened)
		v->exit_status = DSH_EXIT_BACKEND;
	else if (d->run.check_errors || d->run.input_unread || d->run.setup_failed)
		v->exit_status = DSH_EXIT_USAGE; /* nothing ran (as -f of an unreadable file) */
	else if (d->run.quit_code > 0)
		v->exit_status = d->run.quit_code;
	else if (failed && (!d->opts.interactive || d->run.quit_code == 0))
		v->exit_status = DSH_EXIT_FAIL;
	else
		v->exit_status = DSH_EXIT_OK;
}


void dsh_late_failure(struct dsh *d, const char *file, int line, const char *cmd, const char *text,
		      const char *msg)
{
	char m[sizeof d->cur.errmsg];
	snprintf(m, sizeof m, "%s", msg); /* msg may be d->cur.errmsg itself */
	msg = m;
	dsh_flush_for_stderr();
	dsh_report_at(file, line, cmd, msg);
	if (d->io.json) {
		/* Its own failed object, as if the command had failed then. */
		const char *sf = d->cur.file, *sc = d->cur.cmd;
		int sl = d->cur.line;
		bool had = d->cur.have_err;
		char saved[sizeof d->cur.errmsg];
		memcpy(saved, d->cur.errmsg, sizeof saved);
		struct dsh_out_saved kept;
		out_result_save(d, &kept);
		out_result_begin(d);
		out_bool(d, "late", NULL, true);
		d->cur.file = file;
		d->cur.line = line;
		d->cur.cmd = text && text[0] ? text : cmd;
		snprintf(d->cur.errmsg, sizeof d->cur.errmsg, "%s", msg);
		d->cur.have_err = true;
		struct dsh_args *x = calloc(1, sizeof *x);
		if (x) {
			x->argc = 1;
			x->argv[0] = (char *)cmd;
			out_json_command(d, x, false);
			free(x);
		}
		out_result_drop(d);
		out_result_restore(d, &kept);
		d->cur.file = sf;
		d->cur.line = sl;
		d->cur.cmd = sc;
		memcpy(d->cur.errmsg, saved, sizeof saved);
		d->cur.have_err = had;
	}
	d->run.failures++;
	d->run.errors++;
	d->script.has_last = false;
	if (d->opts.bail)
		d->run.stop = true;
}
