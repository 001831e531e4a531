#!/usr/bin/env bash
# Speed of the emulator on this machine: host (wall-clock) time to run
# primitives, next to the virtual time they take on the modelled hardware.
# Prints the median of 5 runs per case and the slowdown ratio wall/virtual.
# Then the toolkit figures of the emulator (issue 10 part 3, the table in
# docs/timing-model.md): 1 MB block transfers through the sim backend and
# RVS payload per second, as medians of 5 runs beside memcpy measured in
# the same run -- per wall second and per CPU second of the process (the
# VM is shared: when other work takes the CPUs, wall figures drop and the
# CPU figures do not).
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

cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dnet/dnet.h"
static double clk(clockid_t c)
{
	struct timespec ts; clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}
#define RUNS 5
static struct dnet_err e;
static void die(const char *w) { fprintf(stderr, "%s: %s\n", w, e.msg); exit(1); }
/* MB/s per wall second and per CPU second, medians of RUNS */
int main(int argc, char **argv)
{
	const char *what = argv[1];
	double vw[RUNS], vc[RUNS];
	static uint8_t a[1 << 20], c[1 << 20];
	struct dnet_dev *d = NULL;
	if (strcmp(what, "memcpy") && dnet_open("sim:nodes=2", &d, &e))
		die("open");
	memset(a, 1, sizeof a);
	/* data that is not zero where RVS and the SO-DIMM reads take it from
	 * (untouched SO-DIMM reads as zeros without being stored) */
	if (d && (dnet_sodimm_access(d, 0, a, sizeof a, true, &e) ||
		  dnet_sodimm_access(d, 0x100000, a, sizeof a, true, &e)))
		die("fill");
	for (int r = 0; r < RUNS; r++) {
		double w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID), bytes = 0;
		if (!strcmp(what, "memcpy")) {
			for (int i = 0; i < 200; i++) {
				memcpy(c, a, sizeof a);
				a[i] = c[i + 1];
			}
			bytes = 200.0 * sizeof a;
		} else if (!strcmp(what, "rvs")) {
			unsigned size = (unsigned)atoi(argv[2]);
			struct dnet_req q = { .otype = DNET_OT_RVS, .dclid = 2, .size = size, .dstoff = 0x1000000 };
			struct dnet_cmd cmd;
			if (dnet_req_encode(&q, &cmd, &e))
				die("encode");
			int n = (int)((64u << 20) / size);
			for (int i = 0; i < n; i++) {
				if (dnet_issue(d, 0, DNET_CMD0, &cmd, 1000000000ull, &e))
					die("issue");
				for (bool busy = true; busy;)
					if (dnet_delay(d, 10000, &e) || dnet_busy(d, &busy, &e))
						die("busy");
			}
			bytes = (double)n * size;
		} else {
			/* 1 MB through a region, block by block, 20 times */
			bool wr = what[0] == 'w';
			const char *reg = strchr(what, ':') + 1;
			uint32_t base = !strcmp(reg, "ww") ? DNET_WW_WID(0) : DNET_LLCM_WID(0);
			size_t blk = !strcmp(reg, "ww") ? 2048 : !strcmp(reg, "llcm") ? 32768 : 1 << 20;
			for (int k = 0; k < 20; k++)
				for (size_t done = 0; done < sizeof a; done += blk) {
					int rc = !strcmp(reg, "sodimm") ? dnet_sodimm_access(d, 0x100000, a, blk, wr, &e)
						 : wr ? dnet_write_block(d, base, a, blk, &e)
						      : dnet_read_block(d, base, a, blk, &e);
					if (rc)
						die(what);
				}
			bytes = 20.0 * sizeof a;
		}
		vw[r] = bytes / (clk(CLOCK_MONOTONIC) - w0) / 1e6;
		vc[r] = bytes / (clk(CLOCK_PROCESS_CPUTIME_ID) - c0) / 1e6;
	}
	qsort(vw, RUNS, sizeof *vw, cmp);
	qsort(vc, RUNS, sizeof *vc, cmp);
	printf("%.0f %.0f\n", vw[RUNS / 2], vc[RUNS / 2]);
	if (d)
		dnet_close(d);
	return 0;
}
EOC
cc -std=c11 -D_GNU_SOURCE -O2 -Ilibdnet/include -o "$tmp/t" "$tmp/t.c" "$lib" \
   $(pkg-config --libs libcjson libpci 2>/dev/null || echo -lcjson -lpci) -lm
echo
read -r mw mc < <("$tmp/t" memcpy)
printf '%-34s %12s %8s %12s %8s\n' "toolkit figure (medians of 5)" "MB/s wall" "memcpy" "MB/s CPU" "memcpy"
printf '%-34s %12s %8s %12s %8s\n' "memcpy 1 MB (cache-warm)" "$mw" "100 %" "$mc" "100 %"
for c in "write:ww" "write:llcm" "write:sodimm" "read:llcm" "read:sodimm" "rvs 65536" "rvs 1048576"; do
	set -- $c
	read -r w cp < <("$tmp/t" "$@")
	case $1 in
	rvs) label="sim RVS $2 B, payload" ;;
	*) label="sim block ${1%%:*} 1 MB, ${1#*:}" ;;
	esac
	awk -v l="$label" -v w="$w" -v c="$cp" -v mw="$mw" -v mc="$mc" \
	    'BEGIN { printf "%-34s %12.0f %6.1f %% %12.0f %6.1f %%\n", l, w, 100 * w / mw, c, 100 * c / mc }'
done
