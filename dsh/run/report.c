/* dsh-run: the reports.
 *
 * CTRF (Common Test Report Format, ctrf.io), written with libcjson: one test
 * per (rank, script); the DIMMnet detail (run metadata, per-command results,
 * every assertion and failure with file:line) goes into the `extra` fields
 * CTRF provides for extensions, so the document stays valid against CTRF's
 * schema.  tests/schemas/dsh-run-ctrf.schema.json describes CTRF's shape and
 * the extension; docs/reports.md documents it.
 *
 * JUnit XML as Jenkins and GitLab read it: <testsuites>, one <testsuite> per
 * script, one <testcase> per rank, <failure> with the first failure and
 * every other one in its text.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "dnet/dnet.h"
#include "run.h"

#define TOOL_VERSION "0.1.0"

static const char *status_name(enum status s)
{
	switch (s) {
	case ST_PASSED: return "passed";
	case ST_FAILED: return "failed";
	case ST_SKIPPED: return "skipped";
	default: return "other";
	}
}

static const char *launcher_name(enum launcher l)
{
	static const char *const n[] = { "local", "mpirun", "srun", "pdsh" };
	return n[l];
}

static void iso8601(uint64_t ms, char *b, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(b, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A text file's content (stderr of a rank), at most max bytes. */
static char *slurp(const char *path, size_t max)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *b = malloc(max + 1);
	size_t n = b ? fread(b, 1, max, f) : 0;
	fclose(f);
	if (!b)
		return NULL;
	b[n] = 0;
	return b;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static cJSON *run_extra(const struct run *r)
{
	cJSON *x = cJSON_CreateObject();
	cJSON_AddStringToObject(x, "schema", "dsh-run/1");
	cJSON_AddStringToObject(x, "tool_version", TOOL_VERSION);
	cJSON_AddStringToObject(x, "libdnet_version", dnet_version());
	cJSON_AddStringToObject(x, "backend", r->backend ? r->backend
					      : r->table ? "node table" : "sim (private dnetd)");
	cJSON_AddNumberToObject(x, "ranks", r->n);
	cJSON_AddStringToObject(x, "launcher", launcher_name(r->launcher));
	cJSON_AddStringToObject(x, "command_line", r->cmdline);
	cJSON_AddNumberToObject(x, "timeout_ms", (double)r->timeout_ms);
	cJSON_AddStringToObject(x, "isolation", run_isolation(r)); /* isolate.c, D-RUN-STATE */
	cJSON *nodes = cJSON_AddArrayToObject(x, "nodes");
	for (unsigned k = 0; k < r->n; k++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rank", k);
		cJSON_AddNumberToObject(o, "clid", r->table ? r->table[k].clid : k + 1);
		cJSON_AddNumberToObject(o, "wid", r->table ? r->table[k].wid : 0);
		if (r->table) {
			cJSON_AddStringToObject(o, "host", r->table[k].host);
			if (r->table[k].backend[0])
				cJSON_AddStringToObject(o, "backend", r->table[k].backend);
			if (r->table[k].has_pgid)
				cJSON_AddNumberToObject(o, "pgid", r->table[k].pgid);
		}
		cJSON_AddItemToArray(nodes, o);
	}
	cJSON *sc = cJSON_AddArrayToObject(x, "scripts");
	for (unsigned s = 0; s < r->nscripts; s++)
		cJSON_AddItemToArray(sc, cJSON_CreateString(r->scripts[s]));
	if (r->signal)
		cJSON_AddNumberToObject(x, "signal", r->signal);
	return x;
}

static cJSON *test_of(const struct run *r, const struct result *t)
{
	(void)r;
	cJSON *o = cJSON_CreateObject();
	char name[512];
	snprintf(name, sizeof name, "%s [rank %u]", base_name(t->script), t->rank);
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "status", status_name(t->status));
	uint64_t dur = t->stop_ms > t->start_ms ? t->stop_ms - t->start_ms : 0;
	cJSON_AddNumberToObject(o, "duration", (double)dur);
	cJSON_AddNumberToObject(o, "start", (double)t->start_ms);
	cJSON_AddNumberToObject(o, "stop", (double)(t->stop_ms ? t->stop_ms : t->start_ms));
	cJSON *suite = cJSON_AddArrayToObject(o, "suite");
	cJSON_AddItemToArray(suite, cJSON_CreateString(base_name(t->script)));
	cJSON_AddStringToObject(o, "filePath", t->script);
	cJSON_AddNumberToObject(o, "line", t->nfail ? t->fail[0].line : 1);
	char thr[32];
	snprintf(thr, sizeof thr, "rank %u", t->rank);
	cJSON_AddStringToObject(o, "threadId", thr);
	if (t->status != ST_PASSED) {
		cJSON_AddStringToObject(o, "message", t->message);
		/* The trace: every failure with file:line, then the rank's stderr. */
		size_t cap = 4096 + (size_t)t->nfail * 600;
		char *tr = malloc(cap);
		if (tr) {
			size_t l = 0;
			tr[0] = 0;
			for (unsigned i = 0; i < t->nfail && l + 1 < cap; i++)
				l += (size_t)snprintf(tr + l, cap - l, "%s:%d: %s: %s\n", t->fail[i].file,
						      t->fail[i].line, t->fail[i].cmd, t->fail[i].message);
			char *err = slurp(t->err_path, 2048);
			if (err && *err && l + 1 < cap)
				snprintf(tr + l, cap - l, "-- stderr of rank %u --\n%s", t->rank, err);
			free(err);
			cJSON_AddStringToObject(o, "trace", tr);
			free(tr);
		}
	}
	cJSON *x = cJSON_AddObjectToObject(o, "extra");
	cJSON_AddNumberToObject(x, "rank", t->rank);
	cJSON_AddNumberToObject(x, "exit_code", t->exit_code);
	cJSON_AddBoolToObject(x, "timed_out", t->timed_out);
	cJSON_AddBoolToObject(x, "finished", t->have_summary);
	cJSON_AddNumberToObject(x, "assertions_passed", t->passed);
	cJSON_AddNumberToObject(x, "assertions_failed", t->failed);
	cJSON_AddNumberToObject(x, "errors", t->errors);
	cJSON_AddNumberToObject(x, "commands", t->commands);
	cJSON *fa = cJSON_AddArrayToObject(x, "failures");
	for (unsigned i = 0; i < t->nfail; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "file", t->fail[i].file);
		cJSON_AddNumberToObject(f, "line", t->fail[i].line);
		cJSON_AddStringToObject(f, "command", t->fail[i].cmd);
		cJSON_AddStringToObject(f, "message", t->fail[i].message);
		cJSON_AddItemToArray(fa, f);
	}
	cJSON *ca = cJSON_AddArrayToObject(x, "command_results");
	for (unsigned i = 0; i < t->ncmds; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "line", t->cmds[i].line);
		cJSON_AddStringToObject(c, "command", t->cmds[i].cmd);
		cJSON_AddBoolToObject(c, "ok", t->cmds[i].ok);
		if (t->cmds[i].passed >= 0)
			cJSON_AddBoolToObject(c, "assertion_held", t->cmds[i].passed == 1);
		cJSON_AddItemToArray(ca, c);
	}
	return o;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "dsh-run: cannot write '%s': %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

int report_ctrf(const struct run *r, const char *path)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "reportFormat", "CTRF");
	cJSON_AddStringToObject(root, "specVersion", "0.0.0");
	char ts[32];
	iso8601(r->stop_ms, ts, sizeof ts);
	cJSON_AddStringToObject(root, "timestamp", ts);
	cJSON_AddStringToObject(root, "generatedBy", "dsh-run " TOOL_VERSION);
	cJSON *res = cJSON_AddObjectToObject(root, "results");
	cJSON *tool = cJSON_AddObjectToObject(res, "tool");
	cJSON_AddStringToObject(tool, "name", "dsh-run");
	cJSON_AddStringToObject(tool, "version", TOOL_VERSION);
	unsigned cnt[4] = { 0 };
	size_t nt = (size_t)r->nscripts * r->n;
	for (size_t i = 0; i < nt; i++)
		cnt[r->res[i].status]++;
	cJSON *sum = cJSON_AddObjectToObject(res, "summary");
	cJSON_AddNumberToObject(sum, "tests", (double)nt);
	cJSON_AddNumberToObject(sum, "passed", cnt[ST_PASSED]);
	cJSON_AddNumberToObject(sum, "failed", cnt[ST_FAILED]);
	cJSON_AddNumberToObject(sum, "pending", 0);
	cJSON_AddNumberToObject(sum, "skipped", cnt[ST_SKIPPED]);
	cJSON_AddNumberToObject(sum, "other", cnt[ST_OTHER]);
	cJSON_AddNumberToObject(sum, "suites", r->nscripts);
	cJSON_AddNumberToObject(sum, "start", (double)r->start_ms);
	cJSON_AddNumberToObject(sum, "stop", (double)r->stop_ms);
	cJSON_AddNumberToObject(sum, "duration", (double)(r->stop_ms - r->start_ms));
	cJSON *tests = cJSON_AddArrayToObject(res, "tests");
	for (size_t i = 0; i < nt; i++)
		cJSON_AddItemToArray(tests, test_of(r, &r->res[i]));
	cJSON *env = cJSON_AddObjectToObject(res, "environment");
	struct utsname u;
	if (uname(&u) == 0) {
		cJSON_AddStringToObject(env, "osPlatform", "linux");
		cJSON_AddStringToObject(env, "osRelease", u.release);
		cJSON_AddStringToObject(env, "osVersion", u.version);
	}
	cJSON_AddStringToObject(env, "appName", "DIMMnet-2");
	cJSON_AddBoolToObject(env, "healthy", cnt[ST_FAILED] == 0 && !r->signal);
	cJSON_AddItemToObject(res, "extra", run_extra(r));
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text) {
		fprintf(stderr, "dsh-run: out of memory for the report\n");
		return -1;
	}
	int rc = write_text(path, text);
	free(text);
	return rc;
}

/* XML text with the five predefined entities; characters XML 1.0 forbids
 * (control characters but tab, LF, CR) become '?'. */
static void xml_put(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			fputc(c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : c, f);
		}
	}
}

int report_junit(const struct run *r, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "dsh-run: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	unsigned tests = r->nscripts * r->n, failures = 0;
	for (unsigned i = 0; i < tests; i++)
		failures += r->res[i].status == ST_FAILED;
	char ts[32], host[256] = "localhost";
	iso8601(r->start_ms, ts, sizeof ts);
	gethostname(host, sizeof host - 1);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"dsh-run\" tests=\"%u\" failures=\"%u\" errors=\"0\" time=\"%.3f\">\n",
		tests, failures, (double)(r->stop_ms - r->start_ms) / 1000.0);
	for (unsigned s = 0; s < r->nscripts; s++) {
		const struct result *res = &r->res[(size_t)s * r->n];
		unsigned sf = 0;
		uint64_t t0 = UINT64_MAX, t1 = 0;
		for (unsigned k = 0; k < r->n; k++) {
			sf += res[k].status == ST_FAILED;
			t0 = res[k].start_ms < t0 ? res[k].start_ms : t0;
			t1 = res[k].stop_ms > t1 ? res[k].stop_ms : t1;
		}
		fprintf(f, "  <testsuite name=\"");
		xml_put(f, base_name(r->scripts[s]));
		fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"0\" time=\"%.3f\" "
			"timestamp=\"%s\" hostname=\"", r->n, sf,
			t1 > t0 ? (double)(t1 - t0) / 1000.0 : 0.0, ts);
		xml_put(f, host);
		fprintf(f, "\">\n    <properties>\n");
		fprintf(f, "      <property name=\"backend\" value=\"");
		xml_put(f, r->backend ? r->backend : r->table ? "node table" : "sim (private dnetd)");
		fprintf(f, "\"/>\n      <property name=\"launcher\" value=\"%s\"/>\n", launcher_name(r->launcher));
		fprintf(f, "      <property name=\"ranks\" value=\"%u\"/>\n    </properties>\n", r->n);
		for (unsigned k = 0; k < r->n; k++) {
			const struct result *t = &res[k];
			uint64_t dur = t->stop_ms > t->start_ms ? t->stop_ms - t->start_ms : 0;
			fprintf(f, "    <testcase name=\"rank %u\" classname=\"dsh-run.", t->rank);
			xml_put(f, base_name(t->script));
			fprintf(f, "\" file=\"");
			xml_put(f, t->script);
			fprintf(f, "\" line=\"%d\" time=\"%.3f\"", t->nfail ? t->fail[0].line : 1, (double)dur / 1000.0);
			if (t->status == ST_PASSED) {
				fprintf(f, "/>\n");
				continue;
			}
			fprintf(f, ">\n      <failure message=\"");
			xml_put(f, t->message);
			fprintf(f, "\" type=\"%s\">", t->timed_out ? "timeout" : t->nfail ? "dsh" : "run");
			for (unsigned i = 0; i < t->nfail; i++) {
				char line[1024];
				snprintf(line, sizeof line, "%s:%d: %s: %s\n", t->fail[i].file, t->fail[i].line,
					 t->fail[i].cmd, t->fail[i].message);
				xml_put(f, line);
			}
			fprintf(f, "</failure>\n");
			char *err = slurp(t->err_path, 4096);
			if (err && *err) {
				fprintf(f, "      <system-err>");
				xml_put(f, err);
				fprintf(f, "</system-err>\n");
			}
			free(err);
			fprintf(f, "    </testcase>\n");
		}
		fprintf(f, "  </testsuite>\n");
	}
	fprintf(f, "</testsuites>\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "dsh-run: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}
