#!/usr/bin/env bash
# The suites tests/run.sh runs are what the tree holds, never a list kept by
# hand: BUILD/tests/test_X for every tests/unit/test_X.c and
# BUILD/tests/test_fuzz_X for every tests/fuzz/fuzz_X.c (one not built
# fails, a binary whose source is gone is not run), every
# tests/shell/test_*.sh; a new file is picked up; TESTS=GLOB picks suites,
# and `make test TESTS=GLOB` hands it to tests/run.sh.  The runs are of
# run.sh in a tree of stand-in suites (nothing here runs the real ones).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# A TESTS this suite was run with (tests/run.sh passes it on) is not the
# one the checks below give.
unset TESTS

# ---- the real tree: --list names every suite its sources make ----
want=$(cd "$ROOT" && {
	for c in tests/unit/test_*.c; do echo "build/$(basename "$c" .c)"; done
	for c in tests/fuzz/fuzz_*.c; do echo "build/test_$(basename "$c" .c)"; done
	for s in tests/shell/test_*.sh; do echo "build/$(basename "$s" .sh)"; done
} | sort)
got=$("$ROOT/tests/run.sh" --plain --list | sort)
expect_eq "tests/run.sh --list: every unit, fuzz and shell suite of the tree" "$want" "$got"
expect_match "the list holds this suite" "^build/test_run_suites$" "$got"

# ---- a tree of stand-in suites ----
F=$T_TMP/tree
mkdir -p "$F/tests/shell" "$F/tests/unit" "$F/tests/fuzz" "$F/build/tests" "$F/bin"
cp "$ROOT/tests/run.sh" "$F/tests/"
suite() { # PATH NAME PASSED
	printf '#!/bin/sh\necho "%s: %s passed, 0 failed, 0 skipped"\n' "$2" "$3" >"$1"
	chmod +x "$1"
}
suite "$F/tests/shell/test_a.sh" test_a 1
suite "$F/tests/shell/test_b.sh" test_b 2
: >"$F/tests/unit/test_u.c"
suite "$F/build/tests/test_u" test_u 4
: >"$F/tests/fuzz/fuzz_z.c"
suite "$F/build/tests/test_fuzz_z" fuzz_z 8
suite "$F/build/tests/test_gone" test_gone 16 # its source is gone
list() { (cd "$F" && TESTS=${1:-} tests/run.sh --plain --list | tr '\n' ' '); }
expect_eq "--list: the stand-in tree's suites" \
	"build/test_u build/test_fuzz_z build/test_a build/test_b " "$(list)"
suite "$F/tests/shell/test_c.sh" test_c 32
: >"$F/tests/unit/test_new.c"
expect_eq "--list: a new shell suite and a new unit source are picked up" \
	"build/test_new build/test_u build/test_fuzz_z build/test_a build/test_b build/test_c " "$(list)"
expect_eq "--list with TESTS: a shell suite named with .sh" "build/test_b " "$(list test_b.sh)"
expect_eq "--list with TESTS: a glob" "build/test_a build/test_b " "$(list 'test_[ab]*')"
out=$(cd "$F" && TESTS='test_[au]*' tests/run.sh --plain 2>&1); rc=$?
expect_eq "TESTS run: exit" 0 "$rc"
expect_eq "TESTS run: only the chosen suites ran" "5 passed, 0 failed, 0 skipped" "$(printf '%s\n' "$out" | tail -n 1)"
if printf '%s' "$out" | grep -q 'test_b\|test_c\|fuzz_z'; then fail "TESTS run: a suite it did not choose ran: $out"; else pass; fi
out=$(cd "$F" && TESTS=test_new tests/run.sh --plain 2>&1); rc=$?
expect_eq "a unit suite not built: the run fails" 1 "$rc"
expect_match "a unit suite not built: said so" "build/tests/test_new is not built" "$out"

out=$(cd "$F" && TESTS=test_nosuch tests/run.sh --plain 2>&1); rc=$?
expect_eq "a TESTS that names no suite: exit" 2 "$rc"
expect_match "a TESTS that names no suite: said so" "TESTS='test_nosuch' names no suite" "$out"

# ---- make: TESTS reaches tests/run.sh; test-list builds nothing ----
if ! command -v make >/dev/null; then
	skip "make not installed: make test TESTS= not checked"
else
	out=$(cd "$ROOT" && make -n --no-print-directory test-plain TESTS=test_durations 2>&1)
	expect_match "make test-plain TESTS=...: run.sh gets it" "TESTS='test_durations' tests/run.sh" "$out"
	out=$(cd "$ROOT" && make -n --no-print-directory test TESTS='test_dsh_*' 2>&1 | grep 'tests/run.sh')
	expect_match "make test TESTS=...: run.sh gets it" "TESTS='test_dsh_\*' tests/run.sh --variant" "$out"
	out=$(cd "$ROOT" && make -s --no-print-directory test-list TESTS=test_durations.sh 2>&1 | tr '\n' ' ')
	expect_eq "make test-list TESTS=test_durations.sh" "build/test_durations build-san/test_durations " "$out"
	expect_match "make help names TESTS" "TESTS=GLOB" "$(cd "$ROOT" && make -s --no-print-directory help)"
fi
finish
