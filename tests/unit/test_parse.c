/* Strict number parsing (libdnet/src/parse.c): whole tokens or a clear
 * error; a backend spec's options (dnet_kv_split): each given once. */
#include "dnet/backend.h"
#include "dnet/dnet.h"
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
	CHECK_OK(dnet_parse_size("4K", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 4096);
	CHECK_OK(dnet_parse_size("256M", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 256ull << 20);
	CHECK_OK(dnet_parse_size("0x10", UINT64_MAX, &v, "x", &e), &e); CHECK_EQ(v, 16);
	CHECK_OK(dnet_parse_duration("10us", &v, "t", &e), &e); CHECK_EQ(v, 10000);
	CHECK_OK(dnet_parse_duration("2ms", &v, "t", &e), &e); CHECK_EQ(v, 2000000);
	CHECK_OK(dnet_parse_duration("1s", &v, "t", &e), &e); CHECK_EQ(v, 1000000000);
	CHECK_OK(dnet_parse_duration("7", &v, "t", &e), &e); CHECK_EQ(v, 7);
	CHECK_OK(dnet_parse_duration("5ns", &v, "t", &e), &e); CHECK_EQ(v, 5);
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
	CHECK(dnet_parse_size("4Q", UINT64_MAX, &v, "s", &e) < 0);
	CHECK(dnet_parse_size("K", UINT64_MAX, &v, "s", &e) < 0);
	CHECK(dnet_parse_duration("10 us", &v, "t", &e) < 0);
	CHECK(dnet_parse_duration("us", &v, "t", &e) < 0);
	CHECK(dnet_parse_duration("3d", &v, "t", &e) < 0);
	CHECK(strstr(e.msg, "unknown unit") != NULL);
	CHECK(dnet_parse_duration("10m", &v, "t", &e) < 0); /* minutes or ms: neither */
	CHECK(dnet_parse_duration("min", &v, "t", &e) < 0);
	CHECK(dnet_parse_seconds("500ms", 100, &v, "--x", &e) < 0);
	CHECK(strstr(e.msg, "whole number of seconds") != NULL);
	CHECK(dnet_parse_seconds("2min", 100, &v, "--x", &e) < 0);
	CHECK(strstr(e.msg, "out of range") != NULL);
}

/* One duration parser for dsh and dnetd: min and h too (D-DURATION). */
static void durations(void)
{
	struct dnet_err e = { 0 };
	uint64_t v = 0;
	CHECK_OK(dnet_parse_duration("10min", &v, "t", &e), &e); CHECK_EQ(v, 600000000000ull);
	CHECK_OK(dnet_parse_duration("2h", &v, "t", &e), &e); CHECK_EQ(v, 7200000000000ull);
	CHECK_OK(dnet_parse_duration("1_000ms", &v, "t", &e), &e); CHECK_EQ(v, 1000000000ull);
	CHECK_OK(dnet_parse_seconds("30", 86400, &v, "t", &e), &e); CHECK_EQ(v, 30);
	CHECK_OK(dnet_parse_seconds("5min", 86400, &v, "t", &e), &e); CHECK_EQ(v, 300);
	CHECK_OK(dnet_parse_seconds("2000ms", 86400, &v, "t", &e), &e); CHECK_EQ(v, 2);
	CHECK_OK(dnet_parse_seconds("1h", 86400, &v, "t", &e), &e); CHECK_EQ(v, 3600);
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
	CHECK_OK(dnet_kv_split("node=2,user,token=x,wid=1", kv, 8, &n, &e), &e);
	CHECK_EQ(n, 4u);
	CHECK_EQ(dnet_kv_split("token=sec1,node=2,token=sec2", kv, 8, &n, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "option 'token' given twice (options 1 and 3") != NULL);
	CHECK(!strstr(e.msg, "sec1") && !strstr(e.msg, "sec2"));
	CHECK_EQ(dnet_kv_split("user,wid=0,user", kv, 8, &n, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "option 'user' given twice (options 1 and 3") != NULL);
	CHECK_EQ(dnet_kv_split("token=sec1,,node=1", kv, 8, &n, &e), -DNET_EINVAL);
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
	RUN(specs);
	RUN(options_once);
	return t_summary("test_parse");
}
