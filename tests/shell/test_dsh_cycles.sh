#!/usr/bin/env bash
# No import cycle among dsh/*.c (issue 24): scripts/dsh-cycles.py derives
# the call graph between the files from their object files (nm: what each
# defines, what each uses) and names any cycle; the command table's edges
# to the handlers are the only ones left out.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$T_SHELL/../.." && pwd)
# bin/ goes with build/obj, build-san/bin with build-san/obj
OBJ="$BIN/../obj/dsh"
[ -d "$OBJ" ] || OBJ="$BIN/../build/obj/dsh"
if ! command -v nm >/dev/null; then
	skip "nm (binutils) not installed"
elif [ ! -d "$OBJ" ]; then
	skip "no dsh object files next to $BIN"
else
	expect_status "no cycle among dsh/*.c" 0 "$PY" "$ROOT/scripts/dsh-cycles.py" "$OBJ"
	expect_match "the files counted" "^no cycle among [0-9]+ files" "$(cat "$T_TMP/out")"
	# The checker finds a cycle when there is one: two objects that call each other.
	mkdir -p "$T_TMP/cyc"
	printf 'void b(void);\nvoid a(void);\nvoid a(void) { b(); }\n' >"$T_TMP/cyc/x.c"
	printf 'void a(void);\nvoid b(void);\nvoid b(void) { a(); }\n' >"$T_TMP/cyc/y.c"
	if (cd "$T_TMP/cyc" && cc -c x.c y.c) 2>/dev/null; then
		expect_status "a cycle is found" 1 "$PY" "$ROOT/scripts/dsh-cycles.py" "$T_TMP/cyc"
		expect_match "and named" "^cycle: x.c y.c" "$(cat "$T_TMP/out")"
	else
		skip "no C compiler for the planted cycle"
	fi
fi
finish
