#!/usr/bin/env bash
# The structure of a run (issue 31, Deliver 3 and 6; docs/decisions.md
# D-VERDICT-EXIT0, D-SYNC-PEERS, D-SYNC-WID, D-RUN-STATE), in process and
# through dnetd, every layer dsh and dsh-run write:
#  - `exit 0` in any but the last -c/-f source fails the run at its own line
#    (it had ended the run green without running the rest: class 4);
#  - two ranks on one CLID:WID are refused before anything runs
#    (DSH_RANKMAP; the node table and dnet_sync_open: test_dsh_run_launchers,
#    test_sync; class 5);
#  - `set wid` before the first barrier moves every rank's flags with it,
#    and after joining the flags stay where the rank joined (class 10);
#  - what a script sets in the emulator behind a -b dnetd (fault rules, the
#    fault seed, SWIF's timeout, step costs) is set back before the next
#    script (class 9).
# The launcher cells of these classes are in test_dsh_run_launchers.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"
S=$T_TMP
tmo() { timeout 60 "$@"; }
SOCK=$S/d.sock
start_dnetd "$SOCK" --sim -N 2
RB=remote:unix:$SOCK

# ---- exit 0 before the last source ---------------------------------------------------------
printf 'llcm_write from=0x10 it=1 val=1\nassert llcm 0x10 == 2\n' >"$S/t.dsh"
printf 'echo first\nexit 0\necho never\n' >"$S/e.dsh"
# exit0 NAME WHERE BACKEND-ARGS... -- SOURCES...: the run fails at exit's line WHERE in every layer
exit0() {
	local name=$1 where=$2 rc; shift 2
	local be=()
	while [ "$1" != -- ]; do be+=("$1"); shift; done
	shift
	tmo "$DSH" "${be[@]}" "$@" >"$S/x.out" 2>"$S/x.err"
	rc=$?
	expect_eq "$name: exit status" 1 "$rc"
	expect_match "$name: the error at exit's line" \
		"^dsh: $where: (exit|quit): (exit|quit) 0 ends the whole run, but 1 more -c/-f source of this run would not run, so the run fails" \
		"$(cat "$S/x.err")"
	expect_match "$name: text summary" "^0 passed, 0 failed, 1 error( \(the script asked to exit 0 at $where; the failure wins\))?$" \
		"$(tail -n 1 "$S/x.out")"
	tmo "$DSH" --json "${be[@]}" "$@" >"$S/x.json" 2>/dev/null
	expect_eq "$name: JSON summary ok exit_status failed_commands" "false 1 1" \
		"$(jq -r 'select(.summary) | .summary | "\(.ok) \(.exit_status) \(.failed_commands)"' "$S/x.json")"
	expect_eq "$name: nothing after exit ran" "" "$(grep -a 'never\|assert' "$S/x.out")"
}
exit0 "-c 'exit 0' -f t.dsh" -c:1 -- -c 'exit 0' -f "$S/t.dsh"
exit0 "-f e.dsh -f t.dsh" "$S/e.dsh:2" -- -f "$S/e.dsh" -f "$S/t.dsh"
exit0 "-f e.dsh -c ... through dnetd" "$S/e.dsh:2" -b "$RB" -- -f "$S/e.dsh" -c 'assert llcm 0x10 == 9'
exit0 "-c 'quit' -f t.dsh" -c:1 -- -c 'quit' -f "$S/t.dsh"
# the last source may end the run with exit 0; exit N > 0 anywhere is the script's own status
expect_status "exit 0 in the last source" 0 tmo "$DSH" -c 'echo a' -f "$S/e.dsh"
expect_status "exit 4 in the first source" 4 tmo "$DSH" -c 'exit 4' -f "$S/t.dsh"

# ---- two ranks on one CLID:WID -------------------------------------------------------------
for be in "" "-b $RB"; do
	# shellcheck disable=SC2086
	DSH_RANK=0 DSH_SIZE=2 DSH_RANKMAP=1:0,1:0 tmo "$DSH" $be -c 'llcm_write from=0x20 it=1 val=3' >"$S/m.out" 2>"$S/m.err"
	expect_eq "DSH_RANKMAP=1:0,1:0 ${be:-in process}: exit status" 2 "$?"
	expect_match "DSH_RANKMAP=1:0,1:0 ${be:-in process}: why" \
		"^dsh: DSH_RANKMAP: entries 1 and 2 \(ranks 0 and 1\) are both CLID 1 WID 0: two ranks on one CLID:WID would share a flag area" \
		"$(cat "$S/m.err")"
done
expect_status "DSH_RANKMAP=1:0,1:1 (one node, two WIDs) is fine" 0 \
	env DSH_RANK=1 DSH_SIZE=2 DSH_RANKMAP=1:0,1:1 "$DSH" -c 'echo $clid'
# a map of another run (more entries than ranks, a trailing comma) is refused
for m in 1:0,2:0,3:0 1:0,2:0,; do
	expect_status "DSH_RANKMAP=$m for 2 ranks: refused" 2 env DSH_RANK=0 DSH_SIZE=2 DSH_RANKMAP=$m "$DSH" -c 'echo $clid'
	expect_match "DSH_RANKMAP=$m for 2 ranks: why" "^dsh: DSH_RANKMAP has more than 2 entries for 2 ranks" "$(cat "$T_TMP/err")"
done

# ---- set wid and the flag area -------------------------------------------------------------
# by hand, two ranks through one dnetd; both pass
by_hand() {
	local name=$1 cmds=$2 p r0 r1
	DSH_RANK=0 DSH_SIZE=2 DSH_RUN_ID=$3 tmo "$DSH" -b "$RB" -c "$cmds" >"$S/h0" 2>&1 &
	p=$!
	DSH_RANK=1 DSH_SIZE=2 DSH_RUN_ID=$3 tmo "$DSH" -b "$RB" -c "$cmds" >"$S/h1" 2>&1
	r1=$?
	wait "$p"; r0=$?
	expect_eq "$name: both ranks pass (rank 0: $(grep -a dsh: "$S/h0" | head -c 200); rank 1: $(grep -a dsh: "$S/h1" | head -c 200))" "0 0" "$r0 $r1"
}
by_hand "set wid 1 before the first barrier" \
	'set wid 1; barrier timeout=10s; signal $next timeout=10s; waitfor $prev timeout=10s; barrier timeout=10s' 101
by_hand "set wid 1 after joining" \
	'barrier timeout=10s; set wid 1; barrier timeout=10s; signal $next; waitfor $prev timeout=10s; set wid 0; barrier timeout=10s' 102
# dsh-run: every layer (its private dnetd; -b the same dnetd)
printf 'set wid 1\nbarrier timeout=10s\nsignal $next\nwaitfor $prev timeout=10s\nbarrier timeout=10s\n' >"$S/wid.dsh"
for be in "" "-b $RB"; do
	# shellcheck disable=SC2086
	tmo "$DSH_RUN" -n 2 -t 30s $be "$S/wid.dsh" --report "$S/w.json" --junit "$S/w.xml" >"$S/w.out" 2>"$S/w.err"
	expect_eq "dsh-run ${be:-private dnetd}: set wid 1 before the first barrier: exit status ($(head -c 300 "$S/w.err"))" 0 "$?"
	expect_match "dsh-run ${be:-private dnetd}: set wid: terminal" "^2 passed, 0 failed " "$(cat "$S/w.out")"
	expect_eq "dsh-run ${be:-private dnetd}: set wid: CTRF" "2 2 0" \
		"$(jq -r '.results.summary | "\(.tests) \(.passed) \(.failed)"' "$S/w.json" 2>&1)"
	expect_eq "dsh-run ${be:-private dnetd}: set wid: JUnit failures errors" "0 0" \
		"$(xmllint --xpath 'concat(/testsuites/@failures, " ", /testsuites/@errors)' "$S/w.xml" 2>&1)"
done

# ---- what a script sets in a -b dnetd's emulator, before the next script ------------------------
PS=$S/p.sock
start_dnetd "$PS" --sim -N 2
PB=remote:unix:$PS
# the first script drops every packet (SWIF retransmits for ever), seeds, and changes a step
# cost; the second needs a working switch and the values the run found
printf 'fault drop 100%%\nfault seed 99\nfault rto 1ms\nparams timing.line_clk 77\n' >"$S/set.dsh"
printf 'ww_write ww=0 from=0 it=64 val=0xc0de0000 inc=1\nprim VS size=256 src=0 dst=0x1000 wait\nprim RVS dl=$next_clid ef=1 size=0x100 src=0x1000 dst=0x4000 wait timeout=3s\n' >"$S/use.dsh"
before=$("$BIN/dsh" -b "$PB" -c 'params fault.rules; params fault.seed; params fault.rto_ns; params timing.line_clk' | tr '\n' ' ')
tmo "$DSH_RUN" -n 2 -t 20s -b "$PB" "$S/set.dsh" "$S/use.dsh" --report "$S/p.json" --junit "$S/p.xml" >"$S/p.out" 2>"$S/p.err"
expect_eq "-b dnetd: fault rules of one script gone for the next: exit status ($(head -c 300 "$S/p.err"))" 0 "$?"
expect_match "-b dnetd: terminal" "^4 passed, 0 failed " "$(cat "$S/p.out")"
if grep -q FAIL "$S/p.err"; then fail "-b dnetd: FAIL on the terminal: $(grep FAIL "$S/p.err" | head -3)"; else pass; fi
expect_eq "-b dnetd: CTRF tests passed failed" "4 4 0" \
	"$(jq -r '.results.summary | "\(.tests) \(.passed) \(.failed)"' "$S/p.json" 2>&1)"
expect_eq "-b dnetd: JUnit failures errors" "0 0" \
	"$(xmllint --xpath 'concat(/testsuites/@failures, " ", /testsuites/@errors)' "$S/p.xml" 2>&1)"
expect_eq "-b dnetd: CTRF validates" "" "$(ctrf_valid "$S/p.json" 2>&1 | tail -n 3)"
# the last script's own settings stay (nothing runs after it); one more run sets them back
tmo "$DSH_RUN" -n 2 -t 20s -b "$PB" "$S/set.dsh" "$S/use.dsh" >/dev/null 2>&1
expect_eq "-b dnetd: the parameters as the run found them" "$before" \
	"$("$BIN/dsh" -b "$PB" -c 'params fault.rules; params fault.seed; params fault.rto_ns; params timing.line_clk' | tr '\n' ' ')"
# a dnetd started with rules keeps them: they are what each script starts from
FS=$S/f.sock
start_dnetd "$FS" --sim -N 2 --sim-args 'faults=dup:100%'
own=$("$BIN/dsh" -b "remote:unix:$FS" -c 'params fault.rules')
expect_match "the dnetd started with a rule has it" "^dup" "$own"
printf 'fault clear\n' >"$S/clear.dsh"
printf 'params fault.rules\n' >"$S/show.dsh"
tmo "$DSH_RUN" -n 1 -b "remote:unix:$FS" "$S/clear.dsh" "$S/show.dsh" --keep >"$S/f.out" 2>"$S/f.err"
expect_eq "-b dnetd with --sim-args faults=: the run passes" 0 "$?"
kept=$(sed -n 's/^dsh-run: outputs kept in //p' "$S/f.err")
expect_eq "-b dnetd with --sim-args faults=: the second script starts from the dnetd's own rules" "$own" \
	"$(jq -r 'select(.cmd == "params") | .result.value' "$kept"/s1.rank0.json 2>&1)"
[ -n "$kept" ] && rm -rf "$kept"
finish
