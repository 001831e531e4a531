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
	v->passed = d->asserts_pass;
	v->failed = d->asserts_fail;
	v->skipped = d->asserts_skipped;
	v->commands = d->commands;
	v->failed_commands = d->failures;
	v->errors = d->errors;
	v->exit_requested = d->quit_code;
	bool failed = d->failures > 0 || d->asserts_fail > 0 || d->check_errors > 0 || d->out_of_time ||
		      d->output_error || dsh_term_signal() != 0;
	v->ok = !failed && d->quit_code <= 0;
	if (d->backend_unopened)
		v->exit_status = DSH_EXIT_BACKEND;
	else if (d->check_errors || d->input_unread || d->setup_failed)
		v->exit_status = DSH_EXIT_USAGE; /* nothing ran (as -f of an unreadable file) */
	else if (d->quit_code > 0)
		v->exit_status = d->quit_code;
	else if (failed && (!d->interactive || d->quit_code == 0))
		v->exit_status = DSH_EXIT_FAIL;
	else
		v->exit_status = DSH_EXIT_OK;
}


void dsh_late_failure(struct dsh *d, const char *file, int line, const char *cmd, const char *text,
		      const char *msg)
{
	char m[sizeof d->errmsg];
	snprintf(m, sizeof m, "%s", msg); /* msg may be d->errmsg itself */
	msg = m;
	dsh_flush_for_stderr();
	dsh_report_at(file, line, cmd, msg);
	if (d->json) {
		/* Its own failed object, as if the command had failed then. */
		const char *sf = d->cur_file, *sc = d->cur_cmd;
		int sl = d->cur_line;
		bool had = d->have_err;
		char saved[sizeof d->errmsg];
		memcpy(saved, d->errmsg, sizeof saved);
		struct dsh_out_saved kept;
		out_result_save(d, &kept);
		out_result_begin(d);
		out_bool(d, "late", NULL, true);
		d->cur_file = file;
		d->cur_line = line;
		d->cur_cmd = text && text[0] ? text : cmd;
		snprintf(d->errmsg, sizeof d->errmsg, "%s", msg);
		d->have_err = true;
		struct dsh_args *x = calloc(1, sizeof *x);
		if (x) {
			x->argc = 1;
			x->argv[0] = (char *)cmd;
			out_json_command(d, x, false);
			free(x);
		}
		out_result_drop(d);
		out_result_restore(d, &kept);
		d->cur_file = sf;
		d->cur_line = sl;
		d->cur_cmd = sc;
		memcpy(d->errmsg, saved, sizeof saved);
		d->have_err = had;
	}
	d->failures++;
	d->errors++;
	d->has_last = false;
	if (d->bail)
		d->stop = true;
}
