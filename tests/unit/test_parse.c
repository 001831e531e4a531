/* Strict number parsing (libdnet/src/parse.c): whole tokens or a clear
 * error; a backend spec's options (core_kv_split): each given once. */
/* Decisions pinned here (docs/decisions.md): D-NUMBERS. */
#include "dnet/backend.h" /* private: INTERNAL_TESTS */
#include "dnet/dnet.h"
#include "dnet/parse_int.h"
#include "harness.h"

static void accepts(void)
{
	struct dnet_err e;
	uint64_t v;
	CHECK_OK(dnet_parse_u64("0", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 0);
	CHECK_OK(dnet_parse_u64("55", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 55);
	CHECK_OK(dnet_parse_u64("0x55ff", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 0x55ff);
	CHECK_OK(dnet_parse_u64("0XAbC", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 0xabc);
	CHECK_OK(dnet_parse_u64("0b101", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 5);
	CHECK_OK(dnet_parse_u64("0o17", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 15);
	CHECK_OK(dnet_parse_u64("0x1234_5678", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 0x12345678);
	CHECK_OK(dnet_parse_u64("0xffffffffffffffff", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, UINT64_MAX);
	CHECK_OK(dnet_parse_u64("18446744073709551615", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, UINT64_MAX);
	CHECK_OK(core_parse_size("4K", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 4096);
	CHECK_OK(core_parse_size("256M", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 256ull << 20);
	CHECK_OK(core_parse_size("0x10", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 16);
}

static void rejects(void)
{
	struct dnet_err e;
	uint64_t v = 1234;
	static const char *const bad[] = {
		"55ff", "0x", "", "ff", "-1", "+1", "010", "08", "0x1g", "1_", "_1", "0x__1",
		"1 2", " 1", "1.5", "0b102", "18446744073709551616", "0x10000000000000000",
	};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = dnet_parse_u64(bad[i], UINT64_MAX, &v, "offset", &e);
		CHECK(rc < 0);
		CHECK_EQ(v, 1234); /* nothing written on error */
		CHECK(strstr(e.msg, "offset") != NULL);
	}
	CHECK_EQ(dnet_parse_u64("55ff", 100, &v, "size", &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "'55ff'") != NULL && strstr(e.msg, "0x") != NULL);
	CHECK_EQ(dnet_parse_u64("256", 255, &v, "pgid", &e), -DNET_ERANGE);
	CHECK(strstr(e.msg, "out of range") != NULL);
	CHECK_EQ(dnet_parse_u64("010", 255, &v, "n", &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "octal") != NULL);
	CHECK(core_parse_size("4Q", UINT64_MAX, &v, "s", &e) < 0);
	CHECK(core_parse_size("K", UINT64_MAX, &v, "s", &e) < 0);
}

/* The one duration grammar (D-DURATION): a number and a unit, ns us ms s
 * m (or min) h; a bare number refused but 0.  The expected values are
 * written out in ns here, not computed from the parser's unit table. */
static const struct dur_case {
	const char *in;
	uint64_t ns;
	const char *msg;   /* NULL: accepted as ns; else refused with this message, whole (what is "--t") */
} dur_cases[] = {
	{ "0", 0, NULL },
	{ "0ns", 0, NULL },
	{ "0s", 0, NULL },
	{ "0h", 0, NULL },
	{ "1ns", 1, NULL },
	{ "5ns", 5, NULL },
	{ "3us", 3000, NULL },
	{ "10us", 10000, NULL },
	{ "2ms", 2000000, NULL },
	{ "1s", 1000000000, NULL },
	{ "90s", 90000000000, NULL },
	{ "1m", 60000000000, NULL },
	{ "5m", 300000000000, NULL },
	{ "1min", 60000000000, NULL },
	{ "10min", 600000000000, NULL },
	{ "2h", 7200000000000, NULL },
	{ "1_000ms", 1000000000, NULL },
	{ "0x10us", 16000, NULL },
	{ "5", 0, "--t: '5' needs a unit (ns, us, ms, s, m, h)" },
	{ "60", 0, "--t: '60' needs a unit (ns, us, ms, s, m, h)" },
	{ "1_000", 0, "--t: '1_000' needs a unit (ns, us, ms, s, m, h)" },
	{ "0x10", 0, "--t: '0x10' needs a unit (ns, us, ms, s, m, h)" },
	{ "5x", 0, "--t: '5x': unknown unit 'x' (ns, us, ms, s, m, h)" },
	{ "3d", 0, "--t: '3d': unknown unit 'd' (ns, us, ms, s, m, h)" },
	{ "5sec", 0, "--t: '5sec': unknown unit 'sec' (ns, us, ms, s, m, h)" },
	{ "5S", 0, "--t: '5S': unknown unit 'S' (ns, us, ms, s, m, h)" },
	{ "5parsecs", 0, "--t: '5parsecs': unknown unit 'parsecs' (ns, us, ms, s, m, h)" },
	{ "5mins", 0, "--t: '5mins': unknown unit 'mins' (ns, us, ms, s, m, h)" },
	{ "1.5x", 0, "--t: '1.5x': unknown unit 'x' (ns, us, ms, s, m, h)" },
	{ "h", 0, "--t: 'h' is not a duration (a number and a unit: ns, us, ms, s, m, h)" },
	{ "ms", 0, "--t: 'ms' is not a duration (a number and a unit: ns, us, ms, s, m, h)" },
	{ "min", 0, "--t: 'min' is not a duration (a number and a unit: ns, us, ms, s, m, h)" },
	{ "", 0, "--t: missing value (a number and a unit: ns, us, ms, s, m, h)" },
	{ "1.5s", 0, "--t '1.5s': invalid character '.' for a base-10 number" },
	{ "10 us", 0, "--t '10 us': invalid character ' ' for a base-10 number" },
	{ "-1s", 0, "--t '-1s': signs are not allowed" },
	{ "1_s", 0, "--t '1_s': misplaced '_'" },
	{ "5124095h", 18446742000000000000ull, NULL },
	{ "5124096h", 0, "--t: '5124096h' is too long (at most 2^64 ns)" },
};

static void durations(void)
{
	for (size_t i = 0; i < sizeof dur_cases / sizeof dur_cases[0]; i++) {
		const struct dur_case *c = &dur_cases[i];
		struct dnet_err e = { 0 };
		uint64_t v = 1234;
		int rc = dnet_parse_duration(c->in, &v, "--t", &e);
		if (!c->msg) {
			CHECK_OK(rc, &e);
			CHECK_EQ(v, c->ns);
		} else {
			CHECK(rc < 0);
			CHECK_EQ(v, 1234); /* nothing written */
			if (strcmp(e.msg, c->msg) != 0)
				fprintf(stderr, "duration '%s': got \"%s\", want \"%s\"\n", c->in, e.msg, c->msg);
			CHECK(strcmp(e.msg, c->msg) == 0);
		}
	}
	struct dnet_err e = { 0 };
	uint64_t v = 1234;
	CHECK(dnet_parse_duration(NULL, &v, "--t", &e) < 0 && v == 1234);
	CHECK(dnet_parse_duration("18446744073709551615ns", &v, "--t", &e) == 0 && v == UINT64_MAX);
	CHECK(dnet_parse_duration("5", &v, NULL, &e) < 0 && strncmp(e.msg, "duration: ", 10) == 0);
}

/* dnet_parse_seconds: the same grammar, whole seconds no more than max. */
static const struct sec_case {
	const char *in;
	uint64_t sec;
	const char *msg;   /* NULL: accepted */
} sec_cases[] = {
	{ "0", 0, NULL },
	{ "30s", 30, NULL },
	{ "2000ms", 2, NULL },
	{ "5m", 300, NULL },
	{ "10min", 600, NULL },
	{ "1h", 3600, NULL },
	{ "86400s", 86400, NULL },
	{ "30", 0, "--x: '30' needs a unit (ns, us, ms, s, m, h)" },
	{ "500ms", 0, "--x: '500ms' is not a whole number of seconds" },
	{ "86401s", 0, "--x: '86401s' out of range (max 86400s)" },
	{ "2d", 0, "--x: '2d': unknown unit 'd' (ns, us, ms, s, m, h)" },
};

static void seconds(void)
{
	for (size_t i = 0; i < sizeof sec_cases / sizeof sec_cases[0]; i++) {
		const struct sec_case *c = &sec_cases[i];
		struct dnet_err e = { 0 };
		uint64_t v = 1234;
		int rc = dnet_parse_seconds(c->in, 86400, &v, "--x", &e);
		if (!c->msg) {
			CHECK_OK(rc, &e);
			CHECK_EQ(v, c->sec);
		} else {
			CHECK(rc < 0);
			CHECK_EQ(v, 1234);
			if (strcmp(e.msg, c->msg) != 0)
				fprintf(stderr, "seconds '%s': got \"%s\", want \"%s\"\n", c->in, e.msg, c->msg);
			CHECK(strcmp(e.msg, c->msg) == 0);
		}
	}
}

/* What dnet_format_duration writes, dnet_parse_duration reads back. */
static void format_roundtrip(void)
{
	static const uint64_t ns[] = { 0, 1, 999, 1000, 1500, 2000000, 1000000000, 90000000000ull, UINT64_MAX };
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		char b[32];
		struct dnet_err e = { 0 };
		uint64_t v = 1;
		CHECK_OK(dnet_parse_duration(dnet_format_duration(ns[i], b, sizeof b), &v, "t", &e), &e);
		CHECK_EQ(v, ns[i]);
	}
}

/* Backend specs as shown and as handed on (D-RUN-SECRETS). */
static void specs(void)
{
	char b[256], t[64];
	CHECK(strcmp(dnet_spec_redact("remote:tcp:h:1,token=abc", b, sizeof b), "remote:tcp:h:1,token=***") == 0);
	CHECK(strcmp(dnet_spec_redact("remote:tcp:h:1,token=abc,node=2,token=x", b, sizeof b),
		     "remote:tcp:h:1,token=***,node=2,token=***") == 0);
	CHECK(strcmp(dnet_spec_redact("remote:token=abc", b, sizeof b), "remote:token=***") == 0);
	CHECK(strcmp(dnet_spec_redact("sim:nodes=2", b, sizeof b), "sim:nodes=2") == 0);
	CHECK(strcmp(dnet_spec_redact("remote:unix:/a/mytoken=x", b, sizeof b), "remote:unix:/a/mytoken=x") == 0);
	CHECK(strcmp(dnet_spec_redact("--backend=remote:x,token=abc", b, sizeof b),
		     "--backend=remote:x,token=***") == 0);
	dnet_spec_redact("remote:x,token=abcdef", b, 14); /* cut: never part of the token */
	CHECK(strcmp(b, "remote:x,toke") == 0);
	CHECK(dnet_spec_take_token("remote:tcp:h:1,token=abc", b, sizeof b, t, sizeof t));
	CHECK(strcmp(b, "remote:tcp:h:1") == 0 && strcmp(t, "abc") == 0);
	CHECK(dnet_spec_take_token("remote:tcp:h:1,token=abc,node=2", b, sizeof b, t, sizeof t));
	CHECK(strcmp(b, "remote:tcp:h:1,node=2") == 0 && strcmp(t, "abc") == 0);
	CHECK(dnet_spec_take_token("remote:token=abc,node=2", b, sizeof b, t, sizeof t));
	CHECK(strcmp(b, "remote:node=2") == 0 && strcmp(t, "abc") == 0);
	CHECK(!dnet_spec_take_token("remote:tcp:h:1,node=2", b, sizeof b, t, sizeof t));
	CHECK(strcmp(b, "remote:tcp:h:1,node=2") == 0 && t[0] == 0);
}

/* An option given twice is refused, named, without its value (a token is
 * a secret); by the split every backend uses, so by every backend's open
 * (Decision D-SPEC-ONCE). */
static void options_once(void)
{
	struct dnet_kv kv[8];
	unsigned n = 99;
	struct dnet_err e;
	CHECK_OK(core_kv_split("node=2,user,token=x,wid=1", kv, 8, &n, &e), &e);
	CHECK_EQ(n, 4u);
	CHECK_EQ(core_kv_split("token=sec1,node=2,token=sec2", kv, 8, &n, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "option 'token' given twice (options 1 and 3") != NULL);
	CHECK(!strstr(e.msg, "sec1") && !strstr(e.msg, "sec2"));
	CHECK_EQ(core_kv_split("user,wid=0,user", kv, 8, &n, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "option 'user' given twice (options 1 and 3") != NULL);
	CHECK_EQ(core_kv_split("token=sec1,,node=1", kv, 8, &n, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "empty option") && !strstr(e.msg, "sec1"));
	static const struct { const char *spec, *key; } twice[] = {
		{ "remote:unix:/nonexistent/s.sock,token=sec1,token=sec2", "token" },
		{ "remote:unix:/nonexistent/s.sock,node=1,wid=0,node=2", "node" },
		{ "sim:nodes=2,nodes=3", "nodes" },
		{ "sim:faults=drop:nth:1,faults=dup", "faults" },
		{ "devmem:0x0@/nonexistent/mem,privileged,privileged", "privileged" },
	};
	for (size_t i = 0; i < sizeof twice / sizeof twice[0]; i++) {
		struct dnet_dev *d = NULL;
		char want[64];
		snprintf(want, sizeof want, "option '%s' given twice", twice[i].key);
		int rc = dnet_open(twice[i].spec, &d, &e);
		if (rc != -DNET_EINVAL || !strstr(e.msg, want))
			fprintf(stderr, "  %s: rc %d, [%s]\n", twice[i].spec, rc, rc ? e.msg : "opened");
		CHECK_EQ(rc, -DNET_EINVAL);
		CHECK(strstr(e.msg, want) != NULL);
		CHECK(!strstr(e.msg, "sec1") && !strstr(e.msg, "sec2"));
		dnet_close(d);
	}
}

int main(void)
{
	RUN(accepts);
	RUN(rejects);
	RUN(durations);
	RUN(seconds);
	RUN(format_roundtrip);
	RUN(specs);
	RUN(options_once);
	return t_summary("test_parse");
}
