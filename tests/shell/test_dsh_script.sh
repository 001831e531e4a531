#!/usr/bin/env bash
# Scripts: variables, repeat, source, assert/expect, set -e, wait, echo,
# summary line, exit status.
. "$(dirname "$0")/lib.sh"
cat >"$T_TMP/lib.dsh" <<'S'
# a sourced helper
set pattern 0x5a5a0000
S
cat >"$T_TMP/main.dsh" <<'S'
source LIB
set n 4
repeat $n i
  llcm_write from=0 it=$n val=$pattern inc=0   # comment after a command
end
assert llcm 0 == 0x5a5a00005a5a0000
repeat 2
  repeat 3 j
    echo "j=$j"
  end
end
reg ctl_status.status_empty; assert last == 1
assert ctl_status & 0x2 == 2
assert ctl_status.sdimm_init_done != 0
assert prim_counter < 5
assert prim_counter <= 0
assert pkt_counter < 1
expect llcm 0x100 > 0
ww_write ww=0 from=0 it=64 val=1 inc=1
prim VS size=256 src=0 dst=0x100
wait ctl_status.ww0_done == 1 timeout=1ms
assert sodimm 0x100 == 0x0000000200000001
S
sed -i "s#LIB#$T_TMP/lib.dsh#" "$T_TMP/main.dsh"
out=$("$DSH" -f "$T_TMP/main.dsh" 2>"$T_TMP/err")
rc=$?
expect_eq "script exit (one expect failed)" 1 "$rc"
expect_eq "echo in nested repeat" 6 "$(grep -c '^j=' <<<"$out")"
expect_eq "repeat variable" "j=2" "$(grep '^j=' <<<"$out" | tail -n 1)"
expect_eq "summary" "8 passed, 1 failed" "$(tail -n 1 <<<"$out")"
expect_match "expect message" "main.dsh:[0-9]+: expect: expect failed: llcm 0x100 > 0x0" "$(cat "$T_TMP/err")"
# set -e / -e stop at the first failure; without, the run goes on.
out=$("$DSH" -c 'echo a; assert llcm 0 == 1; echo b' 2>/dev/null)
expect_eq "no -e goes on" "a
b
0 passed, 1 failed" "$out"
out=$("$DSH" -e -c 'echo a; assert llcm 0 == 1; echo b' 2>/dev/null)
expect_eq "-e stops" "a
0 passed, 1 failed" "$out"
out=$("$DSH" -c 'set -e; echo a; llcm_read 55ff; echo b' 2>/dev/null)
expect_eq "set -e stops" "a
0 passed, 0 failed, 1 error" "$out"
out=$("$DSH" -c 'set -e; echo a; expect llcm 0 == 1; echo b' 2>/dev/null)
expect_eq "expect does not stop" "a
b
0 passed, 1 failed" "$out"
expect_status "all pass exit 0" 0 "$DSH" -c 'assert llcm 0 == 0'
expect_status "assert fail exit 1" 1 "$DSH" -c 'assert llcm 0 == 1'
# quoting and ';' inside quotes
out=$("$DSH" -c 'set msg "a; b"; echo "[$msg]"')
expect_eq "quotes" "[a; b]" "$out"
# wait timeout is an error
expect_status "wait timeout" 1 "$DSH" -c 'wait ctl_status.ww3_done == 1 timeout=5us'
expect_match "wait timeout message" "timed out" "$(cat "$T_TMP/err")"
# wait alone and wait all return when idle
expect_status "wait idle" 0 "$DSH" --gap 0 -c 'ww_write ww=0 it=64 val=1; prim VS size=256 src=0 dst=0; wait; assert ctl_status.ww0_done == 1'
# with gap 0 the asynchrony is visible: the VS has not completed at the next command
out=$("$DSH" --gap 0 -c 'prim VS size=256 src=0 dst=0; reg ctl_status.ww0_done' | tail -n 1)
expect_match "gap 0 asynchrony" "ww0_done = 0x0" "$out"
# sleep lets the emulator work
out=$("$DSH" --gap 0 -c 'prim VS size=256 src=0 dst=0; sleep 10us; reg ctl_status.ww0_done' | tail -n 1)
expect_match "sleep" "ww0_done = 0x1" "$out"
# snapshot / diff / watch / reg write
out=$("$DSH" -c 'snapshot a; prim VS size=64 src=0 dst=0; diff a' )
expect_match "diff" "ctl_status .* -> " "$out"
expect_match "diff field" "\.ww0_done" "$out"
out=$("$DSH" -c 'watch ctl_status.status_empty 1us 3')
expect_eq "watch samples" 3 "$(grep -c 'status_empty = 0x1' <<<"$out")"
out=$("$DSH" -c 'reg status_area_size.code = 0x20; reg status_area_size')
expect_match "reg field write" "status_area_size.code = 0x20" "$out"
expect_match "reg shadow" "shadow" "$out"
out=$("$DSH" -c 'reg status_area_size = 0x80' 2>&1)
expect_match "reg value check" "bits outside" "$out"
# help lists every command of the table and each has usage and help CMD works
for c in $("$DSH" -c help | grep -E '^[a-z_]+ +:' | awk '{print $1}'); do
	expect_status "help $c" 0 "$DSH" -c "help $c"
done
finish
