#!/usr/bin/env bash
# Golden transcripts: tests/golden/NAME.dsh run with `dsh -x -f` must print
# exactly tests/golden/NAME.out (the thesis's Appendix C sessions and more).
. "$(dirname "$0")/lib.sh"
G="$(cd "$(dirname "$0")/../golden" && pwd)"
for f in "$G"/*.dsh; do
	n=$(basename "$f" .dsh)
	(cd "$G" && "$DSH" -x -f "$n.dsh") >"$T_TMP/$n.out" 2>"$T_TMP/$n.err"
	rc=$?
	expect_eq "$n exit" 0 "$rc"
	if diff -u "$G/$n.out" "$T_TMP/$n.out" >"$T_TMP/$n.diff"; then pass; else
		fail "$n: output differs from golden:"; cat "$T_TMP/$n.diff" >&2; fi
	expect_eq "$n stderr" "" "$(cat "$T_TMP/$n.err")"
done
# The same session typed on a pipe (non-terminal stdin) gives the same output.
out=$("$DSH" -x <"$G/thesis_prim.dsh")
expect_eq "stdin script" "$(cat "$G/thesis_prim.out")" "$out"
# A FILE.dsh argument works like -f.
out=$(cd "$G" && "$DSH" -x thesis_counter.dsh)
expect_eq "FILE.dsh argument" "$(cat "$G/thesis_counter.out")" "$out"
# Positional NPROCS PID WID (Fig. C.2) are accepted.
out=$("$DSH" 2 1 0 -c 'v')
expect_eq "positional args" "DIMMnet-2 Shell version 2.1a released by Yomi" "$out"
# The Fig. C.6 first row, stated once more on its own.
out=$("$DSH" -c 'llcm_write from=0 it=10 val=0xaaaa0000 inc=1; llcm_read 0 64' | sed -n 2p)
expect_eq "Fig. C.6 row" "#4215c000: aaaa0001aaaa0000 aaaa0003aaaa0002" "$out"
# set base moves the printed addresses; WID 1 uses its own sub-areas.
out=$("$DSH" -c 'set base 0; llcm_read 0 16' | sed -n 2p)
expect_eq "set base" "#00020000: 0000000000000000 0000000000000000" "$out"
out=$("$DSH" 2 1 1 -c 'llcm_read 0 16' | sed -n 2p)
expect_eq "WID 1 LLCM" "#42164000: 0000000000000000 0000000000000000" "$out"
finish
