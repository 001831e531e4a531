#!/bin/bash
# One duration grammar (issue 32, D-DURATION): every duration option of dsh,
# dsh-run and dnetd, every duration argument of a dsh script, the remote
# backend's timeout= and the emulator's fault times refuse a bare number,
# naming the option or argument and the units, and accept each unit
# (ns us ms s m min h).  The options and commands are enumerated from the
# programs' --help and dsh's command help, so a new one cannot be missed.
. "$(dirname "$0")/lib.sh"
DSH1="$BIN/dsh"
UNITS_MSG="needs a unit (ns, us, ms, s, m, h)"
UNITS=(ns us ms s m min h)
# one hour in each unit: the value each accepted form must give
HOUR=(3600000000000ns 3600000000us 3600000ms 3600s 60m 60min 1h)
cd "$T_TMP" || exit 1

# refused NAME WANT_STATUS WANT_TEXT COMMAND...: exits WANT_STATUS and says WANT_TEXT on stderr.
refused() {
	local name=$1 st=$2 text=$3; shift 3
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"
	local got=$?
	if [ "$got" -eq "$st" ] && grep -qF -- "$text" "$T_TMP/err"; then pass; else
		fail "$name: exit $got (want $st), stderr [$(head -c 300 "$T_TMP/err")] lacks [$text]"; fi
}

# --- the option lists, from --help: every option whose argument is DUR ---
dur_opts() { "$1" --help 2>&1 | grep -oE -- '--[a-z-]+ DUR(ATION)?\b' | awk '{print $1}' | sort -u | tr '\n' ' '; }
expect_eq "dsh --help: the duration options" "--gap --max-time --timeout " "$(dur_opts "$DSH1")"
expect_eq "dsh-run --help: the duration options" "--timeout --total-timeout " "$(dur_opts "$BIN/dsh-run")"
expect_eq "dnetd --help: the duration options" "--hello-grace --idle-evict --idle-timeout --vtime-budget " \
	"$(dur_opts "$DNETD")"
# the man pages list the same options with DUR
man_opts() { grep -E '^\.B[IR]? .*DUR' "$1" | grep -oE '\\-\\-[a-z]+(\\-[a-z]+)*' | sed 's/\\-/-/g' | sort -u | tr '\n' ' '; }
MAN=$T_SHELL/../../man
expect_eq "dsh.1: the duration options" "--gap --max-time --timeout " "$(man_opts "$MAN/dsh.1")"
expect_eq "dsh-run.1: the duration options" "--timeout --total-timeout " "$(man_opts "$MAN/dsh-run.1")"
expect_eq "dnetd.8: the duration options" "--hello-grace --idle-evict --idle-timeout --vtime-budget " \
	"$(man_opts "$MAN/dnetd.8")"

# --- dsh's options ---
for o in --gap --timeout --max-time; do
	refused "dsh $o 5" 2 "dsh: $o: '5' $UNITS_MSG" "$DSH1" -b sim "$o" 5 -c info
	refused "dsh $o 5d" 2 "dsh: $o: '5d': unknown unit 'd'" "$DSH1" -b sim "$o" 5d -c info
done
for k in "${!UNITS[@]}"; do
	v=${HOUR[$k]}
	out=$("$DSH1" -b sim --gap "$v" --timeout "$v" -c info 2>&1)
	expect_match "dsh --gap $v" '^gap +3600s ' "$(grep '^gap' <<<"$out")"
	expect_match "dsh --timeout $v" '^timeout +3600s$' "$(grep '^timeout' <<<"$out")"
	out=$("$DSH1" -b sim --max-time "$v" -c 'echo ran' 2>&1)
	expect_eq "dsh --max-time $v" "ran" "$out"
done
expect_status "dsh --gap 0 (a bare 0)" 0 "$DSH1" -b sim --gap 0 -c info

# --- dsh-run's options (-t is --timeout) ---
printf 'echo ok\n' >ok.dsh
refused "dsh-run -t 60" 2 "dsh-run: --timeout: '60' $UNITS_MSG" "$BIN/dsh-run" -n 1 -t 60 ok.dsh
refused "dsh-run --timeout 60" 2 "dsh-run: --timeout: '60' $UNITS_MSG" "$BIN/dsh-run" -n 1 --timeout 60 ok.dsh
refused "dsh-run --total-timeout 60" 2 "dsh-run: --total-timeout: '60' $UNITS_MSG" \
	"$BIN/dsh-run" -n 1 --total-timeout 60 ok.dsh
for v in "${HOUR[@]}"; do
	expect_status "dsh-run -t $v" 0 "$BIN/dsh-run" -n 1 -t "$v" ok.dsh
	expect_status "dsh-run --total-timeout $v" 0 "$BIN/dsh-run" -n 1 --total-timeout "$v" ok.dsh
done

# --- dnetd's options: a value it accepts gets as far as the socket (here
# one that cannot be bound: exit 1, the bind named); a refused one exits 2 ---
for o in --hello-grace --idle-timeout --idle-evict --vtime-budget; do
	refused "dnetd $o 5" 2 "dnetd: $o: '5' $UNITS_MSG" "$DNETD" --sim --listen unix:/nonexistent/d.sock "$o" 5
	for v in "${HOUR[@]}"; do
		refused "dnetd $o $v" 1 "bind /nonexistent/d.sock" \
			"$DNETD" --sim --listen unix:/nonexistent/d.sock "$o" "$v"
	done
done
refused "dnetd --idle-timeout 500ms (whole seconds)" 2 "dnetd: --idle-timeout: '500ms' is not a whole number of seconds" \
	"$DNETD" --sim --listen unix:/nonexistent/d.sock --idle-timeout 500ms
refused "dnetd --idle-evict 0 (a bare 0)" 1 "bind /nonexistent/d.sock" \
	"$DNETD" --sim --listen unix:/nonexistent/d.sock --idle-evict 0

# --- the remote backend's timeout= (dsh -b, dsh-run -b) ---
start_dnetd "$T_TMP/d.sock" --sim
refused "-b remote,timeout=5000" 3 "remote: timeout: '5000' $UNITS_MSG" \
	"$DSH1" -b "remote:unix:$T_TMP/d.sock,timeout=5000" -c info
for v in "${HOUR[@]}"; do
	expect_status "-b remote,timeout=$v" 0 "$DSH1" -b "remote:unix:$T_TMP/d.sock,timeout=$v" -c info
done

# --- script commands: the list, from dsh's command help ---
cmds=$("$DSH1" -c help 2>&1 | grep -E '^    - ' | grep -E 'DUR|timeout=|INTERVAL' | awk '{print $2}' | sort -u | tr '\n' ' ')
expect_eq "dsh help: the commands taking a duration" "barrier fault prim set signal sleep wait waitfor watch " "$cmds"
# CMD|a line with X for the duration (one rank, the emulator)
TABLE=(
	"sleep|sleep X"
	"set gap|set gap X"
	"set timeout|set timeout X"
	"watch|watch ctl_status X 1"
	"wait|wait timeout=X"
	"wait all|wait all timeout=X"
	"wait COND|wait ctl_status.ww0_done == 0 timeout=X"
	"prim|prim NOP timeout=X wait"
	"barrier|barrier timeout=X"
)
for row in "${TABLE[@]}"; do
	name=${row%%|*} line=${row#*|}
	cmd=${line%% *}
	# a literal bare number: refused by the check, nothing runs, FILE:LINE named
	printf 'echo first\n# two\n%s\n' "${line//X/5}" >t.dsh
	what=timeout
	case $name in sleep) what=duration ;; "set gap") what=gap ;; watch) what=interval ;; esac
	refused "$name: a bare number (check)" 2 "t.dsh:3: check: $cmd: $what: '5' $UNITS_MSG" "$DSH1" -b sim t.dsh
	expect_eq "$name: a bare number: nothing ran" "" "$(cat "$T_TMP/out")"
	# through a variable: refused when it runs, FILE:LINE named
	printf 'set x 5\n# two\n%s\n' "${line//X/\$x}" >v.dsh
	expect_status "$name: a bare number (at run time)" 1 "$DSH1" -b sim v.dsh
	grep -qF -- "v.dsh:3: $cmd: " "$T_TMP/err" && grep -qF -- "'5' $UNITS_MSG" "$T_TMP/err" && pass ||
		fail "$name: a bare number (at run time): [$(cat "$T_TMP/err")] lacks the units"
	for v in "${HOUR[@]}"; do
		expect_status "$name: $v" 0 "$DSH1" -b sim -c "${line//X/$v}"
	done
done
# sleep lets exactly the duration pass
for v in "${HOUR[@]}"; do
	expect_match "sleep $v: 1 h" '"ns": ?3600000000000\b' "$("$DSH1" -b sim -j -c "sleep $v" 2>&1)"
done
# fault rto DUR (100ns-1s) and fault KIND for DUR (at most 1000 s); also the
# emulator's faults= and params fault.add, which read the same words
refused "fault rto 5" 2 "check: fault: faults: rto: '5' $UNITS_MSG" "$DSH1" -b sim -c 'fault rto 5'
refused "fault drop for 5" 2 "check: fault: faults: for: '5' $UNITS_MSG" "$DSH1" -b sim -c 'fault drop for 5'
refused "params fault.add \"rto 5\"" 1 "faults: rto: '5' $UNITS_MSG" "$DSH1" -b sim -c 'params fault.add "rto 5"'
refused "-b sim:faults=rto:5" 3 "faults: rto: '5' $UNITS_MSG" "$DSH1" -b sim:faults=rto:5 -c info
SEC=(1000000000ns 1000000us 1000ms 1s)
for v in "${SEC[@]}"; do
	expect_status "fault rto $v" 0 "$DSH1" -b sim -c "fault rto $v"
	expect_status "fault drop for $v" 0 "$DSH1" -b sim -c "fault drop for $v"
	expect_status "-b sim:faults=rto:$v" 0 "$DSH1" -b "sim:faults=rto:$v" -c info
done
for v in 1m 1min; do
	expect_status "fault drop for $v" 0 "$DSH1" -b sim -c "fault drop for $v"
done
refused "fault drop for 1h (past 1000 s, read as an hour)" 1 "over 1000 s" "$DSH1" -b sim -c 'fault drop for 1h'
refused "fault rto 1m (past 1 s, read as a minute)" 1 "out of range" "$DSH1" -b sim -c 'fault rto 1m'

# signal and waitfor need a partner: two ranks under dsh-run, every unit
printf 'signal 1 timeout=5\n' >s.dsh
refused "signal: a bare number (check)" 2 "s.dsh:1: check: signal: timeout: '5' $UNITS_MSG" "$DSH1" -b sim s.dsh
printf 'waitfor 1 timeout=5\n' >w.dsh
refused "waitfor: a bare number (check)" 2 "w.dsh:1: check: waitfor: timeout: '5' $UNITS_MSG" "$DSH1" -b sim w.dsh
: >sw.dsh
for v in "${HOUR[@]}"; do printf 'signal $next timeout=%s\nwaitfor $prev timeout=%s\n' "$v" "$v" >>sw.dsh; done
expect_status "signal, waitfor: every unit (2 ranks)" 0 "$BIN/dsh-run" -n 2 sw.dsh

finish
