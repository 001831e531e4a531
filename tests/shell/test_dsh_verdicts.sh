#!/usr/bin/env bash
# Verdicts CI can trust: dsh never passes what failed.
#  1. each case of the verdicts issue as a regression test;
#  2. a property test: >= 10,000 random conditions (target, mask, operator,
#     value), each run as expect and as wait, against a reference evaluator
#     written here (64-bit unsigned arithmetic in bash);
#  3. a differential test: random scripts of expect/assert/wait/prim whose
#     exit status, JSON oks and summary must agree with each other and with
#     the reference.
# Decisions pinned here (docs/decisions.md): D-VERDICT-PENDING, D-VERDICT-RUN.
. "$(dirname "$0")/lib.sh"
SEED=${DSH_VERDICT_SEED:-7}
RANDOM=$SEED
J() { "$DSH" --json "$@"; }

# ---- 1. regression cases ------------------------------------------------------
# wait applied the mask to the value: conditions that can never hold passed.
# (Refused when the script is checked: exit 2, nothing runs.)
for c in 'ctl_status & 0x10 == 0x11' 'ctl_status.sdimm_init_done == 3' 'sma_lid.lid == 0x10001' \
	'llcm 0 & 0xff == 0x100' 'pw 0 & 0xff == 0x100' 'lhb 0 & 0xff == 0x100' 'ctl_status & 0 == 1' \
	'ctl_status & 0 == 0' 'ctl_status.sdimm_init_done & 2 == 0'; do
	for cmd in wait assert; do
		expect_status "$cmd $c refused" 2 "$DSH" -c "$cmd $c"
		expect_match "$cmd $c names the width" "(outside|does not fit|constant)" "$(cat "$T_TMP/err")"
	done
done
expect_status "true masked wait" 0 "$DSH" -c 'wait ctl_status & 0x2 == 2; wait ctl_status & 0x2 != 0; wait ctl_status & 0x6 < 4'
# through dnetd too
SOCK=$T_TMP/d.sock
spawn timeout 120 "$DNETD" --sim -N 2 --listen "unix:$SOCK"
if wait_for_socket "$SOCK"; then
	expect_status "remote: impossible wait refused" 2 "$DSH" -b "remote:unix:$SOCK" -c 'wait ctl_status & 0x10 == 0x11'
	expect_status "remote: masked wait holds" 0 "$DSH" -b "remote:unix:$SOCK" -c 'wait ctl_status & 0x2 == 2 timeout=1ms'
	expect_status "remote: false wait times out" 1 "$DSH" -b "remote:unix:$SOCK" -c 'wait ctl_status & 0x2 == 0 timeout=1ms'
else
	fail "dnetd did not start"
fi
# A directory as the script: exit 2, the path named.
mkdir -p "$T_TMP/dir"
for form in "-f $T_TMP/dir" "$T_TMP/dir" "-e -f $T_TMP/dir" "--json -f $T_TMP/dir"; do
	# shellcheck disable=SC2086
	expect_status "directory script ($form)" 2 "$DSH" $form
	expect_match "directory script message ($form)" "cannot read '.*dir': Is a directory" "$(cat "$T_TMP/err")"
done
expect_status "source a directory" 1 "$DSH" -c "source $T_TMP/dir"
# A lone CR is an error, not a blank.
printf '# note\rassert ctl_status == 0x13\r\n' >"$T_TMP/cr1.dsh"
expect_status "lone CR in a comment" 2 "$DSH" -f "$T_TMP/cr1.dsh"
expect_match "lone CR message" "cr1.dsh:1: check: carriage return" "$(cat "$T_TMP/err")"
printf 'echo start\rassert ctl_status == 0x13\n' >"$T_TMP/cr2.dsh"
expect_status "lone CR after echo" 2 "$DSH" -f "$T_TMP/cr2.dsh"
expect_eq "lone CR: nothing ran" "" "$(cat "$T_TMP/out")"
printf 'echo start\r\nassert ctl_status == 0x12\r\n' >"$T_TMP/crlf.dsh"
expect_status "CR LF is a line end" 0 "$DSH" -f "$T_TMP/crlf.dsh"
# prim ... wait with an error flag at the issuer fails.
out=$(J -c 'prim VS size=0x100000 src=0 dst=0x800 wait' 2>"$T_TMP/e"); rc=$?
expect_eq "VS src overrun: exit" 1 "$rc"
expect_eq "VS src overrun: ok" false "$(jq -s '.[0].ok' <<<"$out")"
expect_eq "VS src overrun: errors" '[{"node":1,"flag":"ww0_src_overrun"}]' "$(jq -sc '[.[0].result.wait.errors[] | {node, flag}]' <<<"$out")"
expect_match "VS src overrun: stderr" "node 1 ww0_src_overrun" "$(cat "$T_TMP/e")"
# ... and at the receiver.
expect_status "RVS receiver overrun" 1 "$DSH" -c 'prim RVS dl=2 ef=1 size=64 src=0 dst=0x7ffffff0 wait'
expect_match "RVS receiver overrun names node 2" "node 2 rc_overrun" "$(cat "$T_TMP/err")"
expect_status "provoked error, allowed" 0 "$DSH" -c 'prim RVS dl=2 ef=1 size=64 src=0 dst=0x7ffffff0 allow=rc_overrun wait'
expect_status "allowed error that did not rise" 1 "$DSH" -c 'prim RVS dl=2 ef=1 size=64 src=0 dst=0 allow=rc_overrun wait'
expect_status "PGID drop at the receiver" 1 "$DSH" -c '@2 sreg_write pgid0 5; prim RVS dl=2 size=64 src=0 dst=0 wait'
expect_match "PGID drop named" "node 2 pgid_drop" "$(cat "$T_TMP/err")"
expect_status "status ring full at the receiver" 1 "$DSH" -c '@2 ureg_write status_area_size 1; repeat 3; prim RVS dl=2 ef=1 size=8 src=0 dst=0 wait; end'
expect_match "status_full named" "node 2 status_full" "$(cat "$T_TMP/err")"
# Out-of-range offsets: flagged by the device, or refused by dsh.
expect_status "VS source past the window area" 1 "$DSH" -c 'prim VS size=64 src=0x100000 dst=0x800 wait'
expect_status "VL past the SO-DIMM area refused" 1 "$DSH" -c 'prim VL size=16 src=0x10000000 dst=0 wait'
expect_match "VL area message" "past the end of the SO-DIMM area" "$(cat "$T_TMP/err")"
expect_status "VL past the PW window refused" 1 "$DSH" -c 'prim VL size=0x1000 src=0 dst=0x700'
expect_status "VL past the PW window, force" 0 "$DSH" -c 'prim VL size=0x1000 src=0 dst=0x700 force wait'
# Checks that cannot fail are refused; repeat 0 still checks its body.
expect_status "assert & 0" 2 "$DSH" -c 'assert ctl_status & 0 == 0'
expect_status "repeat 0 body checked" 2 "$DSH" -c 'repeat 0; nosuchcommand; end'
expect_status "repeat \$n = 0 body checked" 2 "$DSH" -c 'set n 0; repeat $n; nosuchcommand; end'
expect_status "argument count checked before anything runs" 2 "$DSH" -c 'echo ran; repeat 0; llcm_read 0 8 16; end'
expect_match "argument count message" "check: llcm_read takes 0 to 2 arguments, got 3" "$(cat "$T_TMP/err")"
expect_eq "argument count: nothing ran" "" "$(cat "$T_TMP/out")"
# last is cleared by a failed command.
expect_status "last cleared" 1 "$DSH" -c 'ureg_read ctl_status; ureg_read nosuch; assert last == 0x12'
expect_match "last cleared message" "no last result" "$(cat "$T_TMP/err")"
# The summary counts failed commands.
out=$("$DSH" -c 'assert ctl_status == 0x12; wait ctl_status == 0 timeout=1us' 2>/dev/null)
expect_eq "summary with errors" "1 passed, 0 failed, 1 error" "$(tail -n 1 <<<"$out")"
out=$(J -c 'assert ctl_status == 0x12; wait ctl_status == 0 timeout=1us' 2>/dev/null)
expect_eq "JSON summary with errors" '1 0 1 false' "$(jq -rs 'last.summary | "\(.passed) \(.failed) \(.errors) \(.ok)"' <<<"$out")"
# An unterminated repeat runs nothing at all.
printf 'llcm_write from=0 it=1 val=7\nrepeat 2\necho b\n' >"$T_TMP/unterm.dsh"
expect_status "unterminated repeat" 2 "$DSH" -f "$T_TMP/unterm.dsh"
expect_eq "unterminated repeat: nothing ran" "" "$(cat "$T_TMP/out")"
# --json run ended by a signal: the summary object is written, exit 128+N.
# ("$BIN/dsh": the signal is for dsh, not lib.sh's collecting wrapper; the
# loop's objects are all alike, so the schema check of ~10^5 of them is quick.)
for sig in TERM INT HUP; do
	"$BIN/dsh" --json -c 'echo a; repeat 100000000; echo b; end' >"$T_TMP/sig.out" 2>/dev/null &
	p=$!
	sleep 0.3
	kill -s "$sig" "$p"
	wait "$p" 2>/dev/null; rc=$?
	want=$((128 + $(kill -l "$sig")))
	expect_eq "SIG$sig exit" "$want" "$rc"
	expect_eq "SIG$sig summary" "false $(kill -l "$sig")" "$(jq -rs 'last.summary | "\(.ok) \(.signal)"' <"$T_TMP/sig.out" 2>/dev/null)"
	json_collect "$T_TMP/sig.out"
done

# Every shipped script passes the whole-script check (dsh -n).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
while IFS= read -r f; do
	expect_status "dsh -n ${f#"$ROOT"/}" 0 "$DSH" -n "$f"
done < <(find "$ROOT/tests" "$ROOT/scripts" -name '*.dsh' | sort)

# ---- 2. property test: expect and wait against the reference --------------------
N=${DSH_VERDICT_CASES:-10000}
# 64-bit unsigned compare of a and b (bash integers are signed): -1, 0, 1.
ucmp() {
	local ah=$((($1 >> 32) & 0xffffffff)) bh=$((($2 >> 32) & 0xffffffff))
	local al=$(($1 & 0xffffffff)) bl=$(($2 & 0xffffffff))
	if [ "$ah" -ne "$bh" ]; then [ "$ah" -lt "$bh" ] && R=-1 || R=1
	elif [ "$al" -ne "$bl" ]; then [ "$al" -lt "$bl" ] && R=-1 || R=1
	else R=0; fi
}
holds() { # VALUE OP REF -> status
	ucmp "$1" "$3"
	case $2 in
	'==') [ "$R" -eq 0 ] ;; '!=') [ "$R" -ne 0 ] ;; '<') [ "$R" -lt 0 ] ;;
	'>') [ "$R" -gt 0 ] ;; '<=') [ "$R" -le 0 ] ;; '>=') [ "$R" -ge 0 ] ;;
	esac
}
# The verdict is the same for every value (target & M) can take: == and !=
# with a value outside the mask; for < > <= >= a bound all of 0..M (the
# least and the greatest submask of M) is on one side of.
constant() { # M OP V -> status
	case $2 in
	'=='|'!=') [ $(($3 & ~$1)) -ne 0 ] ;;
	'<'|'>=') ucmp "$1" "$3"; [ "$3" -eq 0 ] || [ "$R" -lt 0 ] ;;
	'<='|'>') ucmp "$1" "$3"; [ "$R" -le 0 ] ;;
	esac
}
rnd64() { echo $(((RANDOM << 49) ^ (RANDOM << 34) ^ (RANDOM << 19) ^ (RANDOM << 4) ^ (RANDOM & 15))); }
hex() { printf '0x%x' "$1"; }
# The same without a subshell (a fork per call made 10,000 cases slow):
# results in RND and HEX.
rnd64v() { RND=$(((RANDOM << 49) ^ (RANDOM << 34) ^ (RANDOM << 19) ^ (RANDOM << 4) ^ (RANDOM & 15))); }
hexv() { printf -v HEX '0x%x' "$1"; }
OPS=('==' '!=' '<' '>' '<=' '>=')
# Targets: name, bits it has, its value (known: set below or fixed by the idle emulator).
TN=(); TB=(); TV=()
setup=""
for k in 0 1 2 3 4 5; do
	v=$(rnd64)
	[ "$k" -eq 5 ] && v=$((0x7fffffff00000000))
	TN+=("llcm $((k * 8))"); TB+=(-1); TV+=("$v")
	setup+="llcm_write from=$((k * 8)) it=1 val=$(hex $((v & 0xffffffff)))"$'\n'
	setup+="llcm_write from=$((k * 8 + 4)) it=1 val=$(hex $(((v >> 32) & 0xffffffff)))"$'\n'
done
TN+=(ctl_status ctl_status.status_empty ctl_status.sdimm_init_done sma_lid.lid prim_counter.vs pkt_counter)
TB+=($((0xfffff)) 1 1 $((0xffff)) $((0x3ff)) -1)
TV+=($((0x12)) 1 1 1 0 0)
# Case i: target t, mask m (or none), op, value; expected P(ass) F(ail) R(efused).
gen_case() {
	local t bits r m cond mask
	t=$((RANDOM % ${#TN[@]}))
	bits=${TB[$t]}
	r=$((RANDOM % 10))
	if [ $r -lt 5 ]; then m=$bits; mask=""
	elif [ $r -lt 9 ]; then rnd64v; m=$((RND & bits)); [ "$m" -eq 0 ] && m=$bits; hexv "$m"; mask=" & $HEX"
	elif [ $((RANDOM % 2)) -eq 0 ] || [ "$bits" -eq -1 ]; then m=0; mask=" & 0"
	else rnd64v; m=$((RND | ~bits)); hexv "$m"; mask=" & $HEX"; fi
	local op act v
	op=${OPS[$((RANDOM % 6))]}
	act=$((TV[t] & m))
	case $((RANDOM % 6)) in
	0|1) v=$act ;;
	2) v=$(((act + 1) & m)) ;;
	3) v=$(((act - 1) & m)) ;;
	4) rnd64v; v=$((RND & m)) ;;
	5) rnd64v; v=$((RND | (m == -1 ? 0 : ~m))); [ "$m" -eq -1 ] && { rnd64v; v=$((RND & m)); } ;;
	esac
	hexv "$v"
	cond="${TN[$t]}$mask $op $HEX"
	local exp
	# a register's mask may name its reserved bits (they read 0; issue 23):
	# only a field's mask outside it is refused; constant() judges over M
	if [ "$m" -eq 0 ]; then exp=R
	elif [ $((m & ~bits)) -ne 0 ] && [[ ${TN[$t]} == *.* ]]; then exp=R
	elif constant "$m" "$op" "$v"; then exp=R
	elif holds "$act" "$op" "$v"; then exp=P
	else exp=F; fi
	C_COND=$cond C_EXP=$exp
}
{
	printf '%s' "$setup"
	: >"$T_TMP/prop.exp"
	for ((i = 0; i < N; i++)); do
		gen_case
		printf 'expect %s\nwait %s timeout=1us\n' "$C_COND" "$C_COND"
		echo "$C_EXP" >>"$T_TMP/prop.exp"
	done
} >"$T_TMP/prop.dsh"
# From standard input (read line by line, not checked whole): each refused
# condition is an error of its own line, the others still run.
J --gap 0 <"$T_TMP/prop.dsh" >"$T_TMP/prop.out" 2>/dev/null
# Outcome of each object: P held, F evaluated and did not hold, R refused.
jq -r 'select(.summary == null) | select(.cmd == "expect" or .cmd == "wait") |
	if .ok then "P" elif .cmd == "expect" and .result.passed == false then "F"
	elif .cmd == "wait" and (.error | test("timed out")) then "F" else "R" end' \
	<"$T_TMP/prop.out" | paste - - >"$T_TMP/prop.got"
awk '{ print $1 "\t" $1 }' "$T_TMP/prop.exp" >"$T_TMP/prop.want"
ncases=$(wc -l <"$T_TMP/prop.got")
expect_eq "property cases run" "$N" "$ncases"
bad=$(paste "$T_TMP/prop.want" "$T_TMP/prop.got" | awk -F'\t' '$1 != $3 || $2 != $4 { print NR }' | head -n 5)
if [ -z "$bad" ]; then pass; else
	for n in $bad; do
		fail "property case $n: want $(sed -n "${n}p" "$T_TMP/prop.exp"), got expect/wait $(sed -n "${n}p" "$T_TMP/prop.got"): $(sed -n "$((12 + 2 * n - 1))p" "$T_TMP/prop.dsh")"
	done
fi
expect_match "property: all three verdicts occur" "P.*F.*R|P.*R.*F|F.*P.*R|F.*R.*P|R.*P.*F|R.*F.*P" "$(sort -u "$T_TMP/prop.exp" | tr -d '\n')"

# ---- 3. differential test: whole scripts ----------------------------------------
NS=${DSH_VERDICT_SCRIPTS:-100}   # x LINES = 10,000 lines
LINES=${DSH_VERDICT_LINES:-100}
dbad=0
for ((s = 0; s < NS; s++)); do
	f=$T_TMP/d.$s.dsh
	np=0 nf=0 nerr=0 nlines=0
	# The state the VS primitives change: the VS counter and Controller
	# Status (each window's done/src-overrun bits, cleared when a VS from
	# that window starts).
	TV[6]=$((0x12)) TV[10]=0
	{
		printf '%s' "$setup"
		for ((l = 0; l < LINES; l++)); do
			case $((RANDOM % 4)) in
			0|1) # expect (never stops) or assert
				gen_case
				if [ $((RANDOM % 2)) -eq 0 ]; then kw=expect; else kw=assert; fi
				echo "$kw $C_COND"
				case $C_EXP in P) np=$((np + 1)) ;; F) nf=$((nf + 1)) ;; R) nerr=$((nerr + 1)) ;; esac ;;
			2) gen_case
				echo "wait $C_COND timeout=1us"
				[ "$C_EXP" != P ] && nerr=$((nerr + 1)) ;;
			3) # VS from a random Write Window offset: overrun iff size > room in the window
				src=$((RANDOM % 2048)); src=$((src - src % 8)); size=$(((RANDOM % 64 + 1) * 8))
				room=$(((src / 512 + 1) * 512 - src))
				echo "prim VS size=$size src=$src dst=$((RANDOM * 8)) wait"
				w=$((src / 512))
				TV[6]=$(((TV[6] & ~(7 << (5 + 3 * w))) | (1 << (5 + 3 * w))))
				[ "$size" -gt "$room" ] && { nerr=$((nerr + 1)); TV[6]=$((TV[6] | (1 << (6 + 3 * w)))); }
				TV[10]=$(((TV[10] + 1) & 0x3ff)) ;;
			esac
			nlines=$((nlines + 1))
		done
	} >"$f"
	J --gap 0 <"$f" >"$T_TMP/d.out" 2>"$T_TMP/d.err"; rc=$?
	# Agreement: JSON oks vs summary vs exit status vs the reference.
	got=$(jq -rs '
		[.[] | select(.summary == null and .cmd != "llcm_write")] as $c | last.summary as $s |
		"\([$c[] | select((.cmd == "expect" or .cmd == "assert") and .result.passed == true)] | length) " +
		"\([$c[] | select((.cmd == "expect" or .cmd == "assert") and .result.passed == false)] | length) " +
		"\([$c[] | select(.ok == false and ((.cmd == "expect" or .cmd == "assert") and .result.passed == false | not))] | length) " +
		"\($s.passed) \($s.failed) \($s.errors) \($s.ok) \($c | length)"' <"$T_TMP/d.out")
	want_ok=true
	[ $((nf + nerr)) -gt 0 ] && want_ok=false
	want="$np $nf $nerr $np $nf $nerr $want_ok $nlines"
	want_rc=0
	[ "$want_ok" = false ] && want_rc=1
	nmsg=$(grep -c '^dsh: ' "$T_TMP/d.err")
	if [ "$got" != "$want" ] || [ "$rc" -ne "$want_rc" ] || [ "$nmsg" -ne $((nf + nerr)) ]; then
		dbad=$((dbad + 1))
		[ $dbad -le 3 ] && fail "differential script $s: want [$want] rc $want_rc msgs $((nf + nerr)), got [$got] rc $rc msgs $nmsg (kept as $f)"
		cp "$f" "$T_TMP/../verdict-failed.$s.dsh" 2>/dev/null
	else
		pass
	fi
done
expect_eq "differential scripts that disagreed" 0 "$dbad"
finish
