#!/usr/bin/env bash
# Robustness: many random and mutated command lines (deterministic seed,
# bounded count and time), run as scripts in text and JSON mode.  Checks:
# no sanitizer report, no crash or hang (exit status 0 or 1), every line on
# stderr is "dsh: FILE:LINE: CMD: reason" (or a warning), in --json mode every
# stdout line is one valid JSON object, a failed command's object carries its
# error and there is exactly one stderr message per failed object, and text
# and JSON runs end with the same status.
#   DSH_ROBUST_SEED (default 4242), DSH_ROBUST_BATCHES (default 14),
#   DSH_ROBUST_SECONDS (time budget, default 15).
. "$(dirname "$0")/lib.sh"
RANDOM=${DSH_ROBUST_SEED:-4242}
BATCHES=${DSH_ROBUST_BATCHES:-14}
BUDGET=${DSH_ROBUST_SECONDS:-15}
PER_BATCH=60
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# ---- material -------------------------------------------------------------
CMDS=(evpbuf_read lhb_read help h llcm_read llcm_write prim pw_read rllcm_write sreg_read sreg_write
	ureg_read ureg_write version v ww_write dump x sodimm reg r snapshot snap diff watch status lh
	decode botf wait node info stat echo sleep set unset assert expect source . repeat end
	frob "" '@' LLCM_READ)
NUMS=(0 1 2 3 7 8 16 64 0x10 0x200 0x7ff8 0x8000 0xfff 0xffffffff 0x100000000
	18446744073709551615 18446744073709551616 0xffffffffffffffffff -1 +1 55ff 0x 0x0x1 08 010 0b101
	0b 0o17 0o8 1_000 _1 1__0 '""' "''" 1e3 1.5 0X10 99999999999999999999999 ' ' 5us 1s 10parsec)
KEYS=(from it val inc ww dt dw dl ef size src dst rf xot xdt xit xsize wwsize wwaddr timeout type
	pgid hf lf total stride data send addr wid lid nope "" =)
WORDS=(ctl_status ctl_status.status_empty ctl_status.nope prim_counter module_state pw_flag.pw3
	status_area_size status_area_size.code cmd_ex_flag ctl_reset clt_reset sma_lid amt mtu lid
	sdimm_capacity evpbuf_nra status_nra . .x llcm pw lhb ww ureg sreg sodimm last ring all full read
	write req hdr status lh VS VL RVS RVL BOTF IPUSH LHSv1 LHSv2 NOP RVSI wait '==' '!=' '<' '>' '<='
	'>=' '=' '=!' '&' '$x' '$UNDEFINED' '${x}' '${' '$' '$_' '${}' '"unterminated' "'unterminated"
	'"a b"' "'a;b'" '#comment' ';' ';;' '-x' '+e' gap base timeout)
# The generators append to $L (no subshells: they are slow).
pickv() { local -n arr=$1; V=${arr[RANDOM % ${#arr[@]}]}; }
ctl_char() { printf -v V "\\$(printf '%03o' $((1 + RANDOM % 31)))"; }
LONG=$(head -c 300 /dev/zero | tr '\0' 'z')

# A token: a number, key=value, word, or something stranger.
token() {
	case $((RANDOM % 12)) in
	0|1|2) pickv NUMS; T=$V ;;
	3|4|5) pickv KEYS; T="$V="; pickv NUMS; T+=$V ;;
	6|7|8) pickv WORDS; T=$V ;;
	9) pickv NUMS; T="data=$V,"; pickv NUMS; T+="$V,"; pickv NUMS; T+=$V ;;
	10) pickv WORDS; T=$V; pickv NUMS; T+=$V ;;
	11) T=${LONG:0:$((1 + RANDOM % 300))} ;;
	esac
}
# A random command line: a command and 0..6 tokens, sometimes @K, sometimes two commands.
soup() {
	local n i
	pickv CMDS; L=$V          # no quit (it would end the batch early)
	n=$((RANDOM % 7))
	for ((i = 0; i < n; i++)); do token; L+=" $T"; done
	case $((RANDOM % 10)) in
	0) pickv NUMS; L="@$V $L" ;;
	1) pickv CMDS; token; L+="; $V $T" ;;
	esac
}
# Known-good commands, to be mutated.
GOOD=(
	'llcm_write from=0 it=10 val=0xaaaa0000 inc=1' 'llcm_read 0 64' 'evpbuf_read 0 64' 'pw_read 0 64'
	'ww_write ww=0 from=0 it=8 val=1 inc=1' 'prim VS dt=0 it=0 dw=0 dl=0 ef=0 size=0x200 src=0x400 dst=0x600'
	'prim RVS dl=2 size=256 src=0 dst=0x1000 wait' 'prim RVS dl=2 size=64 src=0 dst=0 xot=0x14 xsize=8'
	'prim LHSv2 src=0 wwsize=8 wwaddr=0' 'prim BOTF ww=0 size=16' 'prim VL size=64 src=0 dst=0 rf=1'
	'rllcm_write 2 0x100 0x1234' 'rllcm_write 2 0x100 0x1234 dw=1 ww=2 ef=1' 'sreg_read sma_lid'
	'sreg_write mtu 0x8' 'sreg_write amt addr=0x10 wid=1 lid=2' 'ureg_read ctl_status'
	'ureg_read module_state' 'ureg_write prim_counter_reset' 'ureg_write status_area_size 0x10'
	'dump llcm 0x100 32' 'dump ureg' 'dump sreg' 'dump sodimm 0 64' 'dump ww 0 16' 'sodimm write 0x1000 1 2 3'
	'sodimm read 0x1000 24' 'reg ctl_status' 'reg ctl_status.status_empty' 'reg status_area_size.code = 0x20'
	'reg cmd_ex_flag = 1' 'snapshot a' 'diff a' 'watch ctl_status.status_empty 1us 3' 'status ring'
	'status 0x100' 'lh 0' 'lh ring' 'decode req 0x20000000008 0x60000000400' 'decode hdr 0x14020 0'
	'decode status 1 2' 'decode lh 1 2 3 4 5 6 7 8' 'decode ctl_status 0x832'
	'botf type=RVS dl=2 dst=0x100 lf=1 data=0x1234' 'botf ww=1 type=RVL dl=2 src=0 dst=0 send=0'
	'wait' 'wait all' 'wait ctl_status.ww0_done == 1 timeout=1ms' 'node 2' 'node' 'info' 'stat vtime_ns'
	'echo hello world' 'sleep 10us' 'set x 5' 'set gap 1us' 'set wid 1' 'set base 0' 'unset x'
	'assert llcm 0x10 == 5' 'expect ctl_status & 0x2 == 2' 'assert last != 1' '@2 llcm_read 0 16'
	'repeat 2 i; echo $i; end' 'help prim' 'version full' 'set x 0x10; llcm_read $x 8')
mutate() {
	local -a t
	pickv GOOD
	read -r -a t <<<"$V"
	local i=$((RANDOM % ${#t[@]}))
	case $((RANDOM % 9)) in
	0) unset 't[i]' ;;                                  # missing argument
	1) t+=("${t[i]}") ;;                                # duplicated (key twice)
	2) pickv NUMS; t[i]="${t[i]%%=*}=$V" ;;            # bad value
	3) token; t+=("$T") ;;                              # extra argument
	4) t[i]="${t[i]:0:$((RANDOM % (${#t[i]} + 1)))}" ;; # truncated token
	5) pickv NUMS; t[i]="${t[i]}$V" ;;                 # glued garbage
	6) pickv NUMS; t[i]=$V ;;                           # replaced
	7) t[i]="\"${t[i]}" ;;                              # unbalanced quote
	8) ctl_char; t[i]="${t[i]}$V" ;;                    # control character
	esac
	L="${t[*]}"
}

# ---- fixtures ---------------------------------------------------------------
printf 'source %s\n' "$T_TMP/self.dsh" >"$T_TMP/self.dsh"
printf 'echo sourced\nllcm_read 55ff\n' >"$T_TMP/bad.dsh"
WORDS+=("$T_TMP/self.dsh" "$T_TMP/bad.dsh" "$T_TMP/none.dsh")

# ---- checks -------------------------------------------------------------------
SAN_RE='Sanitizer|runtime error|AddressSanitizer|LeakSanitizer|stack-overflow'
# check_run NAME FILE: run FILE as a script in text and JSON mode and check both.
check_run() {
	local name=$1 f=$2 rt rj bad nerr nfail
	timeout 30 "$DSH" -f "$f" >"$T_TMP/t.out" 2>"$T_TMP/t.err"; rt=$?
	timeout 30 "$DSH" --json -f "$f" >"$T_TMP/j.out" 2>"$T_TMP/j.err"; rj=$?
	local ok=1
	for m in t j; do
		if grep -Eq "$SAN_RE" "$T_TMP/$m.err"; then
			fail "$name ($m): sanitizer report: $(grep -E -m 3 "$SAN_RE|#[0-9] " "$T_TMP/$m.err")"; ok=0
		fi
		bad=$(grep -Ev -- '^dsh: .+:[0-9]+: .+: .*[^[:space:]]' "$T_TMP/$m.err" | grep -Ev '^dsh: .+: [0-9]+ errors?; nothing was run$' | head -n 3)
		if [ -n "$bad" ] && ! grep -Eq "$SAN_RE" "$T_TMP/$m.err"; then
			fail "$name ($m): stderr line without 'dsh: FILE:LINE: CMD: reason': [$bad]"; ok=0
		fi
	done
	# 2: the whole-script check found errors and nothing ran
	local notrun
	notrun=$(jq -rs 'last | .summary.ran == false' <"$T_TMP/j.out" 2>/dev/null)
	for rc in $rt $rj; do
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && ! { [ "$rc" -eq 2 ] && [ "$notrun" = true ]; }; then
			fail "$name: exit status $rc (text $rt, json $rj)"; ok=0
		fi
	done
	if [ "$notrun" = true ] && [ -n "$(jq -c 'select(.cmd != "check" and .summary == null)' <"$T_TMP/j.out")" ]; then
		fail "$name: commands ran although the check failed"; ok=0
	fi
	[ "$rt" -ne "$rj" ] && { fail "$name: text exit $rt, json exit $rj"; ok=0; }
	local lines objs
	lines=$(wc -l <"$T_TMP/j.out")
	objs=$(jq -c . <"$T_TMP/j.out" 2>/dev/null | wc -l)
	if ! jq -e . <"$T_TMP/j.out" >/dev/null 2>&1 || [ "$lines" -ne "$objs" ]; then
		fail "$name: stdout is not one JSON object per line ($lines lines, $objs objects): $(jq . <"$T_TMP/j.out" 2>&1 >/dev/null | head -c 200)"
		ok=0
	else
		bad=$(jq -rc 'select(.summary == null) | select((.schema != "dsh/1") or (.ok == false and ((.error | type) != "string" or .error == "")) or (.ok == true and .error != null)) | .line' <"$T_TMP/j.out" | head -n 3)
		[ -n "$bad" ] && { fail "$name: object with bad ok/error: $bad"; ok=0; }
		nfail=$(jq -s '[.[] | select(.summary == null and .ok == false)] | length' <"$T_TMP/j.out")
		nerr=$(grep -Evc -- '^dsh: .+:[0-9]+: warning: ' "$T_TMP/j.err")
		[ "$nfail" -ne "$nerr" ] && { fail "$name: $nfail failed objects but $nerr error messages"; ok=0; }
		# the exit status follows the objects: 1 iff a command failed
		local want=0
		[ "$nfail" -gt 0 ] && want=1
		[ "$notrun" = true ] && want=2
		[ "$rj" -ne "$want" ] && { fail "$name: exit $rj with $nfail failed objects"; ok=0; }
	fi
	if [ "$ok" -eq 1 ]; then pass; else
		echo "---- $name (seed ${DSH_ROBUST_SEED:-4242}), script:" >&2
		head -c 3000 "$f" | cat -v | head -n 80 >&2
	fi
}

# ---- structural cases (fixed) -------------------------------------------------
S=$T_TMP/s
printf 'echo a\nrepeat 2\necho b\n' >"$S.1.dsh"                         # repeat without end
printf 'end\necho after\nend x\n' >"$S.2.dsh"                            # end without repeat
{ for i in $(seq 40); do echo 'repeat 1'; done; echo v; for i in $(seq 40); do echo end; done; } >"$S.3.dsh"
{ for i in $(seq 3000); do echo 'repeat 1'; done; echo v; for i in $(seq 3000); do echo end; done; } >"$S.4.dsh"
printf 'source %s\necho after\n' "$T_TMP/self.dsh" >"$S.5.dsh"          # recursive source
{ printf 'echo '; head -c 70000 /dev/zero | tr '\0' a; printf '\nllcm_read 0 8\n'; } >"$S.6.dsh"   # > 64 KB line
{ printf 'echo '; for i in $(seq 6000); do printf 'a '; done; printf '\nv\n'; } >"$S.7.dsh"       # too many words
printf 'echo ab\0cd\nllcm_write from=0 it=1 val=5\0 junk\nassert llcm 0 == 0\n' >"$S.8.dsh"       # NUL bytes
printf 'echo a\001b\necho \033[31mred\nv\r\n\tv\n' >"$S.9.dsh"           # control characters
printf 'set x 1\necho $x ${x} $UNDEFINED "${x" $ ${}\necho "a\necho '"'"'b\n' >"$S.10.dsh"
printf 'repeat 3 i\n  repeat 2\n    echo $i\n  end\nend end\n' >"$S.11.dsh"
printf 'repeat 2 1bad\necho x\nend\nrepeat 99999999999\nend\nrepeat 0x\nend\nrepeat -1\nend\n' >"$S.12.dsh"
printf '@1\n@0 v\n@3 v\n@ v\n@1 @2 v\n@x v\n@99999999999999999999999 v\n@2 repeat 2\n' >"$S.13.dsh"
printf 'llcm_write val=1 val=2\nprim VS size=1 size=2\nbotf type=RVS type=RVL\nsreg_write amt addr=1 addr=2 wid=0 lid=0\n' >"$S.14.dsh"
printf 'set %s 1\necho $%s\n' "$(head -c 80 /dev/zero | tr '\0' v)" "$(head -c 80 /dev/zero | tr '\0' v)" >"$S.15.dsh"
for i in $(seq 15); do check_run "structural $i" "$S.$i.dsh"; done

# Nothing half-done: a rejected multi-write command leaves no trace.
out=$("$DSH" -c 'llcm_write from=0x7ff0 it=8 val=7; llcm_read 0x7ff0 16; ww_write ww=3 from=0x1f8 it=4 val=9; dump ww 0x7f8 8; sodimm write 0 1 2 0x; dump sodimm 0 16' 2>/dev/null | grep -c '^#[0-9a-f]*: \(0*0\|?*\)\( \(0*0\|?*\)\)\?$')
expect_eq "rejected writes left nothing" 3 "$out"

# ---- command-line options (exit 2, a message) -----------------------------------
while IFS= read -r opts; do
	eval "set -- $opts"
	timeout 10 "$DSH" "$@" >/dev/null 2>"$T_TMP/o.err" </dev/null; rc=$?
	if [ "$rc" -eq 2 ] && grep -q '^dsh: ' "$T_TMP/o.err" && ! grep -Eq "$SAN_RE" "$T_TMP/o.err"; then pass; else
		fail "options [$opts]: exit $rc, stderr: $(head -c 300 "$T_TMP/o.err")"; fi
done <<'OPTS'
-N 0x -c v
-N 0 -c v
-N 55ff -c v
-N 18446744073709551616 -c v
-N
-c
-f
-b
--gap 10parsec -c v
--gap
--base 55ff -c v
--base 0xffffffff -c v
--timeout -1 -c v
--nodes=-3 -c v
--frob
-Z
1 2
1 1 0 -c v
0 0 0 -c v
2 1 2 -c v
x y z -c v
-f a.dsh -f b.dsh
-c v /nonexistent.dsh
-f /nonexistent/file.dsh
-N 2 -b remote:unix:/x -c v
-b sim:nodes=2 -N 3 -c v
OPTS

# ---- random lines, in batches -----------------------------------------------------
start=$SECONDS
for ((b = 1; b <= BATCHES; b++)); do
	[ $((SECONDS - start)) -ge "$BUDGET" ] && { echo "$T_SUITE: time budget reached after $((b - 1)) batches"; break; }
	f="$T_TMP/batch$b.dsh"
	for ((k = 0; k < PER_BATCH; k++)); do
		case $((RANDOM % 10)) in
		0|1|2) soup ;;
		3|4) pickv GOOD; L=$V ;;      # intact: the state moves on
		*) mutate ;;
		esac
		printf '%s\n' "$L"
		# a repeat only with a small count, its end on the same line
		if [ $((RANDOM % 15)) -eq 0 ]; then
			RC=(0 1 2 3 x -1 0x 55ff '""' 1_0)
			pickv RC; n=$V; soup
			printf 'repeat %s i; %s; end\n' "$n" "$L"
		fi
	done >"$f"
	check_run "batch $b" "$f"
done
[ -n "${DSH_ROBUST_KEEP:-}" ] && cp "$T_TMP"/batch*.dsh "$DSH_ROBUST_KEEP"/ 2>/dev/null
finish
