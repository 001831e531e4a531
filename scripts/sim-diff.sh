#!/usr/bin/env bash
# Differential check of two builds of the emulator (not a timing benchmark,
# a companion of bench-sim-speed.sh for speed work): the same seeded random
# workload -- SO-DIMM backdoor writes and reads (zeros, sparse and dense
# data), block and narrow accesses to every region, requests of every OTYPE
# with random fields, register and System Register writes, waits, delays,
# clflush/prefetch, node switches, statistics -- runs against both
# libdnet.a and prints one digest line per step plus every node's memory
# digest and statistics at the end, with and without timelines, faults,
# trace, cold start.  Any difference in memory, status, error or virtual
# time shows as a differing line.
#   usage: sim-diff.sh OLD_LIBDNET_A [NEW_LIBDNET_A] [STEPS] [SEEDS...]
# (not run by make bench, which runs scripts/bench-*.sh: it needs an old build)
set -eu
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
	echo "usage: $0 OLD_LIBDNET_A [NEW_LIBDNET_A] [STEPS] [SEEDS...]" >&2
	exit 2
fi
old=$1 new=${2:-lib/libdnet.a} steps=${3:-3000}
shift $(( $# < 3 ? $# : 3 ))
seeds=${*:-1 2 3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/d.c" <<'EOC'
/* differential workload: prints a digest line per step; run against two libs and diff */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dnet/dnet.h"
#include "dnet/regs.h"

static uint64_t rs;
static uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static uint64_t R(uint64_t n) { return n ? rnd() % n : 0; }
static uint64_t fnv(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}
static void fill(uint8_t *b, size_t n)
{
	unsigned k = (unsigned)R(4);
	if (k == 0)
		memset(b, 0, n);
	else if (k == 1) {
		memset(b, 0, n);
		for (int i = 0; i < 4 && n; i++)
			b[R(n)] = (uint8_t)(1 + R(255));
	} else
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)rnd();
}
static uint8_t buf[1 << 20], rbuf[1 << 20];
int main(int argc, char **argv)
{
	rs = strtoull(argv[1], NULL, 0);
	const char *spec = argv[2];
	int steps = argc > 3 ? atoi(argv[3]) : 2000;
	struct dnet_err e;
	struct dnet_dev *d;
	if (dnet_open(spec, &d, &e)) {
		printf("open: %s\n", e.msg);
		return 0;
	}
	unsigned nodes = dnet_node_count(d);
	static const unsigned regs[] = { 0x000, 0x010, 0x020, 0x100, 0x110, 0x200, 0x300, 0x400, 0x500,
					 0x600, 0x700, 0x800, 0x900, 0xa00, 0xb00, 0xc00 };
	for (int st = 0; st < steps; st++) {
		int rc = 0;
		uint64_t h = 0, v = 0;
		unsigned op = (unsigned)R(20);
		e.msg[0] = 0;
		switch (op) {
		case 0: { /* d becomes another node's handle */
			struct dnet_dev *nh = dnet_node_dev(d, 1 + (unsigned)R(nodes), &e);
			rc = nh ? 0 : -(int)e.code;
			if (nh)
				d = nh;
			break;
		}
		case 1: { /* sodimm backdoor write */
			uint64_t a = R(4) ? R(1 << 22) : R(1ull << 29);
			size_t n = (size_t)(R(3) ? R(4096) : R(sizeof buf));
			fill(buf, n);
			rc = dnet_sodimm_access(d, a, buf, n, true, &e);
			h = a * 31 + n;
			break;
		}
		case 2: {
			uint64_t a = R(4) ? R(1 << 22) : R(1ull << 29);
			size_t n = (size_t)(R(3) ? R(4096) : R(sizeof buf));
			rc = dnet_sodimm_access(d, a, rbuf, n, false, &e);
			h = fnv(rbuf, n);
			break;
		}
		case 3: case 4: case 5: case 6: { /* block write/read within a region (mostly) */
			static const uint32_t base[] = { DNET_WW_BASE, DNET_PW_BASE, DNET_LLCM_BASE, DNET_LHB_BASE, DNET_UREG_BASE };
			static const uint32_t step[] = { 0x2000, 0x2000, 0x8000, 0x8000, 0x1000 };
			static const uint32_t size[] = { 0x800, 0x800, 0x8000, 0x1000, 0x1000 };
			unsigned r = (unsigned)R(R(3) ? 4 : 5);
			uint32_t wid = (uint32_t)R(2);
			uint32_t o = (uint32_t)R(size[r]) & ~7u;
			if (R(2)) o &= ~0x3fu;
			size_t n = (size_t)R(size[r] - o + (R(6) == 0 ? 64 : 0) + 1) & ~(size_t)7;
			uint32_t off = base[r] + wid * step[r] + o;
			if (R(10) == 0) off = (uint32_t)R(0x52000) & ~7u;
			if (op <= 4) {
				fill(buf, n);
				rc = dnet_write_block(d, off, buf, n, &e);
				h = off * 31ull + n;
			} else {
				rc = dnet_read_block(d, off, rbuf, n, &e);
				h = fnv(rbuf, n);
			}
			break;
		}
		case 7: { /* register write: upper then lower */
			unsigned wid = (unsigned)R(2), sel = (unsigned)R(2);
			static const unsigned ots[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 24, 31 };
			uint64_t lo = ots[R(sizeof ots / sizeof ots[0])] | R(8) << 5 | R(4) << 8 | R(2) << 16 |
				      (1 + R(nodes + (R(8) == 0))) << 18 | R(2) << 30 |
				      (R(4) ? R(1 << 13) : R(R(2) ? 1 << 17 : 1 << 20)) << 32;
			uint64_t up = (R(4) ? R(1 << 20) : R(1ull << 28)) | (R(4) ? R(1 << 20) : R(R(2) ? 0x800 : 1ull << 28)) << 32;
			if (R(4) == 0) up |= 0xffffffffull;
			if (R(3) == 0) rc = dnet_write64(d, DNET_UREG_WID(wid) + DNET_UR_CMD_EX, rnd() & 0xffffffffffull, &e);
			if (!rc) rc = dnet_write64(d, DNET_UREG_WID(wid) + (sel ? DNET_UR_CMD1_UPPER : DNET_UR_CMD0_UPPER), up, &e);
			if (!rc && R(5) == 0) rc = dnet_write64(d, DNET_UREG_WID(wid) + DNET_UR_CMD_EX_FLAG, R(2), &e);
			if (!rc) rc = dnet_write64(d, DNET_UREG_WID(wid) + (sel ? DNET_UR_CMD1_LOWER : DNET_UR_CMD0_LOWER), lo, &e);
			h = lo ^ up;
			break;
		}
		case 8: {
			unsigned wid = (unsigned)R(2);
			uint32_t o = regs[R(16)];
			uint64_t val = R(2) ? R(64) : rnd();
			if (o == 0x000 || o == 0x100) break;
			rc = dnet_write64(d, DNET_UREG_WID(wid) + o, val, &e);
			h = o ^ val;
			break;
		}
		case 9: case 10: {
			unsigned wid = (unsigned)R(2);
			rc = dnet_read64(d, DNET_UREG_WID(wid) + regs[R(16)], &v, &e);
			h = v;
			break;
		}
		case 11: rc = dnet_delay(d, R(5) ? R(3000) : R(200000), &e); break;
		case 12: { bool b; rc = dnet_busy(d, &b, &e); h = b; break; }
		case 13: rc = dnet_now(d, &v, &e); h = v; break;
		case 14: {
			static const uint32_t sr[] = { DNET_SR_SDIMM_INIT, DNET_SR_PGID0, DNET_SR_PGID1, DNET_SR_AMT, DNET_SR_MTU, DNET_SR_CTL_RESET, DNET_SR_AMT };
			uint32_t o = sr[R(7)];
			uint64_t val = o == DNET_SR_AMT ? ((uint64_t)R(0x1000) << 14 | R(2) << 12 | R(0x1000))
				     : o == DNET_SR_MTU ? R(5) : o == DNET_SR_CTL_RESET ? 0 : R(2);
			if (o == DNET_SR_CTL_RESET && R(4)) break;
			if (o == DNET_SR_SDIMM_INIT && R(4)) break;
			rc = dnet_write64(d, DNET_SREG_BASE + o, val, &e);
			h = o ^ val;
			break;
		}
		case 15: {
			uint32_t off = DNET_PW_BASE + (uint32_t)R(2) * 0x2000 + (uint32_t)R(0x800);
			size_t n = R(0x900);
			rc = R(2) ? dnet_prefetch(d, off, n, &e) : dnet_cache_flush(d, off, n, &e);
			break;
		}
		case 16: { /* narrow accesses */
			static const unsigned w[] = { 1, 2, 4, 8, 16 };
			unsigned wd = w[R(5)];
			uint32_t off = (uint32_t)R(0x52000) & ~(wd - 1);
			if (R(2)) { fill(buf, wd); rc = dnet_write(d, off, buf, wd, &e); h = off; }
			else { memset(rbuf, 0, 16); rc = dnet_read(d, off, rbuf, wd, &e); h = fnv(rbuf, 16); }
			break;
		}
		case 17: {
			unsigned wid = (unsigned)R(2);
			rc = dnet_wait(d, DNET_UREG_WID(wid) + DNET_UR_CTL_STATUS, 1ull << R(20), R(2) ? DNET_COND_EQ : DNET_COND_NE, 0,
				       R(100000), &v, &e);
			h = v;
			break;
		}
		default: {
			/* stats of the current node */
			const char *const *names = dnet_stat_names(d);
			for (unsigned i = 0; names[i]; i++) {
				uint64_t x = 0;
				if (!dnet_stat(d, names[i], &x, &e))
					h = h * 1000003 + x;
			}
			break;
		}
		}
		printf("%d op%u rc%d h%016llx %s\n", st, op, rc, (unsigned long long)h, rc ? e.msg : "");
	}
	/* final: all nodes, whole-ish memory digest */
	for (unsigned k = 1; k <= nodes; k++) {
		d = dnet_node_dev(d, k, &e);
		uint64_t h = 0;
		for (uint64_t a = 0; a < (1u << 23); a += sizeof rbuf) {
			dnet_sodimm_access(d, a, rbuf, sizeof rbuf, false, &e);
			h ^= fnv(rbuf, sizeof rbuf) + a;
		}
		for (unsigned w = 0; w < 2; w++) {
			dnet_read_block(d, DNET_LLCM_WID(w), rbuf, DNET_LLCM_SIZE, &e); h ^= fnv(rbuf, DNET_LLCM_SIZE) * 3;
			dnet_read_block(d, DNET_PW_WID(w), rbuf, DNET_WINAREA_SIZE, &e); h ^= fnv(rbuf, DNET_WINAREA_SIZE) * 5;
			dnet_read_block(d, DNET_LHB_WID(w), rbuf, DNET_LHB_SIZE, &e); h ^= fnv(rbuf, DNET_LHB_SIZE) * 7;
		}
		const char *const *names = dnet_stat_names(d);
		for (unsigned i = 0; names[i]; i++) {
			uint64_t x = 0;
			if (!dnet_stat(d, names[i], &x, &e))
				printf("node %u %s %llu\n", k, names[i], (unsigned long long)x);
		}
		printf("node %u mem %016llx\n", k, (unsigned long long)h);
	}
	dnet_close(d);
	return 0;
}
EOC
libs=$(pkg-config --libs libcjson libpci 2>/dev/null || echo -lcjson -lpci)
cc -std=c11 -D_GNU_SOURCE -O2 -Ilibdnet/include -o "$tmp/old" "$tmp/d.c" "$old" $libs -lm
cc -std=c11 -D_GNU_SOURCE -O2 -Ilibdnet/include -o "$tmp/new" "$tmp/d.c" "$new" $libs -lm
fail=0
for spec in sim:nodes=3 sim:nodes=2,timelines "sim:nodes=4,faults=drop:3%+dup:2%+reorder:2%" \
	    sim:nodes=2,mtu=4096,capacity=512 sim:nodes=3,cold sim:nodes=2,fifo=2,halt_on_error \
	    sim:nodes=5,mtu=256 "sim:nodes=3,timelines,trace=@T"; do
	for seed in $seeds; do
		"$tmp/old" "$seed" "${spec/@T/$tmp/old.trace}" "$steps" >"$tmp/o.old" 2>&1 || true
		"$tmp/new" "$seed" "${spec/@T/$tmp/new.trace}" "$steps" >"$tmp/o.new" 2>&1 || true
		if cmp -s "$tmp/o.old" "$tmp/o.new" &&
		   { [ ! -e "$tmp/old.trace" ] || cmp -s "$tmp/old.trace" "$tmp/new.trace"; }; then
			echo "same  seed $seed  $spec  ($(wc -l <"$tmp/o.old") lines)"
		else
			echo "DIFF  seed $seed  $spec"; diff "$tmp/o.old" "$tmp/o.new" | head -5 || true
			fail=1
		fi
		rm -f "$tmp/old.trace" "$tmp/new.trace"
	done
done
exit $fail
