#!/usr/bin/env bash
# Issue 20, cases 5, 6, 8 and 10: false passes that now fail, in process
# (the emulator) and through dnetd, in every layer (exit status, stderr,
# the command's JSON object, the JSON summary); the same scripts with the
# failure removed pass.
#
#   5. a Write Window word this shell never wrote read as 0;
#   6. a range condition whose result is the same for every value the
#      target can take (assert ctl_status >= 0) passed;
#   8. a read error on standard input was the end of the script (exit 0);
#  10. a journal without records, or cut short, replayed as a pass.
# Decisions pinned here (docs/decisions.md): D-DSH-WW-KNOWN, D-DSH-CONST-COND.
. "$(dirname "$0")/lib.sh"
J() { "$DSH" --json "$@"; }
SOCK=$T_TMP/d.sock
start_dnetd "$SOCK" --sim -N 2
BACKENDS=(sim "remote:unix:$SOCK")
name() { [ "$1" = sim ] && echo sim || echo dnetd; }
# okof FILE CMD: the "ok" of the first JSON object of command CMD; sumok FILE: the summary's.
okof() { jq -rs --arg c "$2" '[.[] | select(.summary == null and .cmd == $c)][0].ok' <"$1" 2>/dev/null; }
errof() { jq -rs --arg c "$2" '[.[] | select(.summary == null and .cmd == $c)][0].error' <"$1" 2>/dev/null; }
sumok() { jq -rs 'last.summary.ok' <"$1" 2>/dev/null; }
# jrun NAME STATUS CMD_NAME CMD_OK SUMMARY_OK DSH-ARGS...: a --json run, every layer
# checked.  A run without assertions or failures writes no summary: SUMMARY_OK
# true also accepts none.
jrun() {
	local n=$1 st=$2 cmd=$3 cok=$4 sok=$5; shift 5
	"$DSH" --json "$@" >"$T_TMP/j.out" 2>"$T_TMP/j.err"
	local rc=$?
	expect_eq "$n: exit" "$st" "$rc"
	expect_eq "$n: $cmd object ok" "$cok" "$(okof "$T_TMP/j.out" "$cmd")"
	[ "$sok" = true ] && sok='(true|null)'
	expect_match "$n: summary ok" "^$sok\$" "$(sumok "$T_TMP/j.out")"
}

# ---- 5. Write Window words never written ---------------------------------------
WWMSG='is write-only \(the Write Window cannot be read back\) and dsh has not written'
for b in "${BACKENDS[@]}"; do
	n="5 $(name "$b")"
	expect_status "$n: fresh ww word" 1 "$DSH" -b "$b" -c 'assert ww 0 == 0'
	expect_match "$n: fresh ww word message" "assert: ww 0x0 $WWMSG it on node 1, WID 0" "$(cat "$T_TMP/err")"
	expect_eq "$n: no pass counted" "0 passed, 0 failed, 1 error" "$(tail -n 1 "$T_TMP/out")"
	expect_status "$n: expect on a fresh word" 1 "$DSH" -b "$b" -c 'expect ww 0x18 != 1'
	expect_match "$n: expect message" "ww 0x18 $WWMSG it" "$(cat "$T_TMP/err")"
	jrun "$n: JSON fresh word" 1 assert false false -b "$b" -c 'assert ww 0x7f8 == 0'
	expect_match "$n: JSON error" "ww 0x7f8 $WWMSG" "$(errof "$T_TMP/j.out" assert)"
	# A 32-bit write leaves the other half of the word unknown.
	expect_status "$n: upper half never written" 1 "$DSH" -b "$b" -c 'ww_write ww=0 from=0 val=5; assert ww 0 == 5'
	expect_match "$n: upper half message" "ww 0x0 $WWMSG bits 0xffffffff00000000 of it" "$(cat "$T_TMP/err")"
	expect_status "$n: lower half never written" 1 "$DSH" -b "$b" -c 'ww_write ww=0 from=4 val=5; assert ww 0 == 0x500000000'
	expect_match "$n: lower half message" "ww 0x0 $WWMSG bits 0xffffffff of it" "$(cat "$T_TMP/err")"
	expect_status "$n: mask reaching an unwritten byte" 1 "$DSH" -b "$b" -c 'ww_write ww=0 from=0 val=5; assert ww 0 & 0x1ffffffff == 5'
	jrun "$n: JSON upper half" 1 assert false false -b "$b" -c 'ww_write ww=0 from=0 val=5; assert ww 0 == 5'
	# A byte poked, the others not.
	expect_status "$n: poked byte, word" 1 "$DSH" -b "$b" -c 'poke ww 0x10 0x12 width=8; assert ww 0x10 & 0xffff == 0x12'
	# Other node, other window, after a Controller Reset: not written there.
	expect_status "$n: written on node 1, read on node 2" 1 "$DSH" -b "$b" -c 'ww_write ww=0 from=0 it=2 val=5; @2 assert ww 0 == 0x500000005'
	expect_match "$n: node 2 named" "ww 0x0 $WWMSG it on node 2" "$(cat "$T_TMP/err")"
	expect_status "$n: other window" 1 "$DSH" -b "$b" -c 'ww_write ww=1 from=0 it=2 val=3; assert ww 0 == 0'
	expect_status "$n: forgotten after a Controller Reset" 1 "$DSH" -b "$b" -c 'ww_write ww=0 from=0 it=2 val=5; reg ctl_reset = 1; assert ww 0 == 0x500000005'
	# -e stops there.
	expect_status "$n: -e stops" 1 "$DSH" -b "$b" -e -c 'assert ww 0x20 == 0; echo after'
	expect_eq "$n: -e: nothing after" "" "$(grep after "$T_TMP/out")"
	# The same with the failure removed: every byte the condition reads was written.
	expect_status "$n: both halves written" 0 "$DSH" -b "$b" -c 'ww_write ww=0 from=0 it=2 val=5; assert ww 0 == 0x500000005'
	expect_status "$n: masked to the written half" 0 "$DSH" -b "$b" -c 'ww_write ww=0 from=0 val=5; assert ww 0 & 0xffffffff == 5; expect ww 0 & 0xff < 6'
	expect_status "$n: poked byte, masked" 0 "$DSH" -b "$b" -c 'poke ww 0x10 0x12 width=8; assert ww 0x10 & 0xff == 0x12'
	expect_status "$n: other window, written" 0 "$DSH" -b "$b" -c 'ww_write ww=1 from=0 it=2 val=3; assert ww 0x200 == 0x300000003'
	expect_status "$n: 64-bit poke" 0 "$DSH" -b "$b" -c 'poke ww 0x8 0x1122334455667788; assert ww 8 == 0x1122334455667788'
	jrun "$n: JSON written" 0 assert true true -b "$b" -c 'ww_write ww=0 from=0 it=2 val=5; assert ww 0 == 0x500000005'
	# dump ww: never-written words and bytes stay ??.
	out=$("$DSH" -b "$b" -c 'dump ww 0 16' 2>&1)
	expect_match "$n: dump ww fresh" "#4213c000: \?{16} \?{16}" "$out"
	out=$("$DSH" -b "$b" -c 'ww_write ww=0 from=0 val=5; dump ww 0 16' 2>&1)
	expect_match "$n: dump ww half written" "#4213c000: \?{8}00000005 \?{16}" "$out"
	out=$(J -b "$b" -c 'ww_write ww=0 from=0 val=5; dump ww 0 16' 2>&1 | jq -c 'select(.cmd == "dump") | [.result.words, .result.bytes]')
	expect_eq "$n: dump ww JSON" '[[null,null],"05000000????????????????????????"]' "$out"
	out=$("$DSH" -b "$b" -c 'ww_write ww=0 from=0 val=5; dump ww 0 12' 2>&1)
	expect_match "$n: dump ww 32-bit words" "#4213c000: 00000005 \?{8} \?{8}" "$out"
done

# ---- 6. conditions whose result is constant --------------------------------------
# Refused when the script is checked: nothing runs (exit 2).
while IFS='|' read -r cond how; do
	for b in "${BACKENDS[@]}"; do
		n="6 $(name "$b"): $cond"
		expect_status "$n" 2 "$DSH" -b "$b" -c "echo ran; $cond"
		expect_match "$n: message" "-c:1: check: .*$how.*: the condition is constant" "$(cat "$T_TMP/err")"
		expect_eq "$n: nothing ran" "" "$(cat "$T_TMP/out")"
	done
done <<'EOF'
assert ctl_status >= 0|ctl_status >= 0x0 holds for every value ctl_status \(implemented bits 0xfffff\) can take \(0 to 0xfffff\)
assert ctl_status.ww2_done <= 1|ctl_status.ww2_done <= 0x1 holds for every value ctl_status.ww2_done \(1 bit\) can take
assert llcm 0 < 0|llcm 0x0 < 0x0 never holds for any value llcm 0x0 \(64 bits\) can take \(0 to 0xffffffffffffffff\)
expect ctl_status & 0x6 > 6|ctl_status & 0x6 > 0x6 never holds for any value ctl_status & 0x6 can take \(0 to 0x6\)
expect ctl_status & 0x6 < 8|ctl_status & 0x6 < 0x8 holds for every value
wait ctl_status >= 0|ctl_status >= 0x0 holds for every value
wait sma_lid.lid <= 0xffff timeout=1ms|holds for every value sma_lid.lid \(16 bits\)
wait ctl_status.ww2_done > 1|never holds
assert ctl_status.ww2_done >= 2|never holds
assert ctl_status < 0x100000|holds for every value
expect last >= 0|holds for every value last \(64 bits\)
expect llcm 8 <= 0xffffffffffffffff|holds for every value
@2 assert pkt_counter >= 0|holds for every value
assert ctl_status & 0x6 <= 0x6|holds for every value
EOF
# The value and mask forms are refused before anything runs too.
for c in 'assert ctl_status & 0x6 != 1' 'wait ctl_status & 0 == 0' 'expect ctl_status.sdimm_init_done == 3'; do
	expect_status "6: $c checked first" 2 "$DSH" -c "echo ran; $c"
	expect_match "6: $c message" "check: .*(outside|does not fit|constant)" "$(cat "$T_TMP/err")"
	expect_eq "6: $c: nothing ran" "" "$(cat "$T_TMP/out")"
done
# Line 10 stops line 1.
{ echo 'echo line 1'; for _ in 2 3 4 5 6 7 8; do echo '# comment'; done; echo 'assert ctl_status == 0x12'
  echo 'expect ctl_status.status_empty >= 0'; } >"$T_TMP/c6.dsh"
for b in "${BACKENDS[@]}"; do
	n="6 $(name "$b") script"
	expect_status "$n: line 10" 2 "$DSH" -b "$b" -f "$T_TMP/c6.dsh"
	expect_match "$n: line 10 named" "c6.dsh:10: check: expect: argument 3: ctl_status.status_empty >= 0x0 holds for every value" "$(cat "$T_TMP/err")"
	expect_eq "$n: line 1 did not run" "" "$(cat "$T_TMP/out")"
	jrun "$n: JSON" 2 check false false -b "$b" -f "$T_TMP/c6.dsh"
	expect_eq "$n: JSON ran" false "$(jq -rs 'last.summary.ran' <"$T_TMP/j.out")"
	expect_status "$n: -n" 2 "$DSH" -b "$b" -n -f "$T_TMP/c6.dsh"
	expect_status "$n: sourced" 1 "$DSH" -b "$b" -c "source $T_TMP/c6.dsh"
	expect_match "$n: sourced message" "c6.dsh:10: check: .*constant" "$(cat "$T_TMP/err")"
	# From a pipe (read line by line): refused when the line runs.
	expect_status "$n: stream" 1 "$DSH" -b "$b" <"$T_TMP/c6.dsh"
	expect_match "$n: stream message" "<stdin>:10: expect: argument 3: .* holds for every value .*constant" "$(cat "$T_TMP/err")"
	# A variable: checked when the line runs.
	expect_status "$n: variable" 1 "$DSH" -b "$b" -c 'set v 0; assert ctl_status >= $v'
	expect_match "$n: variable message" "assert: argument 3: .*constant" "$(cat "$T_TMP/err")"
	# The same without the constant condition passes; conditions that can
	# go either way are accepted, the value need not be a submask for < > <= >=.
	sed '$d' "$T_TMP/c6.dsh" >"$T_TMP/c6ok.dsh"
	jrun "$n: fixed script" 0 assert true true -b "$b" -f "$T_TMP/c6ok.dsh"
	expect_status "$n: not constant" 0 "$DSH" -b "$b" -c 'assert ctl_status & 0x6 >= 1; assert ctl_status & 0x6 < 5; assert ctl_status > 0
		expect ctl_status.ww2_done < 1; wait ctl_status & 0x6 <= 3 timeout=1ms; assert ctl_status & 0x6 >= 0x2; assert ctl_status <= 0xffffe'
	expect_status "$n: not constant, false" 1 "$DSH" -b "$b" -c 'assert ctl_status & 0x6 > 5'
	expect_match "$n: not constant, false message" "assertion failed: ctl_status & 0x6 > 0x5 \(got 0x2\)" "$(cat "$T_TMP/err")"
	expect_status "$n: wait, not constant, times out" 1 "$DSH" -b "$b" -c 'wait ctl_status & 0x6 >= 3 timeout=1ms'
	expect_match "$n: wait timeout message" "timed out" "$(cat "$T_TMP/err")"
done

# ---- 8. a read error on standard input -----------------------------------------
mkdir -p "$T_TMP/dir"
for b in "${BACKENDS[@]}"; do
	n="8 $(name "$b")"
	expect_status "$n: stdin a directory" 2 "$DSH" -b "$b" <"$T_TMP/dir"
	expect_match "$n: message" "<stdin>:1: line: cannot read '<stdin>': Is a directory" "$(cat "$T_TMP/err")"
	expect_status "$n: -e" 2 "$DSH" -b "$b" -e <"$T_TMP/dir"
	jrun "$n: JSON" 2 line false false -b "$b" <"$T_TMP/dir"
	expect_match "$n: JSON error" "cannot read '<stdin>': Is a directory" "$(errof "$T_TMP/j.out" line)"
	expect_status "$n: -f - as before" 2 "$DSH" -b "$b" -f - <"$T_TMP/dir"
	# An end of file is not an error.
	expect_status "$n: empty stdin" 0 "$DSH" -b "$b" </dev/null
	printf 'echo a\nassert ctl_status == 0x12' >"$T_TMP/nonl.dsh"
	expect_status "$n: last line without newline" 0 "$DSH" -b "$b" <"$T_TMP/nonl.dsh"
	expect_eq "$n: last line ran" "a
1 passed, 0 failed" "$(cat "$T_TMP/out")"
done
# After some lines ran: the input is a TCP connection the other end resets
# once the first line's output has come (read: ECONNRESET).
cat >"$T_TMP/rst.py" <<'EOF'
import socket, struct, subprocess, sys
data = sys.argv[1].encode()
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
cli = socket.create_connection(srv.getsockname()); conn, _ = srv.accept()
p = subprocess.Popen(sys.argv[2:], stdin=cli, stdout=subprocess.PIPE)
cli.close()
conn.sendall(data)
first = p.stdout.readline()
if sys.argv[1].endswith("\n"):
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
conn.close()
sys.stdout.buffer.write(first + p.stdout.read())
sys.exit(p.wait())
EOF
for b in "${BACKENDS[@]}"; do
	n="8 $(name "$b") reset"
	expect_status "$n" 1 timeout 60 python3 "$T_TMP/rst.py" $'echo a\nassert ctl_status == 0x12\n' "$DSH" -b "$b"
	expect_match "$n: message" "<stdin>:3: line: cannot read '<stdin>': Connection reset by peer" "$(cat "$T_TMP/err")"
	expect_eq "$n: lines before ran" "a
1 passed, 0 failed, 1 error" "$(cat "$T_TMP/out")"
	timeout 60 python3 "$T_TMP/rst.py" $'echo a\n' "$DSH" --json -b "$b" >"$T_TMP/j.out" 2>"$T_TMP/j.err"
	expect_eq "$n: JSON exit" 1 "$?"
	expect_eq "$n: JSON echo ok" true "$(okof "$T_TMP/j.out" echo)"
	expect_eq "$n: JSON line ok" false "$(okof "$T_TMP/j.out" line)"
	expect_eq "$n: JSON summary ok" false "$(sumok "$T_TMP/j.out")"
	# The same connection closed normally (no reset): an end of file.
	expect_status "$n: closed normally" 0 timeout 60 python3 "$T_TMP/rst.py" $'echo a\nassert ctl_status == 0x12' "$DSH" -b "$b"
done

# ---- 10. journals without records, or cut short ------------------------------------
for b in "${BACKENDS[@]}"; do
	n="10 $(name "$b")"
	jf=$T_TMP/j.$(name "$b")
	"$DSH" -b "$b" --journal "$jf" -c 'llcm_write from=0 it=2 val=7; llcm_read 0 16; assert llcm 0 == 0x700000007' >/dev/null 2>&1
	nrec=$(grep -cv '^#' "$jf")
	expect_eq "$n: end record (with the session's verdict, D-REPLAY-VERDICT)" "# end $nrec records; session passed" "$(tail -n 1 "$jf")"
	for rb in "${BACKENDS[@]}"; do
		m="$n replayed on $(name "$rb")"
		expect_status "$m: complete" 0 "$DSH" -b "$rb" replay "$jf"
		expect_match "$m: complete message" "$nrec records, no divergence" "$(cat "$T_TMP/out")"
		jrun "$m: JSON complete" 0 replay true true -b "$rb" replay "$jf"
		# Only the header.
		head -n 2 "$jf" >"$T_TMP/h.j"
		expect_status "$m: header only" 1 "$DSH" -b "$rb" replay "$T_TMP/h.j"
		expect_match "$m: header only message" "replay: .*h.j: nothing to replay: no records" "$(cat "$T_TMP/err")"
		jrun "$m: JSON header only" 1 replay false false -b "$rb" replay "$T_TMP/h.j"
		# Cut at a line boundary before its reads.
		head -n 3 "$jf" >"$T_TMP/cut.j"
		expect_status "$m: cut at a line end" 1 "$DSH" -b "$rb" replay "$T_TMP/cut.j"
		expect_match "$m: cut message" "cut.j: the journal ends without its end record .*: cut short or still being written; nothing was replayed" "$(cat "$T_TMP/err")"
		jrun "$m: JSON cut" 1 replay false false -b "$rb" -c "replay $T_TMP/cut.j"
		# Everything but the end record.
		sed '$d' "$jf" >"$T_TMP/noend.j"
		expect_status "$m: no end record" 1 "$DSH" -b "$rb" replay "$T_TMP/noend.j"
		# Cut in the middle of a line (of a record, of the end record).
		head -c $(($(head -n 3 "$jf" | wc -c) + 12)) "$jf" >"$T_TMP/mid.j"
		expect_status "$m: cut mid-line" 1 "$DSH" -b "$rb" replay "$T_TMP/mid.j"
		head -c -4 "$jf" >"$T_TMP/midend.j"
		expect_status "$m: end record cut" 1 "$DSH" -b "$rb" replay "$T_TMP/midend.j"
		# A record missing, or one added after the end.
		sed '0,/^read_block/{/^read_block/d}' "$jf" >"$T_TMP/less.j"
		expect_status "$m: a record missing" 1 "$DSH" -b "$rb" replay "$T_TMP/less.j"
		expect_match "$m: count message" "less.j:$((nrec + 2)): replay: the end record says $nrec records, the journal holds $((nrec - 1))" "$(cat "$T_TMP/err")"
		{ cat "$jf"; echo 'delay node=1 ns=10 rc=0'; } >"$T_TMP/more.j"
		expect_status "$m: a record after the end" 1 "$DSH" -b "$rb" replay "$T_TMP/more.j"
		expect_match "$m: after the end message" "more.j:$((nrec + 4)): replay: a record after the end record" "$(cat "$T_TMP/err")"
	done
	# A session without device accesses: nothing to replay.
	"$DSH" -b "$b" --gap 0 --journal "$T_TMP/none.j" -c 'echo hi' >/dev/null 2>&1
	expect_eq "$n: no records, end record" "# end 0 records; session passed" "$(tail -n 1 "$T_TMP/none.j")"
	expect_status "$n: no records" 1 "$DSH" replay "$T_TMP/none.j"
	expect_match "$n: no records message" "nothing to replay: no records" "$(cat "$T_TMP/err")"
	# A failed run still ends its journal.
	"$DSH" -b "$b" --journal "$T_TMP/failed.j" -c 'llcm_write from=0 it=2 val=9; assert llcm 0 == 8' >/dev/null 2>&1
	# (complete, no divergence; the replay fails with the session, D-REPLAY-VERDICT)
	expect_status "$n: failed run's journal replays" 1 "$DSH" replay "$T_TMP/failed.j"
	expect_match "$n: failed run's journal: no divergence, the session failed" \
		"records, no divergence; the recorded session failed \(exit status 1\)$" "$(cat "$T_TMP/out")"
done
# A run killed (no chance to end its journal).
"$DSH" --journal "$T_TMP/killed.j" -c 'repeat 100000000; llcm_read 0 8; end' >/dev/null 2>&1 &
kp=$!
for _ in $(seq 50); do [ -s "$T_TMP/killed.j" ] && [ "$(wc -l <"$T_TMP/killed.j")" -gt 4 ] && break; sleep 0.1; done
kill -KILL "$kp"; wait "$kp" 2>/dev/null
expect_status "10: killed run's journal" 1 "$DSH" replay "$T_TMP/killed.j"
expect_match "10: killed run's message" "ends without its end record" "$(cat "$T_TMP/err")"
finish
