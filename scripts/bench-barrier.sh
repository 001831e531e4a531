#!/usr/bin/env bash
# dsh's barrier against the number of ranks (issue 22, item 4): dsh-run -n N
# on its private dnetd (one emulated cluster on this machine), N from 16 to
# the most dsh-run takes (480: the signal words of the synchronisation
# area).  Per N, medians of BARRIER_RUNS (3) runs: the first barrier (the ranks join the
# run, D-SYNC-RUN: rank 0 offers and admits every rank one by one) and a
# barrier once joined (median of the 10 that follow, rank 0's elapsed_ns),
# with rounds and ratios.  A benchmark, not a test: the machine is shared.
#   usage: bench-barrier.sh [N...]   (default 16 32 64 128 256 480)
set -eu
cd "$(dirname "$0")/.."
RUNS=${BARRIER_RUNS:-3} # make test runs it once (test_make_bench.sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'barrier\nrepeat 10; barrier; end\n' >"$tmp/b.dsh"
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(16 32 64 128 256 480)
median() { sort -g | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "nan"}'; }
echo "barrier time against ranks: dsh-run -n N, private dnetd, $(nproc) CPUs; medians of $RUNS runs"
printf '  %5s %6s %12s %14s %10s %12s\n' ranks rounds "join (ms)" "barrier (ms)" "per round" "vs 16 ranks"
base=
for n in "${ns[@]}"; do
	: >"$tmp/join" >"$tmp/bar"
	ok=1
	for _ in $(seq "$RUNS"); do
		rm -rf "$tmp/keep" && mkdir "$tmp/keep"
		if ! TMPDIR=$tmp/keep bin/dsh-run -n "$n" -t 120s --keep "$tmp/b.dsh" >"$tmp/out" 2>&1; then
			ok=0
			break
		fi
		# rank 0's barriers: the first (joining), then the median of the others
		python3 - "$tmp"/keep/dsh-run.*/s0.rank0.json >>"$tmp/join" 2>>"$tmp/bar" <<'PY'
import json, sys
el = [o["result"]["elapsed_ns"] / 1e6 for o in map(json.loads, open(sys.argv[1])) if o.get("cmd") == "barrier"]
rest = sorted(el[1:])
print("%.2f" % el[0])
print("%.2f" % rest[len(rest) // 2], file=sys.stderr)
PY
	done
	if [ "$ok" = 0 ]; then
		echo "  $n ranks: dsh-run failed: $(grep -v '^dsh-run: FAIL' "$tmp/out" | head -3 | tr '\n' ' ')"
		continue
	fi
	rounds=$(awk -v n="$n" 'BEGIN{r = 0; for (d = 1; d < n; d *= 2) r++; print r}')
	j=$(median <"$tmp/join")
	b=$(median <"$tmp/bar")
	[ -n "$base" ] || base=$b
	printf '  %5s %6s %12s %14s %10s %12s\n' "$n" "$rounds" "$j" "$b" \
		"$(awk "BEGIN{printf \"%.2f ms\", $b / $rounds}")" "$(awk "BEGIN{printf \"%.1fx\", $b / $base}")"
done
echo "  limit: at most 480 ranks (the synchronisation area, 4 KB of every node's LLCM, holds one signal word"
echo "    per rank); on one machine every rank is a process polling one dnetd, so the time grows faster"
echo "    than the log2(N) rounds: the ranks share the CPUs and dnetd's one loop (polls back off with N)"
