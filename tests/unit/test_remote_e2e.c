/* End to end: the dnetd server loop (backends/remote/srv_*.c) run in a
 * child process, driven through the `remote` backend and through raw
 * frames.  UNIX sockets in a private temporary directory, and TCP on
 * 127.0.0.1 only; every child is killed and reaped, every wait is bounded.
 *
 *  - the same scenario gives the same trace directly and through dnetd
 *    (devmem on a file always; the emulator when `sim` is linked in);
 *  - permissions: a user client cannot reach the System Register, the
 *    other WID's pages or the SO-DIMM backdoor;
 *  - TCP with a token (bad or missing token refused);
 *  - malformed frames get an ERROR reply or a clean disconnect, and the
 *    daemon keeps serving;
 *  - many clients at once; a real-time wait does not block other clients;
 *  - SIGTERM shuts down cleanly and removes the socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* Paths and specs here are short and built from our own temp dir. */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "dnet/backend.h"
#include "dnet/dnet.h"
#include "remote/proto.h"
#include "remote/server.h"

static char tmpdir[64];

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- a server in a child process ---- */

static volatile sig_atomic_t child_stop;
static void child_on_term(int sig)
{
	(void)sig;
	child_stop = 1;
}

struct server {
	pid_t pid;
	char addr[300];
};
static bool expect_no_start; /* quiet when a start is meant to fail */

/* Start a server for backend spec on listen; 0 or -1 (message printed). */
static int start_server(struct server *sv, const char *spec, const char *listen, const char *token,
			unsigned max_clients)
{
	int pfd[2];
	if (pipe(pfd) != 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlive the test */
		if (getppid() == 1)
			exit(1);
		close(pfd[0]);
		sigset_t block, orig;
		sigemptyset(&block);
		sigaddset(&block, SIGTERM);
		sigprocmask(SIG_BLOCK, &block, &orig);
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = child_on_term;
		sigaction(SIGTERM, &sa, NULL);
		signal(SIGPIPE, SIG_IGN);
		sigdelset(&orig, SIGTERM);
		struct dnet_err e;
		struct dnet_dev *dev = NULL;
		struct dnet_srv *srv = NULL;
		char line[400];
		int st = 1;
		if (dnet_open(spec, &dev, &e) != 0) {
			snprintf(line, sizeof line, "ERR open %s: %s\n", spec, e.msg);
		} else {
			struct dnet_srv_config cfg = {
				.dev = dev, .listen = listen, .token = token, .max_clients = max_clients,
				.sigmask = &orig, .stop = &child_stop,
			};
			if (dnet_srv_open(&srv, &cfg, &e) != 0)
				snprintf(line, sizeof line, "ERR listen: %s\n", e.msg);
			else
				snprintf(line, sizeof line, "%s\n", dnet_srv_address(srv));
		}
		ssize_t w = write(pfd[1], line, strlen(line));
		(void)w;
		close(pfd[1]);
		if (srv) {
			st = dnet_srv_run(srv, &e) == 0 ? 0 : 1;
			dnet_srv_close(srv);
		}
		dnet_close(dev);
		exit(st);
	}
	close(pfd[1]);
	char buf[400];
	size_t n = 0;
	uint64_t t0 = mono_ms();
	while (n < sizeof buf - 1 && mono_ms() - t0 < 10000) {
		struct pollfd p = {.fd = pfd[0], .events = POLLIN};
		if (poll(&p, 1, 100) <= 0)
			continue;
		ssize_t r = read(pfd[0], buf + n, sizeof buf - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (memchr(buf, '\n', n))
			break;
	}
	close(pfd[0]);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	sv->pid = pid;
	if (n == 0 || strncmp(buf, "ERR", 3) == 0) {
		if (!expect_no_start)
			fprintf(stderr, "server did not start: %s\n", n ? buf : "(no answer)");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		sv->pid = 0;
		return -1;
	}
	snprintf(sv->addr, sizeof sv->addr, "%s", buf);
	return 0;
}

/* SIGTERM, reap within 5 s (then SIGKILL); the exit status or -1. */
static int stop_server(struct server *sv)
{
	if (sv->pid <= 0)
		return -1;
	int status = 0;
	kill(sv->pid, SIGTERM);
	uint64_t t0 = mono_ms();
	for (;;) {
		pid_t r = waitpid(sv->pid, &status, WNOHANG);
		if (r == sv->pid)
			break;
		if (mono_ms() - t0 > 5000) {
			kill(sv->pid, SIGKILL);
			waitpid(sv->pid, &status, 0);
			sv->pid = 0;
			return -1;
		}
		usleep(10000);
	}
	sv->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int open_remote(const struct server *sv, const char *opts, struct dnet_dev **dev, struct dnet_err *e)
{
	char spec[DNET_SPEC_MAX];
	snprintf(spec, sizeof spec, "remote:%s,timeout=5000%s%s", sv->addr, opts ? "," : "", opts ? opts : "");
	return dnet_open(spec, dev, e);
}

/* A zero-filled file standing in for /dev/mem. */
static void make_memfile(const char *name, char *spec, size_t len)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		if (ftruncate(fd, DNET_MAP_SIZE) != 0)
			perror("ftruncate");
		close(fd);
	}
	/* ,privileged: the System Register is reachable (devmem safety, issue 14) */
	snprintf(spec, len, "devmem:0x0@%s,privileged", path);
}

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
		rc = dnet_set_node(d, node, &e);
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
	rc = dnet_set_node(d, 1, &e);
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
			rc = dnet_set_node(d, node, &e);
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
		rc = dnet_set_node(d, 1, &e);
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
	rc = dnet_set_node(d, 4000, &e);
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

/* ---- raw frames ---- */

static int raw_connect(const char *addr)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", addr + 5);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int raw_send(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int raw_send_msg(int fd, const struct dnet_proto_msg *m)
{
	struct dnet_pbuf b = {0};
	struct dnet_err e;
	int rc = dnet_proto_encode(&b, m, &e);
	if (rc == 0)
		rc = raw_send(fd, b.p, b.len);
	dnet_pbuf_free(&b);
	return rc;
}

/* Receive one frame within ms: 1 and *m, 0 on EOF, -1 on timeout/error. */
static uint8_t rxbuf[DNET_PROTO_HDR_SIZE + DNET_PROTO_MAX_PAYLOAD];
static int raw_recv(int fd, struct dnet_proto_msg *m, int ms)
{
	size_t have = 0, need = DNET_PROTO_HDR_SIZE;
	uint64_t t0 = mono_ms();
	while (have < need) {
		int left = ms - (int)(mono_ms() - t0);
		if (left <= 0)
			return -1;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, left) <= 0)
			continue;
		ssize_t r = recv(fd, rxbuf + have, need - have, 0);
		if (r == 0)
			return 0;
		if (r < 0)
			return errno == ECONNRESET ? 0 : -1;
		have += (size_t)r;
		if (have == DNET_PROTO_HDR_SIZE) {
			struct dnet_err e;
			if (dnet_proto_peek(rxbuf, have, &need, &e) < 0)
				return -1;
		}
	}
	struct dnet_err e;
	return dnet_proto_decode(rxbuf, have, m, &e) == 0 ? 1 : -1;
}

static int raw_hello(int fd, unsigned wid, bool priv, uint16_t major)
{
	struct dnet_proto_msg m, r;
	memset(&m, 0, sizeof m);
	m.type = DNET_MSG_HELLO;
	m.id = 1;
	m.ver_major = major;
	m.node = 1;
	m.wid = (uint8_t)wid;
	m.privileged = priv;
	if (raw_send_msg(fd, &m) != 0 || raw_recv(fd, &r, 3000) != 1)
		return -1;
	return r.type == (DNET_MSG_HELLO | DNET_MSG_REPLY) ? 0 : -(int)r.code;
}

/* Send raw bytes; expect an ERROR with code and id (and, if hangup, EOF after it). */
static void expect_error(int fd, const uint8_t *b, size_t n, uint32_t code, uint32_t id, bool hangup)
{
	struct dnet_proto_msg r;
	CHECK_EQ(raw_send(fd, b, n), 0);
	int got = raw_recv(fd, &r, 3000);
	CHECK_EQ(got, 1);
	if (got == 1) {
		CHECK_EQ(r.type, DNET_MSG_ERROR);
		CHECK_EQ(r.code, code);
		CHECK_EQ(r.id, id);
		CHECK(r.msg[0] != 0);
	}
	if (hangup)
		CHECK_EQ(raw_recv(fd, &r, 3000), 0);
}

static size_t hand_frame(uint8_t *out, uint32_t len_field, uint16_t type, uint32_t id,
			 const uint8_t *p, size_t n)
{
	dnet_put32(out, len_field);
	dnet_put16(out + 4, type);
	dnet_put16(out + 6, 0);
	dnet_put32(out + 8, id);
	if (n)
		memcpy(out + 12, p, n);
	return 12 + n;
}

static bool still_serving(const struct server *sv)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	uint64_t v = 0;
	if (open_remote(sv, NULL, &d, &e) != 0)
		return false;
	bool ok = dnet_write64(d, DNET_LLCM_WID(0) + 0x40, 0x5a5a, &e) == 0 &&
		  dnet_read64(d, DNET_LLCM_WID(0) + 0x40, &v, &e) == 0 && v == 0x5a5a;
	dnet_close(d);
	return ok;
}

static void test_malformed(void)
{
	struct server sv = {0};
	char spec[200], sock[128];
	uint8_t f[256];
	size_t n;
	make_memfile("bad.mem", spec, sizeof spec);
	snprintf(sock, sizeof sock, "unix:%s/bad.sock", tmpdir);
	if (start_server(&sv, spec, sock, NULL, 0) != 0) {
		CHECK(!"server started");
		return;
	}
	/* A request before HELLO: error, hang up. */
	int fd = raw_connect(sv.addr);
	CHECK(fd >= 0);
	static const uint8_t rd[8] = {0, 0, 2, 0, 8, 0, 0, 0};
	n = hand_frame(f, 8, DNET_MSG_READ, 9, rd, 8);
	expect_error(fd, f, n, DNET_EPROTO, 9, true);
	close(fd);

	/* HELLO with a bad magic (an HTTP client, say): error, hang up. */
	fd = raw_connect(sv.addr);
	static const char http[] = "GET / HTTP/1.0\r\n\r\n";
	CHECK_EQ(raw_send(fd, http, sizeof http - 1), 0);
	struct dnet_proto_msg r;
	int got = raw_recv(fd, &r, 3000);
	CHECK(got == 0 || (got == 1 && r.type == DNET_MSG_ERROR));
	close(fd);

	/* Another protocol version: error naming both, hang up. */
	fd = raw_connect(sv.addr);
	CHECK_EQ(raw_hello(fd, 0, true, 2), -DNET_EPROTO);
	CHECK_EQ(raw_recv(fd, &r, 3000), 0);
	close(fd);

	/* After HELLO: bad frames get an ERROR echoing the id, the connection lives on. */
	fd = raw_connect(sv.addr);
	CHECK_EQ(raw_hello(fd, 0, true, 1), 0);
	n = hand_frame(f, 0, 0x0042, 10, NULL, 0);                       /* unknown type */
	expect_error(fd, f, n, DNET_EPROTO, 10, false);
	static const uint8_t rd3[8] = {0, 0, 2, 0, 3, 0, 0, 0};
	n = hand_frame(f, 8, DNET_MSG_READ, 11, rd3, 8);                 /* width 3 */
	expect_error(fd, f, n, DNET_EPROTO, 11, false);
	n = hand_frame(f, 7, DNET_MSG_READ, 12, rd, 7);                  /* short payload */
	expect_error(fd, f, n, DNET_EPROTO, 12, false);
	n = hand_frame(f, 0, DNET_MSG_READ | DNET_MSG_REPLY, 13, NULL, 0); /* a reply as request */
	expect_error(fd, f, n, DNET_EPROTO, 13, false);
	n = hand_frame(f, 0, DNET_MSG_HELLO, 14, NULL, 0);               /* short HELLO */
	expect_error(fd, f, n, DNET_EPROTO, 14, false);
	static const uint8_t rda[8] = {4, 0, 2, 0, 8, 0, 0, 0};
	n = hand_frame(f, 8, DNET_MSG_READ, 15, rda, 8);                 /* misaligned: the device says */
	expect_error(fd, f, n, DNET_EALIGN, 15, false);
	static const uint8_t big[8] = {0, 0x10, 5, 0, 8, 0, 0, 0};
	n = hand_frame(f, 8, DNET_MSG_READ, 16, big, 8);                 /* past the map */
	expect_error(fd, f, n, DNET_ERANGE, 16, false);
	static const uint8_t sn[4] = {0, 0, 1, 0};
	n = hand_frame(f, 4, DNET_MSG_SET_NODE, 17, sn, 4);              /* node 65536 */
	expect_error(fd, f, n, DNET_EINVAL, 17, false);
	/* Still answering properly. */
	n = hand_frame(f, 0, DNET_MSG_NOW, 18, NULL, 0);
	CHECK_EQ(raw_send(fd, f, n), 0);
	got = raw_recv(fd, &r, 3000);
	CHECK_EQ(got, 1);
	CHECK_EQ(r.type, DNET_MSG_NOW | DNET_MSG_REPLY);
	CHECK_EQ(r.id, 18);
	/* Oversize length: error, then hang up (the stream cannot be trusted). */
	n = hand_frame(f, 0x7fffffff, DNET_MSG_WRITE_BLOCK, 19, NULL, 0);
	expect_error(fd, f, n, DNET_EPROTO, 19, true);
	close(fd);

	/* Several frames in one write, and one frame dribbled a byte at a time. */
	fd = raw_connect(sv.addr);
	CHECK_EQ(raw_hello(fd, 0, true, 1), 0);
	n = 0;
	for (unsigned i = 0; i < 5; i++)
		n += hand_frame(f + n, 0, DNET_MSG_BUSY, 100 + i, NULL, 0);
	CHECK_EQ(raw_send(fd, f, n), 0);
	for (unsigned i = 0; i < 5; i++) {
		CHECK_EQ(raw_recv(fd, &r, 3000), 1);
		CHECK_EQ(r.id, 100 + i);
		CHECK_EQ(r.type, DNET_MSG_BUSY | DNET_MSG_REPLY);
	}
	n = hand_frame(f, 8, DNET_MSG_READ, 200, rd, 8);
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ(raw_send(fd, f + i, 1), 0);
		usleep(200);
	}
	CHECK_EQ(raw_recv(fd, &r, 3000), 1);
	CHECK_EQ(r.id, 200);
	CHECK_EQ(r.type, DNET_MSG_READ | DNET_MSG_REPLY);
	/* Half a frame, then gone. */
	CHECK_EQ(raw_send(fd, f, 7), 0);
	close(fd);

	/* Fuzz: after HELLO, random frames (valid header, random type/payload). */
	for (unsigned conn = 0; conn < 20; conn++) {
		fd = raw_connect(sv.addr);
		if (fd < 0) {
			CHECK(fd >= 0);
			break;
		}
		if (conn % 2 == 0)
			CHECK_EQ(raw_hello(fd, (unsigned)(conn / 2) % 2, conn % 4 == 0, 1), 0);
		for (unsigned k = 0; k < 40; k++) {
			uint8_t pl[64];
			size_t pn = t_rand() % sizeof pl;
			for (size_t j = 0; j < pn; j++)
				pl[j] = (uint8_t)t_rand();
			uint16_t type = (uint16_t)(t_rand() % 3 == 0 ? t_rand() : t_rand() % 0x13);
			/* Writes to the System Register might reset the emulated controller;
			 * on devmem they are harmless memory stores. */
			n = hand_frame(f, (uint32_t)pn, type, 1000 + k, pl, pn);
			if (raw_send(fd, f, n) != 0)
				break;
		}
		/* Drain whatever comes back, bounded. */
		for (int k = 0; k < 100; k++)
			if (raw_recv(fd, &r, 50) != 1)
				break;
		close(fd);
	}
	/* And pure garbage. */
	for (unsigned conn = 0; conn < 10; conn++) {
		fd = raw_connect(sv.addr);
		if (fd < 0)
			break;
		for (size_t j = 0; j < sizeof f; j++)
			f[j] = (uint8_t)t_rand();
		(void)raw_send(fd, f, sizeof f);
		for (int k = 0; k < 5; k++)
			if (raw_recv(fd, &r, 50) != 1)
				break;
		close(fd);
	}
	CHECK(still_serving(&sv));
	CHECK_EQ(stop_server(&sv), 0);
}

/* ---- many clients, real-time waits ---- */

static void test_many_clients(void)
{
	enum { N = 24 };
	struct dnet_err e;
	struct server sv = {0};
	char spec[200], sock[128];
	make_memfile("many.mem", spec, sizeof spec);
	snprintf(sock, sizeof sock, "unix:%s/many.sock", tmpdir);
	if (start_server(&sv, spec, sock, NULL, 0) != 0) {
		CHECK(!"server started");
		return;
	}
	struct dnet_dev *d[N] = {0};
	unsigned opened = 0;
	for (unsigned i = 0; i < N; i++) {
		char opts[64];
		snprintf(opts, sizeof opts, "wid=%u%s", i % 2, i % 3 == 0 ? ",user" : "");
		if (open_remote(&sv, opts, &d[i], &e) == 0)
			opened++;
	}
	CHECK_EQ(opened, N);
	/* Interleaved: everyone writes its word, then everyone reads everyone's words of its WID. */
	for (unsigned i = 0; i < N; i++)
		if (d[i])
			CHECK_OK(dnet_write64(d[i], DNET_LLCM_WID(i % 2) + 8 * i, 0x1000 + i, &e), &e);
	unsigned good = 0;
	for (unsigned i = 0; i < N; i++) {
		if (!d[i])
			continue;
		bool ok = true;
		for (unsigned j = i % 2; j < N; j += 2) {
			uint64_t v = 0;
			if (dnet_read64(d[i], DNET_LLCM_WID(j % 2) + 8 * j, &v, &e) != 0 || v != 0x1000 + j)
				ok = false;
		}
		good += ok;
	}
	CHECK_EQ(good, N);
	for (unsigned i = 0; i < N; i++)
		dnet_close(d[i]);

	/* A real-time wait in the server does not hold up other clients. */
	int fd = raw_connect(sv.addr);
	CHECK_EQ(raw_hello(fd, 0, false, 1), 0);
	struct dnet_dev *b = NULL;
	CHECK_OK(open_remote(&sv, NULL, &b, &e), &e);
	if (b && fd >= 0) {
		CHECK_OK(dnet_write64(b, DNET_LLCM_WID(0) + 0x200, 0, &e), &e);
		struct dnet_proto_msg m, r;
		memset(&m, 0, sizeof m);
		m.type = DNET_MSG_WAIT;
		m.id = 77;
		m.off = DNET_LLCM_WID(0) + 0x200;
		m.mask = 0xff;
		m.cond = DNET_COND_EQ;
		m.value = 0x55;
		m.timeout_ns = 5000000000ull;
		CHECK_EQ(raw_send_msg(fd, &m), 0);
		uint64_t t0 = mono_ms(), v = 0;
		for (int k = 0; k < 20; k++)
			CHECK_OK(dnet_read64(b, DNET_LLCM_WID(0) + 0x200, &v, &e), &e);
		CHECK(mono_ms() - t0 < 1000);
		CHECK_EQ(raw_recv(fd, &r, 20), -1); /* still waiting */
		CHECK_OK(dnet_write64(b, DNET_LLCM_WID(0) + 0x200, 0x1255, &e), &e);
		CHECK_EQ(raw_recv(fd, &r, 3000), 1);
		CHECK_EQ(r.type, DNET_MSG_WAIT | DNET_MSG_REPLY);
		CHECK_EQ(r.id, 77);
		CHECK_EQ(r.timed_out, 0);
		CHECK_EQ(r.last, 0x1255);
		CHECK(mono_ms() - t0 < 3000);
		/* One that runs out of (real) time. */
		m.id = 78;
		m.value = 0x66;
		m.timeout_ns = 30000000;
		t0 = mono_ms();
		CHECK_EQ(raw_send_msg(fd, &m), 0);
		CHECK_EQ(raw_recv(fd, &r, 3000), 1);
		CHECK_EQ(r.timed_out, 1);
		CHECK_EQ(r.last, 0x1255);
		CHECK(strstr(r.msg, "timed out after 30000000 ns") != NULL);
		CHECK(mono_ms() - t0 >= 25);
		/* A real-time delay is pending too, not a sleep of the whole daemon. */
		memset(&m, 0, sizeof m);
		m.type = DNET_MSG_DELAY;
		m.id = 79;
		m.ns = 300000000;
		t0 = mono_ms();
		CHECK_EQ(raw_send_msg(fd, &m), 0);
		CHECK_OK(dnet_read64(b, DNET_LLCM_WID(0) + 0x200, &v, &e), &e);
		CHECK(mono_ms() - t0 < 250);
		CHECK_EQ(raw_recv(fd, &r, 3000), 1);
		CHECK_EQ(r.type, DNET_MSG_DELAY | DNET_MSG_REPLY);
		CHECK(mono_ms() - t0 >= 290);
		/* Through the remote backend, the wait API. */
		CHECK_EQ(dnet_wait(b, DNET_LLCM_WID(0) + 0x200, 0xff, DNET_COND_EQ, 0x77, 20000000, &v, &e),
			 -DNET_ETIMEDOUT);
		CHECK_EQ(v, 0x1255);
		CHECK_OK(dnet_wait(b, DNET_LLCM_WID(0) + 0x200, 0xff, DNET_COND_EQ, 0x55, 20000000, &v, &e), &e);
	}
	dnet_close(b);
	if (fd >= 0)
		close(fd);

	/* The client limit: the one too many is told why. */
	struct server sv2 = {0};
	snprintf(sock, sizeof sock, "unix:%s/few.sock", tmpdir);
	if (start_server(&sv2, spec, sock, NULL, 2) == 0) {
		struct dnet_dev *x = NULL, *y = NULL, *z = NULL;
		CHECK_OK(open_remote(&sv2, NULL, &x, &e), &e);
		CHECK_OK(open_remote(&sv2, NULL, &y, &e), &e);
		CHECK_EQ(open_remote(&sv2, NULL, &z, &e), -DNET_EBUSY);
		CHECK(strstr(e.msg, "too many clients") != NULL);
		dnet_close(x);
		dnet_close(y);
		CHECK_EQ(stop_server(&sv2), 0);
	}
	CHECK_EQ(stop_server(&sv), 0);
}

/* ---- TCP and tokens ---- */

static void test_tcp_token(void)
{
	struct dnet_err e;
	struct server sv = {0};
	char spec[200], opts[300];
	unsetenv("DNET_TOKEN");
	make_memfile("tcp.mem", spec, sizeof spec);
	/* TCP without a token is refused at start. */
	expect_no_start = true;
	CHECK_EQ(start_server(&sv, spec, "tcp:127.0.0.1:0", NULL, 0), -1);
	expect_no_start = false;
	if (start_server(&sv, spec, "tcp:127.0.0.1:0", "s3cret", 0) != 0) {
		CHECK(!"server started");
		return;
	}
	CHECK(strncmp(sv.addr, "tcp:127.0.0.1:", 14) == 0);
	struct dnet_dev *d = NULL;
	CHECK_OK(open_remote(&sv, "token=s3cret", &d, &e), &e);
	uint64_t v = 0;
	if (d) {
		CHECK_OK(dnet_write64(d, DNET_LLCM_WID(0), 0xabc, &e), &e);
		CHECK_OK(dnet_read64(d, DNET_LLCM_WID(0), &v, &e), &e);
		CHECK_EQ(v, 0xabc);
		dnet_close(d);
		d = NULL;
	}
	CHECK_EQ(open_remote(&sv, "token=wrong", &d, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "bad token") != NULL);
	CHECK(d == NULL);
	CHECK_EQ(open_remote(&sv, "token=s3cre", &d, &e), -DNET_EPERM);
	CHECK_EQ(open_remote(&sv, NULL, &d, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "token") != NULL);
	/* From the environment. */
	setenv("DNET_TOKEN", "s3cret", 1);
	CHECK_OK(open_remote(&sv, NULL, &d, &e), &e);
	dnet_close(d);
	unsetenv("DNET_TOKEN");
	snprintf(opts, sizeof opts, "token=s3cret,user");
	d = NULL;
	CHECK_OK(open_remote(&sv, opts, &d, &e), &e);
	if (d)
		CHECK_EQ(dnet_read64(d, DNET_SREG_BASE + DNET_SR_SMA, &v, &e), -DNET_EPERM);
	dnet_close(d);
	CHECK_EQ(stop_server(&sv), 0);
}

/* ---- client-side errors and shutdown ---- */

static void test_client_errors_and_shutdown(void)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[300];
	snprintf(spec, sizeof spec, "remote:unix:%s/nobody.sock", tmpdir);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EIO);
	CHECK(strstr(e.msg, "is dnetd running?") != NULL);
	CHECK_EQ(dnet_open("remote:unix:/x,bogus=1", &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "bogus") != NULL);
	CHECK(dnet_open("remote:unix:/x,wid=2", &d, &e) < 0 && d == NULL);
	CHECK_EQ(dnet_open("remote:http://x", &d, &e), -DNET_EINVAL);
	CHECK_EQ(dnet_open("remote:tcp:127.0.0.1:1,timeout=500", &d, &e), -DNET_EIO);
	CHECK(strstr(e.msg, "refused") != NULL);

	/* A node that does not exist is refused at HELLO. */
	struct server sv = {0};
	char mem[200], sock[128];
	make_memfile("end.mem", mem, sizeof mem);
	snprintf(sock, sizeof sock, "unix:%s/end.sock", tmpdir);
	if (start_server(&sv, mem, sock, NULL, 0) != 0) {
		CHECK(!"server started");
		return;
	}
	CHECK_EQ(open_remote(&sv, "node=2", &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "node 2") != NULL);
	CHECK_OK(open_remote(&sv, NULL, &d, &e), &e);
	/* SIGTERM: clean exit, socket removed; the open client sees EIO, not a hang. */
	char path[160];
	snprintf(path, sizeof path, "%s/end.sock", tmpdir);
	struct stat st;
	CHECK_EQ(stat(path, &st), 0);
	CHECK_EQ(st.st_mode & 0777, 0600);
	CHECK_EQ(stop_server(&sv), 0);
	CHECK(stat(path, &st) != 0 && errno == ENOENT);
	uint64_t v;
	if (d) {
		CHECK_EQ(dnet_read64(d, DNET_LLCM_WID(0), &v, &e), -DNET_EIO);
		CHECK_EQ(dnet_read64(d, DNET_LLCM_WID(0), &v, &e), -DNET_EIO); /* stays failed */
		dnet_close(d);
	}
	/* A stale socket file is replaced; a non-socket file is left alone. */
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	CHECK_EQ(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	close(fd); /* bound, never listened: stale */
	CHECK_EQ(start_server(&sv, mem, sock, NULL, 0), 0);
	/* A second server on the same live socket is refused. */
	struct server sv2 = {0};
	expect_no_start = true;
	CHECK_EQ(start_server(&sv2, mem, sock, NULL, 0), -1);
	CHECK_EQ(stop_server(&sv), 0);
	snprintf(path, sizeof path, "%s/plain", tmpdir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	snprintf(sock, sizeof sock, "unix:%s", path);
	CHECK_EQ(start_server(&sv, mem, sock, NULL, 0), -1);
	expect_no_start = false;
	CHECK_EQ(stat(path, &st), 0);
	CHECK(S_ISREG(st.st_mode));
}

/* ---- posted requests (protocol 1.1) ---- */

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

/* dnetd's dispatch table has a handler for every request type of the
 * protocol (its size is checked when it is compiled; a hole here). */
static void test_dispatch_table(void)
{
	for (uint16_t t = 1; t <= DNET_MSG_REQ_LAST; t++) {
		if (!dnet_srv_serves(t))
			fprintf(stderr, "dnetd has no handler for %s\n", dnet_proto_type_name(t));
		CHECK(dnet_srv_serves(t));
	}
	CHECK(!dnet_srv_serves(0));
	CHECK(!dnet_srv_serves(DNET_MSG_REQ_LAST + 1));
	CHECK(!dnet_srv_serves(DNET_MSG_ERROR));
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmpdir, sizeof tmpdir, "/tmp/dnet-e2e.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_dispatch_table);
	RUN(test_identity_devmem);
	RUN(test_identity_sim);
	RUN(test_permissions);
	RUN(test_posted);
	RUN(test_malformed);
	RUN(test_many_clients);
	RUN(test_tcp_token);
	RUN(test_client_errors_and_shutdown);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return t_summary("test_remote_e2e");
}
