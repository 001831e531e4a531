/* dnetd on the wire: raw frames to the server loop (backends/remote/dnetd/)
 * run in a child process (remote_e2e_util.h), UNIX sockets in a private
 * temporary directory and TCP on 127.0.0.1 only; every child is killed and
 * reaped, every wait is bounded.
 *
 *  - malformed frames get an ERROR reply or a clean disconnect, and the
 *    daemon keeps serving;
 *  - many clients at once; a real-time wait does not block other clients;
 *  - TCP with a token (bad or missing token refused);
 *  - client errors, and SIGTERM shuts down cleanly and removes the socket.
 */
#include "remote_e2e_util.h"

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
	static const uint8_t rd[12] = {1, 0, 0, 0, 0, 0, 2, 0, 8, 0, 0, 0}; /* node 1 (2.0), off, width */
	n = hand_frame(f, 12, DNET_MSG_READ, 9, rd, 12);
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
	CHECK_EQ(raw_hello(fd, 0, true, DNET_PROTO_VERSION_MAJOR + 1), -DNET_EPROTO);
	CHECK_EQ(raw_recv(fd, &r, 3000), 0);
	close(fd);
	/* A 1.3 client (its HELLO by hand: the layout every version keeps) is
	 * refused by name: 2.0 names the node in each frame, 1.3 would send
	 * SET_NODE and frames without one (D-NODE-HANDLE). */
	static const uint8_t old_hello[16] = {'D', 'N', 'E', 'T', 1, 0, 3, 0, /* version 1.3 */
					      1, 0, 0, 0, 0, 1, 0, 0};        /* node 1, WID 0, privileged */
	fd = raw_connect(sv.addr);
	n = hand_frame(f, 16, DNET_MSG_HELLO, 1, old_hello, 16);
	CHECK_EQ(raw_send(fd, f, n), 0);
	CHECK_EQ(raw_recv(fd, &r, 3000), 1);
	CHECK_EQ(r.type, DNET_MSG_ERROR);
	CHECK_EQ(r.code, DNET_EPROTO);
	CHECK(strstr(r.msg, "client speaks 1.3, dnetd speaks 2.0") != NULL);
	CHECK_EQ(raw_recv(fd, &r, 3000), 0);
	close(fd);

	/* After HELLO: bad frames get an ERROR echoing the id, the connection lives on. */
	fd = raw_connect(sv.addr);
	CHECK_EQ(raw_hello(fd, 0, true, DNET_PROTO_VERSION_MAJOR), 0);
	n = hand_frame(f, 0, 0x0042, 10, NULL, 0);                       /* unknown type */
	expect_error(fd, f, n, DNET_EPROTO, 10, false);
	static const uint8_t rd3[12] = {1, 0, 0, 0, 0, 0, 2, 0, 3, 0, 0, 0};
	n = hand_frame(f, 12, DNET_MSG_READ, 11, rd3, 12);               /* width 3 */
	expect_error(fd, f, n, DNET_EPROTO, 11, false);
	n = hand_frame(f, 11, DNET_MSG_READ, 12, rd, 11);                /* short payload */
	expect_error(fd, f, n, DNET_EPROTO, 12, false);
	n = hand_frame(f, 0, DNET_MSG_READ | DNET_MSG_REPLY, 13, NULL, 0); /* a reply as request */
	expect_error(fd, f, n, DNET_EPROTO, 13, false);
	n = hand_frame(f, 0, DNET_MSG_HELLO, 14, NULL, 0);               /* short HELLO */
	expect_error(fd, f, n, DNET_EPROTO, 14, false);
	static const uint8_t rda[12] = {1, 0, 0, 0, 4, 0, 2, 0, 8, 0, 0, 0};
	n = hand_frame(f, 12, DNET_MSG_READ, 15, rda, 12);               /* misaligned: the device says */
	expect_error(fd, f, n, DNET_EALIGN, 15, false);
	static const uint8_t big[12] = {1, 0, 0, 0, 0, 0x10, 5, 0, 8, 0, 0, 0};
	n = hand_frame(f, 12, DNET_MSG_READ, 16, big, 12);               /* past the map */
	expect_error(fd, f, n, DNET_ERANGE, 16, false);
	static const uint8_t sn[12] = {0, 0, 1, 0, 0, 0, 2, 0, 8, 0, 0, 0};
	n = hand_frame(f, 12, DNET_MSG_READ, 17, sn, 12);                /* on node 65536 */
	expect_error(fd, f, n, DNET_EINVAL, 17, false);
	static const uint8_t sn1[4] = {1, 0, 0, 0};
	n = hand_frame(f, 4, 0x0009, 20, sn1, 4);                        /* SET_NODE of 1.x: gone */
	expect_error(fd, f, n, DNET_EPROTO, 20, false);
	/* Still answering properly. */
	static const uint8_t node1[4] = {1, 0, 0, 0};
	n = hand_frame(f, 4, DNET_MSG_NOW, 18, node1, 4);
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
	CHECK_EQ(raw_hello(fd, 0, true, DNET_PROTO_VERSION_MAJOR), 0);
	n = 0;
	for (unsigned i = 0; i < 5; i++)
		n += hand_frame(f + n, 4, DNET_MSG_BUSY, 100 + i, node1, 4);
	CHECK_EQ(raw_send(fd, f, n), 0);
	for (unsigned i = 0; i < 5; i++) {
		CHECK_EQ(raw_recv(fd, &r, 3000), 1);
		CHECK_EQ(r.id, 100 + i);
		CHECK_EQ(r.type, DNET_MSG_BUSY | DNET_MSG_REPLY);
	}
	n = hand_frame(f, 12, DNET_MSG_READ, 200, rd, 12);
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
			CHECK_EQ(raw_hello(fd, (unsigned)(conn / 2) % 2, conn % 4 == 0, DNET_PROTO_VERSION_MAJOR), 0);
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
	CHECK_EQ(raw_hello(fd, 0, false, DNET_PROTO_VERSION_MAJOR), 0);
	struct dnet_dev *b = NULL;
	CHECK_OK(open_remote(&sv, NULL, &b, &e), &e);
	if (b && fd >= 0) {
		CHECK_OK(dnet_write64(b, DNET_LLCM_WID(0) + 0x200, 0, &e), &e);
		struct dnet_proto_msg m, r;
		memset(&m, 0, sizeof m);
		m.type = DNET_MSG_WAIT;
		m.node = 1;
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
		m.node = 1;
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
	CHECK_EQ(dnet_open("remote:tcp:127.0.0.1:1,timeout=500ms", &d, &e), -DNET_EIO);
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

/* ---- a server of protocol 1.3: the client refuses it by name ---- */

/* A daemon of 1.x in a child: takes one connection, reads the HELLO and
 * answers with a 1.3 HELLO reply made by hand (its layout every version
 * keeps), then waits for the client to hang up. */
static pid_t fake_server(const char *path, uint16_t minor_major[2], uint32_t nodes)
{
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 1) != 0) {
		CHECK(!"fake server listening");
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		alarm(10);
		int fd = accept(lfd, NULL, NULL);
		uint8_t in[512];
		(void)!read(fd, in, sizeof in);
		uint8_t rep[24] = {'D', 'N', 'E', 'T', 0, 0, 0, 0, /* version */
				   0, 0, 0, 0, 0x2f, 0, 0, 0,     /* nodes, caps */
				   1, 0, 0, 0, 0, 0, 8, 0};       /* node 1, max payload */
		dnet_put16(rep + 4, minor_major[1]);
		dnet_put16(rep + 6, minor_major[0]);
		dnet_put32(rep + 8, nodes);
		uint8_t f[64];
		size_t n = hand_frame(f, 24, DNET_MSG_HELLO | DNET_MSG_REPLY, dnet_get32(in + 8), rep, 24);
		(void)!write(fd, f, n);
		(void)!read(fd, in, sizeof in); /* until the client hangs up */
		_exit(0);
	}
	close(lfd);
	return pid;
}

static void test_old_server(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/old.sock", tmpdir);
	pid_t pid = fake_server(path, (uint16_t[2]){ 3, 1 }, 2);
	if (pid < 0)
		return;
	char spec[200];
	snprintf(spec, sizeof spec, "remote:unix:%s,timeout=5s", path);
	struct dnet_dev *d = NULL;
	struct dnet_err e;
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EPROTO);
	CHECK(d == NULL);
	CHECK(strstr(e.msg, "speaks protocol 1.3, this client 2.0") != NULL);
	int st = 0;
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	unlink(path);
}

/* A daemon that says it serves 2^32 - 1 nodes: node handles are made for
 * the nodes asked for, not a table of all of them (32 GB; fuzz_remote). */
static void test_huge_node_count(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/huge.sock", tmpdir);
	pid_t pid = fake_server(path, (uint16_t[2]){ DNET_PROTO_VERSION_MINOR, DNET_PROTO_VERSION_MAJOR }, 0xffffffffu);
	if (pid < 0)
		return;
	char spec[200];
	snprintf(spec, sizeof spec, "remote:unix:%s,timeout=5s", path);
	struct dnet_dev *d = NULL;
	struct dnet_err e;
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	if (d) {
		CHECK_EQ(dnet_node_count(d), 0xffffffffu);
		struct dnet_dev *a = dnet_node_dev(d, 0xffffffffu, &e), *b = dnet_node_dev(d, 70000, &e);
		CHECK(a && b && a != b && dnet_node(a) == 0xffffffffu && dnet_node(b) == 70000);
		CHECK(dnet_node_dev(d, 0xffffffffu, &e) == a); /* the same handle again */
		CHECK(dnet_node_dev(a, 0, &e) == d);
		struct dnet_dev *c = dnet_node_dev(d, 2, &e);
		CHECK(c && dnet_node(c) == 2 && dnet_node_dev(b, 2, &e) == c);
		dnet_close(b); /* any handle closes the device */
	}
	int st = 0;
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	unlink(path);
}

int main(void)
{
	if (e2e_tmpdir_make() < 0)
		return 1;
	RUN(test_malformed);
	RUN(test_many_clients);
	RUN(test_tcp_token);
	RUN(test_client_errors_and_shutdown);
	RUN(test_old_server);
	RUN(test_huge_node_count);
	e2e_tmpdir_remove();
	return t_summary("test_remote_wire");
}
