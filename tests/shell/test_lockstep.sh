#!/usr/bin/env bash
# dsh-run --lockstep / dnetd --lockstep N: every node's host has its own
# virtual clock and dnetd serves the ranks in virtual-time order, so a run
# gives the same virtual times every time (D-SIM-TIMELINES).
. "$(dirname "$0")/lib.sh"
RUN=$DSH_RUN
S=$T_TMP
tmo() { env TMPDIR="$S" timeout 300 "$@"; }
host_ns() { # DIR -> "node ns" per rank, sorted by node
	grep -h '"host_ns"' "$1"/s0.rank*.json | sed 's/.*"node":\([0-9]*\).*"host_ns":\([0-9]*\).*/\1 \2/' | sort -n |
		tr '\n' ' ' | sed 's/ $//'
}
kept() { sed -n 's/^dsh-run: outputs kept in //p' "$T_TMP/err"; }

# ---- per-host clocks: rank r sleeps r x 100 us; the others do not wait for it ----
cat >"$S/sleep.dsh" <<'EOF'
set step 0
repeat $rank
sleep 100us
end
stat host_ns
EOF
expect_status "lockstep sleep run" 0 tmo "$RUN" -n 4 --lockstep --keep "$S/sleep.dsh"
D=$(kept)
read -r _ t0 _ t1 _ t2 _ t3 <<<"$(host_ns "$D")"
if [ "${t0:-x}" != x ] && [ "$t0" -lt 100000 ] && [ "$t1" -ge 100000 ] && [ "$t3" -ge 300000 ] &&
	[ "$t0" -lt "$t1" ] && [ "$t1" -lt "$t2" ] && [ "$t2" -lt "$t3" ]; then
	pass
else
	fail "per-host clocks: got [$(host_ns "$D")], want rank 0 < 100 us and rank r >= r x 100 us"
fi
# steps of 100 us between ranks, exactly (the sleeps are the only difference)
expect_eq "rank 2 - rank 1 = rank 1 - rank 0" "$((t1 - t0))" "$((t2 - t1))"

# ---- the same run twice: the same virtual times on every rank ----
cat >"$S/ring.dsh" <<'EOF'
set step 0
llcm_write from=0 it=64 val=$rank inc=1
barrier
repeat 10
prim RVS dl=$next_clid size=4096 src=0 dst=0x100000 wait
end
barrier
prim VL size=512 src=0x100000 dst=0 wait
stat host_ns
EOF
expect_status "lockstep ring run 1" 0 tmo "$RUN" -n 4 --lockstep --keep "$S/ring.dsh"
A=$(host_ns "$(kept)")
expect_status "lockstep ring run 2" 0 tmo "$RUN" -n 4 --lockstep --keep "$S/ring.dsh"
B=$(host_ns "$(kept)")
expect_match "four clocks" "^1 [0-9]+ 2 [0-9]+ 3 [0-9]+ 4 [0-9]+$" "$A"
expect_eq "same virtual times" "$A" "$B"

# ---- every shipped script on 8 ranks, twice (the README's example): every rank passes within
# ---- dsh-run's default timeout, and every rank ends every script at the same virtual time ----
# (status_ring_wrap.dsh timed out on every rank: each rank polling for its token's signal took a
# round trip through dnetd per microsecond of virtual time, and a real-time pause that held all the
# others; D-LOCKSTEP-BOUND)
SUITE=$(cd "$(dirname "$0")/../.." && pwd)/scripts/tests
mkdir -p "$S/shipped"
for f in "$SUITE"/*.dsh; do { cat "$f"; echo "stat host_ns"; } >"$S/shipped/$(basename "$f")"; done
all_host_ns() { # DIR -> "sI.rankR ns" per line, sorted
	for j in "$1"/s*.rank*.json; do
		printf '%s %s\n' "$(basename "$j" .json)" "$(grep -h '"host_ns"' "$j" | tail -n 1 |
			sed 's/.*"host_ns":\([0-9]*\).*/\1/')"
	done | sort
}
NSHIP=$(ls "$S/shipped"/*.dsh | wc -l)
expect_status "8 ranks x $NSHIP shipped scripts, lockstep, run 1" 0 tmo "$RUN" -n 8 --lockstep --keep "$S/shipped"/*.dsh
expect_match "every rank of every script passed" "^$((8 * NSHIP)) passed, 0 failed" "$(tail -n 2 "$T_TMP/err" "$T_TMP/out" | grep passed)"
A=$(all_host_ns "$(kept)")
expect_status "8 ranks x $NSHIP shipped scripts, lockstep, run 2" 0 tmo "$RUN" -n 8 --lockstep --keep "$S/shipped"/*.dsh
B=$(all_host_ns "$(kept)")
expect_eq "a virtual time for every rank of every script" "$((8 * NSHIP))" "$(grep -c ' [0-9][0-9]*$' <<<"$A")"
expect_eq "the same virtual times per rank and script" "$A" "$B"

# ---- the capability: a lockstep dnetd says so in its HELLO reply (libdnet's barrier and
# ---- signals then wait in dnetd instead of polling); a free one does not ----
start_dnetd "$S/ls1.sock" --sim -N 2 --lockstep 1
expect_match "lockstep dnetd: caps name lockstep" "^caps .* lockstep" \
	"$(timeout 60 "$BIN/dsh" -b "remote:unix:$S/ls1.sock" -c info 2>&1 | grep '^caps')"
start_dnetd "$S/free.sock" --sim -N 2
out=$(timeout 60 "$BIN/dsh" -b "remote:unix:$S/free.sock" -c info 2>&1 | grep '^caps')
if [ -n "$out" ] && ! grep -q lockstep <<<"$out"; then pass; else fail "free dnetd: caps [$out] name lockstep"; fi

# ---- refusals ----
expect_status "--lockstep with -b" 2 "$RUN" -n 2 --lockstep -b sim "$S/sleep.dsh"
expect_match "names why" "--lockstep goes with the private emulated cluster" "$(cat "$T_TMP/err")"
expect_status "dnetd --lockstep 0" 2 "$DNETD" --sim --lockstep 0
expect_match "dnetd names it" "--lockstep" "$(cat "$T_TMP/err")"
finish
