#!/usr/bin/env bash
# dsh's fault command: rules on the emulated switch, SWIF's retransmission
# behind them (data arrives exactly once, checked word by word), the
# counters, JSON, refusals, the same rules as a spec option, a dnetd
# emulator started with faults (the counters through remote), the command
# through dnetd (privileged clients only) and under a 4-rank dsh-run.
# Decisions pinned here (docs/decisions.md): D-PARAMS.
. "$(dirname "$0")/lib.sh"
tmo() { timeout 120 "$@"; }

# ---- a store through a link that drops the first three data packets --------
S='ww_write ww=0 from=0 it=128 val=0xc0de0000 inc=1
prim VS size=512 src=0 dst=0x800 wait
fault drop from 1 to 2 data count 3
fault
prim RVS dl=2 ef=1 size=512 src=0x800 dst=0x4000 wait
@2 prim VL size=512 src=0x4000 dst=0 wait
@2 assert pw 0 == 0xc0de0001c0de0000
@2 assert pw 0x1f8 == 0xc0de007fc0de007e
@2 assert status_nwa == 0x10
stat faults_dropped
assert last == 3
stat retransmissions
assert last >= 3
@2 stat packets_received
assert last == 1
fault'
out=$(tmo "$BIN/dsh" -e -N 2 -c "$S" 2>"$T_TMP/err")
expect_eq "drop: exit" 0 $?
expect_match "drop: rule echoed" "^fault: drop from 1 to 2 data count 3$" "$out"
expect_match "drop: rule listed" "rule 1: drop from 1 to 2 count 3 data \(fired 0\)" "$out"
expect_match "drop: fired 3" "rule 1: drop from 1 to 2 count 3 data \(fired 3\)" "$out"
expect_match "drop: counters" "injected 3: dropped 3, duplicated 0, reordered 0, delayed 0, corrupted 0, stalls 0" "$out"
expect_match "drop: retransmissions" "retransmissions [1-9][0-9]* \(retransmit timeouts [1-9]" "$out"
expect_eq "drop: no stderr" "" "$(cat "$T_TMP/err")"

# ---- messages of every transport under loss, duplication, corruption, reordering
S='fault seed 11
fault drop 10%
fault dup 5%
fault corrupt 5%
fault reorder 5% for 2us
fault delay 2% for 1us
fault stall 1% to 2 for 5us
send 1 1 size=100000 val=5
send 1 2 size=3000 val=6 via=lhsv2
send 1 3 size=400 val=7 via=lhsv1
send 1 4 size=300 val=8 via=botf
send 1 5 size=20000 val=9 via=rndv
node 2
recv 0 1 check=5
recv 0 2 check=6
recv 0 3 check=7
recv 0 4 check=8
recv 0 5 check=9
fault'
out=$(tmo "$BIN/dsh" -e -N 2 -c "$S" 2>"$T_TMP/err")
expect_eq "messages: exit" 0 $?
expect_eq "messages: received" 5 "$(grep -c '^received' <<<"$out")"
inj=$(sed -n 's/^injected \([0-9]*\):.*/\1/p' <<<"$out")
if [ "${inj:-0}" -gt 0 ]; then pass; else fail "messages: no fault injected: $out"; fi
retx=$(sed -n 's/^retransmissions \([0-9]*\) .*/\1/p' <<<"$out")
if [ "${retx:-0}" -gt 0 ]; then pass; else fail "messages: no retransmission: $out"; fi
expect_match "messages: crc" "crc errors [1-9]" "$out"

# the same seed gives the same figures; the spec option gives the same rules
again=$(tmo "$BIN/dsh" -e -N 2 -c "$S" 2>/dev/null | tail -n 3)
expect_eq "messages: reproducible" "$(tail -n 3 <<<"$out")" "$again"
S2=$(grep -v '^fault' <<<"$S")
spec=$(tmo "$BIN/dsh" -e -b 'sim:nodes=2,faults=seed:11+drop:10%+dup:5%+corrupt:5%+reorder:5%:for:2us+delay:2%:for:1us+stall:1%:to:2:for:5us' \
	-c "$S2
fault" 2>/dev/null | tail -n 3)
expect_eq "spec option = commands" "$(tail -n 3 <<<"$out")" "$spec"

# ---- JSON -------------------------------------------------------------------
js=$(tmo "$BIN/dsh" -j -b 'sim:nodes=2,faults=drop:nth:1' -c 'fault')
expect_match "json rules" '"rules":\[\{"rule":"drop nth 1","fired":0\}\]' "$js"
expect_match "json counters" '"retransmissions":0' "$js"
expect_match "json kinds" '"injected":\{"dropped":0,"duplicated":0,"reordered":0,"delayed":0,"corrupted":0,"stalls":0\}' "$js"

# ---- clear: no more faults, the counters stay ----------------------------------
out=$(tmo "$BIN/dsh" -e -N 2 -c 'fault drop every 1 data count 2
send 1 1 size=100 val=1 via=lhsv1
@2 recv 0 1 check=1
fault clear
fault
send 1 2 size=100 val=2 via=lhsv1
@2 recv 0 2 check=2
stat faults_injected' 2>&1)
expect_eq "clear: exit" 0 $?
expect_match "clear: listed" "fault rules cleared" "$out"
expect_match "clear: no rules" "no rules: packets are neither lost nor damaged" "$out"
expect_match "clear: counters kept" "faults_injected 2$" "$out"

# ---- refusals -----------------------------------------------------------------
expect_status "unknown kind" 1 "$BIN/dsh" -c 'fault explode 5%'
expect_match "unknown kind: message" "unknown kind 'explode'" "$(cat "$T_TMP/err")"
expect_status "bad rate" 1 "$BIN/dsh" -c 'fault drop 120%'
expect_match "bad rate: message" "'120%' in a drop rule is not a rate" "$(cat "$T_TMP/err")"
expect_status "one rule per command" 1 "$BIN/dsh" -c 'fault drop:5%'
expect_match "one rule: message" "one rule per command" "$(cat "$T_TMP/err")"
expect_status "bad spec" 3 "$BIN/dsh" -b 'sim:faults=drop:nth:0' -c 'fault'
expect_match "bad spec: message" "nth 0 never fires" "$(cat "$T_TMP/err")"
expect_status "help" 0 "$BIN/dsh" -c 'help fault'
expect_match "help: usage" "^fault : Faults in the emulated switch" "$(cat "$T_TMP/out")"

# ---- a daemon's emulator with faults: counters remote, the command refused --
if [ -x "$DNETD" ]; then
	SOCK="$T_TMP/d.sock"
	spawn timeout 120 "$DNETD" --sim -N 2 --sim-args 'faults=drop:20%+seed:3' --listen "unix:$SOCK"
	if wait_for_socket "$SOCK" 50; then
		out=$(tmo "$BIN/dsh" -b "remote:unix:$SOCK" -c 'send 1 1 size=50000 val=3
@2 recv 0 1 check=3
stat faults_dropped
stat retransmissions' 2>&1)
		expect_match "remote: received" "^received 50000 bytes" "$out"
		expect_match "remote: faults counted" "faults_dropped [1-9]" "$out"
		expect_match "remote: retransmitted" "retransmissions [1-9]" "$out"
		# the command through dnetd (parameters, protocol 1.3): a privileged client sets
		out=$(tmo "$BIN/dsh" -e -b "remote:unix:$SOCK" -c 'fault clear
fault drop from 1 to 2 data count 3
send 1 2 size=5000 val=4
@2 recv 0 2 check=4
fault' 2>&1)
		expect_match "remote: rule set through dnetd" "rule 1: drop from 1 to 2 count 3 data \(fired 3\)" "$out"
		expect_match "remote: received once" "^received 5000 bytes" "$out"
		expect_status "remote: a user may not set" 1 tmo "$BIN/dsh" -b "remote:unix:$SOCK,user" -c 'fault drop 5%'
		expect_match "remote: user: why" "setting parameter 'fault.add' is for privileged clients only" "$(cat "$T_TMP/err")"
		expect_status "remote: a user may read" 0 tmo "$BIN/dsh" -b "remote:unix:$SOCK,user" -c 'params fault.rules'
		expect_eq "remote: the rule read" "drop from 1 to 2 count 3 data" "$(cat "$T_TMP/out")"
	else
		fail "dnetd did not create $SOCK within 5 s"
	fi
else
	skip "$DNETD not built: faults in a daemon's emulator not tried"
fi

# ---- fault through dnetd: one request (PARAM_ALL), the output of the emulator in process -- (D-PARAM-ALL)
# dnetd -vv logs every request ("client #N: TYPE id I"): a session that shows
# the faults makes exactly one more than one that does nothing (it made a
# LIST and a GET per value, 19, before PARAM_ALL); what it prints is what the
# same emulator in process prints, byte for byte (there every value is read
# in process, one at a time).
if [ -x "$DNETD" ]; then
	SOCK1="$T_TMP/one.sock"
	spawn timeout 120 "$DNETD" --sim -N 2 --sim-args 'faults=drop:20%+dup:from:1:to:2:count:2+seed:3' -vv \
		--listen "unix:$SOCK1" 2>"$T_TMP/one.log"
	if wait_for_socket "$SOCK1" 50; then
		requests() { sed -n "s/.*client #$1: \([A-Z_]*\) id .*/\1/p" "$T_TMP/one.log"; }
		tmo "$BIN/dsh" -b "remote:unix:$SOCK1" -c 'echo nothing' >/dev/null  # client #1
		tmo "$BIN/dsh" -b "remote:unix:$SOCK1" -c 'fault' >"$T_TMP/one.out"  # client #2
		tmo "$BIN/dsh" -b "remote:unix:$SOCK1" --json -c 'fault show' >"$T_TMP/one.json"  # client #3
		sleep 0.2 # the log of the last requests written
		expect_eq "fault through dnetd: one request more than a session doing nothing" \
			"$(($(requests 1 | wc -l) + 1))" "$(requests 2 | wc -l)"
		expect_eq "fault through dnetd: that request is PARAM_ALL" "PARAM_ALL" \
			"$(diff <(requests 1) <(requests 2) | sed -n 's/^> //p')"
		expect_eq "fault show --json through dnetd: one request too" "$(($(requests 1 | wc -l) + 1))" "$(requests 3 | wc -l)"
		expect_eq "fault through dnetd: the output of the emulator in process" \
			"$("$BIN/dsh" -b 'sim:faults=drop:20%+dup:from:1:to:2:count:2+seed:3' -c 'fault')" "$(cat "$T_TMP/one.out")"
		expect_eq "fault --json through dnetd: the output of the emulator in process" \
			"$("$BIN/dsh" -b 'sim:faults=drop:20%+dup:from:1:to:2:count:2+seed:3' --json -c 'fault show')" \
			"$(cat "$T_TMP/one.json")"
		expect_match "fault through dnetd: the rules shown" "^rule 2: dup from 1 to 2 for 100ns count 2 \(fired 0\)" "$(cat "$T_TMP/one.out")"
	else
		fail "dnetd did not create $SOCK1 within 5 s"
	fi
fi

# ---- fault under dsh-run: 4 ranks on its private dnetd, messages exactly once --
# Every rank sets the same rules (fault.rules replaces them), then ranks 1-3
# send to rank 0 and rank 0 to each of them; check= compares every byte.
if [ -x "$BIN/dsh-run" ]; then
	R="$T_TMP/run"
	mkdir -p "$R"
	cat >"$R/faults.dsh" <<EOF
params fault.rules drop 10% data+dup 10%+corrupt 5%+reorder 5% for 2us
params fault.seed 5
barrier
source $R/r\$rank.dsh
barrier
fault
params fault.injected.drop
assert last > 0
params swif.retransmissions
assert last > 0
params swif.duplicates_dropped
assert last > 0
params swif.unacked
assert last == 0
EOF
	printf 'recv 1 1 check=11\nrecv 2 1 check=12\nrecv 3 1 check=13\nsend 1 2 size=30000 val=21\nsend 2 2 size=30000 val=22\nsend 3 2 size=30000 val=23\n' >"$R/r0.dsh"
	for r in 1 2 3; do printf 'send 0 1 size=30000 val=1%s\nrecv 0 2 check=2%s\n' $r $r >"$R/r$r.dsh"; done
	expect_status "dsh-run: 4 ranks with faults pass" 0 tmo "$BIN/dsh-run" -n 4 "$R/faults.dsh" --report "$R/r.json"
	expect_eq "dsh-run: assertions on every rank" "4 4 4 4" \
		"$(jq -r '[.results.tests[].extra.assertions_passed] | map(tostring) | join(" ")' "$R/r.json")"
	expect_eq "dsh-run: no failed command" "0 0 0 0" \
		"$(jq -r '[.results.tests[].extra.errors] | map(tostring) | join(" ")' "$R/r.json")"
else
	skip "$BIN/dsh-run not built: faults under dsh-run not tried"
fi
finish
