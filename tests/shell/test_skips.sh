#!/bin/bash
# A skip means only "this check cannot run here" (a tool missing, not root):
# a check a build leaves out by design (the heavy launcher cells and the
# benchmarks on the sanitized build) is "not applicable", counted apart by
# lib.sh's finish and by tests/run.sh, never as a skip (README "Two commands").
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# 1. lib.sh: not_applicable counts apart and prints N/A; finish says so.
out=$(cd "$T_TMP" && bash -c '. "$1"; T_SUITE=probe; pass; skip "no tool"; not_applicable "plain build only"; finish' _ "$ROOT/tests/shell/lib.sh" 2>&1)
expect_match "finish counts N/A apart" "^probe: 1 passed, 0 failed, 1 skipped, 1 not applicable$" "$(printf '%s\n' "$out" | tail -1)"
expect_match "N/A printed with its reason" "^N/A \[probe\] plain build only$" "$out"
out=$(cd "$T_TMP" && bash -c '. "$1"; T_SUITE=probe; pass; finish' _ "$ROOT/tests/shell/lib.sh" 2>&1)
expect_eq "without N/A the line is as before" "probe: 1 passed, 0 failed, 0 skipped" "$(printf '%s\n' "$out" | tail -1)"

# 2. tests/run.sh reads the count: its summary pattern takes the fourth
# number, and a suite with only N/A checks is not "no check ran".
re=$(sed -n "s/^sum_re='\(.*\)'$/\1/p" "$ROOT/tests/run.sh")
line="probe: 2 passed, 0 failed, 1 skipped, 3 not applicable"
if [ -n "$re" ] && [[ $line =~ $re ]] && [ "${BASH_REMATCH[4]:-}" = 1 ] && [ "${BASH_REMATCH[6]:-}" = 3 ]; then pass; else
	fail "tests/run.sh's sum_re does not read '$line' as 1 skipped, 3 not applicable"; fi
expect_match "run.sh counts N/A in 'no check ran'" 'p \+ f \+ sk \+ na' "$(cat "$ROOT/tests/run.sh")"

# run.sh's own run_suite on a suite whose only check is not applicable:
# not a failure, not a skip.
printf '. "%s"\nnot_applicable "plain build only"\nfinish\n' "$ROOT/tests/shell/lib.sh" >"$T_TMP/na_only.sh"
out=$(cd "$ROOT" && bash -c 'v_out=$2/v v_pass=0 v_fail=0 v_skip=0 v_na=0
	source <(sed -n "/^sum_re=/,/^}/p" tests/run.sh)
	run_suite probe bash "$1"; echo "totals $v_pass $v_fail $v_skip $v_na"' _ "$T_TMP/na_only.sh" "$T_TMP" 2>&1)
expect_eq "run.sh: an N/A-only suite counts 0 passed, 0 failed, 0 skipped, 1 not applicable" "totals 0 0 0 1" "$(printf '%s\n' "$out" | tail -1)"

# 3. No suite calls a by-design omission a skip.
bad=$(grep -n -E '\bskip "[^"]*(plain build|run for it, not here)' "$ROOT"/tests/shell/test_*.sh | head -5)
expect_eq "by-design omissions are not skips" "" "$bad"
finish
