#!/usr/bin/env bash
# dsh never reads as passed when nothing passed (issue 31, Deliver 7 and its
# messages; D-SCRIPT-EMPTY, D-CHECK-SOURCES, D-REPLAY-VERDICT):
#  - an empty or comment-only script fails: exit 1, the text summary counts
#    an error, the message at FILE:1, the JSON summary ok false with a failed
#    object (cmd "script"); in process and through dnetd;
#  - -n checks every file `source` reaches (at that file's lines), refuses a
#    cycle and a missing file, and says which source it could not resolve;
#  - the journal's end record carries the session's verdict and replay says
#    it beside "no divergence"; a failed session's replay fails; an older
#    journal's verdict is "unknown";
#  - (a journal record's message kept whole: tests/unit/test_journal_format.c);
#  - --json with a backend that cannot be opened writes a failed object and
#    the summary (exit 3), valid against the schema.
# Every --json output here is validated by finish (dsh-collect).
. "$(dirname "$0")/lib.sh"
S=$T_TMP/s
mkdir -p "$S/lib"
start_dnetd "$T_TMP/d.sock" --sim -N 2
BACKENDS=(sim "remote:unix:$T_TMP/d.sock")
bname() { case $1 in sim) echo sim ;; *) echo dnetd ;; esac; }

# ---- an empty script ------------------------------------------------------------------------
: >"$S/empty.dsh"
printf '# only a comment\n\n   \t\n# and another ; with a semicolon\n' >"$S/comments.dsh"
printf '\r\n# CR LF\r\n' >"$S/crlf.dsh"
for b in "${BACKENDS[@]}"; do
	for f in empty comments crlf; do
		n="$(bname "$b") $f.dsh"
		expect_status "$n: exit 1" 1 "$DSH" -b "$b" "$S/$f.dsh"
		expect_eq "$n: text summary" "0 passed, 0 failed, 1 error" "$(cat "$T_TMP/out")"
		expect_match "$n: message at FILE:1" "^dsh: $S/$f.dsh:1: script: the script holds no command \(it is empty, or only blank lines and comments\): nothing was tested$" "$(cat "$T_TMP/err")"
		expect_status "$n: --json exit 1" 1 "$DSH" -b "$b" --json "$S/$f.dsh"
		expect_eq "$n: JSON failed object" "script $S/$f.dsh 1 false" \
			"$(head -n 1 "$T_TMP/out" | jq -r '"\(.cmd) \(.file) \(.lineno) \(.ok)"')"
		expect_eq "$n: JSON summary" "false 1 1" \
			"$(tail -n 1 "$T_TMP/out" | jq -r '.summary | "\(.ok) \(.exit_status) \(.failed_commands)"')"
	done
	expect_status "$(bname "$b") -c '': exit 1" 1 "$DSH" -b "$b" -c ''
	expect_status "$(bname "$b") -f - of nothing: exit 1" 1 "$DSH" -b "$b" -f - </dev/null
	# not empty: a command, even one that does nothing to the device
	printf '# x\necho hi\n' >"$S/echo.dsh"
	expect_status "$(bname "$b") a script with a command: exit 0" 0 "$DSH" -b "$b" "$S/echo.dsh"
	# an empty script among others fails the run, the others still run
	expect_status "$(bname "$b") empty among others: exit 1" 1 "$DSH" -b "$b" -c 'echo first' -f "$S/empty.dsh" -c 'echo last'
	expect_eq "$(bname "$b") empty among others: the others ran" "first
last
0 passed, 0 failed, 1 error" "$(cat "$T_TMP/out")"
done

# ---- -n checks sourced files ------------------------------------------------------------------
cd "$S" || exit 1
printf 'info\nsource lib/b.dsh\n' >top.dsh
printf '# b\nfrobnicate 1\nassert llcm 0 ==\n' >lib/b.dsh
expect_status "-n: an error in a sourced file: exit 2" 2 "$DSH" -n top.dsh
expect_match "-n: at the sourced file's line" "^dsh: lib/b.dsh:2: check: unknown command 'frobnicate'" "$(cat "$T_TMP/err")"
expect_match "-n: every error of it" "dsh: lib/b.dsh:3: check: assert: missing value" "$(cat "$T_TMP/err")"
expect_match "-n: counted" "dsh: top.dsh: 2 errors; nothing was run" "$(cat "$T_TMP/err")"
expect_status "-n --json: exit 2" 2 "$DSH" -n --json top.dsh
expect_eq "-n --json: check objects at the sourced file" "check lib/b.dsh 2
check lib/b.dsh 3" "$(jq -r 'select(.cmd) | "\(.cmd) \(.file) \(.lineno)"' "$T_TMP/out")"
expect_eq "-n --json: summary" "2 false" "$(tail -n 1 "$T_TMP/out" | jq -r '.summary | "\(.check_errors) \(.ok)"')"
# relative to the working directory, as source opens it when it runs
printf 'source sub.dsh\n' >lib/rel.dsh
printf 'bogus\n' >lib/sub.dsh
printf 'info\n' >sub.dsh
expect_status "-n: a relative path from the working directory" 0 "$DSH" -n lib/rel.dsh
# nested, a diamond checked once, a sourced file given twice
printf 'source lib/n1.dsh\nsource lib/n1.dsh\n' >nest.dsh
printf 'source lib/n2.dsh\n' >lib/n1.dsh
printf 'info\nnope\n' >lib/n2.dsh
expect_status "-n: nested two deep: exit 2" 2 "$DSH" -n nest.dsh
expect_eq "-n: nested: the error once, at its line" "dsh: lib/n2.dsh:2: check: unknown command 'nope' (did you mean 'node'?)" "$(grep -v 'nothing was run' "$T_TMP/err")"
# a cycle, and a script that sources itself
printf 'source lib/cy2.dsh\n' >lib/cy1.dsh
printf 'info\nsource lib/cy1.dsh\n' >lib/cy2.dsh
printf 'source self.dsh\n' >self.dsh
expect_status "-n: a cycle: exit 2" 2 "$DSH" -n lib/cy1.dsh
expect_match "-n: a cycle: named" "^dsh: lib/cy2.dsh:2: check: source: 'lib/cy1.dsh' is already being sourced here \(a cycle" "$(cat "$T_TMP/err")"
expect_status "-n: a script sourcing itself: exit 2" 2 "$DSH" -n self.dsh
expect_match "-n: sourcing itself: named" "^dsh: self.dsh:1: check: source: 'self.dsh' is already being sourced" "$(cat "$T_TMP/err")"
# a missing file; a path with a variable (said, not checked)
printf 'source lib/none.dsh\n' >missing.dsh
expect_status "-n: a missing sourced file: exit 2" 2 "$DSH" -n missing.dsh
expect_match "-n: a missing sourced file: named" "^dsh: missing.dsh:1: check: source: cannot open 'lib/none.dsh': No such file" "$(cat "$T_TMP/err")"
printf 'set d lib\nsource $d/b.dsh\n' >var.dsh
expect_status "-n: a path with a variable: exit 0 (not checked)" 0 "$DSH" -n var.dsh
expect_match "-n: a path with a variable: said" "^dsh: var.dsh:2: check: warning: source \\\$d/b.dsh: not checked \(its path holds a variable" "$(cat "$T_TMP/err")"
# the alias "."
printf '. lib/b.dsh\n' >dot.dsh
expect_status "-n: '.' (source's alias) followed" 2 "$DSH" -n dot.dsh
expect_match "-n: '.': at the sourced file's line" "^dsh: lib/b.dsh:2: check: unknown command" "$(cat "$T_TMP/err")"
# -c and quoted paths
expect_status "-n -c: a sourced file checked" 2 "$DSH" -n -c "source 'lib/b.dsh'"
expect_match "-n -c: at its line" "lib/b.dsh:2: check: unknown command" "$(cat "$T_TMP/err")"
# a clean tree passes
printf 'info\nsource lib/ok.dsh\n' >clean.dsh
printf 'assert ctl_status == 0x12\n' >lib/ok.dsh
expect_status "-n: a clean tree" 0 "$DSH" -n clean.dsh
expect_eq "-n: a clean tree: silent" "" "$(cat "$T_TMP/err")"
# without -n the run checks each file as it sources it (unchanged)
expect_status "run: the sourced file's check errors fail it" 1 "$DSH" top.dsh
cd - >/dev/null || exit 1

# ---- the journal's verdict, and replay ----------------------------------------------------------
for b in "${BACKENDS[@]}"; do
	n=$(bname "$b")
	"$DSH" -b "$b" --journal "$S/fail.j" -c 'llcm_write from=0 it=1 val=5; assert llcm 0 == 6' >/dev/null 2>&1
	expect_eq "$n: a failed session's end record" "# end 4 records; session failed (exit status 1)" "$(tail -n 1 "$S/fail.j")"
	expect_status "$n: its replay: exit 1" 1 "$DSH" replay "$S/fail.j"
	expect_eq "$n: its replay: no divergence, the session failed" \
		"replay: $S/fail.j: 4 records, no divergence; the recorded session failed (exit status 1)" "$(head -n 1 "$T_TMP/out")"
	expect_match "$n: its replay: the failure at the end record" "^dsh: $S/fail.j:7: replay: the recorded session failed \(exit status 1\)" "$(cat "$T_TMP/err")"
	expect_status "$n: its replay, --json: exit 1" 1 "$DSH" --json replay "$S/fail.j"
	expect_eq "$n: its replay, JSON" "false failed 1 4" \
		"$(head -n 1 "$T_TMP/out" | jq -r '"\(.ok) \(.result.recorded_verdict) \(.result.recorded_exit_status) \(.result.records)"')"
	expect_eq "$n: its replay, JSON summary" "false 1" "$(tail -n 1 "$T_TMP/out" | jq -r '.summary | "\(.ok) \(.exit_status)"')"
	"$DSH" -b "$b" --journal "$S/exit3.j" -c 'llcm_write from=0 it=1 val=5; exit 3' >/dev/null 2>&1
	expect_eq "$n: exit 3's end record" "# end 2 records; session failed (exit status 3)" "$(tail -n 1 "$S/exit3.j")"
	"$DSH" -b "$b" --journal "$S/ok.j" -c 'llcm_write from=0 it=1 val=5; assert llcm 0 == 5' >/dev/null 2>&1
	expect_eq "$n: a passed session's end record" "# end 4 records; session passed" "$(tail -n 1 "$S/ok.j")"
	expect_status "$n: its replay: exit 0" 0 "$DSH" replay "$S/ok.j"
	expect_eq "$n: its replay: says it passed" "replay: $S/ok.j: 4 records, no divergence; the recorded session passed" "$(cat "$T_TMP/out")"
	expect_status "$n: its replay, --json" 0 "$DSH" --json replay "$S/ok.j"
	expect_eq "$n: its replay, JSON" "true passed null" \
		"$(head -n 1 "$T_TMP/out" | jq -r '"\(.ok) \(.result.recorded_verdict) \(.result.recorded_exit_status)"')"
done
# a journal of an older dsh (no verdict): unknown, said
sed '$s/; session passed$//' "$S/ok.j" >"$S/old.j"
expect_status "an older journal: exit 0" 0 "$DSH" replay "$S/old.j"
expect_match "an older journal: the verdict unknown" "no divergence; the recorded session's verdict is unknown" "$(cat "$T_TMP/out")"
expect_status "an older journal, --json" 0 "$DSH" --json replay "$S/old.j"
expect_eq "an older journal, JSON" "unknown" "$(head -n 1 "$T_TMP/out" | jq -r '.result.recorded_verdict')"
# a divergence names the recorded verdict too
sed 's/data=0500000000000000/data=0700000000000000/' "$S/fail.j" >"$S/div.j"
expect_status "a divergence: exit 1" 1 "$DSH" replay "$S/div.j"
expect_match "a divergence: with the recorded verdict" "first divergence after .*\(the recorded session failed \(exit status 1\)\)$" "$(cat "$T_TMP/err")"
# a bad verdict in the end record is refused
sed '$s/session failed (exit status 1)/session maybe/' "$S/fail.j" >"$S/bad.j"
expect_status "a bad end record verdict: exit 1" 1 "$DSH" replay "$S/bad.j"
expect_match "a bad end record verdict: named" "bad.j:7: replay: bad end record" "$(cat "$T_TMP/err")"

# ---- a journal record's message kept whole: tests/unit/test_journal_format.c ----------------------

# ---- --json and a backend that cannot be opened ------------------------------------------------------
for spec in "remote:unix:$S/none.sock" "devmem:0x0,path=$S/nomem" "remote:unix:$S/none.sock,token=sekrit"; do
	expect_status "--json, $spec: exit 3" 3 "$DSH" --json -b "$spec" -c 'info'
	expect_eq "--json, $spec: two objects" "2" "$(wc -l <"$T_TMP/out")"
	expect_eq "--json, $spec: the failed object" "backend false null" \
		"$(head -n 1 "$T_TMP/out" | jq -r '"\(.cmd) \(.ok) \(.node)"')"
	expect_match "--json, $spec: its message is the one on stderr" "^dsh: $(head -n 1 "$T_TMP/out" | jq -r '.error' | sed 's/[][\.*^$()+?{}|]/\\&/g')$" "$(cat "$T_TMP/err")"
	expect_eq "--json, $spec: summary" "false 3" "$(tail -n 1 "$T_TMP/out" | jq -r '.summary | "\(.ok) \(.exit_status)"')"
	case $(cat "$T_TMP/out") in *sekrit*) fail "--json, $spec: the token written" ;; *) pass ;; esac
done
# the other failures before the first command: the journal, the sync set-up
for c in "--journal:--journal $S/nodir/j" "sync:"; do
	what=${c%%:*} opt=${c#*:}
	if [ "$what" = sync ]; then env=(env DSH_RANKMAP=1:0,1:0 DSH_RANK=0 DSH_SIZE=2); else env=(env); fi
	# shellcheck disable=SC2086
	expect_status "--json, $what fails: exit 2" 2 "${env[@]}" "$DSH" --json $opt -c 'info'
	expect_eq "--json, $what fails: two objects" "2" "$(wc -l <"$T_TMP/out")"
	expect_eq "--json, $what fails: the failed object" "$what false" \
		"$(head -n 1 "$T_TMP/out" | jq -r '"\(.cmd) \(.ok)"')"
	expect_match "--json, $what fails: its message is the one on stderr" "^dsh: $(head -n 1 "$T_TMP/out" | jq -r '.error' | sed 's/[][\.*^$()+?{}|]/\\&/g')$" "$(cat "$T_TMP/err")"
	expect_eq "--json, $what fails: summary" "false 2" "$(tail -n 1 "$T_TMP/out" | jq -r '.summary | "\(.ok) \(.exit_status)"')"
done
expect_status "text, a backend that cannot be opened: exit 3" 3 "$DSH" -b "remote:unix:$S/none.sock" -c 'info'
expect_eq "text: nothing on stdout" "" "$(cat "$T_TMP/out")"
finish
