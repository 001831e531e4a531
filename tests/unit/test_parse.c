/* Strict number parsing: whole tokens or a clear error. */
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
	CHECK(dnet_parse_duration("3h", &v, "t", &e) < 0);
}

int main(void)
{
	RUN(accepts);
	RUN(rejects);
	return t_summary("test_parse");
}
