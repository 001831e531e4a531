#!/usr/bin/env bash
# Issue 31's verdict classes of dsh (docs/reports.md "dsh's verdict table"),
# each in every layer -- exit status, text summary, JSON summary -- in
# process and through dnetd with posting on and off, and the same script
# with the failure removed passing:
#  1. a pending primitive's verdict is its own: a later primitive's allow=
#     never covers it, and an allowed flag that did not rise for the
#     primitive naming it fails that primitive (D-VERDICT-IDENTITY);
#  2. wait judges a pending primitive only once it has finished, wherever
#     its packets are (D-VERDICT-FINISHED); primitives of several nodes
#     and WIDs pending together, each judged on its own;
#  3. allow= for a primitive that completes only after the host acts:
#     `prim ... allow=` without wait, or `wait allow=` (D-VERDICT-WAIT-ALLOW);
#  4. wait, assert and expect agree over one table of targets, on the
#     emulator and on an all-ones and an all-zeros stand-in (D-COND-ONE).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verdict_layers.sh"

S=$T_TMP/d.sock
start_dnetd "$S" --sim -N 2
ALL="sim dnetd dnetd-off"
# dst=0xffffe00 + 0x400 runs 0x200 bytes past the 256 MB receive area:
# node 2's receive overrun (rc_overrun), caused by this primitive alone.
# No status writes (ef=0): hundreds of runs on the shared daemon would fill
# node 2's status ring and stall its reception.
OVR='prim RVS dl=2 size=0x400 src=0x1000 dst=0xffffe00'
OK='prim RVS dl=2 size=0x400 src=0x1000 dst=0x1000'

# ---- 1. pending verdicts by identity ----
verdict_case "a later allow= does not cover an earlier primitive" "$ALL" \
	"$OVR; $OK allow=rc_overrun wait" "$OK; $OVR allow=rc_overrun wait"
verdict_case "two pending, the allow= on the clean one" "$ALL" \
	"$OVR; $OK allow=rc_overrun; wait" "$OVR allow=rc_overrun; $OK; wait"
verdict_case "an earlier WID's overrun, allow= on the other WID" "sim dnetd" \
	"$OVR; set wid 1; $OK allow=rc_overrun wait" "$OVR allow=rc_overrun; set wid 1; $OK wait"
# Each fails at its own line, with its own reason.
printf '%s\n' "$OVR" "$OK allow=rc_overrun wait" >"$T_TMP/id.dsh"
for b in "" "remote:unix:$S"; do
	args=()
	[ -n "$b" ] && args=(-b "$b")
	w=${b:+ (dnetd)}
	"$DSH" "${args[@]}" -f "$T_TMP/id.dsh" >"$T_TMP/out" 2>"$T_TMP/err"
	expect_eq "identity$w: exit" 1 $?
	expect_match "identity$w: the first at its own line" "id.dsh:1: prim: device error flag raised by prim at .*id.dsh:1: node 2 rc_overrun" "$(cat "$T_TMP/err")"
	expect_match "identity$w: the second's allow judged alone" "id.dsh:2: prim: allowed error flag did not rise: rc_overrun" "$(cat "$T_TMP/err")"
	if grep -q "allowed error flags rose" "$T_TMP/out"; then fail "identity$w: the second claims its flag rose"; else pass; fi
	expect_eq "identity$w: summary" "0 passed, 0 failed, 2 errors" "$(tail -n 1 "$T_TMP/out")"
done

# ---- 2. wait judges a primitive once it has finished ----
# From node 2 to node 1 (the current node, idle at once): 32 KB to the end
# of node 1's receive area, 16 KB past it.
FAR='@2 prim RVS dl=1 size=0x8000 dst=0xfffc000'
FAR_OK='@2 prim RVS dl=1 size=0x8000 dst=0x1000'
verdict_case "wait with the primitive in flight on another node" "$ALL" "$FAR; wait" "$FAR_OK; wait"
verdict_case "wait, then wait all" "$ALL" "$FAR; wait; wait all" "$FAR_OK; wait; wait all"
printf '%s\n' "$FAR" "wait" "echo after-wait" "wait all" "echo after-all" >"$T_TMP/far.dsh"
for b in "" "remote:unix:$S"; do
	args=()
	[ -n "$b" ] && args=(-b "$b")
	w=${b:+ (dnetd)}
	"$DSH" "${args[@]}" -f "$T_TMP/far.dsh" >"$T_TMP/out" 2>"$T_TMP/err"
	expect_eq "in flight$w: exit" 1 $?
	expect_match "in flight$w: wait all judges it" "far.dsh:4: wait: device error flag raised by prim at .*far.dsh:1: node 1 rc_overrun" "$(cat "$T_TMP/err")"
	if grep -q "far.dsh:2" "$T_TMP/err"; then fail "in flight$w: the wait at line 2 judged it"; else pass; fi
	# at the end of the run, when no wait all comes
	printf '%s\n' "$FAR" "wait" >"$T_TMP/far2.dsh"
	"$DSH" "${args[@]}" -f "$T_TMP/far2.dsh" >"$T_TMP/out" 2>"$T_TMP/err"
	expect_eq "in flight, end of run$w: exit" 1 $?
	expect_match "in flight, end of run$w: its own line" "far2.dsh:1: prim: device error flag raised by prim at .*far2.dsh:1: node 1 rc_overrun" "$(cat "$T_TMP/err")"
done
# Pending together on different nodes and WIDs: each judged on its own --
# only the overrunning one fails, named by its line; its allow= covers it.
mix() { # ALLOW_ON_LINE_3 ALLOW_ON_LINE_1
	printf '%s\n' "prim RVS dl=2 size=0x200 src=0x1000 dst=0x1000 $2" "set wid 1" "$OVR $1" "set wid 0" \
		"@2 prim RVS dl=1 size=0x200 src=0x1000 dst=0x2000" "@2 prim RVS dl=1 dw=1 size=0x200 src=0x1000 dst=0x2000" \
		"wait all"
}
mix "" "" >"$T_TMP/mix.dsh"
mix "allow=rc_overrun" "" >"$T_TMP/mix_ok.dsh"
mix "" "allow=rc_overrun" >"$T_TMP/mix_wrong.dsh"
for m in $ALL; do
	run_layers "nodes and WIDs pending together" "$m" fail "source $T_TMP/mix.dsh"
	run_layers "nodes and WIDs pending together (allowed)" "$m" pass "source $T_TMP/mix_ok.dsh"
	run_layers "nodes and WIDs: allow= on the wrong primitive" "$m" fail "source $T_TMP/mix_wrong.dsh"
done
for b in "" "remote:unix:$S"; do
	args=()
	[ -n "$b" ] && args=(-b "$b")
	w=${b:+ (dnetd)}
	"$DSH" "${args[@]}" -f "$T_TMP/mix.dsh" >/dev/null 2>"$T_TMP/err"
	expect_eq "mix$w: one failure, the WID 1 primitive's" "mix.dsh:7: wait: device error flag raised by prim at $T_TMP/mix.dsh:3: node 2 rc_overrun (Receive Controller: data went past the receive area)" \
		"$(grep -o 'mix.dsh:7: .*' "$T_TMP/err")"
	"$DSH" "${args[@]}" -f "$T_TMP/mix_wrong.dsh" >/dev/null 2>"$T_TMP/err"
	expect_match "mix$w: the wrong allow= names line 1" "allowed error flag did not rise by prim at $T_TMP/mix_wrong.dsh:1: rc_overrun" "$(cat "$T_TMP/err")"
	expect_match "mix$w: and line 3 still fails" "raised by prim at $T_TMP/mix_wrong.dsh:3: node 2 rc_overrun" "$(cat "$T_TMP/err")"
done

# ---- 3. allow= for a primitive that completes only after the host acts ----
# Node 2's status ring of code 1 (4 entries, one kept free) is full after 3
# receptions; the 4th waits until the host moves Head.  Head 0x10 frees one
# entry: the 4th's status fills the ring again (status_full, its own);
# Head 0x30 frees all: nothing rises.  Each script starts with node 2's
# Controller Reset: the ring as after power-on, also on the shared daemon.
R='prim RVS dl=2 ef=1 size=8 src=0 dst=0'
FILL="@2 sreg_write ctl_reset 1; @2 ureg_write status_area_size 1; $R wait; $R wait; $R wait allow=status_full"
verdict_case "prim allow= without wait, the host frees the ring" "$ALL" \
	"$FILL; $R allow=status_full; @2 ureg_write status_head 0x30; wait all" \
	"$FILL; $R allow=status_full; @2 ureg_write status_head 0x10; wait all"
verdict_case "wait allow=, the host frees the ring" "$ALL" \
	"$FILL; $R; @2 ureg_write status_head 0x30; wait allow=status_full" \
	"$FILL; $R; @2 ureg_write status_head 0x10; wait allow=status_full"
verdict_case "wait allow= covers the one pending primitive only" "sim dnetd" \
	"$OVR; $OK; wait allow=rc_overrun" "$OK; wait; $OVR; wait allow=rc_overrun"
expect_status "wait allow= with nothing pending" 1 "$DSH" -c 'wait allow=rc_overrun'
expect_match "wait allow= with nothing pending: said" "no primitive is pending" "$(cat "$T_TMP/err")"
expect_status "wait allow= with two pending" 1 "$DSH" -c "$OVR; $OVR; wait allow=rc_overrun"
expect_match "wait allow= with two pending: said" "more than one primitive is pending" "$(cat "$T_TMP/err")"
expect_status "wait allow= and a condition" 1 "$DSH" -c 'wait ctl_status.sdimm_init_done == 1 allow=rc_overrun'
expect_status "wait allow= names a flag" 1 "$DSH" -c "$OVR; wait allow=nosuchflag"
# A primitive stalled until the host acts: wait allow= gives up after its
# timeout, the primitive stays pending (and fails at the end, unknown).
expect_status "wait allow= on a stalled primitive" 1 "$DSH" --timeout 20us -c "$FILL; $R; wait allow=status_full timeout=10us"
expect_match "wait allow= on a stalled primitive: said" "did not finish within" "$(cat "$T_TMP/err")"

# ---- 4. one condition path: wait, assert and expect agree ----
ONES=$T_TMP/ones.mem
ZEROS=$T_TMP/zeros.mem
head -c $((0x51000)) /dev/zero | tr '\0' '\377' >"$ONES"
head -c $((0x51000)) /dev/zero >"$ZEROS"
O=$T_TMP/o.sock
Z=$T_TMP/z.sock
start_dnetd "$O" -b "devmem:0x0@$ONES"
start_dnetd "$Z" -b "devmem:0x0@$ZEROS"
# a daemon of its own: the shared one's rings hold the statuses of the
# cases above (status_empty 0)
S=$T_TMP/t.sock
start_dnetd "$S" --sim -N 2
# What each target reads, worked out here: the emulator warm after reset
# (Controller Status 0x12 = bit 1 sdimm_init_done | bit 4, nothing sent,
# the LLCM 0); all ones: every register has reserved bits set but the
# Packet Counter (64 bits), so a read of one is not the register's and
# fails all three, unless the condition is about those bits; all zeros:
# every word 0.  Columns: sim ones zeros (p: holds, f: fails).
TABLE='ctl_status.sdimm_init_done == 1|p f f
ctl_status.sdimm_init_done == 0|f f p
ctl_status == 0x12|p f f
ctl_status.rc_state == 0|p f p
ctl_status & 0xfffffffffff00000 == 0|p f p
ctl_status & 0xfffffffffff00000 != 0|f p f
prim_counter < 0x10|p f p
pkt_counter == 0|p f p
pkt_counter != 0|f p f
llcm 0 == 0|p f p
llcm 0x7ff8 != 0|f p f'
col() { # BACKEND-MODE -> the table's column (1 sim, 2 ones, 3 zeros)
	case $1 in sim | dnetd) echo 1 ;; "b=devmem:0x0@$ONES" | "b=remote:unix:$O") echo 2 ;; *) echo 3 ;; esac
}
while IFS='|' read -r cond want; do
	modes=(sim "b=devmem:0x0@$ONES" "b=devmem:0x0@$ZEROS")
	# through dnetd (the read and the wait made in the server): the
	# bring-up rows (kept few: the suite stays fast)
	[[ $cond == ctl_status.sdimm_init_done* ]] && modes+=(dnetd "b=remote:unix:$O" "b=remote:unix:$Z")
	for m in "${modes[@]}"; do
		k=$(col "$m")
		w=$(cut -d' ' -f"$k" <<<"$want")
		[ "$w" = p ] && w=pass || w=fail
		for c in assert expect wait; do
			t=""
			[ $c = wait ] && t=" timeout=100us"
			run_layers "$c $cond [$m]" "$m" "$w" "$c $cond$t"
		done
	done
done <<<"$TABLE"
# The bring-up wait's message is assert's.
"$DSH" -b "devmem:0x0@$ONES" -c 'wait ctl_status.sdimm_init_done == 1' >/dev/null 2>"$T_TMP/err"
expect_match "all ones: the wait names the reserved bits" "wait: 'ctl_status' read 0xffffffffffffffff: its reserved bits 63:20 are set.*all ones" "$(cat "$T_TMP/err")"

finish
