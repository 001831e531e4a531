#!/usr/bin/env bash
# On a board (stand-ins, no VM): a running sleep or wait is stopped by
# --max-time, SIGTERM, SIGINT and SIGHUP within a poll interval on devmem,
# on pci (a fake sysfs tree) and through a dnetd serving devmem -- libdnet's
# blocking calls ask the caller's stop hook (dnet_set_stop, libdnet(3)).
. "$(dirname "$0")/lib.sh"
MEM="$T_TMP/board.mem"
truncate -s $((0x51000)) "$MEM"
# A pci device whose BAR0 (512 KB) is a regular file, memory decoding on.
SYS="$T_TMP/sys"
D="$SYS/devices/0000:03:00.0"
mkdir -p "$D"
echo 0x1234 >"$D/vendor"; echo 0x5678 >"$D/device"; echo 0x058000 >"$D/class"; echo 0 >"$D/irq"
z16='\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
printf "\x34\x12\x78\x56\x02\x00\x00\x00\x00\x00\x80\x05\x00\x00\x00\x00\x00\x00\x00\xf0$z16$z16$z16" >"$D/config"
{ echo "0x00000000f0000000 0x00000000f007ffff 0x0000000000040200"
  for i in 1 2 3 4 5 6; do echo "0x0000000000000000 0x0000000000000000 0x0000000000000000"; done; } >"$D/resource"
truncate -s $((0x80000)) "$D/resource0"
PCI="pci:0000:03:00.0,sysfs=$SYS"
expect_status "pci stand-in opens" 0 "$DSH" -b "$PCI" -c 'reg ctl_status'

ms() { echo $(( $(date +%s%N) / 1000000 )); }
# --max-time 1s: the command stops at 1 s (< 3 s), the run fails as max-time.  The
# run's clock starts before the backend opens, the wait's after: it says 0.9x s
# or a little over 1 s.
maxtime() { # NAME BACKEND COMMAND [MESSAGE]
	local t0 el
	t0=$(ms)
	"$BIN/dsh" -b "$2" --max-time 1s -c "$3" >"$T_TMP/out" 2>"$T_TMP/err"
	local rc=$? el=$(( $(ms) - t0 ))
	expect_eq "$1: --max-time exit" 1 "$rc"
	if [ "$el" -lt 3000 ]; then pass; else fail "$1: --max-time 1s took $el ms"; fi
	expect_match "$1: failed as max-time" "reached its --max-time of 1s" "$(cat "$T_TMP/err")"
	expect_match "$1: the command says it was interrupted" "${4:-interrupted after (0\.9|1\.)[0-9]+ s}" "$(cat "$T_TMP/err")"
}
# SIG after 1 s: dsh ends within about a poll interval (here: 1.5 s).
signalled() { # NAME BACKEND COMMAND SIG [MESSAGE]
	local p t0 el
	"$BIN/dsh" -b "$2" -c "$3" >"$T_TMP/out" 2>"$T_TMP/err" &
	p=$!
	T_PIDS+=("$p")
	sleep 1
	t0=$(ms)
	kill -"$4" "$p"
	wait "$p" 2>/dev/null
	local rc=$? el=$(( $(ms) - t0 ))
	expect_eq "$1: $4 ends dsh by the signal" $((128 + $(kill -l "$4"))) "$rc"
	if [ "$el" -lt 1500 ]; then pass; else fail "$1: $4 took $el ms to end dsh"; fi
	expect_match "$1: $4: interrupted" "${5:-interrupted after}" "$(cat "$T_TMP/err")"
}
WAIT='wait ctl_status.sdimm_init_done == 1 timeout=6s'
for b in devmem pci; do
	[ $b = devmem ] && spec="devmem:0x0@$MEM" || spec=$PCI
	maxtime "$b sleep" "$spec" 'sleep 6s'
	maxtime "$b wait" "$spec" "$WAIT"
	signalled "$b wait" "$spec" "$WAIT" TERM
	signalled "$b sleep" "$spec" 'sleep 6s' INT
	signalled "$b sleep" "$spec" 'sleep 6s' HUP
done
# A barrier's polls stop too (the sync object asks the device's hook).
export DSH_RANK=0 DSH_SIZE=2
maxtime "devmem barrier" "devmem:0x0@$MEM,privileged" 'barrier timeout=6s' "barrier 1: interrupted while waiting"
unset DSH_RANK DSH_SIZE

# Through dnetd serving the stand-in: dnetd waits, the client's wait for
# its reply stops (the connection is given up).
start_dnetd "$T_TMP/d.sock" -b "devmem:0x0@$MEM"
R="remote:unix:$T_TMP/d.sock"
GAVE_UP="interrupted while waiting for a reply \(the connection is given up\)"
maxtime "dnetd(devmem) sleep" "$R" 'sleep 6s' "$GAVE_UP"
maxtime "dnetd(devmem) wait" "$R" "$WAIT" "$GAVE_UP"
signalled "dnetd(devmem) wait" "$R" "$WAIT" TERM "$GAVE_UP"
# ... and dnetd still serves the next client.
expect_status "dnetd still serves" 0 "$DSH" -b "remote:unix:$T_TMP/d.sock" -c 'reg ctl_status'
finish
