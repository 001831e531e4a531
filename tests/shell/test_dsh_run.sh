#!/usr/bin/env bash
# dsh-run and multi-node synchronisation: ranks from every launcher, barrier
# and signal/waitfor on the device, timeouts that kill and name, reports
# that validate (CTRF schema of tests/schemas, JUnit XSD), exit statuses.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"
RUN=$DSH_RUN
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmo() { timeout 120 "$@"; }

S=$T_TMP
cat >"$S/ok.dsh" <<'EOF'
# every rank: barrier, a check, back-to-back barriers
assert ctl_status == 0x12
barrier
repeat 50
barrier
end
echo rank $rank of $size
EOF
# ---- a passing run, with both reports -------------------------------------------
expect_status "8 ranks pass" 0 tmo "$RUN" -n 8 "$S/ok.dsh" --report "$S/r.json" --junit "$S/r.xml"
expect_match "summary line" "^8 passed, 0 failed \(8 ranks x 1 script\)$" "$(cat "$T_TMP/out")"
expect_eq "CTRF validates" "" "$(ctrf_valid "$S/r.json" 2>&1)"
expect_match "JUnit validates" "validates$" "$(junit_valid "$S/r.xml")"
expect_eq "CTRF summary" "8 8 0 0 0 0" "$(jq -r '.results.summary | "\(.tests) \(.passed) \(.failed) \(.pending) \(.skipped) \(.other)"' "$S/r.json")"
expect_eq "CTRF one test per rank" "0 1 2 3 4 5 6 7" "$(jq -r '[.results.tests[].extra.rank] | map(tostring) | join(" ")' "$S/r.json")"
expect_eq "CTRF metadata" "dsh-run/1 8 local" "$(jq -r '.results.extra | "\(.schema) \(.ranks) \(.launcher)"' "$S/r.json")"
# a passed test carries counts, not its commands (D-REPORT-SIZE)
expect_eq "passed: commands counted, none listed" "53 0 53" \
	"$(jq -r '.results.tests[0].extra | "\(.commands) \(.command_results | length) \(.command_results_omitted)"' "$S/r.json")"

# ---- a broken assertion on one rank fails the run, naming rank, file and line --------
cat >"$S/broken.dsh" <<'EOF'
barrier
set want 0x12
repeat $rank
set want 0x13
end
repeat 1
assert ctl_status == $want
end
barrier
EOF
expect_status "broken rank fails the run" 1 tmo "$RUN" -n 3 "$S/broken.dsh" --report "$S/b.json" --junit "$S/b.xml"
expect_match "names rank 1, file and line" "FAIL rank 1: .*broken.dsh:7: assert: assertion failed" "$(cat "$T_TMP/err")"
expect_match "names rank 2" "FAIL rank 2: .*broken.dsh:7" "$(cat "$T_TMP/err")"
expect_eq "rank 0 passed" "passed failed failed" "$(jq -r '[.results.tests[].status] | join(" ")' "$S/b.json")"
expect_eq "failure detail" "7 assert" "$(jq -r '.results.tests[1].extra.failures[0] | "\(.line) \(.command)"' "$S/b.json")"
expect_eq "failed-test line" "7" "$(jq -r '.results.tests[1].line' "$S/b.json")"
expect_eq "broken: CTRF validates" "" "$(ctrf_valid "$S/b.json" 2>&1)"
expect_match "broken: JUnit validates" "validates$" "$(junit_valid "$S/b.xml")"
expect_eq "JUnit failures" "2" "$(grep -c '<failure ' "$S/b.xml")"

# ---- a hanging rank is killed at its timeout and named ---------------------------------
printf 'repeat $rank\nquit\nend\nbarrier\n' >"$S/hang.dsh"   # rank 0 waits for ranks that quit
t0=$(date +%s%N)
expect_status "hang: exit 1" 1 tmo "$RUN" -n 3 -t 1s "$S/hang.dsh" --report "$S/h.json"
el=$((($(date +%s%N) - t0) / 1000000))
expect_match "hang: rank 0 named" "FAIL rank 0 timed out and was killed" "$(cat "$T_TMP/err")"
if [ "$el" -lt 10000 ]; then pass; else fail "hang: took $el ms (timeout 1 s)"; fi
expect_eq "hang: report" "true failed" "$(jq -r '.results.tests[0] | "\(.extra.timed_out) \(.status)"' "$S/h.json")"
expect_eq "hang: no dsh left" "" "$(pgrep -f "$S/hang.dsh" || true)"

# ---- SIGINT / SIGTERM: everything started is killed, exit 128+N -------------------------
for sig in INT TERM; do
	# The private dnetd's directory under $S/sig$sig: only this run's processes are counted.
	mkdir -p "$S/sig$sig"
	TMPDIR="$S/sig$sig" "$RUN" -n 4 -t 60s "$S/hang.dsh" >"$S/sig.out" 2>&1 &
	p=$!
	sleep 1
	kill -s $sig "$p"
	wait "$p" 2>/dev/null; rc=$?
	expect_eq "SIG$sig exit" $((128 + $(kill -l $sig))) "$rc"
	sleep 0.2
	expect_eq "SIG$sig: no dsh or dnetd left" "" "$(pgrep -f "$S/hang.dsh|$S/sig$sig/dsh-run\.[A-Za-z0-9]+/dnetd.sock" || true)"
done

# ---- usage errors ---------------------------------------------------------------------
expect_status "no script" 2 "$RUN" -n 2
expect_status "no -n" 2 "$RUN" "$S/ok.dsh"
expect_status "bad -n" 2 "$RUN" -n 55ff "$S/ok.dsh"
expect_status "bad launcher" 2 "$RUN" -n 2 -l slurmish "$S/ok.dsh"
expect_status "missing script" 2 "$RUN" -n 2 "$S/none.dsh"
printf '0 localhost - 1 0\n0 localhost - 2 0\n' >"$S/dup.nodes"
expect_status "node table: duplicate rank" 2 "$RUN" --nodes "$S/dup.nodes" "$S/ok.dsh"
expect_match "node table: file:line" "dup.nodes:2: rank 0 given twice" "$(cat "$T_TMP/err")"
# hosts (D-RUN-HOSTS): --rcmd is pdsh's, for a table's hosts; a row "-" (the
# private dnetd's UNIX socket) cannot serve a rank a launcher starts elsewhere;
# pdsh would read a host with a comma as two
printf '0 localhost - 1 0\n1 elsewhere.example - 2 0\n' >"$S/far.nodes"
expect_status "--rcmd without pdsh" 2 "$RUN" --nodes "$S/far.nodes" -l mpirun --rcmd ssh "$S/ok.dsh"
expect_match "--rcmd without pdsh: says" "--rcmd goes with -l pdsh and --nodes" "$(cat "$T_TMP/err")"
expect_status "--rcmd without a table" 2 "$RUN" -n 2 -l pdsh --rcmd ssh "$S/ok.dsh"
expect_status "--rcmd: not a module name" 2 "$RUN" --nodes "$S/far.nodes" -l pdsh --rcmd 'ssh -x' "$S/ok.dsh"
expect_match "--rcmd: not a module name: says" "--rcmd 'ssh -x': the name of a pdsh rcmd module" "$(cat "$T_TMP/err")"
expect_status "row '-' on another host" 2 "$RUN" --nodes "$S/far.nodes" -l mpirun "$S/ok.dsh"
expect_match "row '-' on another host: says" "far.nodes: rank 1 runs on elsewhere.example, but its backend '-' is dsh-run's private dnetd" "$(cat "$T_TMP/err")"
printf '0 a,b - 1 0\n' >"$S/comma.nodes"
expect_status "pdsh: a host with a comma" 2 "$RUN" --nodes "$S/comma.nodes" -l pdsh --rcmd exec "$S/ok.dsh"
expect_match "pdsh: a host with a comma: says" "rank 0: host 'a,b' has a character pdsh's -w reads as a host list" "$(cat "$T_TMP/err")"

# ---- a node table: ranks on other CLIDs/WIDs and a PGID, served by one dnetd -------------
SOCK=$T_TMP/d.sock
spawn timeout 120 "$DNETD" --sim -N 6 --listen "unix:$SOCK"
wait_for_socket "$SOCK" || fail "dnetd did not start"
cat >"$S/t.nodes" <<EOF
# rank host backend clid wid pgid
0 localhost remote:unix:$SOCK 5 0 7
1 localhost remote:unix:$SOCK 3 1 7
2 localhost remote:unix:$SOCK 6 0 7
EOF
cat >"$S/where.dsh" <<'EOF'
barrier
info
barrier
EOF
expect_status "node table run" 0 tmo "$RUN" --nodes "$S/t.nodes" "$S/where.dsh" --report "$S/t.json"
expect_eq "node table in the report" "5:0 3:1 6:0" "$(jq -r '[.results.extra.nodes[] | "\(.clid):\(.wid)"] | join(" ")' "$S/t.json")"
expect_eq "node table: CTRF validates" "" "$(ctrf_valid "$S/t.json" 2>&1)"

# ---- launchers of machines dsh-run does not own ------------------------------------------
if command -v mpirun >/dev/null; then
	expect_status "dsh-run --launcher mpirun" 0 tmo "$RUN" -n 4 -l mpirun "$S/ok.dsh" --report "$S/m.json"
	expect_eq "mpirun: 4 ranks passed" "4 0" "$(jq -r '.results.summary | "\(.passed) \(.failed)"' "$S/m.json")"
	# plain mpirun against dnetd, dsh taking rank and size from Open MPI's environment
	# --tag-output: Open MPI forwards each rank's output line by line (untagged,
	# the ranks' chunks may meet mid-line and a summary line be missed)
	MPI=(mpirun -np 4 --oversubscribe --tag-output)
	[ "$(id -u)" -eq 0 ] && MPI+=(--allow-run-as-root)
	expect_status "mpirun -np 4 dsh -f" 0 tmo "${MPI[@]}" env DSH_BACKEND="remote:unix:$SOCK" "$BIN/dsh" -f "$S/ok.dsh"
	expect_eq "mpirun: every rank reported" "4" "$(grep -c '^\[[0-9]*,[0-3]\]<stdout>:1 passed, 0 failed$' "$T_TMP/out")"
	# a script of the bring-up suite under plain mpirun, on a fresh 4-node dnetd
	SOCK4=$T_TMP/d4.sock
	spawn timeout 120 "$DNETD" --sim -N 4 --listen "unix:$SOCK4"
	wait_for_socket "$SOCK4" || fail "dnetd (4 nodes) did not start"
	SUITE=$(cd "$(dirname "$0")/../.." && pwd)/scripts/tests
	for sc in counters barrier_stress; do
		expect_status "mpirun -np 4 dsh -f scripts/tests/$sc.dsh" 0 tmo "${MPI[@]}" \
			env DSH_BACKEND="remote:unix:$SOCK4" "$BIN/dsh" -f "$SUITE/$sc.dsh"
		expect_eq "mpirun $sc: 4 ranks, no failure" "4" "$(grep -c '^\[[0-9]*,[0-3]\]<stdout>:[1-9][0-9]* passed, 0 failed$' "$T_TMP/out")"
	done
else
	fail "mpirun is not installed (scripts/install-deps.sh test installs openmpi-bin)"
fi
if command -v pdsh >/dev/null; then
	expect_status "dsh-run --launcher pdsh" 0 tmo "$RUN" -n 4 -l pdsh "$S/ok.dsh" --report "$S/p.json"
	expect_eq "pdsh: ranks 0-3" "0 1 2 3" "$(jq -r '[.results.tests[].extra.rank] | map(tostring) | join(" ")' "$S/p.json")"
else
	fail "pdsh is not installed (scripts/install-deps.sh test installs it)"
fi
# srun: its variables, from a prepared environment (no Slurm here)
out=$(SLURM_PROCID=2 SLURM_NTASKS=3 SLURM_JOB_ID=77 "$BIN/dsh" -b sim:nodes=3 -c 'echo $rank $size; info' 2>&1)
expect_match "srun variables: rank 2 of 3" "^2 3" "$out"
expect_match "srun variables: node 3" "current 3" "$out"
out=$(PMI_RANK=1 PMI_SIZE=2 "$BIN/dsh" -b sim:nodes=2 -c 'echo $rank $size' 2>&1)
expect_eq "PMI variables" "1 2" "$out"
expect_status "rank without size" 2 env OMPI_COMM_WORLD_RANK=3 "$BIN/dsh" -c 'echo x'
expect_status "rank beyond the nodes" 2 env DSH_RANK=5 DSH_SIZE=6 "$BIN/dsh" -b sim:nodes=2 -c 'echo x'

# ---- signal / waitfor through dnetd -------------------------------------------------------
(
	DSH_RUN_ID=41 DSH_RANK=0 DSH_SIZE=2 "$BIN/dsh" -b "remote:unix:$SOCK" -c 'signal 1; signal 1; waitfor 1 timeout=10s; echo r0 ok' >"$S/p0" 2>&1 &
	DSH_RUN_ID=41 DSH_RANK=1 DSH_SIZE=2 "$BIN/dsh" -b "remote:unix:$SOCK" -c 'waitfor 0 timeout=10s; waitfor 0 timeout=10s; signal 0; echo r1 ok' >"$S/p1" 2>&1
	wait
)
expect_eq "signal/waitfor rank 0" "r0 ok" "$(cat "$S/p0")"
expect_eq "signal/waitfor rank 1" "r1 ok" "$(cat "$S/p1")"
expect_status "waitfor times out naming the rank" 1 env DSH_RUN_ID=42 DSH_RANK=0 DSH_SIZE=2 "$BIN/dsh" -b "remote:unix:$SOCK" -c 'waitfor 1 timeout=200ms'
expect_match "waitfor message" "rank 1 did not signal within 0.200 s" "$(cat "$T_TMP/err")"
expect_status "signal to self refused" 1 env DSH_RANK=0 DSH_SIZE=2 "$BIN/dsh" -b "remote:unix:$SOCK" -c 'signal 0'
# the flag area is reserved where ranks synchronise (D-SYNC-AREA; test_dsh_sync_area.sh)
expect_status "flag area protected" 1 env DSH_RANK=0 DSH_SIZE=2 "$BIN/dsh" -c 'llcm_write from=0x7000 it=1 val=1'
expect_status "flag area with force" 0 env DSH_RANK=0 DSH_SIZE=2 "$BIN/dsh" -c 'llcm_write from=0x7000 it=1 val=1 force'
expect_status "rllcm into the flag area" 1 env DSH_RANK=0 DSH_SIZE=2 "$BIN/dsh" -c 'rllcm_write 2 0x7ff8 1'

# ---- every option of --help is in dsh-run(1) ---------------------------------------------
for opt in $("$RUN" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	pat=${opt//-/\\-}
	if grep -qF -- "$pat" "$ROOT/man/dsh-run.1"; then pass; else fail "man/dsh-run.1 lacks $opt"; fi
done

# ---- 64 ranks on one machine ----------------------------------------------------------------
printf 'repeat 20\nbarrier\nend\n' >"$S/b64.dsh"
expect_status "64 ranks, 20 barriers" 0 tmo "$RUN" -n 64 -t 60s "$S/b64.dsh"
finish
