#!/usr/bin/env bash
# "-" is standard output wherever a file of output is named (D-OUT-STDOUT):
# dsh -o, --journal, --trace, dsh-run --report, --junit, each given as -,
# through a pipe (| cat) and as /dev/stdout with standard output a file
# (the shell's >f: a second open of it would overwrite what the program
# prints), the result validated as its reader reads it: a journal by
# dsh replay, a trace as JSON, CTRF by its schema, JUnit by the XSD.  No
# file named - is created.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"
RUN=$DSH_RUN
W=$T_TMP/w
mkdir -p "$W"
cd "$W" || exit 1
tmo() { timeout 120 "$@"; }
no_dash_file() { # NAME
	if [ -e "$W/-" ]; then fail "$1: a file named - was created"; rm -f "$W/-"; else pass; fi
}
json_ok() { "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>&1; }
CMDS='llcm_write from=0 it=1 val=5; llcm_read 0 8'

# ---- dsh -o ----------------------------------------------------------------------------
tmo "$DSH" -o - -c 'v' >"$W/o" 2>"$W/e"
expect_eq "-o -: exit" 0 $?
expect_match "-o -: the output on stdout" "DIMMnet-2 Shell" "$(cat "$W/o")"
no_dash_file "-o -"
expect_match "-o - | cat" "DIMMnet-2 Shell" "$(tmo "$DSH" -o - -c 'v' | cat)"
no_dash_file "-o - | cat"
{ echo before; tmo "$DSH" -o /dev/stdout -c 'v'; } >"$W/o" 2>/dev/null
expect_match "-o /dev/stdout >f: what came before kept" "^before" "$(head -1 "$W/o")"
expect_match "-o /dev/stdout >f: the output" "DIMMnet-2 Shell" "$(cat "$W/o")"

# ---- dsh --journal ---------------------------------------------------------------------
# three_ways OPTION CHECK: OPTION -, OPTION - | cat, OPTION /dev/stdout >f, each
# result checked by CHECK NAME FILE; dsh's own output went to stderr
three_ways() {
	local o=$1 check=$2
	tmo "$DSH" "$o" - -c "$CMDS" >"$W/d1" 2>"$W/e"
	expect_eq "$o -: exit" 0 $?
	$check "$o -" "$W/d1"
	expect_match "$o -: dsh's output went to stderr" "0000000000000005" "$(cat "$W/e")"
	no_dash_file "$o -"
	tmo "$DSH" "$o" - -c "$CMDS" 2>/dev/null | cat >"$W/d2"
	$check "$o - | cat" "$W/d2"
	tmo "$DSH" "$o" /dev/stdout -c "$CMDS" >"$W/d3" 2>/dev/null
	$check "$o /dev/stdout >f" "$W/d3"
}
journal_check() { # NAME FILE
	expect_eq "$1: starts with the journal's magic" "# dsh journal 1" "$(head -1 "$2")"
	expect_status "$1: replays" 0 "$DSH" replay "$2"
	expect_match "$1: replay finds no divergence" "no divergence" "$(cat "$T_TMP/out")"
}
three_ways --journal journal_check
expect_eq "--journal /dev/stdout >f: no dsh output inside" "" "$(grep -v '^#\|^[a-z]' "$W/d3")"

# ---- dsh --trace -----------------------------------------------------------------------
trace_check() { # NAME FILE
	expect_eq "$1: valid JSON" "" "$(json_ok "$2")"
	expect_match "$1: trace events" '"ph"' "$(head -c 4000 "$2")"
}
three_ways --trace trace_check

# standard output takes one of them
expect_status "--journal - --trace -: refused" 2 "$DSH" --journal - --trace - -c v
expect_match "--journal - --trace -: message" "both name standard output" "$(cat "$T_TMP/err")"
expect_status "-o - --journal -: refused" 2 "$DSH" -o - --journal - -c v
expect_match "-o - --journal -: message" "-o names standard output, which --journal takes" "$(cat "$T_TMP/err")"
no_dash_file "refused"
# bench's files: its table is on standard output, so - is refused, naming --json
expect_status "bench json=-: refused" 1 "$DSH" -c 'bench E1 quick json=-'
expect_match "bench json=-: message" "json=-: standard output carries the bench's table: give a file \(dsh --json" "$(cat "$T_TMP/err")"
expect_status "bench trace=/dev/stdout: refused" 1 "$DSH" -c 'bench E1 quick trace=/dev/stdout'
no_dash_file "bench json=-"

# ---- dsh-run --report, --junit -----------------------------------------------------------
printf 'assert ctl_status == 0x12\n' >"$W/pass.dsh"
printf 'assert ctl_status == 0x13\n' >"$W/fail.dsh"
S=("$W/pass.dsh" "$W/fail.dsh")
ctrf_check() { # NAME FILE
	expect_eq "$1: CTRF validates" "" "$(ctrf_valid "$2" 2>&1 | tail -n 3)"
	expect_eq "$1: CTRF counts" "4 2 2 0 0 0" "$(ctrf_summary "$2")"
}
junit_check() { # NAME FILE
	expect_match "$1: JUnit validates" "validates" "$(junit_valid "$2")"
}
tmo "$RUN" -n 2 "${S[@]}" --report - >"$W/r1" 2>"$W/e"
expect_eq "--report -: exit" 1 $?
ctrf_check "--report -" "$W/r1"
expect_match "--report -: the summary on stderr" "2 passed, 2 failed \(2 ranks x 2 scripts\)" "$(cat "$W/e")"
no_dash_file "--report -"
tmo "$RUN" -n 2 "${S[@]}" --report - 2>/dev/null | cat >"$W/r2"
ctrf_check "--report - | cat" "$W/r2"
tmo "$RUN" -n 2 "${S[@]}" --report /dev/stdout >"$W/r3" 2>/dev/null
ctrf_check "--report /dev/stdout >f" "$W/r3"
tmo "$RUN" -n 2 "${S[@]}" --junit - --report "$W/r4" >"$W/x1" 2>/dev/null
junit_check "--junit -" "$W/x1"
ctrf_check "--junit -: the --report file beside it" "$W/r4"
no_dash_file "--junit -"
tmo "$RUN" -n 2 "${S[@]}" --junit - 2>/dev/null | cat >"$W/x2"
junit_check "--junit - | cat" "$W/x2"
tmo "$RUN" -n 2 "${S[@]}" --junit /dev/stdout >"$W/x3" 2>/dev/null
junit_check "--junit /dev/stdout >f" "$W/x3"
expect_status "--report - --junit /dev/stdout: refused" 2 "$RUN" -n 1 "$W/pass.dsh" --report - --junit /dev/stdout
expect_match "--report - --junit /dev/stdout: message" "are the same file" "$(cat "$T_TMP/err")"
# a refused command line removes an earlier run's reports, never a file named -
echo keep >"$W/-"
expect_status "refused with --report -" 2 "$RUN" --report - -n 1
expect_eq "a file named - is left alone" "keep" "$(cat "$W/-")"
rm -f "$W/-"
finish
