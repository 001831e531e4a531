#!/bin/busybox sh
# /init of the VM test's guest (tests/shell/test_vm.sh): Debian's kernel with
# memmap=1M$0x10000000 (Reserved) and memmap=1M#0x11000000 (ACPI), an
# ivshmem-plain device at 00:04.0 whose BAR2 is a host file standing in for a
# board (Controller Status reads 0x12), edu at 00:05.0 (nothing answers like
# a board: unknown registers read all ones) and pci-testdev at 00:06.0 (a
# 4 KB memory BAR0, an I/O BAR1).  Prints "VMCHECK PASS|FAIL NAME[: why]"
# per check, the journal of a session between "VMJOURNAL BEGIN/END", then
# "VMCHECK END" and powers off.
/bin/busybox mkdir -p /proc /sys /dev /tmp /usr/bin /usr/sbin /sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
export PATH=/usr/bin:/usr/sbin:/bin:/sbin HOME=/tmp # pciutils before busybox applets
exec </dev/null 2>&1
cd /tmp || exit 1

RES=0x10000000 # the Reserved megabyte
ACPI=0x11000000
IVS=0000:00:04.0
EDU=0000:00:05.0
TDEV=0000:00:06.0
IVSBAR=$(printf "0x%x" "$(sed -n 3p /sys/bus/pci/devices/$IVS/resource | cut -d" " -f1)")
# A window of the PCI bus that no device claims (the bus's first 16 MB).
PCIWIN=$(awk -F'[- ]' '/^[0-9a-f]+-[0-9a-f]+ : PCI Bus 0000:00$/ && length($1) == 8 && $1 != "000a0000" {print "0x" $1; exit}' /proc/iomem)

ok() { echo "VMCHECK PASS $1"; }
ko() { echo "VMCHECK FAIL $1: $2"; }
# run NAME WANT-EXIT CMD...: the command's output in /tmp/o, its status checked
run() {
	n=$1 want=$2
	shift 2
	"$@" >/tmp/o 2>&1
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$n"; else ko "$n" "exit $rc, expected $want: $(head -c 600 /tmp/o | tr '\n' ' ')"; fi
}
# has NAME REGEX: /tmp/o (the last run's output) matches
has() {
	if grep -Eq -- "$2" /tmp/o; then ok "$1"; else ko "$1" "no /$2/ in: $(head -c 600 /tmp/o | tr '\n' ' ')"; fi
}
hasnt() {
	if grep -Eq -- "$2" /tmp/o; then ko "$1" "/$2/ in: $(head -c 600 /tmp/o | tr '\n' ' ')"; else ok "$1"; fi
}

# ---- devmem: System RAM refused with every option and every path ----
for opt in "" ,known-machine ,privileged ",privileged,known-machine"; do
	run "RAM refused ($opt)" 3 dsh -b "devmem:0x1000000$opt" -c 'reg ctl_status'
	has "RAM refused ($opt): named" "overlaps System RAM"
done
ln -s /dev/mem /tmp/memlink
run "RAM through a symlink" 3 dsh -b "devmem:0x1000000@/tmp/memlink" -c 'reg ctl_status'
has "RAM through a symlink: named" "overlaps System RAM"
mknod /tmp/mem2 c 1 1
run "RAM through a second 1:1 node" 3 dsh -b "devmem:0x1000000@/tmp/mem2,known-machine" -c 'reg ctl_status'
has "RAM through a second 1:1 node: named" "overlaps System RAM"
# iomem= is for stand-in files: a list calling low RAM Reserved opens nothing
echo '00000000-ffffffff : Reserved' >/tmp/fake-iomem
run "RAM with a fake iomem=" 3 dsh -b "devmem:0x1000000,iomem=/tmp/fake-iomem" -c 'reg ctl_status'
has "RAM with a fake iomem=: named" "for a stand-in file only"

# ---- devmem: what /proc/iomem does not make a Reserved window ----
run "past the Reserved entry" 3 dsh -b "devmem:0x100b0000" -c 'reg ctl_status'
has "past the Reserved entry: named" "10000000-100fffff|System RAM"
run "ACPI Tables" 3 dsh -b "devmem:$ACPI" -c 'reg ctl_status'
has "ACPI Tables: named" "ACPI Tables"
run "a device BAR" 3 dsh -b "devmem:$IVSBAR" -c 'reg ctl_status'
has "a device BAR: named" "$IVS"
run "the PCI window ($PCIWIN)" 3 dsh -b "devmem:$PCIWIN" -c 'reg ctl_status'
has "the PCI window: named" "PCI Bus 0000:00"
run "unaligned base" 3 dsh -b "devmem:0x10000800" -c 'reg ctl_status'
has "unaligned base: named" "not aligned"
run "/dev/zero" 3 dsh -b "devmem:$RES@/dev/zero" -c 'reg ctl_status'
has "/dev/zero: named" "1:5, not /dev/mem"
run "/dev/port" 3 dsh -b "devmem:$RES@/dev/port" -c 'reg ctl_status'
has "/dev/port: named" "1:4, not /dev/mem"
mkfifo /tmp/fifo
run "a FIFO" 3 dsh -b "devmem:$RES@/tmp/fifo" -c 'reg ctl_status'
has "a FIFO: named" "neither /dev/mem"

# ---- devmem: the Reserved megabyte ----
run "Reserved: a first read" 0 dsh -b "devmem:$RES" -c 'reg ctl_status'
has "Reserved: the read" "0x0+\b"

# Plain memory is not a board: Primitive Counter Reset read back
# (D-PRESENCE-RESET); ,no-reset-check skips the check, and the write echoes.
run "Reserved RAM: plain memory refused" 1 dsh -b "devmem:$RES" -c 'ureg_write prim_counter_reset 1; reg prim_counter'
has "Reserved RAM: plain memory named" "is plain memory, not a DIMMnet-2: 0x40300 read back .* Primitive Counter Reset.*no-reset-check"
run "Reserved RAM: ,no-reset-check" 0 dsh -b "devmem:$RES,no-reset-check" -c 'ureg_write prim_counter_reset 1; reg prim_counter'
has "Reserved RAM: the write echoes" "prim_counter .*= 0x0*1\b"

# ---- pci: the ivshmem BAR standing in for a board ----
run "pci: ivshmem BAR2" 0 dsh -b "pci:$IVS,bar=2" -c 'reg ctl_status'
has "pci: Controller Status" "0x0*12\b"
run "pci: BAR0 too small" 3 dsh -b "pci:$IVS,bar=0" -c 'reg ctl_status'
has "pci: BAR0 too small: named" "BAR0 is 0x100 bytes"
run "pci: upper half" 3 dsh -b "pci:$IVS,bar=3" -c 'reg ctl_status'
has "pci: upper half: named" "upper half of the 64-bit BAR2"
run "pci: I/O BAR" 3 dsh -b "pci:$TDEV,bar=1" -c 'reg ctl_status'
has "pci: I/O BAR: named" "is an I/O BAR"
run "pci: id=" 0 dsh -b "pci:id=1af4:1110,bar=2" -c 'reg ctl_status'
# decoding off: refused; ,enable turns it on
setpci -s $IVS COMMAND=0x0000
run "pci: decoding off" 3 dsh -b "pci:$IVS,bar=2" -c 'reg ctl_status'
has "pci: decoding off: named" "memory decoding off.*,enable"
run "pci: ,enable" 0 dsh -b "pci:$IVS,bar=2,enable" -c 'reg ctl_status'
has "pci: ,enable: the read" "0x0*12\b"
cmd=$(setpci -s $IVS COMMAND)
if [ $((0x$cmd & 2)) -ne 0 ]; then ok "pci: ,enable set bit 1"; else ko "pci: ,enable set bit 1" "Command $cmd"; fi
# The memory types PAT recorded while dsh holds BAR2 (SPEC): the kernel's
# list in /tmp/o once the window's end appears in it.
pat_held() {
	dsh -b "$1" -c 'sleep 60s' >/dev/null 2>&1 &
	dpid=$!
	i=0
	while [ $i -lt 50 ] && ! grep -q "$(printf '%x' $((IVSBAR + 0x51000)))\]" /sys/kernel/debug/x86/pat_memtype_list; do
		sleep 0.1
		i=$((i + 1))
	done
	cp /sys/kernel/debug/x86/pat_memtype_list /tmp/o
	kill $dpid # SIGTERM ends the sleep at once (libdnet's stop hook)
	wait $dpid
}
WW="$(printf '%x' $((IVSBAR)))-0x0*$(printf '%x' $((IVSBAR + 0x10000)))\]"
REST="$(printf '%x' $((IVSBAR + 0x10000)))-0x0*$(printf '%x' $((IVSBAR + 0x51000)))\]"
# The Write Window [0, 0x10000) write-combining, the rest uncached-minus,
# not overlapping.
pat_held "pci:$IVS,bar=2"
has "PAT: the Write Window write-combining" "$WW write-combining"
has "PAT: the rest uncached-minus" "$REST uncached-minus"
hasnt "PAT: nothing downgraded" "$WW uncached-minus"
# ,nowc: one uncached-minus mapping
pat_held "pci:$IVS,bar=2,nowc"
has "PAT: ,nowc uncached-minus" "$(printf '%x' $((IVSBAR)))-0x0*$(printf '%x' $((IVSBAR + 0x51000)))\] uncached-minus"

# BARs walked from BAR0: BAR2 at 16 GiB up (its upper half, BAR3, reads 4:
# alone it looks like a 64-bit BAR); BAR4 is then unassigned, not an upper half
setpci -s $IVS BASE_ADDRESS_3=4
run "pci: BAR walk" 3 dsh -b "pci:$IVS,bar=4" -c 'reg ctl_status'
has "pci: BAR walk: BAR4 unassigned" "BAR4 is not assigned"
setpci -s $IVS BASE_ADDRESS_3=0
# ---- probe ----
run "probe" 0 dsh -c 'probe id=1af4:1110'
has "probe: the ivshmem BAR2" "memory BAR2 at $IVSBAR, 0x100000 bytes: -b pci:$IVS,bar=2"
# ---- edu: nothing answers like a board ----
run "edu: peek stays raw" 0 dsh -b "pci:$EDU,bar=0" -c 'peek ureg 0x200'
has "edu: peek shows all ones" "0xffffffffffffffff"
run "edu: reg fails" 1 dsh -b "pci:$EDU,bar=0" -c 'reg ctl_status'
has "edu: reg shows the raw value" "= 0xffffffffffffffff  \[raw: reserved bits set\]"
has "edu: reg names the bits" "reserved bits 63:20 are set"
run "edu: no write where nothing answers" 1 dsh -b "pci:$EDU,bar=0" -c 'llcm_write from=0 it=1 val=5'
has "edu: presence message" "no DIMMnet-2 answers.*all ones"

run "ivshmem: plain memory refused" 1 dsh -b "pci:$IVS,bar=2" -c 'llcm_write from=0x100 it=1 val=0x77'
has "ivshmem: plain memory named" "0x0 in /sys/bus/pci/devices/$IVS/resource2 is plain memory, not a DIMMnet-2"
has "ivshmem: the message whole" "nothing else written \(,no-reset-check skips this\)$"

# ---- issue 31: a running wait or sleep stops within a poll interval; a
# void is refused by the presence check; a reset that did nothing fails;
# two sessions on one BAR that disagree on its memory types ----
cs() { cut -d' ' -f1 /proc/uptime | tr -d .; } # the guest's clock, 1/100 s
# maxtime NAME SPEC CMD: --max-time 1s ends it in < 3 s, failed as max-time
maxtime() {
	t0=$(cs)
	dsh -b "$2" --max-time 1s -c "$3" >/tmp/o 2>&1
	rc=$? el=$(($(cs) - t0))
	if [ "$rc" = 1 ] && [ "$el" -lt 300 ]; then ok "$1: --max-time"; else
		ko "$1: --max-time" "exit $rc after ${el}0 ms: $(head -c 400 /tmp/o | tr '\n' ' ')"; fi
	has "$1: --max-time named" "reached its --max-time of 1s"
	has "$1: interrupted" "interrupted after"
}
# signalled NAME SPEC CMD SIG NUM: SIG after 1 s ends dsh by it within 1.5 s
signalled() {
	dsh -b "$2" -c "$3" >/tmp/o 2>&1 &
	dpid=$!
	sleep 1
	t0=$(cs)
	kill -"$4" $dpid
	wait $dpid
	rc=$? el=$(($(cs) - t0))
	if [ "$rc" = $((128 + $5)) ] && [ "$el" -lt 150 ]; then ok "$1: $4"; else
		ko "$1: $4" "exit $rc after ${el}0 ms: $(head -c 400 /tmp/o | tr '\n' ' ')"; fi
}
W1='wait ctl_status.sdimm_init_done == 1 timeout=6s' # Reserved RAM reads 0
W0='wait ctl_status.sdimm_init_done == 0 timeout=6s' # the ivshmem BAR reads 0x12
maxtime "devmem wait" "devmem:$RES" "$W1"
maxtime "devmem sleep" "devmem:$RES" 'sleep 6s'
signalled "devmem wait" "devmem:$RES" "$W1" TERM 15
signalled "devmem wait" "devmem:$RES" "$W1" INT 2
maxtime "pci wait" "pci:$IVS,bar=2" "$W0"
signalled "pci wait" "pci:$IVS,bar=2" "$W0" TERM 15
signalled "pci sleep" "pci:$IVS,bar=2" 'sleep 6s' INT 2

# A void: a page-aligned range above 4 GiB outside every /proc/iomem entry
# (nothing decodes it: reads 0, writes dropped).
# The first gap between top-level entries (in order) above 4 GiB that holds
# the window, else below.
VOID= prev=0 low=
for r in $(grep -E '^[0-9a-f]+-[0-9a-f]+ :' /proc/iomem | cut -d' ' -f1); do
	st=$((0x${r%-*})) e=$((0x${r#*-}))
	c=$(((prev + 0xfffff) / 0x100000 * 0x100000))
	if [ $c -ge $((1 << 20)) ] && [ $((c + 0x51000)) -le $st ]; then
		if [ $c -ge $((1 << 32)) ]; then VOID=$(printf '0x%x' $c); break; fi
		[ -z "$low" ] && low=$(printf '0x%x' $c)
	fi
	[ $((e + 1)) -gt $prev ] && prev=$((e + 1))
done
[ -z "$VOID" ] && VOID=$low
echo "VMVOID $VOID"
run "void ($VOID): a write refused" 1 dsh -b "devmem:$VOID,privileged" -c 'llcm_write from=0 it=1 val=5'
has "void: named a void" "nothing keeps what is written.*a void"
run "void: reg ctl_reset confirm refused" 1 dsh -b "devmem:$VOID,privileged" -c 'reg ctl_reset confirm'
has "void: the presence check before the reset" "nothing keeps what is written"
hasnt "void: no reset claimed" "was reset"
BITS=$(awk '/address sizes/ {print $4; exit}' /proc/cpuinfo)
run "past the ${BITS}-bit physical address space" 3 dsh -b "devmem:$(printf '0x%x' $((1 << BITS)))" -c 'reg ctl_status'
has "past the address space: named" "past this CPU's ${BITS}-bit physical address space"

# A Controller Reset that did nothing is a failure, never "was reset".
run "edu: reset refused" 1 dsh -b "pci:$EDU,bar=0" -c 'reg ctl_reset confirm'
has "edu: nothing answers" "no DIMMnet-2 answers.*all ones"
hasnt "edu: no reset claimed" "was reset"
run "Reserved RAM: reset refused as memory" 1 dsh -b "devmem:$RES,privileged" -c 'reg ctl_reset confirm'
has "Reserved RAM: plain memory" "is plain memory, not a DIMMnet-2"
run "Reserved RAM, no-reset-check: a counter kept" 1 dsh -b "devmem:$RES,privileged,no-reset-check" \
	-c 'poke ureg 0x300 5; reg ctl_reset confirm'
has "Reserved RAM: the counter named" "Controller Reset of node 1 was not seen: prim_counter of WID 0 reads 0x0*5 after it"
hasnt "Reserved RAM: no reset claimed" "was reset"
run "Reserved RAM: sreg_write ctl_reset too" 1 dsh -b "devmem:$RES,privileged,no-reset-check" -c 'sreg_write ctl_reset'
has "Reserved RAM: sreg_write named" "Controller Reset of node 1 was not seen"
dsh -b "devmem:$RES,no-reset-check" -c 'poke ureg 0x300 0' >/dev/null 2>&1

# Two sessions on one BAR with conflicting memory types (D-PCI-PAT).
held() { # SPEC: a session holding the BAR in the background
	dsh -b "$1" -c 'sleep 60s' >/dev/null 2>&1 &
	hpid=$!
	sleep 1
}
held "pci:$IVS,bar=2"
run "PAT: ,nowc beside a write-combining session refused" 3 dsh -b "pci:$IVS,bar=2,nowc" -c 'reg ctl_status'
has "PAT: the reason named" "write-combining .*PAT keeps one memory type.*conflicting memory types"
kill $hpid; wait $hpid
held "pci:$IVS,bar=2,nowc"
run "PAT: write-combining beside a ,nowc session refused" 3 dsh -b "pci:$IVS,bar=2" -c 'reg ctl_status'
has "PAT: uncached-minus named" "maps BAR2 uncached \(,nowc.*uncached-minus"
run "PAT: ,nowc beside ,nowc" 0 dsh -b "pci:$IVS,bar=2,nowc" -c 'reg ctl_status'
kill $hpid; wait $hpid

# ---- a session on the ivshmem BAR, journalled, for the host to replay ----
run "journal session" 0 dsh -b "pci:$IVS,bar=2,no-reset-check" --journal /tmp/j \
	-c 'llcm_write from=0 it=4 val=0x11 inc=1; llcm_read 0 32; reg ctl_status; ureg_write status_area_size 0x40'
echo "VMJOURNAL BEGIN"
cat /tmp/j
echo "VMJOURNAL END"

# ---- the README's "Running on a board" steps as written (/readme.cmds:
# the host took them from README.md, BASE the Reserved megabyte) ----
n=0
while IFS= read -r line; do
	n=$((n + 1))
	sh -c "$line" >/tmp/r 2>&1
	echo "VMREADME $n rc=$? $line"
	sed "s/^/VMREADME $n | /" /tmp/r
done </readme.cmds
sed "s/^/VMREADME mtrr | /" /proc/mtrr

# ---- a banner, then an error, straight on the serial console (issue 23
# item 7): the host checks each is a line of its own ----
echo "VMBANNER BEGIN"
dsh -b "pci:$IVS,bar=2,no-reset-check" -c 'ureg_write prim_counter_reset; wait pkt_counter == 5 timeout=1us'
echo "VMBANNER END rc=$?"

echo "VMCHECK END"
poweroff -f
