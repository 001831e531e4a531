/* dsh-run's reports (dsh/run/report.c, linked with the pieces report.h
 * exposes): text made valid, excerpts cut between characters, test names,
 * and JUnit's and CTRF's counts for every status, the one no run produces
 * today (ST_OTHER: JUnit <error>) included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "run/report.h"
#include "harness.h"

/* isolate.c is not linked in: the report only names what it chose. */
const char *run_isolation(const struct run *r)
{
	(void)r;
	return "restart";
}

static char tmpdir[] = "/tmp/test_run_report.XXXXXX";

static char *file_with(const char *name, const void *data, size_t n)
{
	static char path[4][256];
	static unsigned k;
	char *p = path[k++ % 4];
	snprintf(p, sizeof path[0], "%s/%s", tmpdir, name);
	FILE *f = fopen(p, "w");
	if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0)
		fprintf(stderr, "cannot write %s\n", p);
	return p;
}

static char *slurp_all(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *b = calloc(1, 1 << 20);
	if (b && fread(b, 1, (1 << 20) - 1, f) == 0)
		b[0] = 0;
	fclose(f);
	return b;
}

static void valid_utf8(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "plain" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "a\xff" "b", "a" REPLACEMENT "b" },
		{ "\xc0\xaf", REPLACEMENT REPLACEMENT },          /* overlong */
		{ "\xed\xa0\x80", REPLACEMENT REPLACEMENT REPLACEMENT }, /* a surrogate */
		{ "\xef\xbf\xbe|\xef\xbf\xbf", REPLACEMENT "|" REPLACEMENT }, /* not XML characters */
		{ "\xef\xbf\xbd", REPLACEMENT },
		{ "cut \xe2\x82", "cut " REPLACEMENT REPLACEMENT },
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n;
		char *o = report_utf8_valid(cases[i].in, &n);
		CHECK_STR(o, cases[i].out);
		CHECK_EQ(n, strlen(cases[i].out));
		free(o);
	}
}

static void excerpts(void)
{
	char big[64];
	char *e = run_excerpt(file_with("none", "", 0), 8);
	CHECK_STR(e, "");
	free(e);
	CHECK(run_excerpt("/nonexistent/err", 8) == NULL);
	/* exactly max bytes: all of it, nothing said */
	e = run_excerpt(file_with("8", "12345678", 8), 8);
	CHECK_STR(e, "12345678");
	free(e);
	e = run_excerpt(file_with("9", "123456789", 9), 8);
	CHECK_STR(e, "12345678\n... (1 byte more)\n");
	free(e);
	/* a 4-byte character over the limit is left out whole */
	e = run_excerpt(file_with("emoji", "12345\xf0\x9f\x98\x80xy", 11), 8);
	CHECK_STR(e, "12345\n... (6 bytes more)\n");
	free(e);
	/* ... and one that ends at it is kept */
	e = run_excerpt(file_with("emoji2", "1234\xf0\x9f\x98\x80xy", 10), 8);
	CHECK_STR(e, "1234\xf0\x9f\x98\x80\n... (2 bytes more)\n");
	free(e);
	/* a NUL cannot be in a C string; a stray byte is cut alone (write_report replaces it) */
	e = run_excerpt(file_with("nul", "a\0b\xff\n", 5), 8);
	CHECK_STR(e, "a" REPLACEMENT "b\xff\n");
	free(e);
	/* a line that ended at the cut gets no extra newline */
	memset(big, 'x', sizeof big);
	big[7] = '\n';
	e = run_excerpt(file_with("nl", big, 20), 8);
	CHECK_STR(e, "xxxxxxx\n... (12 bytes more)\n");
	free(e);
}

static void names(void)
{
	const char *s1[] = { "/x/a/t.dsh", "/x/b/t.dsh", "/x/t.dsh", "/x/ab/t.dsh" };
	const char *s2[] = { "/x/a/t.dsh", "/x/b/../a/t.dsh", "/x/a/./t.dsh" };
	const char *s3[] = { "/x/y/only.dsh" };
	const char *s4[] = { "/" };
	struct { const char **in; unsigned n; const char *want[4]; } cases[] = {
		{ s1, 4, { "a/t.dsh", "b/t.dsh", "t.dsh", "ab/t.dsh" } },
		{ s2, 3, { "t.dsh", "t.dsh #2", "t.dsh #3" } },
		{ s3, 1, { "only.dsh" } },
		{ s4, 1, { NULL } }, /* "/" itself: no crash */
	};
	for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct run r = { .scripts = cases[c].in, .nscripts = cases[c].n };
		char **n = report_script_names(&r);
		CHECK(n != NULL);
		for (unsigned s = 0; n && s < cases[c].n; s++)
			if (cases[c].want[s])
				CHECK_STR(n[s], cases[c].want[s]);
		report_names_free(n, cases[c].n);
	}
	/* relative paths: from the working directory */
	char *a = run_abs_path("x/../y.dsh"), cwd[4096];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	strcat(cwd, "/y.dsh");
	CHECK_STR(a, strcmp(cwd, "//y.dsh") ? cwd : "/y.dsh");
	free(a);
}

/* Jenkins splits a classname at its last dot: only the one after dsh-run
 * (D-JUNIT-CLASSNAME). */
static void classnames(void)
{
	static const char *const cases[][2] = {
		{ "status_ring_wrap.dsh", "dsh-run.status_ring_wrap" },
		{ "b/t.dsh", "dsh-run.b/t" },
		{ "t.dsh #2", "dsh-run.t #2" },
		{ "v1.2.check.dsh", "dsh-run.v1_2_check" },
		{ "noext", "dsh-run.noext" },
		{ ".dsh", "dsh-run." },
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *c = report_junit_classname(cases[i][0]);
		CHECK_STR(c, cases[i][1]);
		free(c);
	}
}

/* One script on 4 ranks, one of each status. */
static void counts(void)
{
	const char *scripts[] = { "/x/s.dsh" };
	struct result res[4];
	memset(res, 0, sizeof res);
	static const enum status st[4] = { ST_PASSED, ST_FAILED, ST_SKIPPED, ST_OTHER };
	for (unsigned k = 0; k < 4; k++) {
		res[k].rank = k;
		res[k].script = scripts[0];
		res[k].status = st[k];
		snprintf(res[k].message, sizeof res[k].message, "rank %u: \x01 why\xff", k);
	}
	struct run r = { .n = 4, .nscripts = 1, .scripts = scripts, .res = res, .start_ms = 1000, .stop_ms = 2000 };
	char *xml = file_with("r.xml", "", 0), *json = file_with("r.json", "", 0);
	CHECK_EQ(report_junit(&r, xml), 0);
	CHECK_EQ(report_ctrf(&r, json), 0);
	char *x = slurp_all(xml), *j = slurp_all(json);
	CHECK(x && strstr(x, "<testsuites name=\"dsh-run\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\""));
	CHECK(x && strstr(x, "<testsuite name=\"s.dsh\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\""));
	CHECK(x && strstr(x, "<testcase name=\"s.dsh [rank 0]\" classname=\"dsh-run.s\" file=\"/x/s.dsh\" line=\"1\" time=\"0.000\"/>"));
	CHECK(x && strstr(x, "<failure message=\"rank 1: " REPLACEMENT " why" REPLACEMENT "\" type=\"run\">"));
	CHECK(x && strstr(x, "<skipped message=\"rank 2: " REPLACEMENT " why" REPLACEMENT "\" type=\"not run\">"));
	CHECK(x && strstr(x, "<error message=\"rank 3: " REPLACEMENT " why" REPLACEMENT "\" type=\"run\">"));
	cJSON *root = j ? cJSON_Parse(j) : NULL;
	cJSON *sum = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "results"), "summary");
	static const char *const keys[] = { "tests", "passed", "failed", "pending", "skipped", "other" };
	static const int want[] = { 4, 1, 1, 0, 1, 1 };
	for (unsigned i = 0; i < 6; i++) {
		const cJSON *v = cJSON_GetObjectItem(sum, keys[i]);
		CHECK(cJSON_IsNumber(v) && v->valueint == want[i]);
	}
	CHECK(j && strstr(j, "\"message\":\t\"rank 3: \\u0001 why" REPLACEMENT "\""));
	cJSON_Delete(root);
	free(x);
	free(j);
}

/* Rank 0 fails, rank 1 passes (issue 31, Deliver 9): a writer that keys on
 * the rank's index rather than its result (rank 0 taken as passed, or the
 * failure of rank 0 put on rank 1) shows here; the fixtures above only fail
 * ranks above 0. */
static void rank0_fails(void)
{
	const char *scripts[] = { "/x/s.dsh" };
	struct result res[2];
	memset(res, 0, sizeof res);
	struct failure f = { .file = "/x/s.dsh", .line = 7, .cmd = "assert", .message = "assertion failed" };
	for (unsigned k = 0; k < 2; k++) {
		res[k].rank = k;
		res[k].script = scripts[0];
		res[k].have_summary = res[k].summary_ok = true;
		res[k].status = ST_PASSED;
		res[k].passed = 1;
	}
	res[0].status = ST_FAILED;
	res[0].summary_ok = false;
	res[0].passed = 0;
	res[0].failed = 1;
	res[0].fail = &f;
	res[0].nfail = 1;
	res[0].exit_code = 1;
	snprintf(res[0].message, sizeof res[0].message, "rank 0: /x/s.dsh:7: assert: assertion failed");
	struct run r = { .n = 2, .nscripts = 1, .scripts = scripts, .res = res, .start_ms = 1000, .stop_ms = 2000 };
	char *xml = file_with("r0.xml", "", 0), *json = file_with("r0.json", "", 0);
	CHECK_EQ(report_junit(&r, xml), 0);
	CHECK_EQ(report_ctrf(&r, json), 0);
	char *x = slurp_all(xml), *j = slurp_all(json);
	CHECK(x && strstr(x, "<testsuites name=\"dsh-run\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""));
	CHECK(x && strstr(x, "<testcase name=\"s.dsh [rank 0]\" classname=\"dsh-run.s\" file=\"/x/s.dsh\" line=\"7\" time=\"0.000\">\n"
			     "      <failure message=\"rank 0: /x/s.dsh:7: assert: assertion failed\" type=\"dsh\">"));
	CHECK(x && strstr(x, "<testcase name=\"s.dsh [rank 1]\" classname=\"dsh-run.s\" file=\"/x/s.dsh\" line=\"1\" time=\"0.000\"/>"));
	CHECK(x && !strstr(x, "rank 1: "));
	cJSON *root = j ? cJSON_Parse(j) : NULL, *res_ = cJSON_GetObjectItem(root, "results");
	cJSON *tests = cJSON_GetObjectItem(res_, "tests");
	CHECK(cJSON_GetArraySize(tests) == 2);
	for (int k = 0; k < 2 && cJSON_GetArraySize(tests) == 2; k++) {
		cJSON *t = cJSON_GetArrayItem(tests, k);
		cJSON *ex = cJSON_GetObjectItem(t, "extra");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), k ? "s.dsh [rank 1]" : "s.dsh [rank 0]");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(t, "status")), k ? "passed" : "failed");
		CHECK_EQ(cJSON_GetObjectItem(t, "line")->valueint, k ? 1 : 7);
		CHECK_EQ(cJSON_GetObjectItem(ex, "rank")->valueint, k);
		CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(ex, "failures")), k ? 0 : 1);
		CHECK(k ? !cJSON_GetObjectItem(t, "message")
			: !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "message")), res[0].message));
	}
	cJSON *sum = cJSON_GetObjectItem(res_, "summary");
	CHECK_EQ(cJSON_GetObjectItem(sum, "passed")->valueint, 1);
	CHECK_EQ(cJSON_GetObjectItem(sum, "failed")->valueint, 1);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(res_, "environment"), "healthy")));
	cJSON_Delete(root);
	free(x);
	free(j);
}

/* A run that did not start (D-REPORT-NOT-RUN): every test an error, the
 * reason in each, JUnit <error type="not run">, CTRF not healthy. */
static void not_started(void)
{
	const char *scripts[] = { "/x/s.dsh" };
	struct result res[2];
	memset(res, 0, sizeof res);
	for (unsigned k = 0; k < 2; k++) {
		res[k].rank = k;
		res[k].script = scripts[0];
		res[k].status = ST_OTHER;
		res[k].not_run = true;
		snprintf(res[k].message, sizeof res[k].message, "rank %u: /x/s.dsh not run: no backend", k);
	}
	struct run r = { .n = 2, .nscripts = 1, .scripts = scripts, .res = res, .start_ms = 1000, .stop_ms = 2000 };
	char *xml = file_with("ns.xml", "", 0), *json = file_with("ns.json", "", 0);
	CHECK_EQ(report_junit(&r, xml), 0);
	CHECK_EQ(report_ctrf(&r, json), 0);
	char *x = slurp_all(xml), *j = slurp_all(json);
	CHECK(x && strstr(x, "<testsuites name=\"dsh-run\" tests=\"2\" failures=\"0\" errors=\"2\" skipped=\"0\""));
	CHECK(x && strstr(x, "<error message=\"rank 0: /x/s.dsh not run: no backend\" type=\"not run\">"));
	CHECK(x && strstr(x, "<error message=\"rank 1: /x/s.dsh not run: no backend\" type=\"not run\">"));
	cJSON *root = j ? cJSON_Parse(j) : NULL, *res_ = cJSON_GetObjectItem(root, "results");
	CHECK_EQ(cJSON_GetObjectItem(cJSON_GetObjectItem(res_, "summary"), "other")->valueint, 2);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(res_, "environment"), "healthy")));
	cJSON_Delete(root);
	free(x);
	free(j);
}

/* A report that cannot be written: -1 and a message, never a crash. */
static void unwritable(void)
{
	const char *scripts[] = { "/x/s.dsh" };
	struct result res = { .script = scripts[0], .status = ST_FAILED };
	struct run r = { .n = 1, .nscripts = 1, .scripts = scripts, .res = &res };
	if (access("/dev/full", W_OK) == 0) {
		CHECK_EQ(report_junit(&r, "/dev/full"), -1);
		CHECK_EQ(report_ctrf(&r, "/dev/full"), -1);
	} else {
		SKIP("no writable /dev/full");
	}
	CHECK_EQ(report_ctrf(&r, "/nonexistent/r.json"), -1);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(valid_utf8);
	RUN(excerpts);
	RUN(names);
	RUN(classnames);
	RUN(counts);
	RUN(rank0_fails);
	RUN(not_started);
	RUN(unwritable);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return t_summary("test_run_report");
}
