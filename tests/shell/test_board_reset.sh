#!/usr/bin/env bash
# Controller Reset (D-RESET-SEEN): reported only when its effect is seen --
# the counters it clears read 0 -- else a failure naming the counter
# (an all-ones stand-in, plain memory whose counter keeps its value), in
# process and through dnetd; and whichever command made it (reg ... confirm,
# sreg_write, reg ... =, poke), the shadows of the User Registers it cleared
# are forgotten, so an assert on one never passes on the cleared value.
. "$(dirname "$0")/lib.sh"
MEM="$T_TMP/board.mem"
ONES="$T_TMP/ones.mem"
truncate -s $((0x51000)) "$MEM"
head -c $((0x51000)) /dev/zero | tr '\0' '\377' >"$ONES"
# Primitive Counter of WID 0 (User Register 0x300 of WID 0 at 0x40000) = 5:
# plain memory keeps it across a "reset".
printf '\x05' | dd of="$MEM" bs=1 seek=$((0x40300)) conv=notrunc status=none
start_dnetd "$T_TMP/sim.sock" --sim
start_dnetd "$T_TMP/mem.sock" -b "devmem:0x0@$MEM,privileged"
start_dnetd "$T_TMP/ones.sock" -b "devmem:0x0@$ONES,privileged"

RESETS=('reg ctl_reset confirm' 'sreg_write ctl_reset' 'reg ctl_reset = 1' 'poke sreg 0xa00 1')
for b in sim "remote:unix:$T_TMP/sim.sock"; do
	n=${b%%:*}
	for r in "${RESETS[@]}"; do
		# A reset that acted: reported, exit 0, the counters read 0 after it.
		expect_status "$n: '$r' after traffic" 0 "$DSH" -b "$b" -c "prim VS size=8 src=0 dst=0 wait; $r; assert prim_counter == 0; assert pkt_counter == 0"
		# The cleared User Registers' shadows are gone (both WIDs) ...
		expect_status "$n: '$r' forgets cmd_ex_flag" 1 "$DSH" -b "$b" -c "ureg_write cmd_ex_flag 1; $r; assert cmd_ex_flag == 1"
		expect_match "$n: '$r': no shadow" "\[reg-wo\] 0x40c00 is cmd_ex_flag \(ureg 0\+0xc00\), which is write-only: it is not read; dsh has not written it on node 1 \(no shadow\)" "$(cat "$T_TMP/err")"
		expect_status "$n: '$r' forgets WID 1's status_area_size" 1 "$DSH" -b "$b" -c "set wid 1; ureg_write status_area_size 2; set wid 0; $r; set wid 1; assert status_area_size == 2"
		# ... the System Register's configuration, which the device keeps, stays.
		expect_status "$n: '$r' keeps pgid0's shadow" 0 "$DSH" -b "$b" -c "sreg_write pgid0 7; $r; assert pgid0 == 7"
	done
	# Through the JSON layer: the reset's object is ok, the assert's a failure.
	"$DSH" -b "$b" --json -c 'ureg_write cmd_ex_flag 1; reg ctl_reset confirm; assert cmd_ex_flag == 1' >"$T_TMP/j" 2>/dev/null
	expect_eq "$n: JSON: exit" 1 $?
	expect_eq "$n: JSON: the reset ok, the assert not" "true false" \
		"$(jq -rs '[.[] | select(.cmd == "reg" or .cmd == "assert") | .ok] | map(tostring) | join(" ")' "$T_TMP/j")"
done

# A reset that did nothing fails, naming what did not change.
for b in "devmem:0x0@$MEM,privileged" "remote:unix:$T_TMP/mem.sock"; do
	n=${b%%:*}
	for r in "${RESETS[@]}"; do
		expect_status "$n plain memory: '$r' fails" 1 "$DSH" -b "$b" -c "$r"
		expect_match "$n plain memory: '$r': the counter named" "Controller Reset of node 1 was not seen: prim_counter of WID 0 reads 0x0000000000000005 after it" "$(cat "$T_TMP/err")"
		expect_eq "$n plain memory: '$r': no claim" "" "$(grep 'was reset' "$T_TMP/out")"
	done
done
for b in "devmem:0x0@$ONES,privileged" "remote:unix:$T_TMP/ones.sock"; do
	n=${b%%:*}
	expect_status "$n all ones: confirm fails" 1 "$DSH" -b "$b" -c 'reg ctl_reset confirm'
	# the presence check refuses it before the acting read (D-PRESENCE-ECHO)
	expect_match "$n all ones: named" "no DIMMnet-2 answers at .*ones.mem: Controller Status .*all ones" "$(cat "$T_TMP/err")"
	expect_eq "$n all ones: no claim" "" "$(grep 'was reset' "$T_TMP/out")"
	"$DSH" -b "$b" --json -c 'reg ctl_reset confirm' >"$T_TMP/j" 2>/dev/null
	expect_eq "$n all ones: JSON exit" 1 $?
	expect_eq "$n all ones: JSON failed object" "false" "$(jq -rs '[.[] | select(.cmd == "reg")][0].ok' "$T_TMP/j")"
	expect_eq "$n all ones: JSON summary" "1" "$(jq -rs 'last.summary.failed_commands' "$T_TMP/j")"
done
finish
