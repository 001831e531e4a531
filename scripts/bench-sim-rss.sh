#!/usr/bin/env bash
# Memory footprint of the emulator: open sim:nodes=N, touch every node
# (one 64 KB RVS to its neighbour), print virtual time and peak RSS.
# A benchmark, not a test: it prints figures.   usage: bench-sim-rss.sh [N...]
set -eu
cd "$(dirname "$0")/.."
lib=${LIBDNET_A:-lib/libdnet.a}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/b.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "dnet/dnet.h"
int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 64;
	char spec[64]; snprintf(spec, sizeof spec, "sim:nodes=%u", n);
	struct dnet_err e; struct dnet_dev *d;
	if (dnet_open(spec, &d, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
	static unsigned char buf[65536];
	for (unsigned i = 1; i <= n; i++) {
		struct dnet_req r = { .otype = DNET_OT_RVS, .dclid = i % n + 1, .size = sizeof buf,
				      .srcoff = 0, .dstoff = 0x100000 };
		struct dnet_cmd c;
		struct dnet_dev *h = dnet_node_dev(d, i, &e); /* node i's handle */
		if (!h) { fprintf(stderr, "%s\n", e.msg); return 1; }
		dnet_sodimm_access(h, 0, buf, sizeof buf, true, &e);
		buf[0]++;
		if (dnet_req_encode(&r, &c, &e) || dnet_issue(h, 0, DNET_CMD0, &c, 1000000000, &e)) {
			fprintf(stderr, "%s\n", e.msg); return 1;
		}
	}
	dnet_delay(d, 10000000, &e);
	uint64_t t = 0, ev = 0; dnet_now(d, &t, &e); dnet_stat(d, "events", &ev, &e);
	struct rusage ru; getrusage(RUSAGE_SELF, &ru);
	printf("nodes=%u vtime_ns=%llu events=%llu peak_rss_mb=%.1f\n", n,
	       (unsigned long long)t, (unsigned long long)ev, ru.ru_maxrss / 1024.0);
	dnet_close(d);
	return 0;
}
EOC
cc -std=c11 -D_GNU_SOURCE -O2 -Ilibdnet/include -o "$tmp/b" "$tmp/b.c" \
   "$lib" $(pkg-config --libs libcjson libpci 2>/dev/null || echo -lcjson -lpci) -lm
[ $# -gt 0 ] || set -- 1 64 3071
for n in "$@"; do "$tmp/b" "$n"; done
