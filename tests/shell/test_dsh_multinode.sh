#!/usr/bin/env bash
# Several nodes from one shell: RVS from node 1 to node 2, read back on node 2;
# @K and node K; -N.
. "$(dirname "$0")/lib.sh"
S='ww_write ww=0 from=0 it=64 val=0xc0de0000 inc=1
prim VS size=256 src=0 dst=0x800 wait
prim RVS dl=2 ef=1 size=256 src=0x800 dst=0x4000 wait
node 2
prim VL size=256 src=0x4000 dst=0 wait
assert pw 0 == 0xc0de0001c0de0000
assert pw 0xf8 == 0xc0de003fc0de003e
assert sodimm 0x4000 == 0xc0de0001c0de0000
assert pkt_counter == 1
status 0
node 1
assert pkt_counter == 0
assert prim_counter == 0x10000100000'
out=$("$DSH" -c "$S" 2>"$T_TMP/err")
expect_eq "RVS read back exit" 0 $?
expect_eq "RVS asserts" "6 passed, 0 failed" "$(tail -n 1 <<<"$out")"
expect_match "status decode" "RVS +from clid 1 wid 0 size 256 addr 0x4000" "$out"
# RVS into node 2's Prefetch Window with Command1 (rf=1)
out=$("$DSH" -c 'ww_write ww=0 it=16 val=0xab inc=1; prim VS size=64 src=0 dst=0 wait; prim RVS rf=1 dl=2 size=64 src=0 dst=0x200 wait; @2 pw_read 1 16' | tail -n 1)
expect_eq "RVS rf=1 into PW" "#4214c200: 000000ac000000ab 000000ae000000ad" "$out"
# rllcm_write to node 2's LLCM
out=$("$DSH" -c 'rllcm_write 2 0x40 0x1122334455667788; @2 llcm_read 0x40 16' | tail -n 1)
expect_eq "rllcm_write" "#4215c040: 1122334455667788 0000000000000000" "$out"
# node command and -N
expect_eq "node" "node 2 of 4" "$("$DSH" -N 4 -c 'node 2; node')"
expect_status "node out of range" 1 "$DSH" -N 4 -c 'node 5'
expect_eq "@K leaves node" "node 1 of 3" "$("$DSH" -N 3 -c '@3 v; node' | tail -n 1)"
# A packet for a CLID outside the cluster is dropped by the switch: dsh warns
# when it is sent (stderr and JSON), and the primitive's verdict fails it as
# a PGID drop would (at the end of the run here: it was sent without wait).
out=$("$DSH" -N 2 -c 'rllcm_write 3 0x100 5' 2>&1)
expect_eq "unroutable fails" 1 $?
expect_match "warn unroutable text" "warning: CLID 3 is not a node of this 2-node cluster" "$out"
expect_match "unroutable verdict at its line" "dsh: -c:1: rllcm_write: device error flag raised by rllcm_write at -c:1: node 1 unroutable" "$out"
w=$("$DSH" -N 3 --json -c 'rllcm_write 3 0x100 5' 2>/dev/null | jq -r '.result.warnings // "none"')
expect_eq "no warning for an existing node" "none" "$w"
v=$("$DSH" -N 3 -c 'rllcm_write 3 0x100 5; wait all; @3 llcm_read 0x100 16' 2>&1 | tail -n 1)
expect_eq "rllcm_write lands in node 3 LLCM" "#4215c100: 0000000000000005 0000000000000000" "$v"
finish
