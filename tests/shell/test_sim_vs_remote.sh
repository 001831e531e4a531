#!/usr/bin/env bash
# Issue 3's criterion: a script of primitives gives identical results on the
# in-process emulator and on remote + dnetd (same JSON, byte for byte,
# including virtual completion times), for every primitive family.
. "$(dirname "$0")/lib.sh"
SOCK="$T_TMP/d.sock"
cat >"$T_TMP/prims.dsh" <<'DSH'
# every primitive family across three nodes
ww_write ww=0 from=0 it=128 val=0x10000000 inc=3
ww_write ww=1 from=0 it=128 val=0x20000000 inc=5
prim VS size=0x200 src=0 dst=0x1000 wait
prim VSS dt=3 it=16 size=0x20 src=0x200 dst=0x3000 wait
prim VL size=0x100 src=0x1000 dst=0x200 wait
prim VLS dt=2 it=8 size=0x10 src=0x1000 dst=0x400 wait
prim RVS dl=2 ef=1 size=0x200 src=0x1000 dst=0x8000 wait
prim RVS dl=3 ef=1 size=0x180 src=0x1000 dst=0x100 rf=1 wait
prim RVSS dl=2 ef=1 dt=3 it=8 size=0x40 src=0x1000 dst=0x9000 wait
prim RVL dl=2 ef=1 size=0x100 src=0x8000 dst=0x5000 wait
prim RVL dl=2 ef=1 size=0x80 src=0x8000 dst=0x600 rf=1 wait
prim VL size=0x80 src=0x1000 dst=0xffffffff
prim VS size=0x80 src=0xffffffff dst=0x7000 wait
wait
rllcm_write 3 0x100 0x1122334455667788
wait
@2 dump sodimm 0x8000 0x200
@2 dump sodimm 0x9000 0x200
@3 dump pw 0 0x200
@3 llcm_read 0x100 16
@2 status
status
dump sodimm 0x5000 0x100
dump pw 0x600 0x80
dump sodimm 0x7000 0x80
ureg_read prim_counter
@2 ureg_read pkt_counter
@3 reg ctl_status
ureg_read ctl_status
DSH
timeout 60 "$DSH" -N 3 --json -f "$T_TMP/prims.dsh" >"$T_TMP/sim.json" 2>"$T_TMP/sim.err"
expect_eq "sim run exit" 0 $?
spawn timeout 120 "$DNETD" --sim -N 3 --listen "unix:$SOCK"
if ! wait_for_socket "$SOCK" 50; then fail "dnetd did not start"; finish; exit; fi
timeout 60 "$DSH" -b "remote:unix:$SOCK" --json -f "$T_TMP/prims.dsh" >"$T_TMP/remote.json" 2>"$T_TMP/remote.err"
expect_eq "remote run exit" 0 $?
expect_eq "no errors on sim" "" "$(cat "$T_TMP/sim.err")"
expect_eq "no errors on remote" "" "$(cat "$T_TMP/remote.err")"
n=$(wc -l <"$T_TMP/sim.json")
expect_eq "one JSON object per command" 29 "$n"
if cmp -s "$T_TMP/sim.json" "$T_TMP/remote.json"; then pass; else
	fail "sim and remote differ: $(diff "$T_TMP/sim.json" "$T_TMP/remote.json" | head -6)"; fi
# Every command succeeded and the data really moved (not just equal output).
expect_eq "all ok" "true" "$(jq -s 'all(.ok)' "$T_TMP/sim.json")"
# Values computed here: WW#0 holds 32-bit words 0x10000000 + 3i, VS copied
# them to SO-DIMM 0x1000, RVS sent 0x200 bytes to node 2 at 0x8000 and 0x180
# bytes to node 3's PW at 0x100; RVSS scattered 8-byte elements with stride
# 0x40; the copy pair moved 0x80 bytes to 0x7000.
word() { printf '0x%08x%08x' $((0x10000000 + 3 * ($1 * 2 + 1))) $((0x10000000 + 3 * $1 * 2)); }
dumpword() { jq -r "select(.cmd==\"dump\") | .result.words[$2]" "$T_TMP/sim.json" | sed -n "$1p"; }
expect_eq "node 2 RVS word 0" "$(word 0)" "$(dumpword 1 0)"
expect_eq "node 2 RVS word 63" "$(word 63)" "$(dumpword 1 63)"
expect_eq "node 2 RVSS element 1 at stride 0x40" "$(word 1)" "$(dumpword 2 8)"
expect_eq "node 2 RVSS gap" "0x0000000000000000" "$(dumpword 2 9)"
expect_eq "node 3 PW word 0x100/8" "$(word 0)" "$(dumpword 3 32)"
expect_eq "node 3 PW before 0x100 untouched" "0x0000000000000000" "$(dumpword 3 31)"
expect_eq "copy pair word 15" "$(word 15)" "$(dumpword 6 15)"
finish
