#!/usr/bin/env bash
# make bench (scripts/bench.sh) runs to the end and every toolkit figure
# carries its verdict; a figure short of its goal names its limit.  Not a
# timing test: the figures themselves are not judged (a shared machine).
# The benchmark scripts use the plain build (bin/, lib/), so the suite runs
# once, for the plain variant.
. "$(dirname "$0")/lib.sh"
case "$BIN" in
*san*) not_applicable "the benchmarks use the plain build: run for it, not here"; finish; exit ;;
esac
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
out=$T_TMP/bench.txt
# one run per rank count: the figures are not judged here, only that each is made
BARRIER_RUNS=1 LOCKSTEP_RUNS=1 bash "$ROOT/scripts/bench.sh" >"$out" 2>&1
expect_eq "scripts/bench.sh exit status" 0 "$?"
for b in bench-barrier bench-lockstep bench-sim-rss bench-sim-speed bench-thesis bench-toolkit; do
	expect_match "section $b" "== $b" "$(cat "$out")"
done
# bench-barrier: a row per rank count up to the limit, and the limit said
bar=$(sed -n '/^== bench-barrier/,/^== /p' "$out")
expect_match "barrier bench: 16 ranks" "^ +16 +4 +[0-9.]+ +[0-9.]+ " "$bar"
expect_match "barrier bench: 480 ranks (the limit)" "^ +480 +9 +[0-9.]+ +[0-9.]+ " "$bar"
expect_match "barrier bench: its limit" "limit: at most 480 ranks" "$bar"
# bench-lockstep: free and lockstep wall times per rank count, the ratio at 8 ranks with its verdict
ls=$(sed -n '/^== bench-lockstep/,/^== /p' "$out")
for n in 2 4 8; do
	expect_match "lockstep bench: $n ranks" "^ +$n +[0-9.]+ +[0-9.]+ +[0-9.]+x$" "$ls"
done
expect_match "lockstep bench: the ratio at 8 ranks judged" "lockstep / free at 8 ranks: [0-9.]+x \(goal <= 3x: (met|NOT MET)\)" "$ls"
expect_eq "no script needs an argument" "" "$(grep -E 'unbound variable|usage:' "$out")"
# bench-toolkit: every figure line ends in a verdict
figs=$(sed -n '/^== bench-toolkit/,/^== /p' "$out" | grep -E '^(remote|sim RVS|sim SO-DIMM|dsh|QEMU)' | grep -v 'not installed')
n=$(printf '%s\n' "$figs" | grep -c .)
[ "$n" -ge 15 ] && pass || fail "toolkit figures measured: $n, expected 15 (16 with QEMU)"
# issue 26's figures, each with its verdict
for f in 'sim SO-DIMM backdoor read / write' 'remote block write 1 MB \(ww\) without posting' \
	'remote block read 1 MB \(llcm\)' 'sim RVS 65536 B, share of memcpy' 'sim RVS 1048576 B, share of memcpy' \
	'dsh @2 llcm_read 0 8 through remote: [0-9]+ commands/s; without @2: [0-9]+ commands/s'; do
	expect_match "figure: $f" "^$f.*(met|NOT MET)\$" "$figs"
done
expect_eq "each with a verdict" "" "$(printf '%s\n' "$figs" | grep -v -E '(met|NOT MET)\)?$')"
# a NOT MET figure is followed by its limit
python3 - "$out" <<'PYEOF' && pass || fail "a figure short of its goal without a limit line"
import sys
lines = open(sys.argv[1]).read().splitlines()
ok = all(i + 1 < len(lines) and lines[i + 1].startswith("  limit:")
         for i, l in enumerate(lines) if "NOT MET" in l)
sys.exit(0 if ok else 1)
PYEOF
finish
