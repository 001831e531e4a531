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
# Three daemons, so that the checks that must time out run at once (a lone rank 0 and a lone
# rank 1 on one daemon would make a run).  On each: a full run, then ranks alone.
for i in 1 2 3; do start_dnetd "$T_TMP/d$i.sock" --sim -N 2; done
BE=remote:unix:$T_TMP/d1.sock
# by_hand SOCK NAME ENV... -- COMMANDS: ranks 0 and 1 at once, by hand (no launcher); both pass
by_hand() {
	local sock=$1 name=$2; shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" DSH_RANK=0 DSH_SIZE=2 "$BIN/dsh" -b "remote:unix:$sock" -c "$1" >"$S/h0" 2>&1 &
	local p=$!
	env "${envs[@]}" DSH_RANK=1 DSH_SIZE=2 "$BIN/dsh" -b "remote:unix:$sock" -c "$1" >"$S/h1" 2>&1
	local r1=$? r0
	wait "$p"; r0=$?
	expect_eq "$name: both ranks pass" "0 0" "$r0 $r1"
}
# alone SOCK OUT RANK ENV... -- COMMANDS: one rank by hand; its exit status appended to OUT,
# its stderr in OUT.RANK.N
alone() {
	local sock=$1 out=$2 rank=$3; shift 3
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local n=1
	[ -f "$out" ] && n=$(($(wc -w <"$out") + 1))
	env "${envs[@]}" DSH_RANK="$rank" DSH_SIZE=2 "$BIN/dsh" -b "remote:unix:$sock" -c "$1" \
		>/dev/null 2>"$out.$n"
	printf '%s ' $? >>"$out"
}
printf 'barrier\nbarrier\n' >"$S/b2.dsh"
expect_status "a full 2-rank dsh-run on daemon 1" 0 tmo "$RUN" -n 2 -b "$BE" "$S/b2.dsh"
by_hand "$T_TMP/d2.sock" "a full run by hand (no DSH_RUN_ID)" -- 'barrier timeout=10s; barrier timeout=10s'
# run ids that collide: DSH_RUN_ID=7 twice (or one launcher job id reused)
by_hand "$T_TMP/d3.sock" "run id 7" DSH_RUN_ID=7 -- 'barrier timeout=10s; signal $next; barrier timeout=10s'
alone "$T_TMP/d1.sock" "$S/a1" 0 -- 'barrier timeout=3s' &
jobs=($!)
(
	alone "$T_TMP/d2.sock" "$S/a2" 0 -- 'barrier timeout=1s'
	alone "$T_TMP/d2.sock" "$S/a2" 1 -- 'barrier timeout=1s'
	# the launchers' job ids are still honoured: ranks of two different jobs never meet
	alone "$T_TMP/d2.sock" "$S/a4" 0 SLURM_JOB_ID=5 SLURM_PROCID=0 SLURM_NTASKS=2 -- 'barrier timeout=1s' &
	alone "$T_TMP/d2.sock" "$S/a4b" 1 SLURM_JOB_ID=6 SLURM_PROCID=1 SLURM_NTASKS=2 -- 'barrier timeout=1s'
	wait $!
) &
jobs+=($!)
(
	alone "$T_TMP/d3.sock" "$S/a3" 0 DSH_RUN_ID=7 -- 'barrier timeout=1s'
	alone "$T_TMP/d3.sock" "$S/a3" 1 DSH_RUN_ID=7 -- 'barrier timeout=1s'
	alone "$T_TMP/d3.sock" "$S/a3" 1 DSH_RUN_ID=7 -- 'waitfor 0 timeout=1s'
) &
jobs+=($!)
wait "${jobs[@]}" # (not the daemons)
expect_eq "after dsh-run: rank 0 alone times out" "1 " "$(cat "$S/a1")"
expect_match "rank 0 alone: rank 1 named" "rank 1 .*(did not arrive|has not joined)" "$(cat "$S/a1.1")"
expect_eq "after a run by hand: rank 0 alone, then rank 1 alone, time out" "1 1 " "$(cat "$S/a2")"
expect_match "rank 1 alone: rank 0 named" "rank 0" "$(cat "$S/a2.2")"
expect_eq "run id 7 again: rank 0 alone, rank 1 alone, a signal of the earlier run: time out" \
	"1 1 1 " "$(cat "$S/a3")"
expect_eq "two Slurm jobs do not meet" "1 1 " "$(cat "$S/a4" "$S/a4b")"
by_hand "$T_TMP/d1.sock" "partner started by hand too" -- 'barrier timeout=10s'
by_hand "$T_TMP/d2.sock" "partner started by hand too (2)" -- 'barrier timeout=10s'
by_hand "$T_TMP/d3.sock" "run id 7 again, both ranks" DSH_RUN_ID=7 -- 'barrier timeout=10s; signal $next; waitfor $prev timeout=10s'
by_hand "$T_TMP/d2.sock" "one Slurm job step meets" SLURM_JOB_ID=5 SLURM_STEP_ID=0 -- 'barrier timeout=10s'

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
expect_match "-b: rank 1's assertion named" "FAIL rank 1: .*rl_lost.dsh:9: assert" "$(cat "$T_TMP/err")"
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

# ---- what each backend gets, and when a reset is not possible ------------------------------
printf 'barrier\n' >"$S/one.dsh"
printf 'info\n' >"$S/info.dsh" # -b sim: every rank its own emulator, no barrier possible
for c in "restart:" "none:--no-reset" "process:-b sim:nodes=2" "reset:-b $BE"; do
	want=${c%%:*}
	read -r -a opt <<<"${c#*:}"
	sc=$S/one.dsh
	[ "$want" = process ] && sc=$S/info.dsh
	expect_status "isolation $want: run" 0 tmo "$RUN" -n 2 "${opt[@]}" "$sc" "$sc" --report "$S/i.json"
	expect_eq "isolation $want: in the report" "$want" "$(jq -r '.results.extra.isolation' "$S/i.json")"
done
# a user (unprivileged) connection cannot reset: exit 2 before the script, naming node and why
expect_status "-b as a user: no reset, exit 2" 2 tmo "$RUN" -n 2 -b "$BE,user" "$S/one.dsh" --report "$S/u.json"
expect_match "-b as a user: node and reason named" "could not reset node 1 \(rank 0, .*\) before .*one.dsh: .*privileged" "$(cat "$T_TMP/err")"
expect_eq "-b as a user: the script not run (errors, D-REPORT-NOT-RUN)" "other other" "$(jq -r '[.results.tests[].status] | join(" ")' "$S/u.json")"
expect_status "-b as a user, --no-reset: runs" 0 tmo "$RUN" -n 2 -b "$BE,user" --no-reset "$S/one.dsh"
# a board under a launcher: dsh-run cannot reach other hosts' boards
expect_status "a board under pdsh: refused" 2 "$RUN" -n 2 -l pdsh -b devmem:0x0 "$S/one.dsh"
expect_match "a board under pdsh: why" "cannot reset rank 0's board \(devmem:0x0\).*--no-reset" "$(cat "$T_TMP/err")"
# The daemons, stopped at once: a sanitizer's exit check sometimes takes stop_pid's 5 s
for p in "${T_PIDS[@]}"; do stop_pid "$p" & done
wait
T_PIDS=()
finish
