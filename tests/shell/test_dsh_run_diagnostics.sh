#!/usr/bin/env bash
# dsh-run says why (issue 22 item 3, D-RUN-PREFLIGHT, D-RUN-DIAG):
#  - before the first script every rank reaches its backend, and ranks on
#    the emulator reach one dnetd (its cluster id, HELLO of protocol 1.2):
#    a node table giving two ranks two dnetds, a CLID
#    the dnetd does not serve, a dnetd that wants a token none was given --
#    each fails in seconds (not at a barrier's timeout), exit 2, the reason
#    on the terminal once and in the report's "not run" tests (errors);
#  - a rank that did not finish carries its own stderr in its message (the
#    terminal), the CTRF trace and the JUnit <system-err>, under a launcher
#    too (its stderr had gone into the launcher's merged stream);
#  - a private dnetd that dies is said once per script, with its exit
#    status, not once per rank.
# Local cases on every build; pdsh and mpirun on the plain build only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"
D=$T_TMP
start_dnetd "$D/a.sock" --sim -N 2
start_dnetd "$D/b.sock" --sim -N 2
printf 'llcm_write from=0x10 it=1 val=5\nbarrier timeout=30s\nassert llcm 0x10 == 5\n' >"$D/bar.dsh"
printf '0 localhost remote:unix:%s 1 0\n1 localhost remote:unix:%s 2 0\n' "$D/a.sock" "$D/b.sock" >"$D/two.nodes"
printf '0 localhost remote:unix:%s 1 0\n1 localhost remote:unix:%s 2 0\n' "$D/a.sock" "$D/a.sock" >"$D/one.nodes"
printf '0 localhost remote:unix:%s 1 0\n1 localhost remote:unix:%s 5 0\n' "$D/a.sock" "$D/a.sock" >"$D/clid.nodes"
printf '0 localhost - 1 0\n1 localhost - 2 0\n' >"$D/dash.nodes"

LAUNCHERS=(local)
if [[ $BIN == */build-san/* ]]; then
	not_applicable "pdsh and mpirun cases: run on the plain build only"
else
	if command -v pdsh >/dev/null 2>&1 && pdsh -R exec -w x true >/dev/null 2>&1; then LAUNCHERS+=(pdsh)
	else skip "pdsh cases: no pdsh with the exec rcmd"; fi
	if command -v mpirun >/dev/null 2>&1; then HAVE_MPIRUN=1
	else HAVE_MPIRUN=''; skip "mpirun case: no mpirun"; fi
fi

# run NAME ARGS...: dsh-run with both reports; RC, OUT, ERR, R (CTRF), X (JUnit), SECS.
N=0
run() {
	local name=$1 t0=$SECONDS; shift
	N=$((N + 1))
	R=$D/r$N.json X=$D/r$N.xml OUT=$D/o$N ERR=$D/e$N
	timeout 120 "$BIN/dsh-run" -t 40s --report "$R" --junit "$X" "$@" >"$OUT" 2>"$ERR"
	RC=$?
	SECS=$((SECONDS - t0))
	echo "$T_SUITE: $name: exit $RC in $SECS s"
}
# early NAME REASON-REGEX ARGS...: stopped before the first script, quickly,
# the reason said once on the terminal and in every not-run test
early() {
	local name=$1 why=$2; shift 2
	run "$name" "$@"
	expect_eq "$name: exit status (stderr: $(head -c 300 "$ERR"))" 2 "$RC"
	if [ "$SECS" -le 15 ]; then pass; else fail "$name: took $SECS s (a barrier timeout, not a preflight)"; fi
	expect_match "$name: the reason on the terminal" "$why" "$(cat "$ERR")"
	expect_eq "$name: said twice at most (before the run, and the not-run count)" 2 \
		"$(grep -cE -- "$why" "$ERR")"
	# not run by an error: an error each, never a skip (D-REPORT-NOT-RUN)
	expect_eq "$name: CTRF tests other (errors), each with the reason" "2 2" \
		"$(jq -r --arg w "$why" '[.results.tests[] | select(.status == "other")] | "\(length) \([.[] | select(.message | test($w))] | length)"' "$R" 2>&1)"
	expect_eq "$name: CTRF validates" "" "$(ctrf_valid "$R" 2>&1 | tail -n 3)"
	expect_match "$name: JUnit validates" "validates$" "$(junit_valid "$X")"
}

for l in "${LAUNCHERS[@]}"; do
	# the tables' HOST is this machine: pdsh reaches it with its exec rcmd
	# (with a table dsh-run passes pdsh -w HOSTS; its default rcmd is rsh)
	rc=(); [ "$l" = pdsh ] && rc=(--rcmd exec)
	early "$l: two dnetds for one emulated cluster" "reach different emulated clusters" \
		-l "$l" "${rc[@]}" --nodes "$D/two.nodes" "$D/bar.dsh"
	expect_match "$l: both backends named" "a\.sock.*b\.sock" "$(cat "$ERR")"
	early "$l: a CLID the dnetd does not serve" "rank 1 drives CLID 5, but its backend .* serves 2 nodes" \
		-l "$l" "${rc[@]}" --no-reset --nodes "$D/clid.nodes" "$D/bar.dsh"
	# under a launcher the reset (from dsh-run's host) comes first and says it
	[ "$l" = local ] || early "$l: a CLID the dnetd does not serve, reset first" \
		"drives node 5, but the backend reaches nodes 1..2" -l "$l" "${rc[@]}" --nodes "$D/clid.nodes" "$D/bar.dsh"
	run "$l: one dnetd for both ranks" -l "$l" "${rc[@]}" --nodes "$D/one.nodes" "$D/bar.dsh"
	expect_eq "$l: one dnetd: passes (stderr: $(head -c 300 "$ERR"))" 0 "$RC"
	# "-" rows are the private dnetd, one cluster (they had run a sim each)
	run "$l: node table of - rows" -l "$l" "${rc[@]}" --nodes "$D/dash.nodes" "$D/bar.dsh"
	expect_eq "$l: - rows share the private dnetd (stderr: $(head -c 300 "$ERR"))" 0 "$RC"
done
if [ -n "${HAVE_MPIRUN:-}" ]; then
	early "mpirun: two dnetds for one emulated cluster" "reach different emulated clusters" \
		-l mpirun --nodes "$D/two.nodes" "$D/bar.dsh"
fi

# a dnetd on TCP that wants a token, none given: refused before the script
# (under a launcher --no-reset, so the ranks' own preflight says it)
printf 'tok-%s\n' "$$" >"$D/token"
chmod 600 "$D/token"
start_dnetd_tcp "$D/tcp.out" --sim -N 2 --token-file "$D/token"
ADDR=$DNETD_ADDR
for l in "${LAUNCHERS[@]}"; do
	early "$l: no token" "requires a token" -l "$l" -n 2 --no-reset -b "remote:$ADDR" "$D/bar.dsh"
	expect_match "$l: no token: the rank and backend named" "rank [01] cannot reach its backend remote:$ADDR" "$(cat "$ERR")"
done

# ---- a rank that did not finish: its stderr everywhere ----
WRAP=$D/wrap
cat >"$WRAP" <<EOF
#!/usr/bin/env bash
r=\${DSH_RANK:-\${OMPI_COMM_WORLD_RANK:-x}}
if [ "\$r" = 1 ]; then echo "wrapper: -o: cannot write /nowhere/s0.rank1.json: é" >&2; exit 3; fi
exec "$BIN/dsh" "\$@"
EOF
chmod 755 "$WRAP"
printf 'llcm_write from=0x10 it=1 val=5\n' >"$D/one.dsh"
for l in "${LAUNCHERS[@]}"; do
	run "$l: rank 1 does not finish" -l "$l" -n 2 --dsh "$WRAP" "$D/one.dsh"
	expect_eq "$l: did not finish: exit status" 1 "$RC"
	expect_match "$l: did not finish: the terminal says why" \
		"FAIL rank 1 did not finish .*one\.dsh.*said: wrapper: -o: cannot write /nowhere" "$(cat "$ERR")"
	expect_match "$l: did not finish: CTRF message" "said: wrapper: -o: cannot write" \
		"$(jq -r '.results.tests[] | select(.extra.rank == 1) | .message' "$R")"
	expect_match "$l: did not finish: CTRF trace has the stderr" "stderr of rank 1 --.wrapper: -o: cannot write /nowhere/s0.rank1.json: é" \
		"$(jq -r '.results.tests[] | select(.extra.rank == 1) | .trace' "$R" | tr '\n' '.')"
	expect_match "$l: did not finish: JUnit system-err has it" "<system-err>wrapper: -o: cannot write /nowhere" "$(cat "$X")"
	expect_eq "$l: did not finish: CTRF validates" "" "$(ctrf_valid "$R" 2>&1 | tail -n 3)"
done

# ---- a timed-out rank: where it was (the last command it finished) ----
printf 'llcm_write from=0x10 it=1 val=5\nllcm_write from=0x18 it=1 val=6\nrepeat $rank\nwaitfor 0 timeout=600s\nend\n' >"$D/to.dsh"
run "timed out" -n 2 -t 3s "$D/to.dsh"
expect_eq "timed out: exit status" 1 "$RC"
msg=$(jq -r '.results.tests[] | select(.extra.rank == 1) | .message' "$R")
expect_match "timed out: the message names the command it was running (dsh said: interrupted)" \
	"timed out and was killed .*while running .*to\.dsh:4: waitfor" "$msg"
expect_eq "timed out: CTRF line is that command's" 4 "$(jq -r '.results.tests[] | select(.extra.rank == 1) | .line' "$R")"

# ---- the private dnetd dies: said once per script, with its status ----
KILLD=$D/killdnetd
printf '#!/usr/bin/env bash\n( sleep 1; kill -KILL $$ ) </dev/null >/dev/null 2>&1 &\nexec "%s" "$@"\n' "$DNETD" >"$KILLD"
chmod 755 "$KILLD"
printf 'llcm_write from=0x10 it=1 val=5\nrepeat $rank\nwaitfor 0 timeout=30s\nend\n' >"$D/hang.dsh"
run "private dnetd dies" -n 6 --dnetd "$KILLD" "$D/hang.dsh"
expect_eq "dnetd dies: exit status" 1 "$RC"
if [ "$SECS" -le 15 ]; then pass; else fail "dnetd dies: took $SECS s"; fi
expect_eq "dnetd dies: one FAIL line, naming the death and its signal" 1 \
	"$(grep -c "FAIL .*hang\.dsh: 5 ranks failed: the private dnetd (pid [0-9]*) was killed by signal 9" "$ERR")"
expect_eq "dnetd dies: no per-rank FAIL lines" 0 "$(grep -c "FAIL rank" "$ERR")"
expect_eq "dnetd dies: every failed CTRF test names it" 5 \
	"$(jq '[.results.tests[] | select(.status == "failed") | select(.message | test("private dnetd .* killed by signal 9"))] | length' "$R")"
# ---- D-RUN-CHECK: a script that fails dsh's check, once, before any rank -------------------
printf 'assert ctl_status == 0x12\nllcm_raed 0 8\n' >"$D/typo.dsh"
printf 'assert ctl_status == 0x12\n' >"$D/ok.dsh"
expect_status "check: exit 2" 2 timeout 120 "$DSH_RUN" -n 16 "$D/ok.dsh" "$D/typo.dsh" --report "$D/chk.json"
expect_eq "check: the error said once (not once per rank)" 1 "$(grep -c "typo.dsh:2: check: unknown command 'llcm_raed'" "$T_TMP/err")"
expect_match "check: did you mean" "did you mean 'llcm_read'" "$(cat "$T_TMP/err")"
expect_match "check: no rank was started" "typo.dsh does not pass dsh's check \(dsh -n\): no rank was started" "$(cat "$T_TMP/err")"
expect_eq "check: no FAIL rank lines" 0 "$(grep -c "FAIL rank" "$T_TMP/err")"
expect_eq "check: nothing ran, not even ok.dsh (its tests errors)" "32 0 0 0 0 32" "$(ctrf_summary "$D/chk.json")"
expect_eq "check: CTRF validates" "" "$(ctrf_valid "$D/chk.json" 2>&1 | tail -n 3)"
printf 'source %s\n' "$D/typo.dsh" >"$D/outer.dsh"
expect_status "check: a sourced file too" 2 timeout 120 "$DSH_RUN" -n 2 "$D/outer.dsh"
expect_eq "check: the sourced file's error once" 1 "$(grep -c "typo.dsh:2: check: unknown command" "$T_TMP/err")"

# ---- D-RUN-FAILURES: every failure of every rank, capped without -v ---------------------------
printf 'assert ctl_status == 1\nassert ctl_status == 2\nassert ctl_status == 3\n' >"$D/three.dsh"
expect_status "failures: exit 1" 1 timeout 120 "$DSH_RUN" -n 2 "$D/three.dsh"
expect_eq "failures: all 6 of 2 ranks listed" 6 "$(grep -c "rank [01]: .*three.dsh:[123]: assert" "$T_TMP/err")"
expect_match "failures: rank 1's third" "rank 1: .*three.dsh:3: assert: assertion failed: ctl_status == 0x3" "$(cat "$T_TMP/err")"
expect_status "failures capped: exit 1" 1 timeout 120 "$DSH_RUN" -n 8 "$D/three.dsh"
expect_eq "failures capped: 20 lines" 20 "$(grep -c "rank [0-7]: .*three.dsh:[123]: assert" "$T_TMP/err")"
expect_match "failures capped: the rest counted" "\.\.\. and 4 more failures \(-v lists them all\)" "$(cat "$T_TMP/err")"
expect_status "failures -v: exit 1" 1 timeout 120 "$DSH_RUN" -v -n 8 "$D/three.dsh"
expect_eq "failures -v: all 24" 24 "$(grep -c "rank [0-7]: .*three.dsh:[123]: assert" "$T_TMP/err")"
finish
