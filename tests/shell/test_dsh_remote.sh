#!/usr/bin/env bash
# dsh through dnetd: `dnetd --sim --listen unix:SOCK` and `dsh -b remote:unix:SOCK`.
. "$(dirname "$0")/lib.sh"
if [ ! -x "$DNETD" ]; then
	skip "$DNETD not built: dsh through dnetd not tried"
	finish
	exit
fi
SOCK="$T_TMP/d.sock"
start_dnetd "$SOCK" --sim -N 2
# The node is in each request (D-NODE-HANDLE): `@2 cmd` costs no request of
# its own.  dnetd -vv logs every request it serves ("client #N: TYPE id I"):
# a session of `llcm_read 0 8` and one of `@2 llcm_read 0 8` make as many.
CSOCK="$T_TMP/count.sock"
spawn timeout 120 "$DNETD" --sim -N 2 -vv --listen "unix:$CSOCK" 2>"$T_TMP/count.log"
if wait_for_socket "$CSOCK" 50; then
	timeout 30 "$DSH" -b "remote:unix:$CSOCK" -c 'llcm_read 0 8' >/dev/null
	timeout 30 "$DSH" -b "remote:unix:$CSOCK" -c '@2 llcm_read 0 8' >/dev/null
	sleep 0.2
	reqs() { grep -cE "client #$1: [A-Z_]+ id [0-9]+" "$T_TMP/count.log"; }
	n1=$(reqs 1) n2=$(reqs 2)
	[ "$n1" -ge 2 ] && pass || fail "no requests counted in dnetd -vv's log: $(head -c 300 "$T_TMP/count.log")"
	expect_eq "@2 llcm_read 0 8: as many requests as llcm_read 0 8" "$n1" "$n2"
else
	fail "dnetd -vv did not create $CSOCK"
fi
out=$(timeout 30 "$DSH" -b "remote:unix:$SOCK" -c '@2 llcm_read 0 64')
expect_eq "remote exit" 0 $?
expect_eq "remote dump" "# ADDR     7 6 5 4 3 2 1 0 F E D C B A 9 8
#4215c000: 0000000000000000 0000000000000000
#4215c010: 0000000000000000 0000000000000000
#4215c020: 0000000000000000 0000000000000000
#4215c030: 0000000000000000 0000000000000000" "$out"
S='ww_write ww=0 from=0 it=64 val=0xc0de0000 inc=1
prim VS size=256 src=0 dst=0x800 wait
prim RVS dl=2 ef=1 size=256 src=0x800 dst=0x4000 wait
@2 prim VL size=256 src=0x4000 dst=0 wait
@2 assert pw 0 == 0xc0de0001c0de0000
llcm_write from=0 it=10 val=0xaaaa0000 inc=1
assert llcm 0 == 0xaaaa0001aaaa0000'
out=$(timeout 60 "$DSH" -b "remote:unix:$SOCK" -c "$S" 2>"$T_TMP/err")
expect_eq "remote RVS" "2 passed, 0 failed" "$(tail -n 1 <<<"$out")"
expect_eq "remote stderr" "" "$(cat "$T_TMP/err")"
expect_status "remote unreachable" 3 "$DSH" -b "remote:unix:$T_TMP/none.sock" -c v
# A user client has no SO-DIMM backdoor: dsh reaches the SO-DIMM through
# primitives (VS from a Write Window, VL into a Prefetch Window), and a
# privileged client's backdoor sees the same bytes.
out=$(timeout 30 "$DSH" -b "remote:unix:$SOCK,user" -c 'sodimm write 0x3000 0x1111 0x2222 0x3333; dump sodimm 0x3000 32' 2>&1)
expect_match "user client path says how" "via VL into PW" "$out"
expect_match "user client reads back" "#00003000: 0000000000001111 0000000000002222" "$out"
out=$(timeout 30 "$DSH" -b "remote:unix:$SOCK" -c 'dump sodimm 0x3000 32' 2>&1)
expect_match "backdoor agrees" "via emulator backdoor" "$out"
expect_match "backdoor bytes" "#00003010: 0000000000003333 0000000000000000" "$out"
expect_status "user client: no System Register" 1 timeout 30 "$DSH" -b "remote:unix:$SOCK,user" -c 'sreg_read sma_lid'
expect_match "permission message" "privileged clients only" "$(cat "$T_TMP/err")"
# The confirmed read of Controller Reset goes through dnetd (the daemon's
# library would refuse a plain read of it) and resets that node.
expect_status "reg ctl_reset confirm through dnetd" 0 timeout 30 "$DSH" -b "remote:unix:$SOCK" -c 'reg ctl_reset confirm'
expect_match "says it reset" "the controller of node 1 was reset" "$(cat "$T_TMP/out")"
expect_status "a user client may not" 1 timeout 30 "$DSH" -b "remote:unix:$SOCK,user" -c 'reg ctl_reset confirm'
finish
