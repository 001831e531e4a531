#!/usr/bin/env bash
# Run every test: unit test binaries and shell tests, on the plain build and
# on the AddressSanitizer+UBSan build (--plain or --san: one of them).
# Prints one summary line per suite with its time (and the reasons for any
# skips), the slowest suites, and a final "N passed, N failed, N skipped".
# A skip is a check that could not run here (a missing tool, not root); it
# does not fail the run.  A check a build does not do by design (the heavy
# cells on the sanitized build) is "not applicable": counted apart, never as
# a skip.
# The two builds run side by side (TEST_JOBS=2, the default): the plain
# suites mostly wait (launchers, timeouts, daemons) while the sanitized ones
# mostly compute, so two cores hold both; each build's suites run one at a
# time, and every suite has its own directory, sockets and ports.
# TEST_JOBS=1 runs the builds one after the other.  TESTS=GLOB runs only the
# suites whose name matches (TESTS='test_dsh_run*'; a shell suite's name
# with or without .sh), for a quick check; `make test TESTS=GLOB` passes it.
# The suites are what the tree holds: BUILD/tests/test_X for every
# tests/unit/test_X.c, BUILD/tests/test_fuzz_X for every tests/fuzz/fuzz_X.c
# (one not built fails), and every tests/shell/test_*.sh; --list prints
# them (after TESTS) and runs nothing.
set -u
cd "$(dirname "$0")/.."
# --variant BUILD:BINDIR (repeatable) names the builds to test (make passes
# its own: build-clang:build-clang/bin for CC=clang); --plain: build/ only,
# --san: build-san/ only.
variants=()
only=""
list=""
while [ $# -gt 0 ]; do
	case $1 in
	--plain | --san) only=$1 ;;
	--list) list=1 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--variant) [ $# -ge 2 ] || { echo "tests/run.sh: --variant needs BUILD:BINDIR" >&2; exit 2; }
		variants+=("$2"); shift ;;
	*) echo "tests/run.sh: unknown argument '$1' (known: --plain, --san, --variant BUILD:BINDIR, --list, --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ ${#variants[@]} -eq 0 ]; then
	case $only in
	--plain) variants=("build:bin") ;;
	--san) variants=("build-san:build-san/bin") ;;
	*) variants=("build:bin" "build-san:build-san/bin") ;;
	esac
fi
# suites BUILD: the suites of one build after TESTS, one "unit PATH" or
# "shell PATH" line each, in the order they run.  A unit suite is named by
# its source, so one not built is a failure (run_suite), never left out, and
# a binary whose source is gone is not run.
selected() { # NAME [ALTNAME]
	[[ $1 == ${TESTS:-*} ]] || { [ $# -gt 1 ] && [[ $2 == ${TESTS:-*} ]]; }
}
suites() {
	local c n s
	for c in tests/unit/test_*.c tests/fuzz/fuzz_*.c; do
		[ -f "$c" ] || continue
		n=$(basename "$c" .c)
		n=test_${n#test_}
		selected "$n" && echo "unit $1/tests/$n"
	done
	for s in tests/shell/test_*.sh; do
		[ -f "$s" ] || continue
		selected "$(basename "$s" .sh)" "$(basename "$s")" && echo "shell $s"
	done
}
# A TESTS that names no suite is a mistake, not a pass.
if [ -n "${TESTS:-}" ] && [ -z "$(suites "${variants[0]%%:*}")" ]; then
	echo "tests/run.sh: TESTS='$TESTS' names no suite (tests/run.sh --list shows them)" >&2
	exit 2
fi
if [ -n "$list" ]; then
	for v in "${variants[@]}"; do
		b=${v%%:*}
		suites "$b" | while read -r kind p; do
			if [ "$kind" = unit ]; then echo "$b/$(basename "$p")"; else echo "$b/$(basename "$p" .sh)"; fi
		done
	done
	exit 0
fi
jobs=${TEST_JOBS:-2}
case $jobs in 1 | 2) ;; *) echo "tests/run.sh: TEST_JOBS must be 1 or 2, not '$jobs'" >&2; exit 2 ;; esac
run_t0=$(date +%s)
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# A suite's last line "NAME: N passed, N failed[, N skipped[, N not
# applicable]]" (the skipped count is optional: older suites, the fuzz driver).  No such line, a
# non-zero exit, or a suite that checked nothing and skipped nothing,
# counts as a failure.
sum_re='^[A-Za-z0-9_.-]+: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped(, ([0-9]+) not applicable)?)?'
run_suite() { # label command...
	local label=$1; shift
	local out rc line p=0 f=1 sk=0 na=0 t0 secs
	t0=$(date +%s.%N)
	out=$(timeout 600 "$@" 2>&1); rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	line=$(printf '%s\n' "$out" | grep -E "$sum_re" | tail -n 1)
	if [[ $line =~ $sum_re ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} sk=${BASH_REMATCH[4]:-0} na=${BASH_REMATCH[6]:-0}
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; out+=$'\n'"(exit $rc)"; fi
	if [ $((p + f + sk + na)) -eq 0 ]; then f=1; out+=$'\n''(no check ran and none was skipped)'; fi
	echo "$secs $label" >>"$v_out.times"
	v_pass=$((v_pass + p)); v_fail=$((v_fail + f)); v_skip=$((v_skip + sk)); v_na=$((v_na + na))
	printf '  %-40s %4s passed, %s failed, %s skipped%s  %6ss\n' "$label" "$p" "$f" "$sk" \
		"$([ "$na" -gt 0 ] && echo ", $na not applicable")" "$secs"
	if [ "$f" -ne 0 ]; then
		echo "$label" >>"$v_out.failed"
		# the failed checks first (a long suite's tail may not hold them),
		# then how it ended
		printf '%s\n' "$out" | grep -E '^FAIL ' | head -n 30 | sed 's/^/    | /'
		printf '%s\n' "$out" | grep -v -E "$sum_re" | grep -v -E '^FAIL ' | tail -n 20 | sed 's/^/    | /'
	elif [ $((sk + na)) -ne 0 ]; then
		printf '%s\n' "$out" | grep -E '^(SKIP|N/A) ' | sed 's/^/    | /'
	fi
}
# run_variant BUILD BINDIR [live]: every suite on one build; its lines,
# counts, times and failed suites go to $out_dir/BUILD.*, its lines also to
# the terminal as they come when live.
run_variant() {
	local build=$1 bindir=$2 live=${3:-} t s
	v_out=$out_dir/$build v_pass=0 v_fail=0 v_skip=0 v_na=0
	: >"$v_out.times"; : >"$v_out.failed"
	{
		echo "== $build"
		while read -r kind p; do
			if [ "$kind" = unit ]; then
				if [ -x "$p" ]; then run_suite "$build/$(basename "$p")" "$p" </dev/null
				else run_suite "$build/$(basename "$p")" sh -c "echo 'tests/run.sh: $p is not built (make tests)'; exit 1"; fi
			else
				BIN="$PWD/$bindir" run_suite "$build/$(basename "$p" .sh)" env BIN="$PWD/$bindir" bash "$p" </dev/null
			fi
		done < <(suites "$build")
		echo "$v_pass $v_fail $v_skip $v_na" >"$v_out.counts"
	} | if [ -n "$live" ]; then tee "$v_out.log"; else cat >"$v_out.log"; fi
}
# The first build's lines as they come; with TEST_JOBS=2 the others run
# meanwhile and their lines follow when the first is done.
pids=()
if [ "$jobs" -eq 2 ]; then
	for v in "${variants[@]:1}"; do
		run_variant "${v%%:*}" "${v#*:}" </dev/null &
		pids+=($!)
	done
fi
for i in "${!variants[@]}"; do
	v=${variants[$i]}
	if [ "$i" -eq 0 ]; then
		run_variant "${v%%:*}" "${v#*:}" live
		for p in "${pids[@]}"; do wait "$p"; done
	elif [ "$jobs" -eq 2 ]; then
		cat "$out_dir/${v%%:*}.log"
	else
		run_variant "${v%%:*}" "${v#*:}" live
	fi
done
total_pass=0 total_fail=0 total_skip=0 total_na=0
for v in "${variants[@]}"; do
	b=$out_dir/${v%%:*}
	if read -r p f sk na <"$b.counts" 2>/dev/null; then
		total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + sk)) total_na=$((total_na + na))
	else
		echo "${v%%:*}: the run of this build ended without its counts"
		total_fail=$((total_fail + 1))
		echo "${v%%:*}" >>"$b.failed"
	fi
done
failed_suites=$(for v in "${variants[@]}"; do cat "$out_dir/${v%%:*}.failed"; done 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
# where the time went: the slowest suites, then the whole run
echo "slowest suites:"
sort -rn "$out_dir"/*.times | head -n 8 | awk '{ printf "  %7.1fs %s\n", $1, $2 }'
echo "run time: $(( $(date +%s) - run_t0 ))s (TEST_JOBS=$jobs)"
[ -n "$failed_suites" ] && echo "failed suites: $failed_suites"
echo "${total_pass} passed, ${total_fail} failed, ${total_skip} skipped$([ "$total_na" -gt 0 ] &&
	echo ", $total_na not applicable (by design on this build, not skips)")"
[ "$total_fail" -eq 0 ]
