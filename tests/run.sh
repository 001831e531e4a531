#!/usr/bin/env bash
# Run every test: unit test binaries and shell tests, first on the plain
# build, then on the AddressSanitizer+UBSan build (unless --plain).
# Prints one summary line per suite and a final "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
variants=("build:bin" "build-san:build-san/bin")
[ "${1:-}" = "--plain" ] && variants=("build:bin")
total_pass=0
total_fail=0
failed_suites=()
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
run_suite() { # label command...
	local label=$1; shift
	local out rc line p f
	out=$(timeout 600 "$@" 2>&1); rc=$?
	line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then p=0; f=1; else
		p=$(printf '%s' "$line" | sed -E 's/^(.*[^0-9])?([0-9]+) passed, ([0-9]+) failed.*/\2/')
		f=$(printf '%s' "$line" | sed -E 's/^(.*[^0-9])?([0-9]+) passed, ([0-9]+) failed.*/\3/')
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	printf '  %-40s %4s passed, %s failed\n' "$label" "$p" "$f"
	if [ "$f" -ne 0 ]; then
		failed_suites+=("$label")
		printf '%s\n' "$out" | grep -v -E '^[a-z_0-9]+: [0-9]+ passed' | tail -n 40 | sed 's/^/    | /'
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
echo "${total_pass} passed, ${total_fail} failed"
[ "$total_fail" -eq 0 ]
