/* What the dnetd end-to-end tests share (test_remote_e2e.c, test_remote_wire.c):
 * a server in a child process on a private temporary directory, a remote
 * client to it, a stand-in /dev/mem file, and raw frames on a socket. */
#ifndef TEST_REMOTE_UTIL_H
#define TEST_REMOTE_UTIL_H

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

/* Paths and specs here are short and built from our own temp dir.  (GCC's
 * warning; clang has none of that name and would refuse the pragma.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include "dnet/backend.h"
#include "dnet/dnet.h"
#include "remote/wire/proto.h"
#include "remote/dnetd/server.h"

static char tmpdir[64];

static inline uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- a server in a child process ---- */

static volatile sig_atomic_t child_stop;
static inline void child_on_term(int sig)
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
static inline int start_server(struct server *sv, const char *spec, const char *listen, const char *token,
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
			if (srv_open(&srv, &cfg, &e) != 0)
				snprintf(line, sizeof line, "ERR listen: %s\n", e.msg);
			else
				snprintf(line, sizeof line, "%s\n", srv_address(srv));
		}
		ssize_t w = write(pfd[1], line, strlen(line));
		(void)w;
		close(pfd[1]);
		if (srv) {
			st = srv_run(srv, &e) == 0 ? 0 : 1;
			srv_close(srv);
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
static inline int stop_server(struct server *sv)
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

static inline int open_remote(const struct server *sv, const char *opts, struct dnet_dev **dev, struct dnet_err *e)
{
	char spec[DNET_SPEC_MAX];
	snprintf(spec, sizeof spec, "remote:%s,timeout=5s%s%s", sv->addr, opts ? "," : "", opts ? opts : "");
	return dnet_open(spec, dev, e);
}

/* A zero-filled file standing in for /dev/mem. */
static inline void make_memfile(const char *name, char *spec, size_t len)
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

/* ---- raw frames ---- */

static inline int raw_connect(const char *addr)
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

static inline int raw_send(int fd, const void *p, size_t n)
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

static inline int raw_send_msg(int fd, const struct dnet_proto_msg *m)
{
	struct dnet_pbuf b = {0};
	struct dnet_err e;
	int rc = wire_encode(&b, m, &e);
	if (rc == 0)
		rc = raw_send(fd, b.p, b.len);
	wire_pbuf_free(&b);
	return rc;
}

/* Receive one frame within ms: 1 and *m, 0 on EOF, -1 on timeout/error. */
static uint8_t rxbuf[DNET_PROTO_HDR_SIZE + DNET_PROTO_MAX_PAYLOAD];
static inline int raw_recv(int fd, struct dnet_proto_msg *m, int ms)
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
			if (wire_peek(rxbuf, have, &need, &e) < 0)
				return -1;
		}
	}
	struct dnet_err e;
	return wire_decode(rxbuf, have, m, &e) == 0 ? 1 : -1;
}

static inline int raw_hello(int fd, unsigned wid, bool priv, uint16_t major)
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
static inline void expect_error(int fd, const uint8_t *b, size_t n, uint32_t code, uint32_t id, bool hangup)
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

static inline size_t hand_frame(uint8_t *out, uint32_t len_field, uint16_t type, uint32_t id,
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

static inline bool still_serving(const struct server *sv)
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

/* The private temporary directory every test of a suite uses: made at
 * start (0, or -1 with a message), removed with what is in it at the end. */
static inline int e2e_tmpdir_make(void)
{
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmpdir, sizeof tmpdir, "/tmp/dnet-e2e.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

static inline void e2e_tmpdir_remove(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

#endif
