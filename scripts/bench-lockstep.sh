#!/usr/bin/env bash
# dsh-run --lockstep against the free run (issue 32): the wall time of the
# shipped scripts (scripts/tests/*.dsh) on dsh-run's private dnetd, per rank
# count, medians of LOCKSTEP_RUNS (3) runs of each, and the ratio lockstep /
# free.  Goal: at most 3x at 8 ranks (D-LOCKSTEP-BOUND).  A benchmark, not a
# test: the machine is shared; a run that fails is named, not timed.
# One rank runs none of them whole (ping-pong and ring scripts need a
# partner): it is named, not timed.
#   usage: bench-lockstep.sh [N...]   (default 1 2 4 8)
set -eu
cd "$(dirname "$0")/.."
RUNS=${LOCKSTEP_RUNS:-3} # make test runs it once (test_make_bench.sh)
GOAL=3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(1 2 4 8)
scripts=(scripts/tests/*.dsh)
median() { sort -g | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "nan"}'; }
# one run: its wall time in seconds on stdout, or "fail"
run() {
	local t0 t1
	t0=$(date +%s.%N)
	if TMPDIR=$tmp bin/dsh-run "$@" "${scripts[@]}" >"$tmp/out" 2>&1; then
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f\n", b - a}'
	else
		echo fail
	fi
}
echo "dsh-run --lockstep against the free run: ${#scripts[@]} shipped scripts, private dnetd, $(nproc) CPUs;" \
	"wall time, medians of $RUNS runs"
printf '  %5s %10s %14s %8s\n' ranks "free (s)" "lockstep (s)" ratio
last=
for n in "${ns[@]}"; do
	: >"$tmp/free" >"$tmp/ls"
	bad=
	for _ in $(seq "$RUNS"); do
		f=$(run -n "$n")
		l=$(run -n "$n" --lockstep)
		[ "$f" != fail ] || bad="free run failed"
		[ "$l" != fail ] || bad="${bad:+$bad, }lockstep run failed: $(grep -m 1 FAIL "$tmp/out" || tail -n 1 "$tmp/out")"
		[ -z "$bad" ] || break
		echo "$f" >>"$tmp/free"
		echo "$l" >>"$tmp/ls"
	done
	if [ -n "$bad" ]; then
		echo "  $n rank(s): not timed: $bad"
		continue
	fi
	f=$(median <"$tmp/free")
	l=$(median <"$tmp/ls")
	r=$(awk -v f="$f" -v l="$l" 'BEGIN{printf "%.2f", (f > 0 ? l / f : 0)}')
	printf '  %5s %10s %14s %7sx\n' "$n" "$f" "$l" "$r"
	last="$n $r"
done
if [ -n "$last" ]; then
	set -- $last
	if [ "$1" != 8 ]; then
		echo "  lockstep / free at $1 ranks: ${2}x (the goal, <= ${GOAL}x, is judged at 8 ranks: not measured)"
	elif awk -v r="$2" -v g="$GOAL" 'BEGIN{exit !(r <= g)}'; then
		echo "  lockstep / free at 8 ranks: ${2}x (goal <= ${GOAL}x: met)"
	else
		echo "  lockstep / free at 8 ranks: ${2}x (goal <= ${GOAL}x: NOT MET)"
		echo "  limit: every request of a rank through dnetd is served only when no other rank could still come earlier"
		echo "    (lookahead 0: the nodes share one emulated device), so ranks polling at once take turns"
	fi
fi

