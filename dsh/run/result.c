/* dsh-run: one rank's JSON Lines output (schema dsh/1) read back into the
 * outcome of its script: every failed command and assertion with its
 * file:line, the summary, and the verdict.  The verdict never rests on the
 * exit status alone: a rank without a summary object did not finish. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int int_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

static void add_failure(struct result *res, const cJSON *o)
{
	struct failure *f = realloc(res->fail, (res->nfail + 1) * sizeof *f);
	if (!f)
		return;
	res->fail = f;
	f = &f[res->nfail++];
	memset(f, 0, sizeof *f);
	snprintf(f->file, sizeof f->file, "%s", str_of(o, "file") ? str_of(o, "file") : res->script);
	f->line = int_of(o, "lineno");
	snprintf(f->cmd, sizeof f->cmd, "%s", str_of(o, "cmd") ? str_of(o, "cmd") : "");
	snprintf(f->message, sizeof f->message, "%s", str_of(o, "error") ? str_of(o, "error") : "failed");
}

/* `exit N` (N > 0) fails the run with no failed command: the failure is the
 * exit itself, at the file:line dsh names in the summary's exit_at. */
static void exit_requested(struct result *res, const cJSON *sum)
{
	int n = int_of(sum, "exit_requested");
	const char *at = str_of(sum, "exit_at");
	const char *colon = at ? strrchr(at, ':') : NULL;
	if (n <= 0 || !colon)
		return;
	char *end;
	long line = strtol(colon + 1, &end, 10);
	if (*end || line <= 0 || line > 0x7fffffff)
		return;
	cJSON *o = cJSON_CreateObject();
	char file[2048], msg[64]; /* "exit" stands for quit too: the summary does not say which */
	snprintf(file, sizeof file, "%.*s", (int)(colon - at), at);
	snprintf(msg, sizeof msg, "the script asked to exit %d", n);
	if (o && cJSON_AddStringToObject(o, "file", file) && cJSON_AddNumberToObject(o, "lineno", (double)line) &&
	    cJSON_AddStringToObject(o, "cmd", "exit") && cJSON_AddStringToObject(o, "error", msg))
		add_failure(res, o);
	cJSON_Delete(o);
}

void result_read(struct result *res)
{
	FILE *f = fopen(res->out_path, "r");
	char *line = NULL;
	size_t cap = 0;
	while (f && getline(&line, &cap, f) > 0) {
		cJSON *o = cJSON_Parse(line);
		if (!o)
			continue;
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(o, "summary");
		if (cJSON_IsObject(sum)) {
			res->have_summary = true;
			res->passed = int_of(sum, "passed");
			res->failed = int_of(sum, "failed");
			res->errors = int_of(sum, "errors") + int_of(sum, "check_errors");
			res->commands = int_of(sum, "commands");
			/* dsh's own verdict (dsh/verdict.c): ok and the exit status it chose */
			res->summary_ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "ok")) &&
					  int_of(sum, "exit_status") == 0;
			exit_requested(res, sum);
		} else {
			const char *cmd = str_of(o, "cmd");
			/* an assertion is what dsh reports as one: a result with "passed" */
			const cJSON *r0 = cJSON_GetObjectItemCaseSensitive(o, "result");
			bool assertion = r0 && cJSON_GetObjectItemCaseSensitive(r0, "passed");
			bool ok = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "ok"));
			if (assertion)
				res->nasserts++;
			snprintf(res->last_file, sizeof res->last_file, "%s", str_of(o, "file") ? str_of(o, "file") : res->script);
			if (!ok)
				add_failure(res, o);
			struct cmdrec *c = realloc(res->cmds, (res->ncmds + 1) * sizeof *c);
			if (c) {
				res->cmds = c;
				c = &c[res->ncmds++];
				memset(c, 0, sizeof *c);
				c->line = int_of(o, "lineno");
				snprintf(c->cmd, sizeof c->cmd, "%s", cmd ? cmd : "");
				c->ok = ok;
				const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "result");
				const cJSON *pv = r ? cJSON_GetObjectItemCaseSensitive(r, "passed") : NULL;
				c->passed = assertion && cJSON_IsBool(pv) ? (cJSON_IsTrue(pv) ? 1 : 0) : -1;
			}
		}
		cJSON_Delete(o);
	}
	free(line);
	if (f)
		fclose(f);
	/* The verdict. */
	bool ok = res->have_summary && res->summary_ok && !res->nfail;
	if (res->exit_code > 0 && res->exit_code != -1)
		ok = false;
	if (res->timed_out) {
		/* dsh writes a command's object when it ends; killed, it writes the
		 * one it was running as "interrupted" (the innermost first).  If it
		 * could not, the last object is the last command it finished. */
		const struct failure *in = NULL;
		for (unsigned i = 0; i < res->nfail && !in; i++)
			if (strstr(res->fail[i].message, "interrupted"))
				in = &res->fail[i];
		if (in)
			snprintf(res->message, sizeof res->message, "rank %u timed out and was killed (script %s) "
				 "while running %s:%d: %s", res->rank, res->script, in->file, in->line, in->cmd);
		else if (res->ncmds && res->last_file[0])
			snprintf(res->message, sizeof res->message, "rank %u timed out and was killed (script %s) "
				 "after %s:%d: %s, the last command it finished (the one running is not known)",
				 res->rank, res->script, res->last_file, res->cmds[res->ncmds - 1].line,
				 res->cmds[res->ncmds - 1].cmd);
		else
			snprintf(res->message, sizeof res->message, "rank %u timed out and was killed (script %s) "
				 "before it finished a command", res->rank, res->script);
		res->status = ST_FAILED;
		return;
	}
	if (!res->have_summary) {
		snprintf(res->message, sizeof res->message,
			 "rank %u did not finish %s (no summary in its output%s)", res->rank, res->script,
			 res->exit_code > 128 ? ", killed by a signal" : "");
		res->status = ST_FAILED;
		return;
	}
	res->status = ok ? ST_PASSED : ST_FAILED;
	if (!ok && res->nfail)
		snprintf(res->message, sizeof res->message, "rank %u: %s:%d: %s: %s", res->rank,
			 res->fail[0].file, res->fail[0].line, res->fail[0].cmd, res->fail[0].message);
	else if (!ok)
		snprintf(res->message, sizeof res->message, "rank %u: %s failed (exit status %d)", res->rank,
			 res->script, res->exit_code);
}

void result_free(struct result *res)
{
	free(res->fail);
	free(res->cmds);
	res->fail = NULL;
	res->cmds = NULL;
	res->nfail = res->ncmds = 0;
}
