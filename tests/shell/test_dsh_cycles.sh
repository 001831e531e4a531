#!/usr/bin/env bash
# No import cycle among the files of any program (issue 24; issue 33 item 4;
# D-LAYOUT):
# dsh (dsh/, dsh/bench/), dsh-run (dsh/run/) and dnetd (D-DNETD-ROOM: the
# server's own folder, no cycle), and the wire codec both sides link.
# scripts/dsh-cycles.py
# derives the call graph between the files from their object files (nm:
# what each defines, what each uses) and names any cycle; the command
# table's edges to the handlers are the only ones left out.  Each program's
# objects are those it links, as the Makefile lists them (make print-objs),
# so a file moved to another folder is still checked.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$T_SHELL/../.." && pwd)
# bin/ goes with build/, build-san/bin with build-san/
BDIR=$(cd "$BIN/.." && pwd)
[ -d "$BDIR/obj" ] || BDIR=$ROOT/build
objs() { make -C "$ROOT" -s --no-print-directory print-objs PROG="$1" BUILD="$BDIR"; }
if ! command -v nm >/dev/null; then
	skip "nm (binutils) not installed"
elif ! command -v make >/dev/null; then
	skip "make not installed: the programs' objects cannot be listed"
elif [ ! -d "$BDIR/obj" ]; then
	skip "no object files next to $BIN"
else
	for p in dsh dsh-run dnetd; do
		list=$(objs "$p")
		expect_match "$p: the Makefile lists its objects" '\.o$' "$list"
		# shellcheck disable=SC2086 # one object a word
		expect_status "no cycle among $p's files" 0 "$PY" "$ROOT/scripts/dsh-cycles.py" $list
		expect_match "$p: the files counted" "^no cycle among [0-9]+ files" "$(cat "$T_TMP/out")"
	done
	# The wire codec (backends/remote/wire/, libdnetwire.a) that dnetd and
	# the remote backend both link is a room of its own: no cycle in it.
	wire=$(ls "$BDIR"/obj/backends/remote/wire/*.o 2>/dev/null | while read -r o; do
		n=$(basename "$o" .o); [ -f "$ROOT/backends/remote/wire/$n.c" ] && echo "$o"; done)
	expect_match "the wire codec's objects are there" '\.o' "$wire"
	# shellcheck disable=SC2086 # one object a word
	expect_status "no cycle among the wire codec's files" 0 "$PY" "$ROOT/scripts/dsh-cycles.py" $wire
	# The dsh objects cover dsh/bench/: the benchmark is checked with the shell.
	expect_match "dsh's objects include dsh/bench/" '/obj/dsh/bench/bench_[a-z0-9]*\.o' "$(objs dsh)"
	# dsh/bench/ is a library the bench command calls (bench.h): it calls
	# nothing of the shell and includes none of its headers.
	# shellcheck disable=SC2046 # one object a word
	expect_eq "dsh/bench/ calls nothing of the shell" "" "$("$PY" - $(objs dsh) <<'PY'
import subprocess, sys
def nm(f, o):
    return {l.split()[-1] for l in subprocess.run(["nm", o, f], capture_output=True, text=True).stdout.splitlines()
            if l.split() and (o == "--undefined-only" or l.split()[1].isupper())}
bench = [f for f in sys.argv[1:] if "/obj/dsh/bench/" in f]
shell = {s: f for f in sys.argv[1:] if "/obj/dsh/" in f and f not in bench for s in nm(f, "--defined-only")}
for b in bench:
    for s in sorted(nm(b, "--undefined-only") & shell.keys()):
        print(f"{b.split('/obj/')[1]} -> {shell[s].split('/obj/')[1]}: {s}")
PY
)"
	expect_eq "dsh/bench/ includes no header of the shell" "" \
		"$(grep -En '#include "(\.\./|dsh\.h|journal\.h|board\.h|sigtime\.h)' "$ROOT"/dsh/bench/*.[ch])"
	# The checker finds a cycle when there is one: two objects that call
	# each other, given as a folder and as a list of files.
	mkdir -p "$T_TMP/cyc/obj/p"
	printf 'void b(void);\nvoid a(void);\nvoid a(void) { b(); }\n' >"$T_TMP/cyc/x.c"
	printf 'void a(void);\nvoid b(void);\nvoid b(void) { a(); }\n' >"$T_TMP/cyc/y.c"
	if (cd "$T_TMP/cyc" && cc -c x.c y.c && cp x.o y.o obj/p/) 2>/dev/null; then
		expect_status "a cycle is found" 1 "$PY" "$ROOT/scripts/dsh-cycles.py" "$T_TMP/cyc"
		expect_match "and named" "^cycle: x.c y.c" "$(cat "$T_TMP/out")"
		expect_status "a cycle among listed files is found" 1 "$PY" "$ROOT/scripts/dsh-cycles.py" \
			"$T_TMP/cyc/obj/p/x.o" "$T_TMP/cyc/obj/p/y.o"
		expect_match "and named by path" "^cycle: p/x.c p/y.c" "$(cat "$T_TMP/out")"
		expect_status "a listed object that is not there is an error" 2 "$PY" \
			"$ROOT/scripts/dsh-cycles.py" "$T_TMP/cyc/obj/p/x.o" "$T_TMP/cyc/none.o"
		expect_match "named" "no such object file: .*none.o" "$(cat "$T_TMP/err")"
	else
		skip "no C compiler for the planted cycle"
	fi
fi
finish
