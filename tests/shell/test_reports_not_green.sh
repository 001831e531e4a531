#!/usr/bin/env bash
# Reports never green when nothing passed (issue 31, Deliver 7;
# D-REPORT-NOT-RUN, D-REPORT-PATHS).  Every exit-2 path of dsh-run, each run
# with an earlier run's report (the text STALE) already at both --report
# and --junit, read in every layer:
#  - the command line refused: exit 2, the message, both stale files gone;
#  - the command line taken, the run could not start (or go on): exit 2, the
#    terminal says "N errors (not run)", CTRF validates with every test not
#    run `other` with the reason and `environment.healthy` false, JUnit
#    validates with an <error type="not run"> per test and counts that say so;
#  - --report and --junit naming one file (also through another name)
#    refused before anything runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"
RUN="$BIN/dsh-run"
PDSH_OK=''
if [[ $BIN != */build-san/* ]] && command -v pdsh >/dev/null 2>&1 && pdsh -R exec -w x true >/dev/null 2>&1; then PDSH_OK=1; fi
S=$T_TMP/s
mkdir -p "$S/sub"
printf 'assert ctl_status == 0x12\n' >"$S/ok.dsh"
start_dnetd "$T_TMP/d.sock" --sim -N 2

# stale R X: an earlier run's reports at both paths
stale() { printf 'STALE\n' >"$1"; printf 'STALE\n' >"$2"; }
# refused NAME REGEX ARGS...: the command line refused, both reports removed
N=0
refused() {
	local name=$1 why=$2; shift 2
	N=$((N + 1))
	local r=$S/u$N.json x=$S/u$N.xml
	stale "$r" "$x"
	expect_status "$name: exit 2" 2 timeout 60 "$RUN" --report "$r" --junit "$x" "$@"
	expect_match "$name: the reason" "$why" "$(cat "$T_TMP/err")"
	if [ -e "$r" ] || [ -e "$x" ]; then fail "$name: an earlier run's report left at $r / $x"; else pass; fi
	expect_match "$name: the removal said" "removed the CTRF report '$r' of an earlier run" "$(cat "$T_TMP/err")"
}
# not_started NAME REGEX TESTS ARGS...: the run could not start; every
# layer says so as errors
not_started() {
	local name=$1 why=$2 tests=$3; shift 3
	N=$((N + 1))
	local r=$S/n$N.json x=$S/n$N.xml
	stale "$r" "$x"
	expect_status "$name: exit 2" 2 timeout 60 "$RUN" --report "$r" --junit "$x" "$@"
	expect_match "$name: the reason on the terminal" "$why" "$(cat "$T_TMP/err")"
	expect_match "$name: terminal line" "^0 passed, 0 failed, $tests errors? \(not run\) " "$(cat "$T_TMP/out")"
	expect_eq "$name: CTRF validates" "" "$(ctrf_valid "$r" 2>&1 | tail -n 3)"
	expect_eq "$name: CTRF summary (tests passed failed skipped pending other)" "$tests 0 0 0 0 $tests" \
		"$(ctrf_summary "$r" 2>&1)"
	expect_eq "$name: CTRF not healthy" "false" "$(jq -r '.results.environment.healthy' "$r" 2>&1)"
	expect_eq "$name: CTRF every test other, with the reason" "$tests" \
		"$(jq -r --arg w "$why" '[.results.tests[] | select(.status == "other" and (.message | test("not run: .*" + $w)))] | length' "$r" 2>&1)"
	expect_match "$name: JUnit validates" "validates$" "$(junit_valid "$x")"
	local rows
	rows=$(junit_rows "$x" 2>&1)
	expect_eq "$name: JUnit counts (tests failures errors skipped)" "suites $tests 0 $tests 0" "$(head -n 1 <<<"$rows")"
	expect_eq "$name: JUnit counts match the elements" "" "$(grep COUNT-MISMATCH <<<"$rows")"
	expect_eq "$name: JUnit an <error> per test" "$tests" "$(grep -c '|error|' <<<"$rows")"
	expect_eq "$name: JUnit errors of type not run" "$tests" "$(grep -c '<error message="[^"]*not run[^"]*" type="not run">' "$x")"
}

# ---- the command line refused ---------------------------------------------------------
refused "-n 0" "at least 1 rank" -n 0 "$S/ok.dsh"
refused "-n over the limit" "at most 480 ranks" -n 481 "$S/ok.dsh"
refused "-b too long" "longer than 511" -n 1 -b "sim:$(head -c 600 /dev/zero | tr '\0' x)" "$S/ok.dsh"
refused "a bad launcher" "one of local, mpirun" -n 1 -l nope "$S/ok.dsh"
refused "a bad timeout" "timeout" -n 1 -t 5x "$S/ok.dsh"
refused "a bad --rcmd" "rcmd" -n 1 --rcmd 'a b' "$S/ok.dsh"
refused "an unknown option" "unknown option" -n 1 --frobnicate "$S/ok.dsh"
refused "no script" "no script given" -n 1
refused "--nodes and -b" "exclusive" -n 1 --nodes "$S/none.nodes" -b sim "$S/ok.dsh"
refused "an unreadable node table" "cannot open node table" --nodes "$S/none.nodes" "$S/ok.dsh"
printf '0 localhost - 1\n' >"$S/bad.nodes"
refused "a bad node table" "bad.nodes:1: expected RANK HOST" --nodes "$S/bad.nodes" "$S/ok.dsh"
printf '0 localhost - 1 0\n1 localhost - 2 0\n' >"$S/two.nodes"
refused "-n against the table" "-n 3 but the node table has 2" -n 3 --nodes "$S/two.nodes" "$S/ok.dsh"
refused "no -n" "-n N is needed" "$S/ok.dsh"
refused "--rcmd without pdsh" "--rcmd goes with -l pdsh" -n 1 --rcmd ssh "$S/ok.dsh"
printf '0 a,b - 1 0\n' >"$S/comma.nodes"
refused "a pdsh host list" "pdsh's -w reads as a host list" -l pdsh --nodes "$S/comma.nodes" "$S/ok.dsh"
printf '0 elsewhere.invalid - 1 0\n' >"$S/far.nodes"
refused "a private row on another host" "its backend '-' is dsh-run's private" -l mpirun --nodes "$S/far.nodes" "$S/ok.dsh"
refused "--lockstep with -b" "--lockstep goes with" -n 1 --lockstep -b sim "$S/ok.dsh"
# a missing argument, the report option after it still found
N=$((N + 1)); stale "$S/m.json" "$S/m.xml"
expect_status "a missing argument: exit 2" 2 "$RUN" --report "$S/m.json" "$S/ok.dsh" --junit "$S/m.xml" -n
if [ -e "$S/m.json" ] || [ -e "$S/m.xml" ]; then fail "a missing argument: a stale report left"; else pass; fi
# not a regular file: left alone
expect_status "/dev/null as the report, usage error: exit 2" 2 "$RUN" --report /dev/null -n 0 "$S/ok.dsh"
if [ -c /dev/null ]; then pass; else fail "/dev/null is no longer a character device"; fi

# ---- the two reports on one file ----------------------------------------------------------
same() { # NAME REPORT JUNIT: refused, nothing run, the earlier report at REPORT removed
	local name=$1
	[ -L "$2" ] || printf 'STALE\n' >"$2"
	expect_status "$name: exit 2" 2 "$RUN" -n 1 --report "$2" --junit "$3" "$S/ok.dsh"
	expect_match "$name: said" "are the same file: give each report its own" "$(cat "$T_TMP/err")"
	expect_eq "$name: nothing ran" "" "$(cat "$T_TMP/out")"
	if [ -e "$2" ]; then fail "$name: the stale report survived"; else pass; fi
}
same "one path" "$S/one.json" "$S/one.json"
same "./ and .. in one of them" "$S/one.json" "$S/sub/.././one.json"
ln -sf "$S/one.json" "$S/link.json"
same "a symbolic link to it" "$S/one.json" "$S/link.json"
ln -f "$S/ok.dsh" "$S/hard.dsh" 2>/dev/null
printf 'x' >"$S/h1.json"; ln -f "$S/h1.json" "$S/h2.json"
expect_status "a hard link: exit 2" 2 "$RUN" -n 1 --report "$S/h1.json" --junit "$S/h2.json" "$S/ok.dsh"
expect_match "a hard link: said" "same file" "$(cat "$T_TMP/err")"
ln -sfn "$S/sub" "$S/subl"
rm -f "$S/sub/new.json"
expect_status "not yet there, through a linked directory: exit 2" 2 "$RUN" -n 1 --report "$S/sub/new.json" \
	--junit "$S/subl/new.json" "$S/ok.dsh"
expect_match "not yet there, through a linked directory: said" "same file" "$(cat "$T_TMP/err")"
( cd "$S" && expect_status "relative and absolute" 2 "$RUN" -n 1 --report new2.json --junit "$S/new2.json" ok.dsh
  [ ! -e new2.json ] || echo "FAIL relative: written" >&2 )
expect_match "relative and absolute: said" "same file" "$(cat "$T_TMP/err")"
expect_status "two files: runs" 0 "$RUN" -n 1 --report "$S/two.json" --junit "$S/two.xml" "$S/ok.dsh"
expect_status "/dev/null for both: runs" 0 "$RUN" -n 1 --report /dev/null --junit /dev/null "$S/ok.dsh"

# ---- the command line taken, the run could not start ---------------------------------------
printf 'assert ctl_status == 0x12\n' >"$S/noread.dsh"
chmod 000 "$S/noread.dsh"
if [ -r "$S/noread.dsh" ]; then
	skip "an unreadable script: running as a user who reads any file"
else
	not_started "an unreadable script" "cannot read script '$S/noread.dsh'" 4 -n 2 "$S/ok.dsh" "$S/noread.dsh"
fi
printf 'assert ctl_status == 0x12\n' >"$S/gone.dsh"; rm -f "$S/gone.dsh"
not_started "a missing script" "cannot read script '$S/gone.dsh': No such file" 2 -n 1 "$S/ok.dsh" "$S/gone.dsh"
TMPDIR=$S/nonexistent not_started "no private directory" "cannot create a private directory" 2 -n 2 "$S/ok.dsh"
not_started "the private dnetd does not start" "the private dnetd could not be started" 2 -n 2 --dnetd /bin/false "$S/ok.dsh"
not_started "the backend unreachable" "remote:unix:$S/none.sock" 2 -n 2 -b "remote:unix:$S/none.sock" "$S/ok.dsh"
printf '0 localhost remote:unix:%s 1 0 5\n' "$S/none.sock" >"$S/pgid.nodes"
not_started "the PGID not set" "PGIDs could not be set" 1 --nodes "$S/pgid.nodes" "$S/ok.dsh"
not_started "no reset possible (a user connection)" "could not reset node [12]" 2 -n 2 -b "remote:unix:$T_TMP/d.sock,user" "$S/ok.dsh"
# the first script ran, the reset before the second failed: its tests are
# errors.  A --dsh wrapper refuses the reset once a script has run.
cat >"$S/dsh-wrap" <<EOW
#!/usr/bin/env bash
case "\$*" in
*" -n "*) ;; # dsh-run's check of the scripts before any rank (D-RUN-CHECK): no script ran
*ctl_reset*) if [ -e "$S/ran" ]; then echo "reset refused by the test" >&2; exit 1; fi ;;
*.dsh*) : >"$S/ran" ;;
esac
exec "$BIN/dsh" "\$@"
EOW
chmod +x "$S/dsh-wrap"
rm -f "$S/ran"
N=$((N + 1)); stale "$S/p.json" "$S/p.xml"
expect_status "a reset failing after the first script: exit 2" 2 timeout 60 "$RUN" -n 2 --dsh "$S/dsh-wrap" \
	-b "remote:unix:$T_TMP/d.sock" --report "$S/p.json" --junit "$S/p.xml" "$S/ok.dsh" "$S/ok.dsh"
expect_match "a reset failing after the first script: said" "reset refused by the test" "$(cat "$T_TMP/err")"
expect_match "a reset failing after the first script: terminal" "^2 passed, 0 failed, 2 errors \(not run\)" "$(cat "$T_TMP/out")"
expect_eq "a reset failing after the first script: CTRF statuses" "passed passed other other" \
	"$(jq -r '[.results.tests[].status] | join(" ")' "$S/p.json" 2>&1)"
expect_eq "a reset failing after the first script: not healthy" "false" "$(jq -r '.results.environment.healthy' "$S/p.json" 2>&1)"
expect_eq "a reset failing after the first script: CTRF validates" "" "$(ctrf_valid "$S/p.json" 2>&1 | tail -n 3)"
expect_match "a reset failing after the first script: JUnit validates" "validates$" "$(junit_valid "$S/p.xml")"
expect_match "a reset failing after the first script: JUnit counts" "^suites 4 0 2 0" "$(junit_rows "$S/p.xml" 2>&1)"

# ---- an empty script (D-SCRIPT-EMPTY): every rank fails it, in every layer -------------------
printf '# nothing but a comment\n\n' >"$S/empty.dsh"
for l in local ${PDSH_OK:+pdsh}; do
	N=$((N + 1)); stale "$S/e$N.json" "$S/e$N.xml"
	expect_status "$l: an empty script: exit 1" 1 timeout 60 "$DSH_RUN" -n 2 -l "$l" --report "$S/e$N.json" \
		--junit "$S/e$N.xml" "$S/ok.dsh" "$S/empty.dsh"
	expect_eq "$l: an empty script: terminal line" "2 passed, 2 failed (2 ranks x 2 scripts)" "$(cat "$T_TMP/out")"
	for k in 0 1; do
		expect_match "$l: an empty script: FAIL rank $k named" \
			"dsh-run: FAIL rank $k: $S/empty.dsh:1: script: the script holds no command" "$(cat "$T_TMP/err")"
	done
	expect_eq "$l: an empty script: CTRF validates" "" "$(ctrf_valid "$S/e$N.json" 2>&1 | tail -n 3)"
	expect_eq "$l: an empty script: CTRF summary" "4 2 2 0 0 0" "$(ctrf_summary "$S/e$N.json")"
	expect_eq "$l: an empty script: CTRF tests" "ok.dsh [rank 0]|passed|$S/ok.dsh|1
ok.dsh [rank 1]|passed|$S/ok.dsh|1
empty.dsh [rank 0]|failed|$S/empty.dsh|1
empty.dsh [rank 1]|failed|$S/empty.dsh|1" "$(ctrf_rows "$S/e$N.json")"
	expect_eq "$l: an empty script: CTRF messages" "2" \
		"$(jq -r '[.results.tests[] | select(.status == "failed" and (.message | test("holds no command")))] | length' "$S/e$N.json")"
	expect_eq "$l: an empty script: not healthy" "false" "$(jq -r '.results.environment.healthy' "$S/e$N.json")"
	expect_match "$l: an empty script: JUnit validates" "validates$" "$(junit_valid "$S/e$N.xml")"
	rows=$(junit_rows "$S/e$N.xml")
	expect_eq "$l: an empty script: JUnit counts" "suites 4 2 0 0" "$(head -n 1 <<<"$rows")"
	expect_eq "$l: an empty script: JUnit elements" "empty.dsh [rank 0]|failure|$S/empty.dsh|1
empty.dsh [rank 1]|failure|$S/empty.dsh|1" "$(grep '^empty' <<<"$rows")"
	expect_eq "$l: an empty script: JUnit counts match" "" "$(grep COUNT-MISMATCH <<<"$rows")"
done

# under pdsh the ranks' own check before the first script (run_script)
if [[ $BIN == */build-san/* ]]; then
	not_applicable "pdsh case: the plain build only"
elif [ -n "$PDSH_OK" ]; then
	start_dnetd "$T_TMP/f.sock" --sim -N 2
	printf '0 localhost remote:unix:%s 1 0\n1 localhost remote:unix:%s 2 0\n' "$T_TMP/d.sock" "$T_TMP/f.sock" >"$S/twod.nodes"
	not_started "pdsh: two emulated clusters" "reach different emulated clusters" 2 -l pdsh --rcmd exec --no-reset \
		--nodes "$S/twod.nodes" "$S/ok.dsh"
else
	skip "pdsh case: no pdsh with the exec rcmd"
fi
finish
