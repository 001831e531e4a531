/* Fuzz target: dnetd's per-client state machine (backends/remote/dnetd/)
 * against a hostile client.  The input (after a mode byte) is the byte
 * stream one client sends: a fresh emulator (sim:nodes=2) and a fresh
 * server listening on a UNIX socket in a private directory serve it, in
 * `once` mode, on this thread; a second thread writes the stream, shuts
 * its side down and reads every reply.  Each reply must be a frame that
 * decodes and is a reply (else abort: a finding), and the server must let
 * the client go (else a hang: a finding).
 *
 * Virtual waits are clamped: the timeout of each whole WAIT frame and the
 * length of each DELAY is cut to at most CLAMP_NS of virtual time, so an
 * input cannot make the emulator run for long (the server's own per-turn
 * slice budget keeps the loop responsive, not the total short).
 *
 * mode byte: bit 0 lockstep (requests served in virtual-time order, once
 * all clients said HELLO), bit 1 two clients (see below). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "dnet/dnet.h"
#include "remote/wire/proto.h"
#include "remote/dnetd/server.h"
#include "fuzz.h"

const char fuzz_name[] = "fuzz_server";
const unsigned long fuzz_default_iters = 400;

#define CLAMP_NS 100000ull /* 100 us of virtual time per wait or delay */

static char dir[40], sock[48];

static void cleanup(void)
{
	if (sock[0])
		unlink(sock);
	if (dir[0])
		rmdir(dir);
}

struct peer {
	int fd;
	const uint8_t *p;
	size_t n;
};

/* Lockstep with two clients waits, by design, until both have said HELLO
 * ("a client with nothing to do yet holds the others"): a second client
 * that never does (refused, silent) leaves the first one waiting for ever.
 * Only there a watchdog stops the loop once both have sent everything and
 * no reply has come for QUIET_NS; any other hang stays a finding. */
#define QUIET_NS 20000000ull
static volatile sig_atomic_t stop;
static atomic_uint senders;       /* clients still sending */
static atomic_ullong last_rx_ns;  /* last reply bytes (monotonic) */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static atomic_bool served;
static void *watchdog(void *arg)
{
	(void)arg;
	while (!atomic_load(&served)) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
		if (!stop && atomic_load(&senders) == 0 && mono_ns() - atomic_load(&last_rx_ns) > QUIET_NS) {
			stop = 1;
			/* a connection wakes the loop's poll at once (else up to 200 ms) */
			int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			struct sockaddr_un sa;
			memset(&sa, 0, sizeof sa);
			sa.sun_family = AF_UNIX;
			snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
			if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
				abort();
			if (fd >= 0)
				close(fd);
		}
	}
	return NULL;
}

/* The hostile client: send everything, half-close, then read and check
 * every reply frame until the server hangs up. */
static void *client(void *arg)
{
	struct peer *c = arg;
	size_t off = 0;
	while (off < c->n) {
		ssize_t w = send(c->fd, c->p + off, c->n - off, MSG_NOSIGNAL);
		if (w <= 0)
			break; /* the server hung up early: fine */
		off += (size_t)w;
	}
	shutdown(c->fd, SHUT_WR);
	atomic_store(&last_rx_ns, mono_ns());
	atomic_fetch_sub(&senders, 1);
	size_t cap = 1 << 16, len = 0;
	uint8_t *in = malloc(cap);
	struct dnet_proto_msg *m = malloc(sizeof *m); /* 700 bytes */
	if (!in || !m)
		abort();
	for (;;) {
		if (len == cap) {
			uint8_t *q = realloc(in, cap * 2);
			if (!q)
				abort();
			in = q;
			cap *= 2;
		}
		ssize_t r = recv(c->fd, in + len, cap - len, 0);
		if (r <= 0)
			break;
		atomic_store(&last_rx_ns, mono_ns());
		len += (size_t)r;
		size_t pos = 0, flen = 0;
		struct dnet_err e;
		while (wire_peek(in + pos, len - pos, &flen, &e) == 1) {
			memset(m, 0, sizeof *m);
			if (wire_decode(in + pos, flen, m, &e) != 0 || !wire_is_reply(m->type)) {
				fprintf(stderr, "fuzz_server: the server sent a bad frame: %s\n", e.msg);
				abort();
			}
			if (getenv("FUZZ_SERVER_SHOW")) /* to see what an input does */
				fprintf(stderr, "client %d: reply id %u: %s %s\n", c->fd, m->id,
					wire_type_name(m->type), m->msg);
			pos += flen;
		}
		if (wire_peek(in + pos, len - pos, &flen, &e) < 0) {
			fprintf(stderr, "fuzz_server: the server sent a bad header: %s\n", e.msg);
			abort();
		}
		memmove(in, in + pos, len - pos);
		len -= pos;
	}
	if (len && !stop) {
		fprintf(stderr, "fuzz_server: the server hung up in the middle of a frame\n");
		abort();
	}
	free(in);
	free(m);
	return NULL;
}

/* Cut the virtual time of whole WAIT and DELAY frames (see the top). */
static void clamp(uint8_t *p, size_t n)
{
	size_t pos = 0, flen = 0;
	while (wire_peek(p + pos, n - pos, &flen, NULL) == 1) {
		uint32_t len, id;
		uint16_t type, flags;
		wire_header(p + pos, &len, &type, &flags, &id);
		size_t at = type == DNET_MSG_WAIT && len >= 32 ? 36 : type == DNET_MSG_DELAY && len >= 8 ? 12 : 0;
		if (at) {
			uint64_t v = dnet_get64(p + pos + at);
			if (v > CLAMP_NS)
				dnet_put64(p + pos + at, v % (CLAMP_NS + 1));
		}
		pos += flen;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/dnet-fuzz-server-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(sock, sizeof sock, "%s/s", dir);
		atexit(cleanup);
	}
	uint8_t *p = malloc(size);
	if (!p)
		abort();
	memcpy(p, data + 1, size - 1);
	clamp(p, size - 1);

	struct dnet_err e = { 0 };
	struct dnet_dev *dev = NULL;
	if (dnet_open("sim:nodes=2", &dev, &e) < 0) {
		fprintf(stderr, "fuzz_server: %s\n", e.msg);
		abort();
	}
	char listen[60];
	snprintf(listen, sizeof listen, "unix:%s", sock);
	struct dnet_srv_config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.dev = dev;
	cfg.listen = listen;
	cfg.once = true;
	cfg.max_clients = 4;
	cfg.stop = &stop;
	cfg.lockstep = data[0] & 1 ? (data[0] & 2 ? 2 : 1) : 0;
	struct dnet_srv *srv = NULL;
	if (srv_open(&srv, &cfg, &e) < 0) {
		fprintf(stderr, "fuzz_server: %s\n", e.msg);
		abort();
	}
	/* Two clients (mode bit 1): the second one's stream starts at the
	 * second HELLO frame, if any (else it connects and says nothing). */
	size_t n = size - 1, split = n;
	if (data[0] & 2) {
		size_t pos = 0, flen = 0;
		unsigned hellos = 0;
		while (wire_peek(p + pos, n - pos, &flen, NULL) == 1) {
			uint32_t len, id;
			uint16_t type, flags;
			wire_header(p + pos, &len, &type, &flags, &id);
			if (type == DNET_MSG_HELLO && ++hellos == 2) {
				split = pos;
				break;
			}
			pos += flen;
		}
	}
	unsigned nc = data[0] & 2 ? 2 : 1;
	struct peer c[2] = { { -1, p, split }, { -1, p + split, n - split } };
	pthread_t t[2];
	for (unsigned i = 0; i < nc; i++) {
		c[i].fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_un sa;
		memset(&sa, 0, sizeof sa);
		sa.sun_family = AF_UNIX;
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
		if (c[i].fd < 0 || connect(c[i].fd, (struct sockaddr *)&sa, sizeof sa) != 0)
			abort();
	}
	stop = 0;
	atomic_store(&senders, nc);
	atomic_store(&served, false);
	atomic_store(&last_rx_ns, mono_ns());
	for (unsigned i = 0; i < nc; i++)
		if (pthread_create(&t[i], NULL, client, &c[i]) != 0)
			abort();
	pthread_t wd;
	bool watch = cfg.lockstep > 1;
	if (watch && pthread_create(&wd, NULL, watchdog, NULL) != 0)
		abort();
	if (srv_run(srv, &e) < 0) {
		fprintf(stderr, "fuzz_server: %s\n", e.msg);
		abort();
	}
	atomic_store(&served, true);
	if (watch)
		pthread_join(wd, NULL);
	srv_close(srv); /* hangs up on the clients left after a stop */
	srv = NULL;
	for (unsigned i = 0; i < nc; i++) {
		pthread_join(t[i], NULL);
		close(c[i].fd);
	}
	dnet_close(dev);
	free(p);
	return 0;
}

/* Seeds: a HELLO then one request of each kind; as a user touching the
 * System Register; on node 2; in lockstep; and two clients (nodes 1, 2),
 * with and without lockstep. */
static unsigned seed_node; /* the node the seed's requests name (2.0) */

static void add(struct dnet_pbuf *b, struct dnet_proto_msg *m, uint32_t id)
{
	struct dnet_err e;
	m->id = id;
	if (wire_noded(m->type))
		m->node = seed_node;
	if (wire_encode(b, m, &e) != 0) {
		fprintf(stderr, "fuzz_server: seed: %s\n", e.msg);
		abort();
	}
	memset(m, 0, sizeof *m);
}

static void session(struct dnet_pbuf *b, unsigned node, bool privileged)
{
	static struct dnet_proto_msg m;
	static const uint8_t blk[64] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint32_t id = 1;
	memset(&m, 0, sizeof m);
	m.type = DNET_MSG_HELLO;
	m.ver_major = DNET_PROTO_VERSION_MAJOR;
	m.node = node;
	m.privileged = privileged;
	seed_node = node;
	add(b, &m, id++);
	if (!privileged) { /* a user touching the System Register */
		m.type = DNET_MSG_READ;
		m.off = 0x50000;
		m.width = 8;
		add(b, &m, id++);
	}
	m.type = DNET_MSG_WRITE;
	m.off = 0x400;
	m.width = 8;
	m.val[0] = 0x1122334455667788ull;
	add(b, &m, id++);
	m.type = DNET_MSG_WRITE;
	m.off = 0x40010;
	m.width = 8;
	m.val[0] = 0x60000000400ull;
	add(b, &m, id++);
	m.type = DNET_MSG_WRITE;
	m.off = 0x40000;
	m.width = 8;
	m.val[0] = 0x20000000008ull; /* VS 0x200 bytes: the kick */
	add(b, &m, id++);
	m.type = DNET_MSG_WAIT;
	m.off = 0x40200;
	m.mask = 1;
	m.cond = 0;
	m.value = 1;
	m.timeout_ns = 50000;
	add(b, &m, id++);
	m.type = DNET_MSG_READ;
	m.off = 0x20000; /* LLCM of WID 0 */
	m.width = 16;
	add(b, &m, id++);
	m.type = DNET_MSG_WRITE_BLOCK;
	m.off = 0x20100;
	m.len = sizeof blk;
	m.data = blk;
	m.data_len = sizeof blk;
	add(b, &m, id++);
	m.type = DNET_MSG_READ_BLOCK;
	m.off = 0x20100;
	m.len = 64;
	add(b, &m, id++);
	m.type = DNET_MSG_DELAY;
	m.ns = 1000;
	add(b, &m, id++);
	seed_node = 3 - node; /* the rest on the other node */
	m.type = DNET_MSG_SODIMM_READ;
	m.addr = 0x100;
	m.len = 32;
	add(b, &m, id++);
	m.type = DNET_MSG_STAT;
	strcpy(m.name, "vtime_ns");
	add(b, &m, id++);
	m.type = DNET_MSG_STAT_NAMES;
	add(b, &m, id++);
	m.type = DNET_MSG_NOW;
	add(b, &m, id++);
	m.type = DNET_MSG_BUSY;
	add(b, &m, id++);
	m.type = DNET_MSG_CACHE_FLUSH;
	m.off = 0x10000;
	m.len = 128;
	add(b, &m, id++);
	m.type = DNET_MSG_WC_FLUSH;
	add(b, &m, id++);
}

const struct fuzz_seed *fuzz_seeds(size_t *n)
{
	static struct fuzz_seed seeds[6];
	static size_t count;
	static const struct { uint8_t mode; unsigned node; bool priv, two; } kinds[6] = {
		{ 0, 1, true, false }, { 0, 1, false, false }, { 0, 2, true, false },
		{ 1, 1, true, false }, { 2, 1, true, true }, { 3, 1, true, true },
	};
	for (; count < 6; count++) {
		struct dnet_pbuf b = { 0 };
		session(&b, kinds[count].node, kinds[count].priv);
		if (kinds[count].two)
			session(&b, 2, true);
		uint8_t *q = malloc(b.len + 1); /* the mode byte first */
		if (!q)
			abort();
		q[0] = kinds[count].mode;
		memcpy(q + 1, b.p, b.len);
		seeds[count] = (struct fuzz_seed){ q, b.len + 1 };
		wire_pbuf_free(&b);
	}
	*n = count;
	return seeds;
}
