/* dsh: messages through the LH Buffer -- send, recv (libdnet's reference
 * messaging layer, dnet/msg.h); cmd_decode.c's lh shows the LH Buffer.
 *
 * Ranks: under a launcher (size > 1) this shell is rank $rank of the run,
 * the peers as cmd_sync.c resolved them; alone, every node of the device
 * is a rank (rank r = node r + 1, this shell's WID) and the current node
 * sends and receives.  The job is set up on first use.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

void dsh_msg_free(struct dsh *d)
{
	dnet_msg_job_close(d->msg.job);
	d->msg.job = NULL;
	d->msg.job_dev = NULL;
}

/* This shell's rank in the job, opening the job if needed. */
static int msg_rank(struct dsh *d, unsigned *rank, unsigned *nranks)
{
	bool alone = d->ranks.size <= 1;
	unsigned n = alone ? dnet_node_count(d->dev) : d->ranks.size;
	unsigned me = alone ? dnet_node(d->dev) - 1 : d->ranks.rank;
	/* the same backend whichever node's handle is in use (D-NODE-HANDLE) */
	struct dnet_dev *root = dnet_node_dev(d->dev, 0, NULL);
	if (!d->msg.job || d->msg.job_dev != root) {
		dnet_msg_job_close(d->msg.job);
		d->msg.job = NULL;
		struct dnet_msg_rank *map = calloc(n, sizeof *map);
		if (!map)
			return dsh_error(d, "out of memory");
		for (unsigned r = 0; r < n; r++)
			map[r] = alone ? (struct dnet_msg_rank){ r + 1, d->opts.wid }
				       : d->ranks.peer[r];
		struct dnet_msg_params p;
		dnet_msg_params_default(&p);
		p.timeout_ns = d->opts.timeout_ns;
		if (dsh_sync_reserved(d)) { /* the AMT keeps out of the flags (D-SYNC-AREA) */
			p.llcm_reserved = d->ranks.sync_area;
			p.llcm_reserved_len = DSH_SYNC_AREA_SIZE;
		}
		struct dnet_err e = { 0 };
		int rc = dnet_msg_job_open(d->dev, n, map, alone ? NULL : &d->ranks.rank, alone ? 0 : 1, &p, &d->msg.job, &e);
		free(map);
		if (rc < 0)
			return dsh_derr(d, &e);
		d->msg.job_dev = root;
		/* Under a launcher the set-up is collective: no rank may send
		 * before every receiver has its AMT, rings and LH Buffer state
		 * (a packet ahead of them would find no AMT entry). */
		if (!alone) {
			uint32_t gen;
			unsigned rounds;
			if (dsh_barrier(d, DSH_SYNC_TIMEOUT_NS, &gen, &rounds) < 0)
				return dsh_error(d, "messaging set-up: not every rank reached it (the first send or "
						 "recv of a run is collective)");
		}
	}
	*rank = me;
	*nranks = n;
	return 0;
}

static const char *via_name(enum dnet_msg_via v)
{
	static const char *const names[] = { "auto", "botf", "lhsv1", "lhsv2", "rndv" };
	return v <= DNET_MSG_VIA_RNDV ? names[v] : "?";
}

/* Payload byte i of a message with seed s: (s + i) mod 256. */
static uint8_t pattern(uint64_t seed, size_t i) { return (uint8_t)(seed + i); }

int cmd_send(struct dsh *d, struct dsh_args *a)
{
	if (a->argc < 3)
		return dsh_error(d, "usage: send RANK TAG [size=BYTES] [val=SEED] [via=auto|botf|lhsv1|lhsv2|rndv]");
	uint64_t dest, tag;
	if (dsh_num(d, a, 1, 0x3fff, "destination rank", &dest) < 0 || dsh_num(d, a, 2, 0xffffffffu, "tag", &tag) < 0)
		return -1;
	struct dsh_kv kv[] = {
		{ .key = "size", .max = 1u << 24, .what = "message size" },
		{ .key = "val", .max = 0xff, .what = "pattern seed" },
		{ .key = "via", .flags = DSH_KV_STR, .what = "transport" },
	};
	if (dsh_kv_parse(d, a, 3, a->argc, kv, 3) < 0)
		return -1;
	size_t len = kv[0].given ? kv[0].val : 8;
	enum dnet_msg_via via = DNET_MSG_VIA_AUTO;
	if (kv[2].given) {
		unsigned v = 0;
		while (v <= DNET_MSG_VIA_RNDV && strcasecmp(kv[2].sval, via_name((enum dnet_msg_via)v)))
			v++;
		if (v > DNET_MSG_VIA_RNDV)
			return dsh_error(d, "via=%s: not a transport (auto botf lhsv1 lhsv2 rndv)", kv[2].sval);
		via = (enum dnet_msg_via)v;
	}
	unsigned me, n;
	if (msg_rank(d, &me, &n) < 0)
		return -1;
	if (dest >= n)
		return dsh_error(d, "argument 1: rank %" PRIu64 " is not in the job (ranks 0-%u)", dest, n - 1);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return dsh_error(d, "out of memory");
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(kv[1].val, i);
	struct dnet_msg_req *q = NULL;
	struct dnet_msg_status st = { 0 };
	struct dnet_err e = { 0 };
	int rc = dnet_msg_isend(d->msg.job, me, (unsigned)dest, (uint32_t)tag, buf, len, via, &q, &e);
	if (rc == 0)
		rc = dnet_msg_wait(d->msg.job, q, &st, &e);
	free(buf);
	if (rc < 0)
		return dsh_derr(d, &e);
	out_u64(d, "from", NULL, me);
	out_u64(d, "size", "sent %" PRIu64 " bytes", len);
	out_u64(d, "to", " to rank %" PRIu64, dest);
	out_u64(d, "tag", " tag %" PRIu64, tag);
	out_str(d, "via", " via %s\n", via_name(st.via));
	return 0;
}

int cmd_recv(struct dsh *d, struct dsh_args *a)
{
	if (a->argc < 2)
		return dsh_error(d, "usage: recv RANK|any [TAG|any] [size=BYTES] [check=SEED]");
	int src = DNET_MSG_ANY_SOURCE;
	int64_t tag = DNET_MSG_ANY_TAG;
	uint64_t v;
	if (strcmp(a->argv[1], "any")) {
		if (dsh_num(d, a, 1, 0x3fff, "source rank", &v) < 0)
			return -1;
		src = (int)v;
	}
	int kvs = 2;
	if (a->argc > 2 && !strchr(a->argv[2], '=')) {
		kvs = 3;
		if (strcmp(a->argv[2], "any")) {
			if (dsh_num(d, a, 2, 0xffffffffu, "tag", &v) < 0)
				return -1;
			tag = (int64_t)v;
		}
	}
	struct dsh_kv kv[] = {
		{ .key = "size", .max = 1u << 24, .what = "receive buffer size" },
		{ .key = "check", .max = 0xff, .what = "pattern seed" },
	};
	if (dsh_kv_parse(d, a, kvs, a->argc, kv, 2) < 0)
		return -1;
	size_t cap = kv[0].given ? kv[0].val : 1u << 24;
	unsigned me, n;
	if (msg_rank(d, &me, &n) < 0)
		return -1;
	if (src != DNET_MSG_ANY_SOURCE && (unsigned)src >= n)
		return dsh_error(d, "argument 1: rank %d is not in the job (ranks 0-%u)", src, n - 1);
	uint8_t *buf = malloc(cap ? cap : 1);
	if (!buf)
		return dsh_error(d, "out of memory");
	struct dnet_msg_status st = { 0 };
	struct dnet_err e = { 0 };
	int rc = dnet_msg_recv(d->msg.job, me, src, tag, buf, cap, &st, &e);
	if (rc < 0) {
		free(buf);
		return dsh_derr(d, &e);
	}
	size_t got = st.len < cap ? st.len : cap, bad = got;
	if (kv[1].given)
		for (size_t i = 0; i < got && bad == got; i++)
			if (buf[i] != pattern(kv[1].val, i))
				bad = i;
	out_u64(d, "size", "received %" PRIu64 " bytes", st.len);
	out_u64(d, "from", " from rank %" PRIu64, st.source);
	out_u64(d, "to", NULL, me);
	out_u64(d, "tag", " tag %" PRIu64, st.tag);
	out_str(d, "via", " via %s", via_name(st.via));
	out_bool(d, "truncated", " (truncated)", st.truncated);
	out_text(d, "\n");
	if (got && !kv[1].given) {
		char line[3 * 16 + 1] = "";
		for (size_t i = 0; i < got && i < 16; i++)
			snprintf(line + 3 * i, 4, "%02x ", buf[i]);
		out_text(d, "  %s%s\n", line, got > 16 ? "..." : "");
	}
	uint8_t badv = bad < got ? buf[bad] : 0;
	free(buf);
	dsh_set_last(d, st.len);
	if (st.truncated)
		return dsh_error(d, "message of %zu bytes truncated to size=%zu", st.len, cap);
	if (bad < got)
		return dsh_error(d, "check=%" PRIu64 ": byte %zu is 0x%02x, expected 0x%02x", kv[1].val, bad, badv,
				 pattern(kv[1].val, bad));
	return 0;
}
