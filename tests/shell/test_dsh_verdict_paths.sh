#!/usr/bin/env bash
# The verdict on every path users take (issue 20, docs/reports.md "Verdict
# table"): each failure class fails in every layer -- exit status, text
# summary, JSON summary -- in process and through dnetd with posting on and
# off, and the same script with the failure removed passes in every layer.
# Decisions pinned here (docs/decisions.md): D-VERDICT-STICKY,
# D-DSH-JOURNAL-END.
. "$(dirname "$0")/lib.sh"

S=$T_TMP/d.sock
start_dnetd "$S" --sim -N 2
# A user confined to node 1 WID 0 (a user token): refusals go posted too.
printf 'usr1 node=1 wid=0\n' >"$T_TMP/ut"
chmod 600 "$T_TMP/ut"
U=$T_TMP/u.sock
start_dnetd "$U" --sim -N 2 --user-tokens "$T_TMP/ut"

. "$(dirname "$0")/verdict_layers.sh" # backend_of, run_layers, verdict_case
ALL="sim dnetd dnetd-off"
RVS_OVR='prim RVS dl=2 ef=1 size=0x200 src=0x1000 dst=0xfffff00'
RVS_OK='prim RVS dl=2 ef=1 size=0x200 src=0x1000 dst=0x1000'

# 1. Posted writes: a failure after them (or among them) is never lost.
verdict_case "refused delay after a posted write" "dnetd dnetd-off" \
	'llcm_write from=0 it=1 val=1; sleep 7200s; echo after' 'llcm_write from=0 it=1 val=1; sleep 1ms; echo after'
verdict_case "refused register write after a posted write" "user user-off" \
	'llcm_write from=0 it=1 val=1; sreg_write pgid0 1' 'llcm_write from=0 it=1 val=1; reg ctl_status'
verdict_case "refused posted write" "user user-off" \
	'llcm_write from=0 it=1 val=1; set wid 1; llcm_write from=0 it=1 val=2; set wid 0; llcm_write from=8 it=1 val=3' \
	'llcm_write from=0 it=1 val=1; llcm_write from=0 it=1 val=2; llcm_write from=8 it=1 val=3'
verdict_case "refused poke among posted writes" "user user-off" \
	'poke llcm 0 1; poke llcm 0x8000 2; poke llcm 8 3' 'poke llcm 0 1; poke llcm 0x10 2; poke llcm 8 3'
# ... blamed on its own line, and -e stops before the next line runs.
printf 'llcm_write from=0 it=1 val=1\nsleep 7200s\nllcm_write from=8 it=1 val=2\necho after\n' >"$T_TMP/p.dsh"
"$DSH" -b "remote:unix:$S" -f "$T_TMP/p.dsh" >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "posted: exit" 1 $?
expect_match "posted: blamed on its own line" "p.dsh:2: sleep: delay of 7200.000s refused" "$(cat "$T_TMP/err")"
expect_match "posted: the rest ran without -e" "after" "$(cat "$T_TMP/out")"
"$DSH" -e -b "remote:unix:$S" -f "$T_TMP/p.dsh" >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "posted -e: exit" 1 $?
if grep -q after "$T_TMP/out"; then fail "posted -e: the line after the failure ran"; else pass; fi
printf 'llcm_write from=0 it=1 val=1\nset wid 1\nllcm_write from=0 it=1 val=2\nset wid 0\nllcm_write from=0x40 it=1 val=9\necho after\n' >"$T_TMP/q.dsh"
"$DSH" -e -b "remote:unix:$U,token=usr1,user" -f "$T_TMP/q.dsh" >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "posted write -e: exit" 1 $?
expect_match "posted write -e: its own line" "q.dsh:3: llcm_write: permission denied" "$(cat "$T_TMP/err")"
if grep -q after "$T_TMP/out"; then fail "posted write -e: a later line ran"; else pass; fi
expect_eq "posted write -e: the write after it was not done" "llcm 0x40 = 0x0000000000000000" \
	"$("$DSH" -b "remote:unix:$U,token=usr1,user" -c 'peek llcm 0x40 width=64' 2>&1)"
# set posted off: a round trip per command, the same verdicts.
expect_status "posted off: refused delay" 1 "$DSH" -b "remote:unix:$S" -c 'set posted off; llcm_write from=0 it=1 val=1; sleep 7200s'

# 2. Sticky error flags: a second overrun fails though the flag never fell.
verdict_case "second receive overrun (sticky rc_overrun)" "$ALL" \
	"$RVS_OVR wait allow=rc_overrun; $RVS_OVR wait" "$RVS_OVR wait allow=rc_overrun; $RVS_OK wait"
verdict_case "second PGID drop" "sim dnetd" \
	'@2 sreg_write pgid0 5; prim RVS dl=2 size=64 src=0 dst=0 wait allow=pgid_drop; prim RVS dl=2 size=64 src=0 dst=0 wait' \
	'@2 sreg_write pgid0 5; prim RVS dl=2 size=64 src=0 dst=0 wait allow=pgid_drop; @2 sreg_write pgid0 0; prim RVS dl=2 size=64 src=0 dst=0 wait'
verdict_case "second VS source overrun" "$ALL" \
	'prim VS size=0x100000 src=0 dst=0x800 wait allow=ww0_src_overrun; prim VS size=0x100000 src=0 dst=0x800 wait' \
	'prim VS size=0x100000 src=0 dst=0x800 wait allow=ww0_src_overrun; prim VS size=0x100 src=0 dst=0x800 wait'
# False failures: a second deliberate overrun passes; a user confined to
# node 1 can judge an RVS to node 2 (the daemon attributes the flags).
expect_status "second allowed overrun passes" 0 "$DSH" -c "$RVS_OVR wait allow=rc_overrun; $RVS_OVR wait allow=rc_overrun"
# ... and a clean primitive of node 2 is not failed for the flag node 1's
# request left up at node 2 (issue 21's false failure, between ranks).
for b in "" "remote:unix:$S"; do
	args=()
	[ -n "$b" ] && args=(-b "$b")
	expect_status "another node's overrun is not ours${b:+ (dnetd)}" 0 "$DSH" "${args[@]}" \
		-c "$RVS_OVR wait allow=rc_overrun; @2 prim RVS dl=1 ef=1 size=0x200 src=0x1000 dst=0x1000 wait"
done
verdict_case "confined user: receive overrun at node 2" "user user-off" "$RVS_OVR wait" "$RVS_OK wait"
expect_match "confined user: node 2 named" "node 2 rc_overrun" "$("$DSH" -b "remote:unix:$U,token=usr1,user" -c "$RVS_OVR wait" 2>&1)"

# 3. exit N / quit N cannot hide a failure; a non-zero N fails the run.
# (conditions that hold whatever earlier cases left in the shared daemon)
OKC='assert ctl_status.sdimm_init_done == 1'
BADC='assert ctl_status.sdimm_init_done == 0'
verdict_case "exit 0 after a failed assertion" "$ALL" "$BADC; exit 0" "$OKC; exit 0"
verdict_case "quit 0 after a failed command" "$ALL" 'wait ctl_status.sdimm_init_done == 0 timeout=1us; quit 0' \
	'wait ctl_status.sdimm_init_done == 1 timeout=1us; quit 0'
verdict_case "exit 1 with everything passing" "sim dnetd" "$OKC; exit 1" "$OKC; exit"
printf 'exit 0\n' >"$T_TMP/exit0.dsh"
printf 'echo lib\n' >"$T_TMP/lib.dsh"
verdict_case "exit 0 in a sourced file skips the rest" "sim dnetd" "source $T_TMP/exit0.dsh; $BADC" \
	"source $T_TMP/lib.dsh; $OKC"
expect_status "exit 3 after a failure keeps 3" 3 "$DSH" -c 'assert ctl_status == 1; exit 3'
expect_match "summary says the script asked to exit" "1 failed \(the script asked to exit 0 at -c:1; the failure wins\)" \
	"$("$DSH" -c 'assert ctl_status == 1; exit 0' 2>/dev/null)"

# 4. A packet to a CLID outside the cluster fails the command (as a PGID drop).
verdict_case "unroutable RVS" "$ALL" 'prim RVS dl=3 ef=1 size=64 src=0 dst=0 wait' 'prim RVS dl=2 ef=1 size=64 src=0 dst=0 wait'
verdict_case "unroutable rllcm_write" "$ALL" 'rllcm_write 3 0x100 5' 'rllcm_write 2 0x100 5'
verdict_case "unroutable botf" "sim dnetd" 'botf type=RVS dl=3 dst=0x100 lf=1 data=0x1234' 'botf type=RVS dl=2 dst=0x100 lf=1 data=0x1234'
expect_status "unroutable allowed" 0 "$DSH" -c 'prim RVS dl=3 ef=1 size=64 src=0 dst=0 wait allow=unroutable'

# 11. prim ...; wait: the wait judges the primitives issued before it.
verdict_case "prim; wait with an overrun" "$ALL" "$RVS_OVR; wait" "$RVS_OK; wait"
verdict_case "prim; wait all with an overrun" "$ALL" "$RVS_OVR; wait all" "$RVS_OK; wait all"
verdict_case "prim without wait at the end of the run" "$ALL" "$RVS_OVR" "$RVS_OK"
verdict_case "prim, then prim wait" "sim dnetd" "$RVS_OVR; $RVS_OK wait" "$RVS_OK; $RVS_OK wait"
expect_match "prim; wait names the primitive" "wait: device error flag raised by prim at -c:1: node 2 rc_overrun" \
	"$("$DSH" -c "$RVS_OVR; wait" 2>&1)"

# 9. --dry-run: assertions are skipped, never passed.
out=$("$DSH" --dry-run -c 'assert ctl_status == 0x12; expect llcm 0 == 5' 2>/dev/null); rc=$?
expect_eq "dry run: exit" 0 "$rc"
expect_eq "dry run: summary" "0 passed, 0 failed, 2 skipped" "$(tail -n 1 <<<"$out")"
out=$("$DSH" --dry-run --json -c 'assert ctl_status == 0x12' 2>/dev/null)
expect_eq "dry run JSON: counts" "0 0 1 true" "$(tail -n 1 <<<"$out" | jq -r '.summary | "\(.passed) \(.failed) \(.skipped) \(.ok)"')"
expect_eq "dry run JSON: the assertion" "null true" "$(head -n 1 <<<"$out" | jq -r '.result | "\(.passed) \(.skipped)"')"

# 7. Output errors fail the run; so does a reader that goes away.
for b in "" "remote:unix:$S"; do
	args=()
	[ -n "$b" ] && args=(-b "$b")
	where=${b:+ (dnetd)}
	"$DSH" "${args[@]}" --json -c "$OKC" >/dev/full 2>"$T_TMP/err"
	expect_eq "stdout full$where: exit" 1 $?
	expect_match "stdout full$where: said" "cannot write standard output" "$(cat "$T_TMP/err")"
	"$DSH" "${args[@]}" -o /dev/full -c "$OKC" 2>"$T_TMP/err"
	expect_eq "-o /dev/full$where: exit" 1 $?
	# SIGPIPE ignored: EPIPE on write, the run fails.
	# (dsh itself on the pipe: "$DSH" would put tee between them)
	(trap '' PIPE; "$BIN/dsh" "${args[@]}" --json -c 'repeat 2000; llcm_read 0 64; end' 2>"$T_TMP/err"; echo $? >"$T_TMP/rc") | head -n 1 >/dev/null
	expect_eq "closed pipe, SIGPIPE ignored$where: exit" 1 "$(cat "$T_TMP/rc")"
	# SIGPIPE default: killed by it, never 0.
	("$BIN/dsh" "${args[@]}" --json -c 'repeat 2000; llcm_read 0 64; end' 2>/dev/null; echo $? >"$T_TMP/rc") | head -n 1 >/dev/null
	if [ "$(cat "$T_TMP/rc")" -ne 0 ]; then pass; else fail "closed pipe$where: exit 0"; fi
done

# A journal that cannot be written whole: the record of a board session lost.
"$DSH" --journal /dev/full -c "$OKC" >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "journal on a full disk: exit" 1 $?
expect_match "journal on a full disk: said" "dsh: --journal: the journal could not be written completely" "$(cat "$T_TMP/err")"
expect_match "journal on a full disk: summary" "1 error" "$(cat "$T_TMP/out")"

# Counts that agree: every failed object is counted in failed_commands.
printf 'nosuchcommand\n' >"$T_TMP/bad.dsh"
printf 'assert ctl_status == 1\n' >"$T_TMP/fa.dsh"
for s in "source $T_TMP/bad.dsh" "source $T_TMP/fa.dsh" "expect ctl_status == 1" "source $T_TMP/none.dsh"; do
	"$DSH" --json -c "$s" >"$T_TMP/j" 2>/dev/null
	expect_eq "failed objects = failed_commands ($s)" "$(jq -s '[.[] | select(.ok == false)] | length' "$T_TMP/j")" \
		"$(jq -s 'last.summary.failed_commands' "$T_TMP/j")"
	expect_eq "ok false ($s)" false "$(jq -s 'last.summary.ok' "$T_TMP/j")"
done
# --max-time: its own failed object.
"$DSH" --json --max-time 50ms -c 'repeat 100000000; stat vtime_ns; end' >"$T_TMP/j" 2>/dev/null
expect_eq "max-time: exit" 1 $?
expect_eq "max-time: a failed object" "max-time false" "$(jq -rs '[.[] | select(.cmd == "max-time")][0] | "\(.cmd) \(.ok)"' "$T_TMP/j")"
expect_eq "max-time: counted" "$(jq -s '[.[] | select(.ok == false)] | length' "$T_TMP/j")" "$(jq -s 'last.summary.failed_commands' "$T_TMP/j")"
# --pretty: valid UTF-8 whatever the script holds.
printf 'echo \xff\xfe ok\n' >"$T_TMP/u.dsh"
"$DSH" --json --pretty -f "$T_TMP/u.dsh" >"$T_TMP/p.json" 2>/dev/null
if iconv -f UTF-8 -t UTF-8 "$T_TMP/p.json" >/dev/null 2>&1; then pass; else fail "--pretty wrote invalid UTF-8"; fi
expect_eq "--pretty: parses" "echo" "$(jq -rs '.[0].cmd' "$T_TMP/p.json")"
finish
