#!/usr/bin/env bash
# No two source files of one name in different folders (issue 33 item 6,
# D-LAYOUT):
# dsh/device.c beside libdnet/src/device.c left a reader, and every message
# that names only the file, to guess which one.  scripts/same-names.py says
# which names repeat; main.c, each program's entry point, is the one
# exception (it must define main()).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$T_SHELL/../.." && pwd)
cd "$ROOT" || exit 1
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	skip "not a git checkout: the tracked files cannot be listed"
else
	expect_status "no two tracked .c/.h files share a name" 0 \
		sh -c "git ls-files '*.c' '*.h' | $PY scripts/same-names.py"
	expect_match "the files counted" "^no two of [0-9]+ source files" "$(cat "$T_TMP/out")"
	# The check finds a repeated name, and a main.c that is no entry point.
	mkdir -p "$T_TMP/a" "$T_TMP/b"
	echo 'static int x;' >"$T_TMP/b/main.c"
	expect_status "a repeated name is found" 1 \
		sh -c "printf '%s\n' a/x.c b/x.c dsh/main.c | $PY scripts/same-names.py"
	expect_match "and named" "^x.c: a/x.c b/x.c" "$(cat "$T_TMP/out")"
	expect_status "a main.c without main() is found" 1 \
		sh -c "printf '%s\n' '$T_TMP/b/main.c' dsh/main.c | $PY scripts/same-names.py"
	expect_match "and named" "main.c that defines no main" "$(cat "$T_TMP/out")"
fi
finish
