#!/usr/bin/env bash
# Run every test: unit test binaries and shell tests, first on the plain
# build, then on the AddressSanitizer+UBSan build (unless --plain).
# Prints one summary line per suite (with the reasons for any skips) and a
# final "N passed, N failed, N skipped".  A skip is a check that could not
# run here (a missing tool, not root); it does not fail the run.  A check a
# build does not do by design (the heavy cells on the sanitized build) is
# "not applicable": counted apart, never as a skip.
set -u
cd "$(dirname "$0")/.."
variants=("build:bin" "build-san:build-san/bin")
[ "${1:-}" = "--plain" ] && variants=("build:bin")
total_pass=0
total_fail=0
total_skip=0
total_na=0
failed_suites=()
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# A suite's last line "NAME: N passed, N failed[, N skipped[, N not
# applicable]]" (the skipped count is optional: older suites, the fuzz driver).  No such line, a
# non-zero exit, or a suite that checked nothing and skipped nothing,
# counts as a failure.
sum_re='^[A-Za-z0-9_.-]+: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped(, ([0-9]+) not applicable)?)?'
run_suite() { # label command...
	local label=$1; shift
	local out rc line p=0 f=1 sk=0 na=0
	out=$(timeout 600 "$@" 2>&1); rc=$?
	line=$(printf '%s\n' "$out" | grep -E "$sum_re" | tail -n 1)
	if [[ $line =~ $sum_re ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} sk=${BASH_REMATCH[4]:-0} na=${BASH_REMATCH[6]:-0}
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; out+=$'\n'"(exit $rc)"; fi
	if [ $((p + f + sk + na)) -eq 0 ]; then f=1; out+=$'\n''(no check ran and none was skipped)'; fi
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + sk))
	total_na=$((total_na + na))
	printf '  %-40s %4s passed, %s failed, %s skipped%s\n' "$label" "$p" "$f" "$sk" \
		"$([ "$na" -gt 0 ] && echo ", $na not applicable")"
	if [ "$f" -ne 0 ]; then
		failed_suites+=("$label")
		# the failed checks first (a long suite's tail may not hold them),
		# then how it ended
		printf '%s\n' "$out" | grep -E '^FAIL ' | head -n 30 | sed 's/^/    | /'
		printf '%s\n' "$out" | grep -v -E "$sum_re" | grep -v -E '^FAIL ' | tail -n 20 | sed 's/^/    | /'
	elif [ $((sk + na)) -ne 0 ]; then
		printf '%s\n' "$out" | grep -E '^(SKIP|N/A) ' | sed 's/^/    | /'
	fi
}
for v in "${variants[@]}"; do
	build=${v%%:*}; bindir=${v#*:}
	echo "== $build"
	for t in "$build"/tests/test_*; do
		[ -x "$t" ] || continue
		run_suite "$build/$(basename "$t")" "$t"
	done
	for s in tests/shell/test_*.sh; do
		[ -f "$s" ] || continue
		BIN="$PWD/$bindir" run_suite "$build/$(basename "$s" .sh)" env BIN="$PWD/$bindir" bash "$s"
	done
done
[ ${#failed_suites[@]} -gt 0 ] && echo "failed suites: ${failed_suites[*]}"
echo "${total_pass} passed, ${total_fail} failed, ${total_skip} skipped$([ "$total_na" -gt 0 ] &&
	echo ", $total_na not applicable (by design on this build, not skips)")"
[ "$total_fail" -eq 0 ]
