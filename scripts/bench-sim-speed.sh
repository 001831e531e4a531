#!/usr/bin/env bash
# Speed of the emulator on this machine: host (wall-clock) time to run
# primitives, next to the virtual time they take on the modelled hardware.
# Prints the median of 5 runs per case and the slowdown ratio wall/virtual.
# A benchmark, not a test.   usage: bench-sim-speed.sh [COUNT]
set -eu
cd "$(dirname "$0")/.."
lib=${LIBDNET_A:-lib/libdnet.a}
count=${1:-2000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/b.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dnet/dnet.h"
static double now(void)
{
	struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
int main(int argc, char **argv)
{
	const char *prim = argv[1];
	unsigned size = (unsigned)atoi(argv[2]), count = (unsigned)atoi(argv[3]);
	struct dnet_err e; struct dnet_dev *d;
	if (dnet_open("sim:nodes=2", &d, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
	const struct dnet_otype_info *oi = dnet_otype_by_name(prim);
	struct dnet_req r = { .otype = oi->code, .dclid = 2, .size = size, .srcoff = 0,
			      .dstoff = oi->family == DNET_FAM_VL ? 0 : 0x100000 };
	struct dnet_cmd c;
	if (dnet_req_encode(&r, &c, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
	uint64_t v0, v1;
	dnet_now(d, &v0, &e);
	double t0 = now();
	for (unsigned i = 0; i < count; i++)
		if (dnet_issue(d, 0, DNET_CMD0, &c, 1000000000ull, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
	/* until the node is idle */
	for (bool busy = true; busy; ) { dnet_delay(d, 1000, &e); dnet_busy(d, &busy, &e); }
	double t1 = now();
	dnet_now(d, &v1, &e);
	printf("%.9f %.9f\n", t1 - t0, (v1 - v0) * 1e-9);
	dnet_close(d);
	return 0;
}
EOC
cc -std=c11 -D_GNU_SOURCE -O2 -Ilibdnet/include -o "$tmp/b" "$tmp/b.c" "$lib" \
   $(pkg-config --libs libcjson libpci 2>/dev/null || echo -lcjson -lpci) -lm
printf '%-6s %6s %8s %14s %14s %12s %10s\n' prim size count wall_med_s virtual_s prims_per_s wall/virt
for c in "VS 512" "VL 512" "RVS 64" "RVS 2048" "RVS 65536"; do
	set -- $c
	for i in 1 2 3 4 5; do "$tmp/b" "$1" "$2" "$count"; done | sort -n | sed -n 3p | {
		read -r wall virt
		awk -v p="$1" -v s="$2" -v n="$count" -v w="$wall" -v v="$virt" \
		    'BEGIN { printf "%-6s %6s %8s %14.6f %14.6f %12.0f %10.1f\n", p, s, n, w, v, n / w, w / v }'
	}
done
