#!/usr/bin/env bash
# Strict input: every bad input is a clear error naming the token, a
# non-zero status, nothing done, never a crash.
. "$(dirname "$0")/lib.sh"
err_of() { "$DSH" -c "$1" 2>&1 >/dev/null; }
check() { # NAME COMMAND REGEX
	expect_status "$1 status" 1 "$DSH" -c "$2"
	expect_match "$1 message" "$3" "$(err_of "$2")"
}
# Errors the whole-input check finds before anything runs: exit 2 (as sh -n).
check2() { # NAME COMMAND REGEX
	expect_status "$1 status" 2 "$DSH" -c "$2"
	expect_match "$1 message" "$3" "$(err_of "$2")"
}
check "55ff" 'llcm_read 55ff 64' "argument 1: offset '55ff'.*invalid"
check "0x" 'llcm_read 0x 64' "'0x'"
check "octal-looking" 'llcm_read 010 8' "'010'"
check "out of range" 'llcm_read 0 0x9000' "argument 2: size '0x9000' out of range"
check "misaligned" 'llcm_read 4 64' "misaligned"
check "misaligned write" 'llcm_write from=2 it=1 val=1' "misaligned"
check "past the end" 'llcm_write from=0x7ffc it=2 val=1' "past the end"
check "unknown key" 'llcm_write from=0 it=1 vale=3' "unknown key 'vale'"
check "missing key" 'llcm_write from=0 it=1' "missing val="
check "duplicate key" 'llcm_write val=1 val=2' "given twice"
check "not key=value" 'llcm_write 5' "not key=value"
check2 "missing arg" 'pw_read' "check: pw_read takes 1 to 2 arguments, got 0"
check "PW range" 'pw_read 4 64' "PW# '4' out of range"
check2 "unknown command" 'frobnicate' "unknown command 'frobnicate'"
check "unknown prim" 'prim XX' "unknown primitive 'XX'"
check "prim field range" 'prim VS dt=8' "Dtype.*'8' out of range"
check "prim unknown key" 'prim VS foo=1' "unknown key 'foo'"
check "ex on local" 'prim VL xot=4' "do not apply to VL"
check "value too wide" 'ureg_write status_area_size 0x100' "bits outside status_area_size"
check "read-only" 'ureg_write ctl_status 1' "\\[reg-ro\\] 0x40200 is ctl_status \\(ureg 0\\+0x200\\), which is read-only: it is not written"
check "write-only" 'ureg_read prim_counter_reset' "\\[reg-wo\\] 0x40300 is prim_counter_reset \\(ureg 0\\+0x300\\), which is write-only: it is not read \\(use ureg_write, or 'reg prim_counter_reset' for dsh's shadow\\)"
check "wrong block" 'sreg_read ctl_status' "User register: use ureg_read"
check "read effect" 'reg ctl_reset' "^dsh: -c:1: reg: \\[reg-effect\\] 0x50a00 is ctl_reset: any access, a read too, resets the controller \\(App. B\\); dnet_reg_read_effect \\('reg ctl_reset confirm'\\) reads it on purpose$"
expect_eq "reg ctl_reset confirm resets" "0" "$("$DSH" -c 'prim VS size=8 src=0 dst=0 wait; reg ctl_reset confirm; reg prim_counter.vs' 2>&1 | sed -n 's/.*vs.*= 0x\([0-9a-f]*\) .*/\1/p')"
check "multicast CLID refused" 'prim RVS dl=0xc00 size=8' "CLID 0xc00 is a multicast group \\(Tab. 4.6"
check "VLI copy refused" 'prim VLI size=0 src=0 dst=0xffffffff' "list access is excluded from copies"
check "VSI copy refused" 'prim VSI size=0x100 src=0xffffffff dst=0' "VSI cannot take part in an SO-DIMM copy.*§4.6.8"
expect_eq "VSI copy with force: sent, the emulator starts nothing" "copy_list_refused 1" \
	"$("$DSH" -c 'prim VSI size=0x100 src=0xffffffff dst=0 force; sleep 10us; stat copy_list_refused' 2>/dev/null | tail -n 1)"
check "peek ctl_reset" 'peek sreg 0xa00' "^dsh: -c:1: peek: \\[reg-effect\\] 0x50a00 is ctl_reset: any access, a read too, resets the controller \\(App. B\\); dnet_reg_read_effect \\('reg ctl_reset confirm'\\) reads it on purpose$"
expect_status "sim:nodes=3072 refused" 3 "$DSH" -b sim:nodes=3072 -c v
expect_match "sim:nodes=3072 message" "nodes=3072 out of range \\(1-3071.*Tab. 4.6" "$(cat "$T_TMP/err")"
check "unknown field" 'reg ctl_status.nope' "no field 'nope'"
check "node range" '@3 v' "node 3 out of range"
check "undefined var" 'echo $nope' "undefined variable"
check2 "bad op" 'assert ctl_status =! 1' "check: assert: argument 2: '=!' is not an operator"
check "rllcm misaligned" 'rllcm_write 2 4 1' "misaligned"
check "rllcm clid" 'rllcm_write 0x1000 0 1' "out of range"
check2 "end alone" 'end' "end without repeat"
check2 "repeat no end" 'repeat 2; v' "without matching end"
check2 "sleep" 'sleep 5parsecs' "check: sleep: duration: '5parsecs': unknown unit 'parsecs' \\(ns, us, ms, s, m, h\\)"
check2 "sleep bare" 'sleep 5' "check: sleep: duration: '5' needs a unit \\(ns, us, ms, s, m, h\\)"
check "sleep bare, through a variable" 'set t 5; sleep $t' "-c:1: sleep: duration: '5' needs a unit"
check2 "repeat bad variable" 'repeat 2 1bad; echo x; end' "-c:1: check: repeat: bad variable name '1bad'"
check2 "end with argument" 'repeat 2; v; end now' "end takes no arguments \\(got 'now'\\)"
check "empty \${}" 'echo ${}' 'empty variable name'
check "long variable name" "echo \$$(printf 'v%.0s' $(seq 70))" "longer than 63 characters"
check "long set name" "set $(printf 'v%.0s' $(seq 70)) 1" "at most 63 characters"
check "@K alone" '@1' "@1: missing command after @1"
check "it=0" 'llcm_write val=1 it=0' "it=0: nothing to write"
check "botf empty data word" 'botf type=RVS data=1,,2' "data=: word 2 is empty"
check "botf trailing comma" 'botf type=RVS data=1,' "data=: word 2 is empty"
check "snapshot empty name" 'snapshot ""' "empty snapshot name"
check "sodimm read usage" 'sodimm read' "usage: sodimm read OFF"
check "decode word count" 'decode ctl_status 1 2' "takes 1 word, got 2"
check2 "control character" "$(printf 'echo a\001b')" "control character 0x01 at column 7"
# The bad repeat header runs nothing and is one failed command.
expect_eq "bad repeat runs nothing" "" "$("$DSH" -c 'repeat 2 1bad; echo x; end' 2>/dev/null)"
# echo prints its whole text (no silent truncation at 4 KB)
long=$(printf 'e%.0s' $(seq 5000))
expect_eq "echo long" 5000 "$("$DSH" -c "echo $long" | tr -d '\n' | wc -c)"
# A variable name is never cut short: $<64 chars> is not $<63 chars> + text.
n63=$(printf 'a%.0s' $(seq 63))
expect_status "long name not truncated" 1 "$DSH" -c "set $n63 X; echo \$${n63}b"
# NUL bytes and control characters in a script: the check names each (file:line), nothing runs.
printf 'llcm_write from=0 it=1 val=5\0 junk\nllcm_write from=8 it=1 val=6\033\nassert llcm 0 == 0\nassert llcm 8 == 0\n' >"$T_TMP/nul.dsh"
expect_status "NUL line status" 2 "$DSH" -f "$T_TMP/nul.dsh"
expect_match "NUL line message" "nul.dsh:1: check: NUL byte at column 29" "$(cat "$T_TMP/err")"
expect_match "ESC line message" "nul.dsh:2: check: control character 0x1b at column 29" "$(cat "$T_TMP/err")"
expect_eq "nothing of them ran" "" "$(cat "$T_TMP/out")"
# Bounded input: a script of endless bytes, an endless line on a pipe.
t0=$(date +%s)
expect_status "source /dev/zero is refused, bounded" 1 timeout 30 "$DSH" -c 'source /dev/zero'
expect_match "source /dev/zero says why" "larger than 64 MB" "$(cat "$T_TMP/err")"
head -c 100000 /dev/zero | tr '\0' a >"$T_TMP/longline"
printf '\necho after\n' >>"$T_TMP/longline"
out=$("$DSH" <"$T_TMP/longline" 2>"$T_TMP/err")
expect_eq "a line past 64 KB on a pipe is dropped, the next runs" "after
0 passed, 0 failed, 1 error" "$out"
expect_match "the long line is named" "<stdin>:1: line: line longer than 65536 bytes" "$(cat "$T_TMP/err")"
# Control bytes and broken UTF-8 in messages are escaped.
"$DSH" -c "$(printf 'nosuch\x9b[31m')" 2>"$T_TMP/err"
expect_match "C1 byte escaped" "unknown command 'nosuch\\\\x9b\\[31m'" "$(cat "$T_TMP/err")"
if grep -q "$(printf '\x9b')" "$T_TMP/err"; then fail "raw C1 byte in a message"; else pass; fi
# Durations in messages stay readable at any size.
"$DSH" -c 'wait ctl_status == 0 timeout=18446744073709551615ns' 2>"$T_TMP/err"
expect_match "huge timeout formatted" "timed out after 4611686018\\.427s" "$(cat "$T_TMP/err")"
# --max-time stops even 10^16 nested iterations.
t0=$(date +%s%N)
expect_status "--max-time stops the run" 1 timeout 30 "$DSH" --max-time 300ms -c 'repeat 100000000; repeat 100000000; stat vtime_ns; end; end'
el=$((($(date +%s%N) - t0) / 1000000))
if [ "$el" -lt 5000 ]; then pass; else fail "--max-time 300ms took $el ms"; fi
expect_match "--max-time message" "reached its --max-time of 300ms" "$(cat "$T_TMP/err")"
# Deeply nested repeat blocks: an error, not a stack overflow.
{ for i in $(seq 2000); do echo 'repeat 1'; done; echo v; for i in $(seq 2000); do echo end; done; } >"$T_TMP/deep.dsh"
expect_status "deep repeat" 2 "$DSH" -f "$T_TMP/deep.dsh"
expect_match "deep repeat message" "deep.dsh:33: check: repeat blocks nested more than 32 deep" "$(cat "$T_TMP/err")"
printf 'source %s\n' "$T_TMP/self.dsh" >"$T_TMP/self.dsh"
expect_status "recursive source" 1 "$DSH" -f "$T_TMP/self.dsh"
expect_match "recursive source message" "source: nested too deeply \(16 levels\)" "$(cat "$T_TMP/err")"
# Nothing done on error: a rejected llcm_write leaves LLCM untouched.
out=$("$DSH" -c 'llcm_write from=0 it=4 val=7 inc=1 bogus=1; llcm_read 0 16' 2>/dev/null | sed -n 2p)
expect_eq "nothing done" "#4215c000: 0000000000000000 0000000000000000" "$out"
# Errors in scripts carry file:line.
printf 'v\n\n# comment\nllcm_read 55ff\n' >"$T_TMP/bad.dsh"
expect_status "script error status" 1 "$DSH" -f "$T_TMP/bad.dsh"
expect_match "file:line" "bad.dsh:4: llcm_read: argument 1" "$(cat "$T_TMP/err")"
printf 'v\nsource %s\n' "$T_TMP/bad.dsh" >"$T_TMP/outer.dsh"
"$DSH" -f "$T_TMP/outer.dsh" >/dev/null 2>"$T_TMP/err2"
expect_match "sourced file:line" "bad.dsh:4: llcm_read" "$(cat "$T_TMP/err2")"
# Exit codes: 2 usage, 3 backend.
expect_status "bad option" 2 "$DSH" --frob
expect_status "bad positional" 2 "$DSH" 2 3 0 -c v
expect_status "bad WID" 2 "$DSH" 2 1 2 -c v
expect_status "55ff positional" 2 "$DSH" 55ff 1 0 -c v
expect_status "-N 0" 2 "$DSH" -N 0 -c v
expect_status "missing script" 2 "$DSH" -f "$T_TMP/none.dsh"
# -c and -f may be repeated and run in order (checked whole first).
printf 'echo f1\n' >"$T_TMP/f1.dsh"
expect_eq "-c and -f in order" "c1
f1
c2" "$("$DSH" -c 'echo c1' -f "$T_TMP/f1.dsh" --command 'echo c2')"
expect_status "a bad -f stops all before anything runs" 2 "$DSH" -c 'echo c1' -f "$T_TMP/f1.dsh" -c 'nosuch'
expect_eq "nothing ran" "" "$(cat "$T_TMP/out")"
expect_status "exit N sets the status" 3 "$DSH" -c 'echo a; exit 3; echo b'
expect_status "quit 256 refused" 1 "$DSH" -c 'quit 256'
expect_match "--version starts with dsh" "^dsh [0-9]+\.[0-9]+\.[0-9]+ " "$("$DSH" --version | head -n 1)"
expect_status "stdin twice" 2 "$DSH" -f - -f -
expect_status "bad backend" 3 "$DSH" -b nosuch -c v
expect_match "bad backend message" "cannot open backend 'nosuch'" "$(cat "$T_TMP/err")"
# A banner, then an error: each on its own line whichever way the two
# streams meet (issue 23 item 7 saw them run together): into one file, one
# pipe, and a terminal (script(1) gives dsh a pty; its CRs are dropped).
BE='ureg_write prim_counter_reset; wait pkt_counter == 5 timeout=1us'
BE_WANT="####### Primitive Counter Reset #######
dsh: -c:1: wait: timed out after 1.000us waiting for pkt_counter == 0x5 (last value 0x0)
0 passed, 0 failed, 1 error"
"$BIN/dsh" -c "$BE" >"$T_TMP/be" 2>&1
expect_eq "banner then error, into a file" "$BE_WANT" "$(cat "$T_TMP/be")"
expect_eq "banner then error, into a pipe" "$BE_WANT" "$("$BIN/dsh" -c "$BE" 2>&1 | cat)"
if command -v script >/dev/null; then
	expect_eq "banner then error, on a terminal" "$BE_WANT" \
		"$(script -qec "$BIN/dsh -c '$BE'" /dev/null </dev/null | tr -d '\r')"
else
	skip "script(1) missing: no terminal for the banner check"
fi
# ---- issue 32 item 7: messages that say what is wrong, "did you mean" ----
check2 "did you mean: command" 'llcm_raed 0 8' "unknown command 'llcm_raed' \(did you mean 'llcm_read'\?\)"
check2 "no suggestion when nothing is near" 'frobnicate' "unknown command 'frobnicate'$"
check "did you mean: register" 'reg ctl_stauts' "unknown register 'ctl_stauts' \(did you mean 'ctl_status'\?\)"
check "did you mean: field" 'reg ctl_status.rc_stat' "register 'ctl_status' has no field 'rc_stat' \(did you mean 'ctl_status.rc_state'\?\)"
check "did you mean: key" 'llcm_write from=0 it=1 vale=3' "unknown key 'vale' \(did you mean 'val='\? known: from it val inc\)"
check "did you mean: region" 'peek llmc 0' "unknown region 'llmc' \(did you mean 'llcm'\? ww pw llcm"
check "did you mean: primitive" 'prim VX size=8' "unknown primitive 'VX' \(did you mean 'VL'\? one of: NOP"
check "did you mean: help" 'help llcm_raed' "no command 'llcm_raed' \(did you mean 'llcm_read'\?"
check "did you mean: parameter" 'params timing.clk_nss' "no parameter 'timing.clk_nss' \(did you mean 'timing.clk_ns'\?"
check "did you mean: statistic" 'stat vtime_nss' "no statistic 'vtime_nss' \(did you mean 'vtime_ns'\? 'stat' lists them\)$"
# through dnetd: suggested once (the server's libdnet suggests, the client's adds nothing)
start_dnetd "$T_TMP/sg.sock" --sim -N 2
"$DSH" -b "remote:unix:$T_TMP/sg.sock" -c 'stat vtime_nss' >/dev/null 2>"$T_TMP/err"
expect_match "did you mean: statistic through dnetd, once" "no statistic 'vtime_nss' \(did you mean 'vtime_ns'\? 'stat' lists them\)$" "$(cat "$T_TMP/err")"
"$DSH" -b "remote:unix:$T_TMP/sg.sock" -c 'params timing.clk_nss' >/dev/null 2>"$T_TMP/err"
expect_match "did you mean: parameter through dnetd" "no parameter 'timing.clk_nss' \(did you mean 'timing.clk_ns'\?" "$(cat "$T_TMP/err")"
expect_status "did you mean: option" 2 "$DSH" --jsno -c v
expect_match "did you mean: option message" "unknown option '--jsno' \(did you mean '--json'\?\)" "$(cat "$T_TMP/err")"
expect_status "one-dash long option" 2 "$DSH" -json -c v
expect_match "one-dash long option message" "unknown option '-json' \(did you mean '--json'\?\)" "$(cat "$T_TMP/err")"
expect_status "did you mean: dsh-run option" 2 "$DSH_RUN" --reprot r.json -n 1 x.dsh
expect_match "did you mean: dsh-run option message" "unknown option '--reprot' \(did you mean '--report'\?\)" "$(cat "$T_TMP/err")"
expect_status "did you mean: dnetd option" 2 "$BIN/dnetd" --listne=unix:/nonexistent/x --sim
expect_match "did you mean: dnetd option message" "unknown option '--listne=unix:/nonexistent/x' \(did you mean '--listen'\?\)" "$(cat "$T_TMP/err")"
expect_status "backend options after ','" 3 "$DSH" -b remote,node=3 -c v
expect_match "backend options after ',': message" "unknown backend 'remote,node=3': backend 'remote' takes its options after a ':' \(remote:unix:PATH" "$(cat "$T_TMP/err")"
expect_status "backend near a known name" 3 "$DSH" -b remot:unix:/x -c v
expect_match "backend near a known name: message" "unknown backend 'remot' \(did you mean 'remote'\? known: sim, remote, .*options after a ':'" "$(cat "$T_TMP/err")"
printf 'v\n' >"$T_TMP/a.dsh"; cp "$T_TMP/a.dsh" "$T_TMP/b.dsh"
expect_status "two scripts" 2 "$DSH" "$T_TMP/a.dsh" "$T_TMP/b.dsh"
expect_match "two scripts: message" "more than one script: '.*a.dsh' and '.*b.dsh'; dsh runs one FILE argument: give each with -f .* or run them on every rank with dsh-run" "$(cat "$T_TMP/err")"
expect_status "NPROCS PID without WID" 2 "$DSH" 2 1 "$T_TMP/a.dsh"
expect_match "NPROCS PID without WID: message" "expected NPROCS PID WID \(three numbers\) before the script, got two" "$(cat "$T_TMP/err")"
# A script that fails the check fails as such (exit 2) also where the
# backend cannot open; one that passes it meets the backend's error (exit 3).
printf 'llcm_write from=0 it=1 val=1\npoke llcm 0 64 32\n' >"$T_TMP/badcheck.dsh"
printf 'llcm_write from=0 it=1 val=1\n' >"$T_TMP/goodcheck.dsh"
"$DSH" -b "remote:unix:$T_TMP/no.sock" -f "$T_TMP/badcheck.dsh" >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "no backend, a script failing the check: exit 2" 2 $?
expect_match "no backend, a script failing the check: the check's error" "badcheck.dsh:2: check: poke: " "$(cat "$T_TMP/err")"
expect_match "no backend, a script failing the check: nothing was run" "badcheck.dsh: 1 error; nothing was run" "$(cat "$T_TMP/err")"
expect_status "no backend, a script passing the check: exit 3" 3 "$DSH" -b "remote:unix:$T_TMP/no.sock" -f "$T_TMP/goodcheck.dsh"
expect_status "ok" 0 "$DSH" -c v
expect_status "help" 0 "$DSH" --help
finish
