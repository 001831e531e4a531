#!/usr/bin/env bash
# The Python package dnet (libdnet/python, D-PY-CTYPES) and its pytest plugin dnet.pytest:
# tests/python against the library of this build, in process and through
# dnetd; the plugin on a passing and a failing dsh script (exit status,
# pytest's JUnit XML, the failure's file:line), through dsh and dsh-run;
# the bring-up suite scripts/tests as pytest items.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if ! "$PY" -c 'import pytest' 2>/dev/null; then
	skip "python3-pytest not installed (scripts/install-deps.sh test installs it)"
	finish
	exit
fi
LIB=$(cd "$BIN/.." && pwd)/lib/libdnet.so
[ -e "$LIB" ] || { fail "no $LIB next to $BIN"; finish; exit; }
pyenv=(PYTHONPATH="$ROOT/libdnet/python" DNET_LIBRARY="$LIB" PYTHONDONTWRITEBYTECODE=1)
# A sanitized libdnet.so needs the ASan runtime loaded first (python3 is not
# built with it); Python's own allocations are not libdnet's leaks.
if readelf -d "$LIB" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
	asan=$(cc -print-file-name=libasan.so 2>/dev/null)
	if [ ! -e "$asan" ]; then
		skip "sanitized libdnet.so but no libasan.so to preload: the Python tests not run"
		finish
		exit
	fi
	# (detect_leaks=0 last: a later option wins, and tests/run.sh exports detect_leaks=1)
	pyenv+=(LD_PRELOAD="$asan" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
fi
pytest_run() { env "${pyenv[@]}" timeout 300 "$PY" -m pytest -p dnet.pytest -p no:cacheprovider -q "$@"; }
# junit FILE: "tests failures errors skipped" of pytest's JUnit XML
junit() {
	"$PY" -c 'import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot().find("testsuite")
print(*(s.get(k) for k in ("tests", "failures", "errors", "skipped")))' "$1"
}
# junit_skips FILE: each skipped test's reason, one a line
junit_skips() {
	"$PY" -c 'import sys, xml.etree.ElementTree as E
for c in E.parse(sys.argv[1]).iter("testcase"):
    for s in c.iter("skipped"):
        print(c.get("name") + ": " + (s.get("message") or ""))' "$1"
}
# api NAME ARGS...: tests/python under pytest, all passed (skips said)
api() {
	local name=$1; shift
	local x="$T_TMP/$name.xml"
	pytest_run --junitxml="$x" "$@" >"$T_TMP/$name.out" 2>&1
	local rc=$?
	if [ $rc -eq 0 ] && [ -s "$x" ]; then pass; else
		fail "$name: pytest exit $rc: $(grep -E '^(E |FAILED|ERROR)' "$T_TMP/$name.out" | head -15)"; return; fi
	read -r t f e s <<<"$(junit "$x")"
	expect_eq "$name: no failure" "0 0" "$f $e"
	expect_match "$name: tests run" '^[0-9]+$' "$t"
	# a test that does not apply to this backend says "N/A: why" (not a skip)
	while IFS= read -r r; do
		case $r in
		'') ;;
		*'N/A: '*) not_applicable "$name: ${r/N\/A: /}" ;;
		*) skip "$name: $r" ;;
		esac
	done <<<"$(junit_skips "$x")"
}
cd "$ROOT" || exit 1
# the library of this build is the one loaded (a sanitized one with ASan live)
expect_eq "dnet loads $LIB" "$LIB" "$(env "${pyenv[@]}" "$PY" -c 'import dnet; print(dnet.library_path)' 2>&1)"
if [ -n "${asan:-}" ]; then
	expect_match "the ASan runtime in the python process" 'libasan' \
		"$(env "${pyenv[@]}" "$PY" -c 'import dnet; print(open("/proc/self/maps").read())' 2>&1 | grep -m1 libasan)"
fi
api "in process" tests/python
if [ -x "$DNETD" ]; then
	SOCK="$T_TMP/d.sock"
	start_dnetd "$SOCK" --sim -N 2
	api "through dnetd" tests/python/test_api.py --dnet-backend "remote:unix:$SOCK"
else
	skip "$DNETD not built: the API through dnetd not tried"
fi

# The plugin: a passing and a failing script, through dsh.
S="$T_TMP/scripts"
mkdir -p "$S"
printf 'llcm_write from=0 it=2 val=7 inc=1\nexpect llcm 0 == 0x800000007\n' >"$S/good.dsh"
printf '# a script that fails on line 3\nllcm_write from=0 it=1 val=5\nexpect llcm 0 == 6\nexpect llcm 0 == 5\n' \
	>"$S/bad.dsh"
# plugin NAME WANT_RC ARGS...: pytest on $S, the JUnit XML in $T_TMP/NAME.xml
plugin() {
	local name=$1 want=$2; shift 2
	(cd "$T_TMP" && pytest_run --junitxml="$T_TMP/$name.xml" "$@") >"$T_TMP/$name.out" 2>&1
	expect_eq "$name: pytest's exit status" "$want" "$?"
}
# failure_of XML TEST: the message of TEST's <failure>
failure_of() {
	"$PY" -c 'import sys, xml.etree.ElementTree as E
for c in E.parse(sys.argv[1]).iter("testcase"):
    if c.get("name") == sys.argv[2]:
        f = c.find("failure")
        print("passed" if f is None else f.get("message").split("\n")[0])' "$1" "$2"
}
plugin "dsh" 1 "$S"
expect_eq "dsh: JUnit counts" "2 1 0 0" "$(junit "$T_TMP/dsh.xml")"
expect_eq "dsh: the passing script" "passed" "$(failure_of "$T_TMP/dsh.xml" good.dsh)"
expect_eq "dsh: the failure at its file:line" "$S/bad.dsh:3: expect llcm 0 == 6" \
	"$(failure_of "$T_TMP/dsh.xml" bad.dsh)"
expect_match "dsh: the failing command's output" 'got 0x5' "$(cat "$T_TMP/dsh.xml")"
plugin "dsh --dnet-dsh" 0 --dnet-dsh "$BIN/dsh" "$S/good.dsh"
[ -x "$DNETD" ] && { plugin "dsh through dnetd" 1 --dnet-backend "remote:unix:$SOCK" "$S"
	expect_eq "dsh through dnetd: the failure at its file:line" "$S/bad.dsh:3: expect llcm 0 == 6" \
		"$(failure_of "$T_TMP/dsh through dnetd.xml" bad.dsh)"; }
# Other ways a script fails, each a failure, never a pass: a command the
# check refuses (its file:line), a script with no command, and one that
# outlives --dnet-timeout (dsh's --max-time: `bench all quick` takes ~1 s).
V="$T_TMP/variants"
mkdir -p "$V"
printf 'llcm_write from=0 val=1\nllcm_raed 0 8\n' >"$V/typo.dsh"
printf '# nothing but a comment\n' >"$V/empty.dsh"
printf 'bench all quick\n' >"$V/long.dsh"
plugin "variants" 1 --dnet-timeout 200ms "$V"
expect_eq "variants: JUnit counts" "3 3 0 0" "$(junit "$T_TMP/variants.xml")"
expect_match "a refused command at its file:line" "^$V/typo.dsh:2" "$(failure_of "$T_TMP/variants.xml" typo.dsh)"
expect_match "a script with no command fails" "^$V/empty.dsh:1" "$(failure_of "$T_TMP/variants.xml" empty.dsh)"
expect_match "a script past --dnet-timeout is stopped" "max-time" "$(cat "$T_TMP/variants.xml")"
# through dsh-run, 2 ranks: the failure of the first rank that failed
plugin "dsh-run" 1 --dnet-ranks 2 "$S"
expect_eq "dsh-run: JUnit counts" "2 1 0 0" "$(junit "$T_TMP/dsh-run.xml")"
expect_match "dsh-run: the failure at its file:line" "^$S/bad.dsh:3: bad.dsh \\[rank [01]\\]" \
	"$(failure_of "$T_TMP/dsh-run.xml" bad.dsh)"
# the bring-up suite, each script under dsh-run (scripts/tests/conftest.py: 2 ranks)
n=$(ls scripts/tests/*.dsh | wc -l)
(pytest_run --junitxml="$T_TMP/suite.xml" scripts/tests) >"$T_TMP/suite.out" 2>&1
expect_eq "pytest scripts/tests: exit status" 0 "$?"
expect_eq "pytest scripts/tests: every script passed" "$n 0 0 0" "$(junit "$T_TMP/suite.xml" 2>&1)"
finish
