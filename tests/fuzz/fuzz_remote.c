/* Fuzz target: the remote backend (backends/remote/remote.c, rmt_*.c), the client
 * of dnetd, against a hostile server.
 *
 * Input: [nops] [op, param] x nops [reply stream...].  A thread plays the
 * server on a UNIX socket in a private directory: it accepts the client,
 * sends the whole reply stream at once (whatever the client asks: the
 * client's request ids are 1, 2, 3..., so the stream can still match
 * them), shuts its side down and reads the client's requests until the
 * client hangs up.  This thread opens remote:unix:PATH, runs the ops (one
 * call of the device API each) and closes.  Errors are fine; a crash, a
 * sanitizer report, a leak or a hang is a finding.  The client's timeout
 * option is set (timeout=2000 ms) only as a backstop: a run never needs it,
 * since the server's half-close ends every wait for a reply. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "dnet/dnet.h"
#include "remote/wire/proto.h"
#include "fuzz.h"

const char fuzz_name[] = "fuzz_remote";
const unsigned long fuzz_default_iters = 1000;

static char dir[40], sock[48];
static int lfd = -1;

static void cleanup(void)
{
	if (lfd >= 0)
		close(lfd);
	if (sock[0])
		unlink(sock);
	if (dir[0])
		rmdir(dir);
}

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/dnet-fuzz-remote-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(sock, sizeof sock, "%s/s", dir);
	atexit(cleanup);
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 4) != 0)
		abort();
}

struct stream {
	const uint8_t *p;
	size_t n;
};

/* The hostile server: one connection, the whole stream, then read until EOF. */
static void *server(void *arg)
{
	struct stream *s = arg;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return NULL; /* the client never connected (a bad spec): nothing to serve */
	size_t off = 0;
	bool wr = true;
	uint8_t sink[65536];
	for (;;) {
		if (wr && off == s->n) {
			shutdown(fd, SHUT_WR);
			wr = false;
		}
		struct pollfd p = { .fd = fd, .events = (short)(POLLIN | (wr ? POLLOUT : 0)) };
		if (poll(&p, 1, -1) < 0)
			continue;
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t r = recv(fd, sink, sizeof sink, 0);
			if (r == 0 || (r < 0 && (p.revents & (POLLHUP | POLLERR))))
				break;
		}
		if (wr && (p.revents & POLLOUT)) {
			ssize_t w = send(fd, s->p + off, s->n - off, MSG_NOSIGNAL);
			if (w > 0)
				off += (size_t)w;
			else if (w < 0)
				wr = false;
		}
	}
	close(fd);
	return NULL;
}

/* One device call: op picks it, param where (LLCM, LLCM, the User Register
 * or the Prefetch Window of WID 0, at a multiple of 64 bytes), the values
 * come from both.  Offsets stay in the map, so that the core passes each
 * call to the backend as one request (a seed's replies then line up). */
static void run_op(struct dnet_dev **dp, uint8_t op, uint8_t param, size_t i)
{
	struct dnet_dev *d = *dp;
	struct dnet_err e = { 0 };
	static const enum dnet_region where[4] = { DNET_REG_LLCM, DNET_REG_LLCM, DNET_REG_UREG, DNET_REG_PW };
	const struct dnet_region_info *ri = dnet_region_info(where[param & 3]);
	uint32_t off = ri->base[0] + ((param >> 2) * 64u) % (ri->size > 512 ? ri->size - 512 : 64);
	uint64_t v = (uint64_t)op << 56 | (uint64_t)param << 8 | param, r = 0;
	static uint8_t blk[1024];
	switch (op % 16) {
	case 0: dnet_read64(d, off, &r, &e); break;
	case 1: dnet_write64(d, off, v, &e); break;
	case 2: { uint8_t x; dnet_read8(d, off, &x, &e); break; }
	case 3: { uint64_t x[2]; dnet_read128(d, off, x, &e); break; }
	case 4:
		if (op & 0x10) { /* reads in flight together (dnet_read_blocks): one beyond the map */
			struct dnet_read_req q[3] = { { off & ~63u, blk, 64, 0 },
						      { DNET_MAP_SIZE, blk + 64, 8, 0 },
						      { off & ~63u, blk + 128, 64u << (op >> 6), 0 } };
			dnet_read_blocks(d, q, 3, &e);
		} else {
			dnet_read_block(d, off & ~63u, blk, 64u << (op >> 6), &e);
		}
		break;
	case 5: dnet_write_block(d, off & ~63u, blk, 64u << (op >> 6), &e); break;
	case 6: dnet_wait(d, off, v, (enum dnet_cond)(op >> 5 & 7) % 6, v >> 8, 1000, &r, &e); break;
	case 7: dnet_delay(d, v % 5000, &e); break;
	case 8: dnet_now(d, &r, &e); break;
	case 9: { bool b; dnet_busy(d, &b, &e); break; }
	case 10: { /* another node's handle (D-NODE-HANDLE): no request; 3 and 4 do not exist */
		struct dnet_dev *h = dnet_node_dev(d, 1 + (op >> 4) % 4, &e);
		if (h)
			*dp = h;
		break;
	}
	case 11: dnet_stat(d, op & 0x10 ? "vtime_ns" : "host_ns", &r, &e); break;
	case 12: {
		const char *const *names = dnet_stat_names(d);
		for (unsigned k = 0; names && names[k] && k < 2000; k++)
			r += strlen(names[k]);
		break;
	}
	case 13: dnet_sodimm_access(d, v % 4096, blk, 8u << (op >> 6), false, &e); break;
	case 14: dnet_cache_flush(d, off, 64, &e); break;
	default: dnet_wc_flush(d, &e); break;
	}
	if (getenv("FUZZ_REMOTE_SHOW")) /* to see what an input does */
		fprintf(stderr, "op %zu (%u at 0x%x): %s\n", i, op % 16u, off, e.msg[0] ? e.msg : "ok");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (lfd < 0)
		setup();
	size_t nops = data[0] % 24;
	if (2 * nops > size - 1)
		nops = (size - 1) / 2;
	const uint8_t *ops = data + 1;
	struct stream s = { data + 1 + 2 * nops, size - 1 - 2 * nops };
	pthread_t t;
	if (pthread_create(&t, NULL, server, &s) != 0)
		abort();
	char spec[128];
	snprintf(spec, sizeof spec, "remote:unix:%s,timeout=2s%s", sock, data[0] & 0x80 ? ",user,node=2" : "");
	struct dnet_dev *d = NULL;
	struct dnet_err e;
	int rc = dnet_open(spec, &d, &e);
	if (getenv("FUZZ_REMOTE_SHOW"))
		fprintf(stderr, "open: %s\n", rc ? e.msg : "ok");
	if (rc == 0) {
		(void)dnet_node_count(d);
		(void)dnet_dev_caps(d);
		for (size_t i = 0; i < nops; i++)
			run_op(&d, ops[2 * i], ops[2 * i + 1], i);
		dnet_close(d);
	}
	pthread_join(t, NULL);
	return 0;
}

/* Seeds: the replies of a real dnetd to HELLO and to each op of the list. */
const struct fuzz_seed *fuzz_seeds(size_t *n)
{
	static struct fuzz_seed seeds[3];
	static size_t count;
	if (count) {
		*n = count;
		return seeds;
	}
	static const uint8_t ops[][16] = {
		{ 0, 1, 8, 9, 7, 6, 11, 2, 3, 14, 15, 10 },
		{ 4, 5, 12, 13, 0 },
		{ 0 },
	};
	static const size_t nops[] = { 12, 5, 0 };
	for (unsigned k = 0; k < 3; k++) {
		struct dnet_pbuf b = { 0 };
		struct dnet_err e;
		static struct dnet_proto_msg m;
		uint32_t id = 1;
		memset(&m, 0, sizeof m);
		m.type = DNET_MSG_HELLO | DNET_MSG_REPLY;
		m.id = id++;
		m.ver_major = DNET_PROTO_VERSION_MAJOR;
		m.nodes = 2;
		m.node = 1;
		m.caps = 0xff;
		m.max_payload = DNET_PROTO_MAX_PAYLOAD;
		wire_encode(&b, &m, &e);
		static const char *const statn[] = { "vtime_ns", "host_ns", "next_event_ns" };
		static uint8_t zero[512];
		for (size_t i = 0; i < nops[k]; i++) {
			static const uint16_t type[16] = { DNET_MSG_READ, DNET_MSG_WRITE, DNET_MSG_READ, DNET_MSG_READ,
							   DNET_MSG_READ_BLOCK, DNET_MSG_WRITE_BLOCK, DNET_MSG_WAIT,
							   DNET_MSG_DELAY, DNET_MSG_NOW, DNET_MSG_BUSY, 0 /* no request */,
							   DNET_MSG_STAT, DNET_MSG_STAT_NAMES, DNET_MSG_SODIMM_READ,
							   DNET_MSG_CACHE_FLUSH, DNET_MSG_WC_FLUSH };
			uint8_t op = ops[k][i] % 16;
			if (!type[op])
				continue;
			memset(&m, 0, sizeof m);
			m.type = (uint16_t)(type[op] | DNET_MSG_REPLY);
			m.id = id++;
			if (op == 0) m.width = 8, m.val[0] = 0x1234;
			if (op == 2) m.width = 1;
			if (op == 3) m.width = 16;
			if (op == 4) m.data = zero, m.data_len = 64;
			if (op == 13) m.data = zero, m.data_len = 8;
			if (op == 8) m.ns = 12345;
			if (op == 12) m.names = statn, m.count = 3;
			wire_encode(&b, &m, &e);
		}
		size_t len = 1 + 2 * nops[k] + b.len;
		uint8_t *q = calloc(1, len);
		if (!q)
			abort();
		q[0] = (uint8_t)nops[k];
		for (size_t i = 0; i < nops[k]; i++)
			q[1 + 2 * i] = ops[k][i]; /* param 0: LLCM offset 0 */
		memcpy(q + 1 + 2 * nops[k], b.p, b.len);
		seeds[count++] = (struct fuzz_seed){ q, len };
		wire_pbuf_free(&b);
	}
	*n = count;
	return seeds;
}
