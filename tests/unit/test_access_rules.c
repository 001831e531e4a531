/* The per-region access rules of libdnet (libdnet/src/access.c, access.h) on a file standing in
 * for the board, checked against the spec's tables written out here
 * independently of libdnet's (docs/device.md): each refused
 * access names its rule and leaves the file untouched; the tap sees every
 * operation once with its result; a dry-run handle reaches no backend. */
/* Decisions pinned here (docs/decisions.md): D-ISSUE-FLOW, D-ACCESS-RULES. */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "dnet/backend.h" /* private: INTERNAL_TESTS */
#include "dnet/dnet.h"
#include "harness.h"

static char path[64];

static uint64_t file_u64(uint64_t off)
{
	int fd = open(path, O_RDONLY);
	uint64_t v = 0;
	if (fd < 0 || pread(fd, &v, 8, (off_t)off) != 8)
		t_fail++;
	close(fd);
	return v;
}

static struct dnet_dev *open_dev(bool privileged)
{
	char spec[128];
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	snprintf(spec, sizeof spec, "devmem:0x0@%s%s", path, privileged ? ",privileged" : "");
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	return d;
}

/* docs/device.md: offset, host may read, host may write. */
static const struct { uint32_t off; bool r, w; } ureg_tab[] = {
	{ 0x000, 0, 1 }, { 0x010, 0, 1 }, { 0x020, 0, 1 }, { 0x100, 0, 1 }, { 0x110, 0, 1 },
	{ 0x200, 1, 0 }, { 0x300, 1, 1 }, { 0x400, 1, 0 }, { 0x500, 1, 1 }, { 0x600, 0, 1 },
	{ 0x700, 1, 1 }, { 0x800, 1, 0 }, { 0x900, 0, 1 }, { 0xa00, 0, 1 }, { 0xb00, 1, 1 },
	{ 0xc00, 0, 1 },
}, sreg_tab[] = {
	{ 0x000, 0, 1 }, { 0x100, 0, 1 }, { 0x200, 0, 1 }, { 0x300, 1, 1 }, { 0x700, 0, 1 },
	{ 0x800, 0, 1 }, { 0x900, 0, 1 }, { 0xa00, 0, 1 } /* read: only confirmed */, { 0xb00, 0, 1 },
};

static int expect_rule(int rc, const struct dnet_err *e, const char *rule)
{
	if (rc >= 0 || !strstr(e->msg, rule)) {
		fprintf(stderr, "  expected rule %s, got %d: %s\n", rule, rc, rc < 0 ? e->msg : "");
		return 0;
	}
	return 1;
}

static void registers(void)
{
	struct dnet_dev *d = open_dev(true);
	struct dnet_err e;
	uint64_t v;
	if (!d)
		return;
	for (unsigned w = 0; w < 2; w++)
		for (size_t i = 0; i < sizeof ureg_tab / sizeof ureg_tab[0]; i++) {
			uint32_t a = 0x40000 + 0x1000 * w + ureg_tab[i].off;
			int rc = dnet_read64(d, a, &v, &e);
			if (ureg_tab[i].r)
				CHECK_OK(rc, &e);
			else
				CHECK(expect_rule(rc, &e, "[reg-wo]"));
			uint64_t before = file_u64(a);
			rc = dnet_write64(d, a, 0, &e);
			if (ureg_tab[i].w) {
				CHECK_OK(rc, &e);
			} else {
				CHECK(expect_rule(rc, &e, "[reg-ro]"));
				CHECK_EQ(file_u64(a), before);
			}
			/* 64 bits only: 8-, 16-, 32- and 128-bit accesses refused. */
			CHECK(expect_rule(dnet_write32(d, a, 1, &e), &e, "[reg-width]"));
			CHECK(expect_rule(dnet_read16(d, a, &(uint16_t){ 0 }, &e), &e, "[reg-width]"));
			CHECK(expect_rule(dnet_write8(d, a, 1, &e), &e, "[reg-width]"));
			CHECK(expect_rule(dnet_write128(d, a, (uint64_t[2]){ 1, 2 }, &e), &e, "[reg-width]"));
		}
	for (size_t i = 0; i < sizeof sreg_tab / sizeof sreg_tab[0]; i++) {
		uint32_t a = 0x50000 + sreg_tab[i].off;
		int rc = dnet_read64(d, a, &v, &e);
		if (sreg_tab[i].r)
			CHECK_OK(rc, &e);
		else
			CHECK(expect_rule(rc, &e, sreg_tab[i].off == 0xa00 ? "[reg-effect]" : "[reg-wo]"));
		CHECK_OK(dnet_write64(d, a, 0, &e), &e);
	}
	/* Controller Reset read on purpose. */
	CHECK_OK(dnet_reg_read_effect(d, 0, dnet_reg_by_name("ctl_reset"), &v, &e), &e);
	CHECK(expect_rule(dnet_read64(d, 0x50a00, &v, &e), &e, "[reg-effect]")); /* once only */
	/* Offsets of the register pages without a register. */
	CHECK(expect_rule(dnet_read64(d, 0x40008, &v, &e), &e, "[no-reg]"));
	CHECK(expect_rule(dnet_write64(d, 0x40d00, 1, &e), &e, "[no-reg]"));
	CHECK(expect_rule(dnet_write64(d, 0x50400, 1, &e), &e, "[no-reg]"));
	/* Block reads over registers check every word. */
	uint64_t blk[4];
	CHECK(expect_rule(dnet_read_block(d, 0x40200, blk, 32, &e), &e, "[no-reg]"));
	dnet_close(d);
}

static void regions(void)
{
	struct dnet_dev *d = open_dev(false);
	struct dnet_err e;
	uint64_t v, two[2];
	uint8_t buf[64] = { 1 };
	if (!d)
		return;
	/* Write Window: write-only; Prefetch Window, LH Buffer: read-only. */
	CHECK(expect_rule(dnet_read64(d, 0x00000, &v, &e), &e, "[ww-read]"));
	CHECK(expect_rule(dnet_read_block(d, 0x02000, buf, 64, &e), &e, "[ww-read]"));
	CHECK(expect_rule(dnet_wait(d, 0x00200, 1, DNET_COND_EQ, 0, 1000, NULL, &e), &e, "[ww-read]"));
	CHECK_OK(dnet_write8(d, 0x00001, 7, &e), &e);
	CHECK_OK(dnet_write128(d, 0x02010, (uint64_t[2]){ 3, 4 }, &e), &e);
	CHECK_EQ(file_u64(0x02018), 4);
	CHECK(expect_rule(dnet_write64(d, 0x10000, 1, &e), &e, "[ro-region]"));
	CHECK(expect_rule(dnet_write_block(d, 0x12000, buf, 64, &e), &e, "[ro-region]"));
	CHECK(expect_rule(dnet_write64(d, 0x30040, 1, &e), &e, "[ro-region]"));
	CHECK(expect_rule(dnet_write16(d, 0x38000, 1, &e), &e, "[ro-region]"));
	CHECK_EQ(file_u64(0x10000), 0);
	CHECK_OK(dnet_read64(d, 0x10000, &v, &e), &e);
	CHECK_OK(dnet_read128(d, 0x30ff0, two, &e), &e);
	/* LLCM: every width. */
	CHECK_OK(dnet_write16(d, 0x20002, 0xbeef, &e), &e);
	CHECK_EQ(file_u64(0x20000), 0xbeef0000ull);
	/* Holes and spans. */
	CHECK(expect_rule(dnet_read64(d, 0x00800, &v, &e), &e, "[hole]"));
	CHECK(expect_rule(dnet_write64(d, 0x31000, 1, &e), &e, "[hole]"));
	CHECK(expect_rule(dnet_read64(d, 0x42000, &v, &e), &e, "[hole]"));
	CHECK_EQ(dnet_read_block(d, 0x107c0, buf, 128, &e), -DNET_ERANGE);
	CHECK(strstr(e.msg, "[span]") != NULL);
	CHECK_EQ(dnet_read_block(d, 0x27fc0, buf, 128, &e), -DNET_EPERM); /* into LLCM1 */
	CHECK(strstr(e.msg, "[span]") != NULL && strstr(e.msg, "another sub-area") != NULL);
	/* The System Register without privilege. */
	CHECK(expect_rule(dnet_read64(d, 0x50300, &v, &e), &e, "[privileged]"));
	CHECK(expect_rule(dnet_write64(d, 0x50800, 1, &e), &e, "[privileged]"));
	dnet_close(d);
}

/* The verdict of dnet_access_check itself, as a caller that acts on the
 * rule (dsh) sees it: the rule each access of the tables above gets,
 * computed here from the tables, and a message naming it and the offset. */
static int verdict(unsigned caps, uint32_t off, unsigned width, bool write, bool confirmed,
		   enum dnet_rule want)
{
	struct dnet_err e = { 0 };
	enum dnet_rule got = (enum dnet_rule)-1;
	char tag[24], at[16];
	int rc = dnet_access_check(caps, off, width, width, write, confirmed, &got, &e);
	snprintf(tag, sizeof tag, "[%s]", dnet_rule_name(want));
	snprintf(at, sizeof at, "0x%x", off);
	bool ok = got == want && (want == DNET_RULE_NONE ? rc == 0 && dnet_rule_name(got)[0] == 0
				  : rc < 0 && strncmp(e.msg, tag, strlen(tag)) == 0 && strstr(e.msg, at));
	if (!ok)
		fprintf(stderr, "  0x%x %s width %u: want %s, got rule %d rc %d: %s\n", off, write ? "write" : "read",
			width, tag, (int)got, rc, e.msg);
	return ok;
}

static void verdicts(void)
{
	const unsigned P = DNET_CAP_PRIVILEGED;
	for (unsigned w = 0; w < 2; w++)
		for (size_t i = 0; i < sizeof ureg_tab / sizeof ureg_tab[0]; i++) {
			uint32_t a = 0x40000 + 0x1000 * w + ureg_tab[i].off;
			CHECK(verdict(0, a, 8, false, false, ureg_tab[i].r ? DNET_RULE_NONE : DNET_RULE_REG_WO));
			CHECK(verdict(0, a, 8, true, false, ureg_tab[i].w ? DNET_RULE_NONE : DNET_RULE_REG_RO));
			CHECK(verdict(0, a, 4, false, false, DNET_RULE_REG_WIDTH));
			CHECK(verdict(0, a + 8, 8, true, false, DNET_RULE_NO_REG)); /* between the registers */
		}
	for (size_t i = 0; i < sizeof sreg_tab / sizeof sreg_tab[0]; i++) {
		uint32_t a = 0x50000 + sreg_tab[i].off;
		bool reset = sreg_tab[i].off == 0xa00;
		CHECK(verdict(0, a, 8, false, false, DNET_RULE_PRIVILEGED));
		CHECK(verdict(0, a, 8, true, false, DNET_RULE_PRIVILEGED));
		CHECK(verdict(P, a, 8, false, false, sreg_tab[i].r ? DNET_RULE_NONE
					: reset ? DNET_RULE_REG_EFFECT : DNET_RULE_REG_WO));
		CHECK(verdict(P, a, 8, false, true, sreg_tab[i].r || reset ? DNET_RULE_NONE : DNET_RULE_REG_WO));
		CHECK(verdict(P, a, 8, true, false, sreg_tab[i].w ? DNET_RULE_NONE : DNET_RULE_REG_RO));
	}
	/* Regions (Tab. 4.1): WW write-only, PW and LHB read-only, LLCM both. */
	static const struct { uint32_t off; bool r, w; } regs[] = {
		{ 0x00000, 0, 1 }, { 0x02000, 0, 1 }, { 0x10000, 1, 0 }, { 0x12000, 1, 0 },
		{ 0x30040, 1, 0 }, { 0x38000, 1, 0 }, { 0x20000, 1, 1 }, { 0x28000, 1, 1 },
	};
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
		for (unsigned width = 1; width <= 16; width *= 2) {
			CHECK(verdict(0, regs[i].off, width, false, false, regs[i].r ? DNET_RULE_NONE : DNET_RULE_WW_READ));
			CHECK(verdict(0, regs[i].off, width, true, false, regs[i].w ? DNET_RULE_NONE : DNET_RULE_RO_REGION));
		}
	CHECK(verdict(P, 0x00800, 8, false, false, DNET_RULE_HOLE));
	CHECK(verdict(P, 0x42000, 8, true, false, DNET_RULE_HOLE));
	/* Named registers: two at one address (docs/device.md 3.1: Primitive
	 * Counter read, Primitive Counter Reset written at ureg +0x300), the one
	 * named decides. */
	static const struct { const char *name; bool r, w; } named[] = {
		{ "prim_counter", 1, 0 }, { "prim_counter_reset", 0, 1 }, { "ctl_status", 1, 0 },
		{ "cmd0_lower", 0, 1 }, { "pkt_counter", 1, 0 }, { "pkt_counter_reset", 0, 1 },
	};
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
		const struct dnet_reg *r = dnet_reg_by_name(named[i].name);
		struct dnet_err e = { 0 };
		enum dnet_rule got;
		CHECK(r != NULL);
		if (!r)
			continue;
		int rc = dnet_reg_access_check(0, r, 1, false, false, &got, &e);
		CHECK_EQ(got, named[i].r ? DNET_RULE_NONE : DNET_RULE_REG_WO);
		CHECK(named[i].r ? rc == 0 : rc == -DNET_EPERM && strstr(e.msg, named[i].name) && strstr(e.msg, "ureg 1+"));
		rc = dnet_reg_access_check(0, r, 0, true, false, &got, &e);
		CHECK_EQ(got, named[i].w ? DNET_RULE_NONE : DNET_RULE_REG_RO);
		CHECK(named[i].w ? rc == 0 : rc == -DNET_EPERM && strstr(e.msg, named[i].name) && strstr(e.msg, "[reg-ro]"));
	}
	const struct dnet_reg *pg = dnet_reg_by_name("pgid0");
	enum dnet_rule got;
	CHECK(pg && dnet_reg_access_check(0, pg, 0, true, false, &got, NULL) == -DNET_EPERM &&
	      got == DNET_RULE_PRIVILEGED);
	CHECK(pg && dnet_reg_access_check(0, pg, 2, true, false, &got, NULL) == -DNET_EINVAL);
}

/* ---- the tap ---- */

struct seen {
	unsigned n;
	struct dnet_tap_rec r[64];
};

static void record(void *ctx, const struct dnet_tap_rec *r)
{
	struct seen *s = ctx;
	if (s->n < 64)
		s->r[s->n++] = *r;
}

static void tap_and_issue(void)
{
	struct dnet_dev *d = open_dev(true);
	struct dnet_err e;
	struct seen s = { 0 };
	if (!d)
		return;
	dnet_set_tap(d, record, &s);
	struct dnet_req rq = { .otype = DNET_OT_VS, .size = 8, .srcoff = 0, .dstoff = 0x100 };
	struct dnet_cmd c;
	CHECK_OK(dnet_req_encode(&rq, &c, &e), &e);
	CHECK_OK(dnet_issue(d, 0, DNET_CMD0, &c, 1000000, &e), &e);
	/* sfence first, then the flow-control wait, Upper, Lower. */
	CHECK_EQ(s.n, 4);
	CHECK_EQ(s.r[0].kind, DNET_TAP_WC_FLUSH);
	CHECK_EQ(s.r[1].kind, DNET_TAP_WAIT);
	CHECK_EQ(s.r[1].off, 0x40200);
	CHECK_EQ(s.r[2].kind, DNET_TAP_WRITE);
	CHECK_EQ(s.r[2].off, 0x40010);
	CHECK_EQ(s.r[2].val[0], c.upper);
	CHECK_EQ(s.r[3].kind, DNET_TAP_WRITE);
	CHECK_EQ(s.r[3].off, 0x40000);
	CHECK_EQ(s.r[3].val[0], c.lower);
	/* A refused access never reaches the tap; a block read does, once. */
	s.n = 0;
	uint64_t v;
	CHECK(dnet_read64(d, 0x40000, &v, &e) < 0);
	CHECK_EQ(s.n, 0);
	uint8_t buf[64];
	CHECK_OK(dnet_read_block(d, 0x10000, buf, 64, &e), &e);
	CHECK_EQ(s.n, 2);
	CHECK_EQ(s.r[0].kind, DNET_TAP_CACHE_FLUSH);
	CHECK_EQ(s.r[1].kind, DNET_TAP_READ_BLOCK);
	CHECK_EQ(s.r[1].len, 64);
	/* A timed-out wait: one record, with its error. */
	s.n = 0;
	CHECK_EQ(dnet_wait(d, 0x40400, 0xf, DNET_COND_EQ, 0xf, 100000, NULL, &e), -DNET_ETIMEDOUT);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(s.r[0].rc, -DNET_ETIMEDOUT);
	dnet_close(d);
}

static void dry_run(void)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[128];
	/* Checks still run: a bad base is refused without touching anything. */
	snprintf(spec, sizeof spec, "devmem:0x123@%s", path);
	CHECK_EQ(dnet_open_dry(spec, &d, &e), -DNET_EALIGN);
	snprintf(spec, sizeof spec, "devmem:0x0@%s,privileged", path);
	CHECK_OK(dnet_open_dry(spec, &d, &e), &e);
	if (!d)
		return;
	CHECK(core_dev_dry(d));
	CHECK(dnet_dev_caps(d) & DNET_CAP_PRIVILEGED);
	struct seen s = { 0 };
	dnet_set_tap(d, record, &s);
	uint64_t before = file_u64(0x20100), v = 99;
	CHECK_OK(dnet_write64(d, 0x20100, before + 1, &e), &e);
	CHECK_EQ(file_u64(0x20100), before); /* not done */
	CHECK_OK(dnet_read64(d, 0x20100, &v, &e), &e);
	CHECK_EQ(v, 0);
	uint64_t last = 0;
	CHECK_OK(dnet_wait(d, 0x40400, 0xf, DNET_COND_EQ, 0xf, 1000, &last, &e), &e);
	CHECK_EQ(last, 0xf);
	CHECK_EQ(s.n, 3);
	/* The rules hold in a dry run too. */
	CHECK(expect_rule(dnet_write32(d, 0x40000, 1, &e), &e, "[reg-width]"));
	dnet_close(d);
}

/* The fallback poll: spin (0) for the first 50 us, then sleep 1 us
 * doubling to 1 ms. */
static void poll_backoff(void)
{
	uint64_t step = 0;
	CHECK_EQ(core_poll_pause_ns(0, &step), 0);
	CHECK_EQ(core_poll_pause_ns(49999, &step), 0);
	uint64_t want = 1000;
	for (int i = 0; i < 14; i++) {
		CHECK_EQ(core_poll_pause_ns(50000 + (uint64_t)i, &step), want);
		want = want * 2 < 1000000 ? want * 2 : 1000000;
	}
	CHECK_EQ(core_poll_pause_ns(5000000000ull, &step), 1000000);
	/* A wait that is met at once spins, never sleeps: it returns fast. */
	struct dnet_dev *d = open_dev(false);
	struct dnet_err e;
	if (!d)
		return;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 100; i++)
		CHECK_OK(dnet_wait(d, 0x40200, 0x1, DNET_COND_EQ, 0, 1000000, NULL, &e), &e);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK((t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec) < 50000000ll);
	dnet_close(d);
}

int main(void)
{
	snprintf(path, sizeof path, "/tmp/dnet-rules-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, DNET_MAP_SIZE) != 0) {
		perror("temp file");
		return 1;
	}
	close(fd);
	RUN(registers);
	RUN(regions);
	RUN(verdicts);
	RUN(tap_and_issue);
	RUN(dry_run);
	RUN(poll_backoff);
	unlink(path);
	return t_summary("test_access_rules");
}
