#!/usr/bin/env bash
# Runs are isolated (issue 21, Deliver 3; docs/decisions.md D-SYNC-RUN and
# D-RUN-STATE):
#  - barrier/signal flags are never taken from another run: ranks started by
#    hand with no launcher and no DSH_RUN_ID, and runs whose run ids collide;
#  - every script of a dsh-run starts from a device state it can rely on:
#    data an earlier script left at a destination, and the sticky Controller
#    Status flags it raised, are gone (private dnetd: a fresh one per script;
#    -b: Controller Reset and cleared LLCM of every rank's node), unless
#    --no-reset;
#  - an allowed rc_overrun of one script does not hide a real one of the next.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"
RUN=$DSH_RUN
tmo() { timeout 120 "$@"; }
S=$T_TMP

# ---- barrier flags of an earlier run --------------------------------------------------------
SOCK=$T_TMP/d.sock
start_dnetd "$SOCK" --sim -N 2
BE=remote:unix:$SOCK
# by_hand NAME ENV... -- COMMANDS: ranks 0 and 1 at once, by hand (no launcher); both must pass
by_hand() {
	local name=$1; shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" DSH_RANK=0 DSH_SIZE=2 "$BIN/dsh" -b "$BE" -c "$1" >"$S/h0" 2>&1 &
	local p=$!
	env "${envs[@]}" DSH_RANK=1 DSH_SIZE=2 "$BIN/dsh" -b "$BE" -c "$1" >"$S/h1" 2>&1
	local r1=$? r0
	wait "$p"; r0=$?
	expect_eq "$name: both ranks pass" "0 0" "$r0 $r1"
}
alone() { # NAME RANK ENV... -- COMMANDS: one rank by hand; it must fail (time out)
	local name=$1 rank=$2; shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	expect_status "$name" 1 env "${envs[@]}" DSH_RANK="$rank" DSH_SIZE=2 "$BIN/dsh" -b "$BE" -c "$1"
}
printf 'barrier\nbarrier\n' >"$S/b2.dsh"
expect_status "a full 2-rank dsh-run on the daemon" 0 tmo "$RUN" -n 2 -b "$BE" "$S/b2.dsh"
alone "after dsh-run: rank 0 alone times out" 0 -- 'barrier timeout=3s'
expect_match "rank 0 alone: rank 1 named" "rank 1 .*(did not arrive|has not joined)" "$(cat "$T_TMP/err")"
by_hand "a full run by hand (no DSH_RUN_ID)" -- 'barrier timeout=10s; barrier timeout=10s'
alone "after a run by hand: rank 0 alone times out" 0 -- 'barrier timeout=1s'
alone "after a run by hand: rank 1 alone times out" 1 -- 'barrier timeout=1s'
expect_match "rank 1 alone: rank 0 named" "rank 0" "$(cat "$T_TMP/err")"
by_hand "partner started by hand too" -- 'barrier timeout=10s'
# run ids that collide: DSH_RUN_ID=7 twice (or one launcher job id reused)
by_hand "run id 7" DSH_RUN_ID=7 -- 'barrier timeout=10s; signal $next; barrier timeout=10s'
alone "run id 7 again: rank 0 alone times out" 0 DSH_RUN_ID=7 -- 'barrier timeout=1s'
alone "run id 7 again: rank 1 alone times out" 1 DSH_RUN_ID=7 -- 'barrier timeout=1s'
alone "run id 7 again: a signal of the earlier run is not taken" 1 DSH_RUN_ID=7 -- 'waitfor 0 timeout=1s'
by_hand "run id 7 again, both ranks" DSH_RUN_ID=7 -- 'barrier timeout=10s'
# the launchers' job ids are still honoured: ranks of two different jobs never meet
(
	SLURM_JOB_ID=5 SLURM_PROCID=0 SLURM_NTASKS=2 "$BIN/dsh" -b "$BE" -c 'barrier timeout=2s' >"$S/j0" 2>&1 &
	SLURM_JOB_ID=6 SLURM_PROCID=1 SLURM_NTASKS=2 "$BIN/dsh" -b "$BE" -c 'barrier timeout=2s' >"$S/j1" 2>&1
	r1=$?
	wait $!
	echo "$? $r1" >"$S/j.rc"
)
expect_eq "two Slurm jobs do not meet" "1 1" "$(cat "$S/j.rc")"
(
	SLURM_JOB_ID=5 SLURM_STEP_ID=0 SLURM_PROCID=0 SLURM_NTASKS=2 "$BIN/dsh" -b "$BE" -c 'barrier timeout=10s' >"$S/j0" 2>&1 &
	SLURM_JOB_ID=5 SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_NTASKS=2 "$BIN/dsh" -b "$BE" -c 'barrier timeout=10s' >"$S/j1" 2>&1
	r1=$?
	wait $!
	echo "$? $r1" >"$S/j.rc"
)
expect_eq "one Slurm job step meets" "0 0" "$(cat "$S/j.rc")"

# ---- data an earlier script left at the destination ------------------------------------------
# Rank 0 sends 8 bytes to node 2's SO-DIMM (DL: CLID 2, or 9, no such node), rank 1 checks them
# after a barrier.
cat >"$S/send.dsh" <<'EOF'
set n 1
repeat $rank; set n 0; end
repeat $n
  sodimm write 0x800000 0x1122334455667788
  prim RVS dl=DL size=8 src=0x800000 dst=0x810000 ALLOW wait
end
barrier
repeat $rank
  assert sodimm 0x810000 == 0x1122334455667788
end
EOF
sed 's/DL/2/; s/ALLOW //' "$S/send.dsh" >"$S/send_ok.dsh"
sed 's/DL/9/; s/ALLOW/allow=unroutable/' "$S/send.dsh" >"$S/send_lost.dsh" # CLID 9: no such node
expect_status "lost RVS after a good one: the second script fails" 1 \
	tmo "$RUN" -n 2 "$S/send_ok.dsh" "$S/send_lost.dsh" --report "$S/b.json"
expect_match "lost RVS: rank 1's assertion named" "FAIL rank 1: .*send_lost.dsh:9: assert" "$(cat "$T_TMP/err")"
expect_eq "lost RVS: per test" "passed passed passed failed" "$(jq -r '[.results.tests[].status] | join(" ")' "$S/b.json")"
expect_status "the same with the failure removed passes" 0 tmo "$RUN" -n 2 "$S/send_ok.dsh" "$S/send_ok.dsh"
# LLCM data through a user-given dnetd (-b): rank 0's remote LLCM store into node 2, then a
# script whose store is never made ($sends 0: the failure).  LLCM is cleared between scripts.
cat >"$S/rl.dsh" <<'EOF'
set n $sends
repeat $rank; set n 0; end
repeat $n
  rllcm_write 2 0x4000 0xabcdef0123456789
end
barrier
repeat $rank
  assert llcm 0x4000 == 0xabcdef0123456789
end
EOF
{ echo 'set sends 1'; cat "$S/rl.dsh"; } >"$S/rl_ok.dsh"
{ echo 'set sends 0'; cat "$S/rl.dsh"; } >"$S/rl_lost.dsh"
expect_status "-b: lost LLCM store after a good one fails" 1 tmo "$RUN" -n 2 -b "$BE" "$S/rl_ok.dsh" "$S/rl_lost.dsh"
expect_match "-b: rank 1's assertion named" "FAIL rank 1: .*rl_lost.dsh:10: assert" "$(cat "$T_TMP/err")"
expect_status "-b: with the failure removed passes" 0 tmo "$RUN" -n 2 -b "$BE" "$S/rl_ok.dsh" "$S/rl_ok.dsh"
# --no-reset: the scripts share the device state (documented): the leak is back
expect_status "--no-reset: scripts share the state" 0 tmo "$RUN" -n 2 --no-reset "$S/send_ok.dsh" "$S/send_lost.dsh"

# ---- an allowed rc_overrun, then a real one -------------------------------------------------
cat >"$S/ovr_allowed.dsh" <<'EOF'
set n 1
repeat $rank; set n 0; end
repeat $n
  prim RVS dl=2 ef=1 size=0x200 src=0x1000 dst=0xfffff00 wait allow=rc_overrun
end
barrier
EOF
cat >"$S/ovr.dsh" <<'EOF'
set n 1
repeat $rank; set n 0; end
# every script starts with a clean Controller Status (no sticky flag of the one before)
assert ctl_status.rc_overrun == 0
barrier
repeat $n
  prim RVS dl=2 ef=1 size=0x200 src=0x1000 dst=$dst wait
end
barrier
EOF
{ echo 'set dst 0xfffff00'; cat "$S/ovr.dsh"; } >"$S/ovr_real.dsh"
{ echo 'set dst 0x1000'; cat "$S/ovr.dsh"; } >"$S/ovr_none.dsh"
for be in private "$BE"; do
	opt=()
	[ "$be" = private ] || opt=(-b "$be")
	expect_status "$be: allowed overrun, then a real one: fails" 1 \
		tmo "$RUN" -n 2 "${opt[@]}" "$S/ovr_allowed.dsh" "$S/ovr_real.dsh" --report "$S/o.json"
	expect_eq "$be: only rank 0 of the second script failed" "passed passed failed passed" \
		"$(jq -r '[.results.tests[].status] | join(" ")' "$S/o.json")"
	expect_match "$be: the real overrun named" "FAIL rank 0: .*ovr_real.dsh:8: prim: .*rc_overrun" "$(cat "$T_TMP/err")"
	expect_status "$be: allowed overrun, then none: passes" 0 \
		tmo "$RUN" -n 2 "${opt[@]}" "$S/ovr_allowed.dsh" "$S/ovr_none.dsh" --report "$S/o.json"
	expect_eq "$be: CTRF validates" "" "$(ctrf_valid "$S/o.json" 2>&1)"
done
expect_eq "the report says how scripts were isolated" "reset" "$(jq -r '.results.extra.isolation' "$S/o.json")"
finish
