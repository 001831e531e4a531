/* End to end: the dnetd server loop (backends/remote/dnetd/) run in a
 * child process, driven through the `remote` backend
 * (backends/remote/remote.c; test_remote_wire.c drives it with raw frames;
 * remote_e2e_util.h is what both share).
 *
 *  - the same scenario gives the same trace directly and through dnetd
 *    (devmem on a file always; the emulator when `sim` is linked in);
 *  - permissions: a user client cannot reach the System Register, the
 *    other WID's pages or the SO-DIMM backdoor;
 *  - posted requests: failures come back by tag, STOP skips the rest;
 *  - reads in flight together (dnet_read_blocks), a refusal among them,
 *    the daemon killed in the middle of a batch; their tap records (one
 *    per read made, its own address, length, data and result, in order);
 *  - every request type has a handler in dnetd's dispatch table.
 */
/* Decisions pinned here (docs/decisions.md): D-DSH-POSTED, D-READ-BLOCKS. */
#include "remote_e2e_util.h"

/* ---- the scenario and its trace ---- */

struct trace {
	char *buf;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3)))
static void tr(struct trace *t, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)
		n = sizeof line - 1;
	if (t->len + (size_t)n + 2 > t->cap) {
		size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)n;
		char *p = realloc(t->buf, cap);
		if (!p)
			return;
		t->buf = p;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, line, (size_t)n);
	t->len += (size_t)n;
	t->buf[t->len++] = '\n';
	t->buf[t->len] = 0;
}

static void tr_rc(struct trace *t, const char *what, int rc, const struct dnet_err *e)
{
	if (rc)
		tr(t, "%s -> %d %s", what, rc, e->msg);
	else
		tr(t, "%s -> ok", what);
}

static uint64_t hash(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static void issue(struct trace *t, struct dnet_dev *d, const char *what, unsigned wid,
		  enum dnet_cmdsel sel, const struct dnet_req *rq)
{
	struct dnet_cmd cmd;
	struct dnet_err e;
	int rc = dnet_req_encode(rq, &cmd, &e);
	if (rc == 0)
		rc = dnet_issue(d, wid, sel, &cmd, 1000000, &e);
	tr_rc(t, what, rc, &e);
	uint64_t last = 0;
	rc = dnet_wait(d, DNET_UREG_WID(wid) + DNET_UR_CTL_STATUS, DNET_CS_REQ_PENDING, DNET_COND_EQ, 0,
		       1000000, &last, &e);
	tr(t, "  wait request-pending clear -> %d last=0x%llx", rc, (unsigned long long)last);
}

/* d becomes node's handle (D-NODE-HANDLE); rc as a libdnet call's. */
static int set_node(struct dnet_dev **d, unsigned node, struct dnet_err *e)
{
	struct dnet_dev *h = dnet_node_dev(*d, node, e);
	if (!h)
		return -e->code;
	*d = h;
	return 0;
}

/* Everything a script could observe, written to t.  emu: the backend is the
 * emulator (primitives, backdoor, virtual time). */
static void scenario(struct dnet_dev *d, bool emu, struct trace *t)
{
	struct dnet_err e;
	int rc;
	uint64_t v, v2[2];
	uint8_t blk[512], back[512];

	tr(t, "nodes=%u node=%u caps=0x%x", dnet_node_count(d), dnet_node(d),
	   dnet_dev_caps(d) & ~DNET_CAP_REMOTE);

	/* LLCM at every width, on each node. */
	for (unsigned node = 1; node <= dnet_node_count(d) && node <= 2; node++) {
		rc = set_node(&d, node, &e);
		tr_rc(t, "set_node", rc, &e);
		for (unsigned w = 0; w < 2; w++) {
			uint32_t base = DNET_LLCM_WID(w) + 0x100 * node;
			rc = dnet_write8(d, base + 1, (uint8_t)(0xa0 + node), &e); tr_rc(t, "w8", rc, &e);
			rc = dnet_write16(d, base + 2, (uint16_t)(0xb0b0 + node), &e); tr_rc(t, "w16", rc, &e);
			rc = dnet_write32(d, base + 4, 0xc0c0c0c0u + node, &e); tr_rc(t, "w32", rc, &e);
			rc = dnet_write64(d, base + 8, 0xd0d0d0d0d0d0d0d0ull + node, &e); tr_rc(t, "w64", rc, &e);
			uint64_t q[2] = {0x1111111111111111ull * node, 0xeeeeeeeeeeeeeeeeull - node};
			rc = dnet_write128(d, base + 16, q, &e); tr_rc(t, "w128", rc, &e);
			uint8_t b8 = 0; uint16_t b16 = 0; uint32_t b32 = 0;
			rc = dnet_read8(d, base + 1, &b8, &e); tr(t, "r8 %d 0x%x", rc, b8);
			rc = dnet_read16(d, base + 2, &b16, &e); tr(t, "r16 %d 0x%x", rc, b16);
			rc = dnet_read32(d, base + 4, &b32, &e); tr(t, "r32 %d 0x%x", rc, b32);
			v = 0;
			rc = dnet_read64(d, base, &v, &e); tr(t, "r64 %d 0x%llx", rc, (unsigned long long)v);
			v2[0] = v2[1] = 0;
			rc = dnet_read128(d, base + 16, v2, &e);
			tr(t, "r128 %d 0x%llx 0x%llx", rc, (unsigned long long)v2[0], (unsigned long long)v2[1]);
		}
		memset(back, 0, sizeof back);
		rc = dnet_read_block(d, DNET_LLCM_WID(0) + 0x100 * node, back, 64, &e);
		tr(t, "llcm block %d %016llx", rc, (unsigned long long)hash(back, 64));
	}
	rc = set_node(&d, 1, &e);
	tr_rc(t, "set_node 1", rc, &e);

	/* Write Window, block transfers. */
	for (unsigned i = 0; i < sizeof blk; i++)
		blk[i] = (uint8_t)(i * 13 + 1);
	rc = dnet_write_block(d, DNET_WW_WID(0), blk, sizeof blk, &e);
	tr_rc(t, "ww write_block", rc, &e);
	rc = dnet_wc_flush(d, &e);
	tr_rc(t, "wc_flush", rc, &e);
	rc = dnet_write_block(d, DNET_LLCM_WID(1) + 0x1000, blk, sizeof blk, &e);
	tr_rc(t, "llcm1 write_block", rc, &e);
	rc = dnet_read_block(d, DNET_LLCM_WID(1) + 0x1000, back, sizeof back, &e);
	tr(t, "llcm1 read_block %d same=%d", rc, memcmp(blk, back, sizeof blk) == 0);
	rc = dnet_cache_flush(d, DNET_PW_WID(0), 512, &e);
	tr_rc(t, "cache_flush", rc, &e);
	rc = dnet_prefetch(d, DNET_PW_WID(0), 512, &e);
	tr_rc(t, "prefetch", rc, &e);

	/* Registers of both WIDs that can be read. */
	static const uint32_t uregs[] = {DNET_UR_CTL_STATUS, DNET_UR_PRIM_COUNTER, DNET_UR_PW_FLAG,
					 DNET_UR_PKT_COUNTER, DNET_UR_LHB_ADDR, DNET_UR_MODULE_STATE,
					 DNET_UR_STATUS_ADDR};
	for (unsigned w = 0; w < 2; w++)
		for (unsigned i = 0; i < sizeof uregs / sizeof uregs[0]; i++) {
			v = 0;
			rc = dnet_read64(d, DNET_UREG_WID(w) + uregs[i], &v, &e);
			tr(t, "ureg%u+0x%x %d 0x%llx", w, uregs[i], rc, (unsigned long long)v);
		}
	v = 0;
	rc = dnet_read64(d, DNET_SREG_BASE + DNET_SR_SMA, &v, &e);
	tr(t, "sma_lid %d 0x%llx", rc, (unsigned long long)v);

	if (emu) {
		/* VS: Write Window -> own SO-DIMM; RVS: own SO-DIMM -> node 2; VL: SO-DIMM -> PW. */
		struct dnet_req rq;
		memset(&rq, 0, sizeof rq);
		rq.otype = DNET_OT_VS;
		rq.dtype = 3;
		rq.size = 256;
		rq.srcoff = 0;
		rq.dstoff = 0x1000;
		issue(t, d, "VS", 0, DNET_CMD0, &rq);
		memset(&rq, 0, sizeof rq);
		rq.otype = DNET_OT_RVS;
		rq.dtype = 3;
		rq.dclid = 2;
		rq.size = 256;
		rq.srcoff = 0x1000;
		rq.dstoff = 0x2000;
		issue(t, d, "RVS", 0, DNET_CMD0, &rq);
		memset(&rq, 0, sizeof rq);
		rq.otype = DNET_OT_VL;
		rq.dtype = 3;
		rq.size = 256;
		rq.srcoff = 0x1000;
		rq.dstoff = 0;
		issue(t, d, "VL", 0, DNET_CMD1, &rq);
		rc = dnet_delay(d, 50000, &e);
		tr_rc(t, "delay 50us", rc, &e);
		rc = dnet_read_block(d, DNET_PW_WID(0), back, 512, &e);
		tr(t, "pw %d %016llx", rc, (unsigned long long)hash(back, 512));
		for (unsigned node = 1; node <= 2 && node <= dnet_node_count(d); node++) {
			rc = set_node(&d, node, &e);
			tr_rc(t, "set_node", rc, &e);
			memset(back, 0, sizeof back);
			rc = dnet_sodimm_access(d, 0, back, sizeof back, false, &e);
			tr(t, "sodimm[0] %d %016llx", rc, (unsigned long long)hash(back, sizeof back));
			rc = dnet_sodimm_access(d, 0x1000, back, 256, false, &e);
			tr(t, "sodimm[0x1000] %d %016llx", rc, (unsigned long long)hash(back, 256));
			rc = dnet_sodimm_access(d, 0x2000, back, 256, false, &e);
			tr(t, "sodimm[0x2000] %d %016llx", rc, (unsigned long long)hash(back, 256));
			for (unsigned i = 0; i < sizeof uregs / sizeof uregs[0]; i++) {
				rc = dnet_read64(d, DNET_UREG_WID(0) + uregs[i], &v, &e);
				tr(t, "node%u ureg0+0x%x %d 0x%llx", node, uregs[i], rc, (unsigned long long)v);
			}
			rc = dnet_read_block(d, DNET_LLCM_WID(0), back, 512, &e);
			tr(t, "node%u llcm %d %016llx", node, rc, (unsigned long long)hash(back, 512));
		}
		rc = set_node(&d, 1, &e);
		tr_rc(t, "set_node 1", rc, &e);
		/* The backdoor both ways. */
		rc = dnet_sodimm_access(d, 0x3000, blk, 128, true, &e);
		tr_rc(t, "sodimm write", rc, &e);
		rc = dnet_sodimm_access(d, 0x3000, back, 128, false, &e);
		tr(t, "sodimm read back %d same=%d", rc, memcmp(blk, back, 128) == 0);
		uint64_t now = 0;
		rc = dnet_now(d, &now, &e);
		tr(t, "now %d %llu", rc, (unsigned long long)now);
		bool busy = true;
		rc = dnet_busy(d, &busy, &e);
		tr(t, "busy %d %d", rc, busy);
		const char *const *names = dnet_stat_names(d);
		for (unsigned i = 0; names && names[i]; i++) {
			rc = dnet_stat(d, names[i], &v, &e);
			tr(t, "stat %s %d %llu", names[i], rc, (unsigned long long)v);
		}
		/* A wait in virtual time that runs out. */
		rc = dnet_wait(d, DNET_LLCM_WID(0) + 0x7000, ~0ull, DNET_COND_EQ, 0x1234, 10000, &v, &e);
		tr(t, "wait timeout -> %d last=0x%llx %s", rc, (unsigned long long)v, e.msg);
		rc = dnet_now(d, &now, &e);
		tr(t, "now %d %llu", rc, (unsigned long long)now);
	} else {
		rc = dnet_sodimm_access(d, 0, back, 8, false, &e);
		tr(t, "sodimm (none) -> %d", rc); /* the text names the backend */
	}

	/* Errors come back with the same code and text. */
	rc = dnet_read64(d, DNET_LLCM_WID(0) + 4, &v, &e);
	tr_rc(t, "misaligned read", rc, &e);
	rc = dnet_read64(d, DNET_MAP_SIZE, &v, &e);
	tr_rc(t, "read past the map", rc, &e);
	rc = dnet_write_block(d, DNET_LLCM_WID(0), blk, 12, &e);
	tr_rc(t, "odd block", rc, &e);
	rc = set_node(&d, 4000, &e);
	tr_rc(t, "set_node 4000", rc, &e);
	rc = dnet_stat(d, "no_such_stat", &v, &e);
	tr(t, "stat unknown -> %d", rc);
	rc = dnet_wait(d, DNET_LLCM_WID(0), ~0ull, DNET_COND_EQ, 0x77, 0, &v, &e);
	tr(t, "wait 0 ns -> %d last=0x%llx", rc, (unsigned long long)v);
	rc = dnet_wait(d, DNET_LLCM_WID(0) + 0x108, 0xff, DNET_COND_GE, 1, 1000000, &v, &e);
	tr(t, "wait met -> %d last=0x%llx", rc, (unsigned long long)v);
}

static void compare_traces(const char *what, const struct trace *a, const struct trace *b)
{
	bool same = a->buf && b->buf && a->len == b->len && memcmp(a->buf, b->buf, a->len) == 0;
	if (!same) {
		fprintf(stderr, "%s: traces differ\n--- direct\n%s--- remote\n%s", what,
			a->buf ? a->buf : "", b->buf ? b->buf : "");
		/* First differing line. */
		const char *p = a->buf ? a->buf : "", *q = b->buf ? b->buf : "";
		while (*p && *p == *q) {
			p++;
			q++;
		}
		while (p > a->buf && p[-1] != '\n') {
			p--;
			q--;
		}
		fprintf(stderr, "first difference:\n  direct: %.*s\n  remote: %.*s\n",
			(int)strcspn(p, "\n"), p, (int)strcspn(q, "\n"), q);
	}
	CHECK(same);
	CHECK(a->len > 200);
}

static void run_identity(const char *direct_spec, const char *served_spec, bool emu)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL, *r = NULL;
	struct trace ta = {0}, tb = {0};
	struct server sv = {0};
	char sock[128];

	CHECK_OK(dnet_open(direct_spec, &d, &e), &e);
	if (d) {
		scenario(d, emu, &ta);
		dnet_close(d);
	}
	snprintf(sock, sizeof sock, "unix:%s/id.sock", tmpdir);
	if (start_server(&sv, served_spec, sock, NULL, 0) != 0) {
		CHECK(!"server started");
		free(ta.buf);
		return;
	}
	CHECK_OK(open_remote(&sv, NULL, &r, &e), &e);
	if (r) {
		CHECK(dnet_dev_caps(r) & DNET_CAP_REMOTE);
		CHECK_STR(dnet_dev_backend(r), "remote");
		scenario(r, emu, &tb);
		dnet_close(r);
	}
	CHECK_EQ(stop_server(&sv), 0);
	if (getenv("DNET_E2E_TRACE")) /* to see what is compared */
		fprintf(stderr, "--- trace of %s\n%s", served_spec, tb.buf ? tb.buf : "");
	compare_traces(served_spec, &ta, &tb);
	free(ta.buf);
	free(tb.buf);
}

static void test_identity_devmem(void)
{
	char a[200], b[200];
	make_memfile("direct.mem", a, sizeof a);
	make_memfile("served.mem", b, sizeof b);
	run_identity(a, b, false);
}

static bool have_sim(void)
{
	struct dnet_dev *d = NULL;
	struct dnet_err e;
	if (dnet_open("sim:nodes=1", &d, &e) != 0)
		return false;
	dnet_close(d);
	return true;
}

static void test_identity_sim(void)
{
	if (!have_sim()) {
		SKIP("sim backend not linked in: emulator identity not checked");
		return;
	}
	run_identity("sim:nodes=3", "sim:nodes=3", true);
	/* Determinism of the served emulator: two daemons, the same trace. */
	struct dnet_err e;
	struct trace t1 = {0}, t2 = {0};
	char sock[128];
	snprintf(sock, sizeof sock, "unix:%s/det.sock", tmpdir);
	for (int k = 0; k < 2; k++) {
		struct server sv = {0};
		struct dnet_dev *r = NULL;
		if (start_server(&sv, "sim:nodes=2", sock, NULL, 0) != 0) {
			CHECK(!"server started");
			break;
		}
		CHECK_OK(open_remote(&sv, NULL, &r, &e), &e);
		if (r) {
			scenario(r, true, k ? &t2 : &t1);
			dnet_close(r);
		}
		CHECK_EQ(stop_server(&sv), 0);
	}
	compare_traces("determinism", &t1, &t2);
	free(t1.buf);
	free(t2.buf);
}

/* ---- every parameter at once (PARAM_ALL) ---- */

/* dnet_param_get_all gives each readable parameter of the list, in its
 * order, with the value dnet_param_get reads, and no write-only one. */
static void check_get_all(struct dnet_dev *d, const char *what)
{
	struct dnet_err e;
	const struct dnet_param *p;
	unsigned np, nv, k = 0;
	struct dnet_param_value *v = NULL;
	CHECK_OK(dnet_param_list(d, &p, &np, &e), &e);
	CHECK_OK(dnet_param_get_all(d, &v, &nv, &e), &e);
	CHECK(np > 10);
	static char want[DNET_PARAM_VALUE_MAX];
	for (unsigned i = 0; v && i < np; i++) {
		if (p[i].flags & DNET_PARAM_WO)
			continue;
		CHECK_OK(dnet_param_get(d, p[i].name, want, sizeof want, &e), &e);
		if (k >= nv || strcmp(v[k].name, p[i].name) || strcmp(v[k].value, want))
			fprintf(stderr, "  %s: parameter %u (%s) not as dnet_param_get reads it\n", what, i, p[i].name);
		CHECK(k < nv && !strcmp(v[k].name, p[i].name) && !strcmp(v[k].value, want));
		k++;
	}
	CHECK_EQ(k, nv);
	free(v);
}

/* D-PARAM-ALL: every parameter in one request, equal to one GET each */
static void test_param_get_all(void)
{
	if (!have_sim()) {
		SKIP("sim backend not linked in: parameters not checked");
		return;
	}
	static const char spec[] = "sim:nodes=2,faults=drop:20%+dup:from:1:to:2:count:2+seed:3";
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	if (d) {
		check_get_all(d, "in process");
		dnet_close(d);
	}
	char sock[128];
	snprintf(sock, sizeof sock, "unix:%s/pall.sock", tmpdir);
	struct server sv = {0};
	if (start_server(&sv, spec, sock, NULL, 0) != 0) {
		CHECK(!"server started");
		return;
	}
	CHECK_OK(open_remote(&sv, "user", &d, &e), &e); /* reading is open to a user */
	if (d) {
		check_get_all(d, "through dnetd");
		dnet_close(d);
	}
	CHECK_EQ(stop_server(&sv), 0);
	/* a dry run has no parameters: none, no error */
	struct dnet_param_value *v = (void *)1;
	unsigned n = 9;
	CHECK_OK(dnet_open_dry(spec, &d, &e), &e);
	if (d) {
		CHECK_OK(dnet_param_get_all(d, &v, &n, &e), &e);
		CHECK_EQ(n, 0);
		free(v);
		dnet_close(d);
	}
}

/* ---- permissions ---- */

static void test_permissions(void)
{
	struct dnet_err e;
	struct server sv = {0};
	char spec[200], sock[128];
	make_memfile("perm.mem", spec, sizeof spec);
	snprintf(sock, sizeof sock, "unix:%s/perm.sock", tmpdir);
	if (start_server(&sv, spec, sock, NULL, 0) != 0) {
		CHECK(!"server started");
		return;
	}
	struct dnet_dev *u0 = NULL, *u1 = NULL, *p = NULL;
	CHECK_OK(open_remote(&sv, "user", &u0, &e), &e);
	CHECK_OK(open_remote(&sv, "user,wid=1", &u1, &e), &e);
	CHECK_OK(open_remote(&sv, "wid=1", &p, &e), &e);
	if (!u0 || !u1 || !p)
		goto out;
	CHECK(!(dnet_dev_caps(u0) & DNET_CAP_PRIVILEGED));
	CHECK(dnet_dev_caps(p) & DNET_CAP_PRIVILEGED);

	uint64_t v = 0;
	/* System Register: privileged only, whatever the access. */
	CHECK_EQ(dnet_read64(u0, DNET_SREG_BASE + DNET_SR_SMA, &v, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "System Register") != NULL);
	CHECK_EQ(dnet_write64(u1, DNET_SREG_BASE + DNET_SR_PGID0, 5, &e), -DNET_EPERM);
	CHECK_EQ(dnet_read64(u0, DNET_SREG_BASE + DNET_SR_CTL_RESET, &v, &e), -DNET_EPERM);
	CHECK_OK(dnet_read64(p, DNET_SREG_BASE + DNET_SR_SMA, &v, &e), &e);
	CHECK_OK(dnet_write64(p, DNET_SREG_BASE + DNET_SR_PGID1, 7, &e), &e);

	/* Own pages: yes.  The other WID's: no, in every region. */
	CHECK_OK(dnet_write64(u0, DNET_LLCM_WID(0) + 0x7ff8, 0x1234, &e), &e);
	CHECK_OK(dnet_read64(u0, DNET_LLCM_WID(0) + 0x7ff8, &v, &e), &e);
	CHECK_EQ(v, 0x1234);
	CHECK_OK(dnet_read64(u1, DNET_UREG_WID(1) + DNET_UR_CTL_STATUS, &v, &e), &e);
	CHECK_OK(dnet_write64(u1, DNET_LLCM_WID(1), 0x99, &e), &e);
	CHECK_EQ(dnet_read64(u0, DNET_LLCM_WID(1), &v, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "WID 1") != NULL);
	CHECK_EQ(dnet_write64(u0, DNET_LLCM_WID(1) + 8, 1, &e), -DNET_EPERM);
	CHECK_EQ(dnet_read64(u1, DNET_UREG_WID(0) + DNET_UR_CTL_STATUS, &v, &e), -DNET_EPERM);
	CHECK_EQ(dnet_write64(u1, DNET_WW_WID(0), 1, &e), -DNET_EPERM);
	CHECK_EQ(dnet_cache_flush(u0, DNET_PW_WID(1), 128, &e), -DNET_EPERM);
	CHECK_EQ(dnet_prefetch(u1, DNET_LHB_WID(0), 64, &e), -DNET_EPERM);
	uint64_t wait_last;
	CHECK_EQ(dnet_wait(u0, DNET_UREG_WID(1) + DNET_UR_CTL_STATUS, 1, DNET_COND_EQ, 0, 1000, &wait_last, &e),
		 -DNET_EPERM);
	/* A block that starts in one's own LLCM and runs into the other's. */
	uint8_t blk[64];
	CHECK_EQ(dnet_read_block(u0, DNET_LLCM_WID(0) + 0x8000 - 32, blk, 64, &e), -DNET_EPERM);
	CHECK_OK(dnet_read_block(u0, DNET_LLCM_WID(0) + 0x8000 - 64, blk, 64, &e), &e);
	/* The privileged client reaches both WIDs; the value written by u1 is there. */
	CHECK_OK(dnet_read64(p, DNET_LLCM_WID(1), &v, &e), &e);
	CHECK_EQ(v, 0x99);
	CHECK_OK(dnet_read64(p, DNET_LLCM_WID(0) + 0x7ff8, &v, &e), &e);
	CHECK_EQ(v, 0x1234);
	/* The backdoor: not offered to users. */
	CHECK(!(dnet_dev_caps(u0) & DNET_CAP_BACKDOOR));
	/* After all that the user connections still work. */
	CHECK_OK(dnet_read64(u0, DNET_LLCM_WID(0), &v, &e), &e);
out:
	dnet_close(u0);
	dnet_close(u1);
	dnet_close(p);
	CHECK_EQ(stop_server(&sv), 0);
}

/* A pattern no other test writes: byte i of a block at base. */
static uint8_t pat(uint64_t base, size_t i)
{
	uint64_t x = (base + i) * 0x9e3779b97f4a7c15ull;
	return (uint8_t)(x >> 56);
}

static void test_posted(void)
{
	struct dnet_err e;
	struct server sv = {0};
	char sock[128];
	snprintf(sock, sizeof sock, "unix:%s/posted.sock", tmpdir);
	if (start_server(&sv, "sim:nodes=2", sock, NULL, 0) != 0) {
		CHECK(!"server started");
		return;
	}
	struct dnet_dev *u = NULL, *p = NULL;
	CHECK_OK(open_remote(&sv, "user", &u, &e), &e);
	CHECK_OK(open_remote(&sv, NULL, &p, &e), &e);
	if (!u || !p)
		goto out;
	const uint32_t own = DNET_LLCM_WID(0), other = DNET_LLCM_WID(1);
	uint64_t v = 0, tag = 0;

	/* CONTINUE: the failed write (another WID's page, refused by the
	 * daemon) is handed over with its tag; the writes around it are done. */
	CHECK_OK(dnet_set_posted(u, DNET_POST_CONTINUE, &e), &e);
	dnet_set_tag(u, 5);
	CHECK_OK(dnet_write64(u, own + 0x100, 0x1111, &e), &e);
	dnet_set_tag(u, 6);
	CHECK_OK(dnet_write64(u, other + 0x100, 0x2222, &e), &e);   /* posted: no error yet */
	dnet_set_tag(u, 7);
	CHECK_OK(dnet_write64(u, own + 0x108, 0x3333, &e), &e);
	CHECK_EQ(dnet_sync(u, &tag, &e), -DNET_EPERM);
	CHECK_EQ(tag, 6);
	CHECK(strstr(e.msg, "WID 1") != NULL);
	CHECK_OK(dnet_sync(u, &tag, &e), &e);                        /* handed over once */
	CHECK_EQ(tag, DNET_NO_TAG);
	CHECK_OK(dnet_read64(p, own + 0x100, &v, &e), &e);
	CHECK_EQ(v, 0x1111);
	CHECK_OK(dnet_read64(p, own + 0x108, &v, &e), &e);
	CHECK_EQ(v, 0x3333);
	CHECK_OK(dnet_read64(p, other + 0x100, &v, &e), &e);
	CHECK_EQ(v, 0);

	/* Order: a read after posted writes sees them (same connection). */
	for (unsigned i = 0; i < 1000; i++)
		CHECK_OK(dnet_write64(u, own + 0x200, i, &e), &e);
	CHECK_OK(dnet_read64(u, own + 0x200, &v, &e), &e);
	CHECK_EQ(v, 999);
	/* Failures that come back while the batch is still being sent are
	 * kept too: 3000 refused writes among 3000 good ones. */
	for (unsigned i = 0; i < 3000; i++) {
		dnet_set_tag(u, 100 + i);
		CHECK_OK(dnet_write64(u, other + 8 * (i % 512), i, &e), &e);
		CHECK_OK(dnet_write64(u, own + 8 * (i % 512), i, &e), &e);
	}
	unsigned failed = 0;
	uint64_t first = DNET_NO_TAG, last = 0;
	for (int rc; (rc = dnet_sync(u, &tag, &e)) != 0; failed++) {
		CHECK_EQ(rc, tag == DNET_NO_TAG ? -DNET_EIO : -DNET_EPERM);
		if (first == DNET_NO_TAG)
			first = tag;
		last = tag;
		if (failed > 5000)
			break;
	}
	CHECK_EQ(failed, 1024 + 1);   /* PERR_MAX kept, then one summary of the rest */
	CHECK_EQ(first, 100);
	CHECK_EQ(last, DNET_NO_TAG);   /* the summary has no tag */
	CHECK_OK(dnet_read64(p, own + 8 * (2999 % 512), &v, &e), &e);
	CHECK_EQ(v, 2999);

	/* STOP: everything after the failure is skipped. */
	CHECK_OK(dnet_set_posted(u, DNET_POST_STOP, &e), &e);
	dnet_set_tag(u, 1);
	CHECK_OK(dnet_write64(u, own + 0x2300, 0xaaaa, &e), &e);
	dnet_set_tag(u, 2);
	CHECK_OK(dnet_write64(u, other + 0x2300, 0xbbbb, &e), &e);
	dnet_set_tag(u, 3);
	CHECK_OK(dnet_write64(u, own + 0x2308, 0xcccc, &e), &e);
	CHECK_OK(dnet_write64(u, own + 0x2310, 0xdddd, &e), &e);
	CHECK_EQ(dnet_sync(u, &tag, &e), -DNET_EPERM);
	CHECK_EQ(tag, 2);
	CHECK_OK(dnet_read64(p, own + 0x2300, &v, &e), &e);
	CHECK_EQ(v, 0xaaaa);
	CHECK_OK(dnet_read64(p, own + 0x2308, &v, &e), &e);
	CHECK_EQ(v, 0);
	CHECK_OK(dnet_read64(p, own + 0x2310, &v, &e), &e);
	CHECK_EQ(v, 0);
	/* After the sync the connection posts again. */
	CHECK_OK(dnet_write64(u, own + 0x2308, 0xeeee, &e), &e);
	/* Posting off does not wait (device.h): the write is still queued,
	 * and only dnet_sync() makes it done. */
	CHECK_OK(dnet_set_posted(u, DNET_POST_OFF, &e), &e);
	CHECK_OK(dnet_read64(p, own + 0x2308, &v, &e), &e);
	CHECK_EQ(v, 0);
	CHECK_OK(dnet_sync(u, &tag, &e), &e);
	CHECK_OK(dnet_read64(p, own + 0x2308, &v, &e), &e);
	CHECK_EQ(v, 0xeeee);

	/* Virtual time: a posted delay moves the clock as a sent one does. */
	uint64_t t0 = 0, t1 = 0;
	CHECK_OK(dnet_now(p, &t0, &e), &e);
	CHECK_OK(dnet_set_posted(p, DNET_POST_CONTINUE, &e), &e);
	CHECK_OK(dnet_delay(p, 123456, &e), &e);
	CHECK_OK(dnet_now(p, &t1, &e), &e);
	CHECK_EQ(t1 - t0, 123456);
	/* A delay the clock cannot hold fails, posted or not. */
	CHECK_OK(dnet_delay(p, UINT64_MAX - 5, &e), &e);
	CHECK_EQ(dnet_sync(p, &tag, &e), -DNET_ERANGE);

	/* Blocks of several frames (1 MB through the backdoor), posted and
	 * not, written and read back whole. */
	static uint8_t out[1 << 20], in[1 << 20];
	for (int posted = 0; posted < 2; posted++) {
		uint64_t base = 0x200000ull + (uint64_t)posted * sizeof out;
		for (size_t i = 0; i < sizeof out; i++)
			out[i] = pat(base, i);
		CHECK_OK(dnet_set_posted(p, posted ? DNET_POST_CONTINUE : DNET_POST_OFF, &e), &e);
		CHECK_OK(dnet_sodimm_access(p, base, out, sizeof out, true, &e), &e);
		CHECK_OK(dnet_sync(p, NULL, &e), &e);
		memset(in, 0, sizeof in);
		CHECK_OK(dnet_sodimm_access(p, base, in, sizeof in, false, &e), &e);
		CHECK(memcmp(in, out, sizeof in) == 0);
	}
	/* Not posted, a block that runs past the end of the SO-DIMMs (two
	 * modules of the per-WID area each): the error, and the frame before
	 * the end written. */
	uint64_t cap = 0;
	CHECK_OK(dnet_set_posted(p, DNET_POST_OFF, &e), &e);
	CHECK_OK(dnet_stat(p, "sodimm_area_bytes", &cap, &e), &e);
	cap *= 2;
	if (cap > sizeof out) {
		CHECK_EQ(dnet_sodimm_access(p, cap - 300000, out, sizeof out, true, &e), -DNET_ERANGE);
		CHECK_OK(dnet_sodimm_access(p, cap - 300000, in, 262144, false, &e), &e);
		CHECK(memcmp(in, out, 262144) == 0);
	}
	/* Posted writes still queued at dnet_close are sent, and done. */
	struct dnet_dev *q = NULL;
	CHECK_OK(open_remote(&sv, NULL, &q, &e), &e);
	if (q) {
		CHECK_OK(dnet_set_posted(q, DNET_POST_CONTINUE, &e), &e);
		for (unsigned i = 0; i < 16; i++)
			CHECK_OK(dnet_write64(q, own + 0x3000 + 8 * i, 0x5000 + i, &e), &e);
		dnet_close(q);
		/* The other connection's frames are served in real time: poll. */
		for (unsigned i = 0, tries = 0; i < 16; tries++) {
			uint64_t w = 0;
			CHECK_OK(dnet_read64(p, own + 0x3000 + 8 * i, &w, &e), &e);
			if (w == 0x5000 + i) {
				i++;
				continue;
			}
			if (tries > 500) {
				CHECK_EQ(w, 0x5000 + i);
				break;
			}
			usleep(10000);
		}
	}
	/* LLCM block reads of several frames are pipelined; the data is in order. */
	uint8_t lb[DNET_LLCM_SIZE];
	for (size_t i = 0; i < sizeof lb; i++)
		lb[i] = pat(7, i);
	CHECK_OK(dnet_write_block(p, own, lb, sizeof lb, &e), &e);
	uint8_t lr[DNET_LLCM_SIZE];
	CHECK_OK(dnet_read_block(u, own, lr, sizeof lr, &e), &e);
	CHECK(memcmp(lb, lr, sizeof lb) == 0);
out:
	dnet_close(u);
	dnet_close(p);
	CHECK_EQ(stop_server(&sv), 0);
}

/* dnet_read_blocks: reads in flight together return what synchronous
 * reads return, in order; a refused read (by the core's checks or by the
 * daemon, mid-pipeline) fails alone; a daemon gone mid-batch fails the
 * reads not yet answered and leaves the others done. */
static void test_read_blocks(void)
{
	struct dnet_err e;
	struct server sv = {0};
	char sock[128];
	snprintf(sock, sizeof sock, "unix:%s/rdb.sock", tmpdir);
	if (start_server(&sv, "sim:nodes=2", sock, NULL, 0) != 0) {
		CHECK(!"server started");
		return;
	}
	struct dnet_dev *u = NULL, *p = NULL;
	CHECK_OK(open_remote(&sv, "user", &u, &e), &e);
	CHECK_OK(open_remote(&sv, NULL, &p, &e), &e);
	if (!u || !p)
		goto out;
	enum { NR = 200, SZ = DNET_LLCM_SIZE };
	const uint32_t own = DNET_LLCM_WID(0);
	static uint8_t src[SZ], got[NR][SZ / 4], want[SZ / 4];
	for (size_t i = 0; i < sizeof src; i++)
		src[i] = pat(11, i);
	CHECK_OK(dnet_write_block(p, own, src, sizeof src, &e), &e);
	CHECK_OK(dnet_write64(p, DNET_LLCM_WID(1), 0x77, &e), &e);
	/* More reads than the client's window, of varied places and sizes;
	 * among them a System Register read (refused by the core: a user
	 * client), one past the map (the core) and the other WID's LLCM (the
	 * daemon refuses it, its ERROR comes in the middle of the replies). */
	struct dnet_read_req q[NR];
	memset(got, 0xee, sizeof got);
	for (size_t i = 0; i < NR; i++) {
		size_t len = 8 * (1 + (i * 37) % (SZ / 32));
		q[i] = (struct dnet_read_req){ .off = own + (uint32_t)((i * 4096) % (SZ - len)) / 8 * 8,
					       .buf = got[i], .len = len, .rc = 99 };
	}
	q[5].off = DNET_SREG_BASE + DNET_SR_SMA, q[5].len = 8;
	q[77].off = DNET_MAP_SIZE, q[77].len = 8;
	q[120].off = DNET_LLCM_WID(1), q[120].len = 64;
	q[150].len = 0;
	CHECK_EQ(dnet_read_blocks(u, q, NR, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "System Register") != NULL); /* the first failure's message */
	for (size_t i = 0; i < NR; i++) {
		int want_rc = i == 5 || i == 120 ? -DNET_EPERM : i == 77 ? -DNET_ERANGE : 0;
		if (q[i].rc != want_rc)
			fprintf(stderr, "read %zu: rc %d, expected %d\n", i, q[i].rc, want_rc);
		CHECK_EQ(q[i].rc, want_rc);
		if (want_rc || !q[i].len)
			continue;
		CHECK_OK(dnet_read_block(u, q[i].off, want, q[i].len, &e), &e);
		CHECK(memcmp(got[i], want, q[i].len) == 0);
		CHECK(memcmp(got[i], src + (q[i].off - own), q[i].len) == 0);
	}
	/* Only the daemon's refusal: its own message, the reads around it done. */
	struct dnet_read_req d[3] = {
		{ .off = own, .buf = got[0], .len = 64 },
		{ .off = DNET_LLCM_WID(1), .buf = got[1], .len = 64 },
		{ .off = own + 64, .buf = got[2], .len = 64 },
	};
	CHECK_EQ(dnet_read_blocks(u, d, 3, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "WID 1") != NULL);
	CHECK_EQ(d[0].rc, 0);
	CHECK_EQ(d[2].rc, 0);
	CHECK(memcmp(got[2], src + 64, 64) == 0);
	/* Nothing to do, and all well: 0. */
	CHECK_OK(dnet_read_blocks(u, d, 0, &e), &e);
	CHECK_OK(dnet_read_blocks(u, d, 1, &e), &e);

	/* The daemon killed while a long batch (1 GB, the same buffers again
	 * and again) is in flight: the call fails with DNET_EIO; the reads
	 * answered before stay done (rc 0, a prefix), every later one fails. */
	enum { NK = 32768 };
	struct dnet_read_req *k = calloc(NK, sizeof *k);
	CHECK(k != NULL);
	if (!k)
		goto out;
	for (size_t i = 0; i < NK; i++)
		k[i] = (struct dnet_read_req){ .off = own, .buf = got[i % NR], .len = SZ / 4 };
	pid_t killer = fork();
	if (killer == 0) {
		usleep(30000);
		kill(sv.pid, SIGKILL);
		_exit(0);
	}
	int rc = dnet_read_blocks(u, k, NK, &e);
	waitpid(killer, NULL, 0);
	CHECK_EQ(rc, -DNET_EIO);
	size_t done = 0;
	while (done < NK && k[done].rc == 0)
		done++;
	CHECK(done < NK);
	for (size_t i = done; i < NK; i++)
		if (k[i].rc != -DNET_EIO) {
			CHECK_EQ(k[i].rc, -DNET_EIO);
			break;
		}
	free(k);
	/* The connection is unusable from then on, at once. */
	uint64_t v;
	CHECK_EQ(dnet_read64(u, own, &v, &e), -DNET_EIO);
	CHECK_EQ(dnet_read_blocks(u, d, 1, &e), -DNET_EIO);
	CHECK_EQ(d[0].rc, -DNET_EIO);
out:
	dnet_close(u);
	dnet_close(p);
	stop_server(&sv); /* killed on purpose: no exit status to check */
	sv.pid = 0;
}

/* The tap of dnet_read_blocks (tap.h): one record per read the backend
 * made, with that read's own address, length, data and result, in the
 * order of the requests, after the write-back flushes of the checks; none
 * for a read the core refused or of no length (issue 31, Deliver 9). */
struct tap_copy {
	enum dnet_tap_kind kind;
	uint32_t off;
	size_t len;
	int rc;
	bool has_msg;
	uint8_t data[0x1000];
};
struct tap_log {
	struct tap_copy r[16];
	unsigned n;
};

static void tap_keep(void *ctx, const struct dnet_tap_rec *rec)
{
	struct tap_log *l = ctx;
	if (l->n == sizeof l->r / sizeof l->r[0])
		return;
	struct tap_copy *c = &l->r[l->n++];
	c->kind = rec->kind;
	c->off = rec->off;
	c->len = rec->len;
	c->rc = rec->rc;
	c->has_msg = rec->msg && strstr(rec->msg, "WID 1");
	if (rec->kind == DNET_TAP_READ_BLOCK && rec->data && rec->len <= sizeof c->data)
		memcpy(c->data, rec->data, rec->len);
}

static void test_read_blocks_tap(void)
{
	struct dnet_err e;
	struct server sv = {0};
	char sock[128];
	snprintf(sock, sizeof sock, "unix:%s/rdbtap.sock", tmpdir);
	if (start_server(&sv, "sim:nodes=2", sock, NULL, 0) != 0) {
		CHECK(!"server started");
		return;
	}
	struct dnet_dev *u = NULL, *p = NULL;
	CHECK_OK(open_remote(&sv, "user", &u, &e), &e);
	CHECK_OK(open_remote(&sv, NULL, &p, &e), &e);
	if (!u || !p)
		goto out;
	const uint32_t own = DNET_LLCM_WID(0);
	static uint8_t src[0x4000], got[7][0x1000];
	for (size_t i = 0; i < sizeof src; i++)
		src[i] = pat(23, i);
	CHECK_OK(dnet_write_block(p, own, src, sizeof src, &e), &e);
	memset(got, 0xee, sizeof got);
	struct dnet_read_req q[7] = {
		{ .off = own + 0x100, .buf = got[0], .len = 64 },
		{ .off = DNET_SREG_BASE + DNET_SR_SMA, .buf = got[1], .len = 8 }, /* the core refuses it */
		{ .off = own + 0x1000, .buf = got[2], .len = 8 },
		{ .off = DNET_LLCM_WID(1), .buf = got[3], .len = 64 },           /* the daemon refuses it */
		{ .off = DNET_PW_WID(0), .buf = got[4], .len = 128 },            /* write-back: flushed first */
		{ .off = own + 0x200, .buf = got[5], .len = 0 },                 /* nothing to read */
		{ .off = own + 0x3000, .buf = got[6], .len = 0x1000 },
	};
	struct tap_log log;
	memset(&log, 0, sizeof log);
	dnet_set_tap(u, tap_keep, &log);
	CHECK_EQ(dnet_read_blocks(u, q, 7, &e), -DNET_EPERM);
	dnet_set_tap(u, NULL, NULL);
	/* the records: the flush, then the five reads made, in order */
	static const struct { enum dnet_tap_kind kind; unsigned req; } want[] = {
		{ DNET_TAP_CACHE_FLUSH, 4 }, { DNET_TAP_READ_BLOCK, 0 }, { DNET_TAP_READ_BLOCK, 2 },
		{ DNET_TAP_READ_BLOCK, 3 }, { DNET_TAP_READ_BLOCK, 4 }, { DNET_TAP_READ_BLOCK, 6 },
	};
	const unsigned nw = sizeof want / sizeof want[0];
	if (log.n != nw)
		fprintf(stderr, "  %u tap records, expected %u\n", log.n, nw);
	CHECK_EQ(log.n, nw);
	for (unsigned i = 0; i < nw && i < log.n; i++) {
		const struct tap_copy *c = &log.r[i];
		const struct dnet_read_req *r = &q[want[i].req];
		if (c->kind != want[i].kind || c->off != r->off || c->len != r->len)
			fprintf(stderr, "  record %u: %s 0x%x+%zu, expected %s 0x%x+%zu\n", i, dnet_tap_kind_name(c->kind),
				c->off, c->len, dnet_tap_kind_name(want[i].kind), r->off, r->len);
		CHECK_EQ(c->kind, want[i].kind);
		CHECK_EQ(c->off, r->off);
		CHECK_EQ(c->len, r->len);
		if (c->kind != DNET_TAP_READ_BLOCK)
			continue;
		CHECK_EQ(c->rc, r->rc);
		if (want[i].req == 3) {
			CHECK_EQ(c->rc, -DNET_EPERM);
			CHECK(c->has_msg); /* its own refusal */
			continue;
		}
		CHECK_EQ(c->rc, 0);
		CHECK(c->len <= sizeof c->data && memcmp(c->data, r->buf, c->len) == 0);
		if (r->off >= own && r->off < own + sizeof src) /* what the privileged client wrote */
			CHECK(memcmp(c->data, src + (r->off - own), c->len) == 0);
	}
	CHECK_EQ(q[1].rc, -DNET_EPERM);
	CHECK_EQ(q[5].rc, 0);
out:
	dnet_close(u);
	dnet_close(p);
	CHECK_EQ(stop_server(&sv), 0);
}

/* dnetd's dispatch table has a handler for every request type of the
 * protocol (its size is checked when it is compiled; a hole here). */
static void test_dispatch_table(void)
{
	for (uint16_t t = 1; t <= DNET_MSG_REQ_LAST; t++) {
		if (!wire_is_request(t)) { /* a retired number: 0x0009, SET_NODE of 1.x */
			CHECK(!srv_serves(t));
			continue;
		}
		if (!srv_serves(t))
			fprintf(stderr, "dnetd has no handler for %s\n", wire_type_name(t));
		CHECK(srv_serves(t));
	}
	CHECK(!srv_serves(0));
	CHECK(!srv_serves(DNET_MSG_REQ_LAST + 1));
	CHECK(!srv_serves(DNET_MSG_ERROR));
}

/* The privilege column of dnetd's dispatch table is every privilege
 * decision, applied to every request type: each type is sent, with every
 * field a user may be refused for (an offset in the System Register, the
 * SO-DIMM backdoor, a parameter's SET), by a user client -- refused
 * (EPERM) exactly when the table restricts the type -- and by a privileged
 * one, refused never. */
static void privileged_request(struct dnet_proto_msg *m, uint16_t type, uint32_t id, const uint8_t *data)
{
	memset(m, 0, sizeof *m);
	m->type = type;
	m->id = id;
	m->off = DNET_SREG_BASE + DNET_SR_SMA; /* the System Register */
	m->width = 8;
	m->len = 8;
	m->node = 1;
	m->mask = 0;        /* WAIT: 0 == 0 holds at once */
	m->cond = DNET_COND_EQ;
	m->timeout_ns = 1000000;
	m->ns = 1000;       /* DELAY */
	m->addr = 0;        /* SODIMM_* */
	m->op = DNET_PARAM_OP_SET;
	snprintf(m->name, sizeof m->name, "no_such_parameter");
	if (type == DNET_MSG_WRITE_BLOCK || type == DNET_MSG_SODIMM_WRITE) {
		m->data = data;
		m->data_len = 8;
	} else if (type == DNET_MSG_PARAM) {
		m->data = (const uint8_t *)"1";
		m->data_len = 1;
	}
}

static void test_privilege_table(void)
{
	struct server sv = {0};
	char sock[128];
	snprintf(sock, sizeof sock, "unix:%s/priv.sock", tmpdir);
	if (start_server(&sv, "sim:nodes=2", sock, NULL, 0) != 0) {
		CHECK(!"server started");
		return;
	}
	static const uint8_t data[64];
	unsigned restricted = 0;
	for (int priv = 0; priv < 2; priv++) {
		int fd = raw_connect(sv.addr);
		CHECK(fd >= 0);
		if (fd < 0)
			break;
		CHECK_EQ(raw_hello(fd, 0, priv, DNET_PROTO_VERSION_MAJOR), 0);
		for (uint16_t t = DNET_MSG_HELLO + 1; t <= DNET_MSG_REQ_LAST; t++) {
			struct dnet_proto_msg m, r;
			if (!srv_serves(t))
				continue; /* a hole: test_dispatch_table says so */
			privileged_request(&m, t, 100u + t, data);
			CHECK_EQ(raw_send_msg(fd, &m), 0);
			int got = raw_recv(fd, &r, 5000);
			CHECK_EQ(got, 1);
			if (got != 1)
				break;
			CHECK_EQ(r.id, 100u + t);
			bool refused = r.type == DNET_MSG_ERROR && r.code == DNET_EPERM;
			bool want = !priv && srv_user_restricted(t);
			if (refused != want)
				fprintf(stderr, "%s by a %s client: %s (%s)\n", wire_type_name(t),
					priv ? "privileged" : "user", refused ? "refused" : "not refused",
					r.type == DNET_MSG_ERROR ? r.msg : "served");
			CHECK_EQ(refused, want);
			if (refused)
				CHECK(strstr(r.msg, "permission denied") != NULL);
			restricted += want;
		}
		close(fd);
	}
	/* The column restricts what it must (a table of CHK_NONE would pass the
	 * loop): device accesses, the backdoor, setting a parameter. */
	static const uint16_t must[] = {DNET_MSG_READ, DNET_MSG_WRITE, DNET_MSG_READ_BLOCK, DNET_MSG_WRITE_BLOCK,
					DNET_MSG_CACHE_FLUSH, DNET_MSG_PREFETCH, DNET_MSG_WAIT, DNET_MSG_SODIMM_READ,
					DNET_MSG_SODIMM_WRITE, DNET_MSG_PARAM};
	for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
		CHECK(srv_user_restricted(must[i]));
	CHECK(!srv_user_restricted(DNET_MSG_HELLO));
	CHECK(!srv_user_restricted(0));
	CHECK(!srv_user_restricted(DNET_MSG_REQ_LAST + 1));
	CHECK(restricted >= sizeof must / sizeof must[0]);
	CHECK_EQ(stop_server(&sv), 0);
}

int main(void)
{
	if (e2e_tmpdir_make() < 0)
		return 1;
	RUN(test_dispatch_table);
	RUN(test_privilege_table);
	RUN(test_identity_devmem);
	RUN(test_identity_sim);
	RUN(test_param_get_all);
	RUN(test_permissions);
	RUN(test_posted);
	RUN(test_read_blocks);
	RUN(test_read_blocks_tap);
	e2e_tmpdir_remove();
	return t_summary("test_remote_e2e");
}
