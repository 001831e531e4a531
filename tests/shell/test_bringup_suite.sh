#!/usr/bin/env bash
# The bring-up suite scripts/tests/*.dsh as engineers run it: dsh-run on a private emulated
# cluster of 2 and of 8 ranks, every (rank, script) passing in the CTRF and JUnit reports; a
# copy of one script with a broken assertion failing the run and naming rank, file and line;
# and the barrier script on 64 ranks, 16 on the sanitized build (fewer barriers: 1,000 x 64
# ranks takes ~24 s here).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"
RUN=$DSH_RUN
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=$ROOT/scripts/tests
tmo() { timeout 300 "$@"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
S=$T_TMP

scripts=("$SUITE"/*.dsh)
nscripts=${#scripts[@]}
names=$(for f in "${scripts[@]}"; do basename "$f"; done | sort | tr '\n' ' ')
# every topic of the suite is there (messages.dsh needs dsh's send/recv)
for t in botf_pingpong rvs_roundtrip rvl_roundtrip stride_list sodimm_copy status_ring_wrap \
	pgid_isolation counters barrier_stress messages; do
	expect_match "suite has $t.dsh" "(^| )$t\.dsh " "$names"
done
# every script checks before it runs (dsh -n): no syntax error anywhere
for f in "${scripts[@]}"; do
	expect_status "dsh -n $(basename "$f")" 0 "$DSH" -n "$f"
done

# ---- the whole suite on 2 and on 8 ranks ---------------------------------------------------
for n in 2 8; do
	t0=$(now_ms)
	expect_status "suite on $n ranks" 0 tmo "$RUN" -n "$n" -t 60s "${scripts[@]}" \
		--report "$S/r$n.json" --junit "$S/r$n.xml"
	echo "$T_SUITE: suite on $n ranks: $(($(now_ms) - t0)) ms" >&2
	total=$((n * nscripts))
	expect_eq "$n ranks: summary line" "$total passed, 0 failed ($n ranks x $nscripts scripts)" \
		"$(tail -n 1 "$T_TMP/out")"
	expect_eq "$n ranks: CTRF summary" "$total $total 0 0 0 0" \
		"$(jq -r '.results.summary | "\(.tests) \(.passed) \(.failed) \(.pending) \(.skipped) \(.other)"' "$S/r$n.json")"
	expect_eq "$n ranks: every test passed" "[]" \
		"$(jq -c '[.results.tests[] | select(.status != "passed") | .name]' "$S/r$n.json")"
	expect_eq "$n ranks: every (script, rank) once" "$total" \
		"$(jq -r '[.results.tests[] | "\(.filePath) \(.extra.rank)"] | unique | length' "$S/r$n.json")"
	expect_eq "$n ranks: no failed assertion, error or exit status" "[]" \
		"$(jq -c '[.results.tests[] | select(.extra.assertions_failed != 0 or .extra.errors != 0 or .extra.exit_code != 0 or .extra.finished != true or .extra.timed_out) | .name]' "$S/r$n.json")"
	expect_eq "$n ranks: assertions ran on every rank" "[]" \
		"$(jq -c '[.results.tests[] | select(.extra.assertions_passed < 1) | .name]' "$S/r$n.json")"
	expect_eq "$n ranks: CTRF validates" "" "$(ctrf_valid "$S/r$n.json" 2>&1)"
	expect_match "$n ranks: JUnit validates" "validates$" "$(junit_valid "$S/r$n.xml")"
	expect_eq "$n ranks: JUnit has no failure" "0" "$(grep -c '<failure' "$S/r$n.xml")"
	expect_eq "$n ranks: JUnit test cases" "$total" "$(grep -c '<testcase ' "$S/r$n.xml")"
done

# ---- a broken assertion: exit 1, the report names rank, file and line ---------------------
# In a copy of sodimm_copy.dsh the VL counter after the first copy (1 on every rank) is
# compared with $rank: rank 1 passes, ranks 0 and 2 fail at that line.
B=$S/broken_copy.dsh
sed 's/^assert prim_counter.vl == 1$/assert prim_counter.vl == $rank/' "$SUITE/sodimm_copy.dsh" >"$B"
line=$(grep -n '^assert prim_counter.vl == \$rank$' "$B" | cut -d: -f1)
expect_match "broken copy made" "^[0-9]+$" "$line"
expect_status "broken assert fails the run" 1 tmo "$RUN" -n 3 -t 60s "$B" --report "$S/b.json" --junit "$S/b.xml"
expect_match "names rank 0, file and line" \
	"FAIL rank 0: $B:$line: assert: assertion failed: prim_counter.vl == 0x0 \(got 0x1\)" "$(cat "$T_TMP/err")"
expect_match "names rank 2, file and line" \
	"FAIL rank 2: $B:$line: assert: assertion failed: prim_counter.vl == 0x2 \(got 0x1\)" "$(cat "$T_TMP/err")"
expect_eq "rank 1 not named" "" "$(grep 'FAIL rank 1' "$T_TMP/err")"
expect_eq "summary line" "1 passed, 2 failed (3 ranks x 1 script)" "$(tail -n 1 "$T_TMP/out")"
expect_eq "CTRF: statuses by rank" "0:failed 1:passed 2:failed" \
	"$(jq -r '[.results.tests[] | "\(.extra.rank):\(.status)"] | sort | join(" ")' "$S/b.json")"
expect_eq "CTRF: file and line of the failures" "$B:$line $B:$line" \
	"$(jq -r '[.results.tests[] | select(.status == "failed") | "\(.filePath):\(.line)"] | join(" ")' "$S/b.json")"
expect_eq "CTRF: failure detail" "$line assert $line assert" \
	"$(jq -r '[.results.tests[] | select(.status == "failed") | .extra.failures[0] | "\(.line) \(.command)"] | join(" ")' "$S/b.json")"
expect_eq "broken: CTRF validates" "" "$(ctrf_valid "$S/b.json" 2>&1)"
expect_match "broken: JUnit validates" "validates$" "$(junit_valid "$S/b.xml")"
expect_eq "JUnit: two failures" "2" "$(grep -c '<failure ' "$S/b.xml")"
expect_match "JUnit: file:line in the failure" "$(basename "$B"):$line" "$(cat "$S/b.xml")"

# ---- many ranks through the barrier script -------------------------------------------------
# barrier_stress.dsh with 10 x (9 + 1) = 100 barriers instead of 1,000, all its checks kept, on
# 64 ranks; on the sanitized build 16 (64 ASan processes on two cores take minutes, and what the
# sanitizers look at - one rank's memory - is the same at 16).
NR=64
[[ $BIN == */build-san/* ]] && NR=16
B64=$S/barrier_stress_$NR.dsh
sed 's/^  repeat 99; barrier; end$/  repeat 9; barrier; end/' "$SUITE/barrier_stress.dsh" >"$B64"
expect_eq "$NR-rank copy made" "1" "$(grep -c '^  repeat 9; barrier; end$' "$B64")"
t0=$(now_ms)
expect_status "barriers on $NR ranks" 0 tmo "$RUN" -n $NR -t 120s "$B64" --report "$S/r64.json"
echo "$T_SUITE: 100 barriers on $NR ranks: $(($(now_ms) - t0)) ms" >&2
expect_eq "$NR ranks passed" "$NR $NR 0" \
	"$(jq -r '.results.summary | "\(.tests) \(.passed) \(.failed)"' "$S/r64.json")"
expect_eq "$NR ranks: the checks ran" "[]" \
	"$(jq -c '[.results.tests[] | select(.extra.assertions_passed != 20) | .name]' "$S/r64.json")"
finish
