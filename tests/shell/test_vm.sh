#!/usr/bin/env bash
# The board path on a real kernel: Debian's packaged kernel booted in QEMU
# (software emulation) with a busybox initramfs holding dsh, lspci and setpci;
# the guest (tests/vm/guest.sh) runs the devmem and pci checks against
# /proc/iomem, STRICT_DEVMEM, sysfs resource files and PAT as the kernel has
# them, and prints one line per check.  The host counts those, checks the
# bytes the guest wrote into the ivshmem file, and replays the guest's
# journal on the emulator and on a stand-in copy of the BAR.  Issue 31 adds:
# --max-time, SIGTERM and SIGINT stop a wait or sleep on devmem and pci
# within a poll interval, a void (a gap of /proc/iomem) is refused by the
# presence check, a Controller Reset that did nothing fails, a base past the
# physical address width is named, two sessions on one BAR with conflicting
# memory types (PAT) are refused.  Plain build only (one boot, ~30-45 s); skipped where QEMU, the cached kernel
# (scripts/install-deps.sh) or busybox are missing.
. "$(dirname "$0")/lib.sh"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE=${DSH_VM_CACHE:-/var/cache/dsh-vm}
KERNEL=$CACHE/vmlinuz
why=
case $BIN in
*build-san*)
	not_applicable "the VM test runs on the plain build only (a sanitized dsh in a minimal guest)"
	finish
	exit ;;
esac
if [ -z "$why" ]; then
	if [ "$(uname -m)" != x86_64 ]; then why="not x86-64 ($(uname -m))"
	elif ! command -v qemu-system-x86_64 >/dev/null; then why="no qemu-system-x86_64 (make deps-test)"
	elif [ ! -s "$KERNEL" ]; then why="no cached kernel $KERNEL (make deps-test)"
	elif [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
		why="no static /bin/busybox (busybox-static)"
	elif ! command -v cpio >/dev/null || ! command -v lspci >/dev/null; then why="no cpio or pciutils (make deps-test)"
	fi
fi
if [ -n "$why" ]; then
	skip "$why: the board path not tried on a real kernel"
	finish
	exit
fi

# ---- the initramfs: busybox, dsh, lspci, setpci, their libraries ----
R=$T_TMP/root
mkdir -p "$R/bin" "$R/usr/bin" "$R/usr/share/misc"
cp /bin/busybox "$R/bin/"
cp "$ROOT/tests/vm/guest.sh" "$R/init"
cp "$BIN/dsh" "$R/usr/bin/"
cp "$(command -v lspci)" "$(command -v setpci)" "$R/usr/bin/"
[ -f /usr/share/misc/pci.ids ] && cp /usr/share/misc/pci.ids "$R/usr/share/misc/"
# every shared library and the dynamic loader, at the paths ldd names
for exe in "$BIN/dsh" "$(command -v lspci)" "$(command -v setpci)"; do
	ldd "$exe" | grep -oE '/[^ ]+' 
done | sort -u | while read -r lib; do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
# The README's steps, as written: its MTRR line and its first-read commands,
# BASE the Reserved megabyte of the kernel line below.
README=$ROOT/README.md
sed -n '/^## Running on a board/,/^## /p' "$README" >"$T_TMP/readme.sec"
grep -o 'echo "base=0xBASE[^`]*/proc/mtrr' "$T_TMP/readme.sec" >"$T_TMP/readme.cmds"
grep -E '^ *bin/dsh ' "$T_TMP/readme.sec" | sed -E 's/^ *bin\/dsh /dsh /' >>"$T_TMP/readme.cmds"
sed -i 's/0xBASE/0x10000000/g' "$T_TMP/readme.cmds"
expect_eq "README: the MTRR line and three commands" 4 "$(wc -l <"$T_TMP/readme.cmds" | tr -d ' ')"
expect_match "README: memmap=SIZE\$BASE, as the guest boots" 'memmap=SIZE\$BASE' "$(cat "$T_TMP/readme.sec")"
cp "$T_TMP/readme.cmds" "$R/readme.cmds"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) >"$T_TMP/initrd.gz" ||
	{ fail "cannot build the initramfs"; finish; exit 1; }

# ---- the ivshmem file: a board's reset state (Controller Status 0x12, SO-DIMM
# Init done and the status ring empty, in both User Registers) ----
SHM=$T_TMP/ivshmem
truncate -s 1M "$SHM"
printf '\x12' | dd of="$SHM" bs=1 seek=$((0x40200)) conv=notrunc status=none
printf '\x12' | dd of="$SHM" bs=1 seek=$((0x41200)) conv=notrunc status=none
cp "$SHM" "$T_TMP/standin" # the BAR as the guest found it, for the replay

# ---- boot: bounded, ended by PID ----
CON=$T_TMP/console
t0=$(date +%s)
qemu-system-x86_64 -accel tcg -smp 1 -m 512 -nographic -no-reboot -net none \
	-kernel "$KERNEL" -initrd "$T_TMP/initrd.gz" \
	-append 'console=ttyS0 panic=-1 quiet memmap=0x100000$0x10000000 memmap=0x100000#0x11000000' \
	-object "memory-backend-file,id=shm,share=on,mem-path=$SHM,size=1M" \
	-device ivshmem-plain,memdev=shm,addr=04.0 -device edu,addr=05.0 -device pci-testdev,addr=06.0 \
	</dev/null >"$CON" 2>&1 &
QPID=$!
T_PIDS+=("$QPID")
i=0
while kill -0 "$QPID" 2>/dev/null && [ $i -lt 1500 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$QPID" 2>/dev/null; then
	fail "the guest did not power off within 150 s; console: $(tail -c 1500 "$CON")"
	stop_pid "$QPID"
fi
wait "$QPID" 2>/dev/null
echo "test_vm: the guest ran $(($(date +%s) - t0)) s"
tr -d '\r' <"$CON" >"$CON.txt"

# ---- the guest's checks ----
np=$(grep -c '^VMCHECK PASS ' "$CON.txt")
while IFS= read -r l; do fail "guest: ${l#VMCHECK FAIL }"; done < <(grep '^VMCHECK FAIL ' "$CON.txt")
T_PASS=$((T_PASS + np))
if grep -q '^VMCHECK END' "$CON.txt"; then pass; else
	fail "the guest did not finish its checks; console: $(tail -c 1500 "$CON.txt")"; fi

# ---- the README's steps: the MTRR line takes, the dry run and the first
# read pass, the privileged write is refused on plain memory ----
rd() { grep "^VMREADME $1 rc=" "$CON.txt" | sed -E 's/^VMREADME [0-9]+ rc=([0-9]+) .*/\1/'; }
rout() { grep "^VMREADME $1 | " "$CON.txt" | sed "s/^VMREADME $1 | //"; }
expect_eq "README: the MTRR line" 0 "$(rd 1)"
expect_match "README: the MTRR entry" "base=0x010000000 .*size= *64K.*write-combining" "$(rout mtrr)"
expect_eq "README: dry run" 0 "$(rd 2)"
expect_match "README: dry run lists the read" "dry: read node=1 off=0x40200 width=8" "$(rout 2)"
expect_eq "README: first read" 0 "$(rd 3)"
expect_match "README: bits 63:20 read 0" "ctl_status .*= 0x0000000000000000" "$(rout 3)"
expect_eq "README: the privileged write on plain memory" 1 "$(rd 4)"
expect_match "README: refused as plain memory" "is plain memory, not a DIMMnet-2" "$(rout 4)"

# ---- a banner, then an error, on the serial console: lines of their own ----
# (the guest's clock is slow: the 1 us wait ends when it is first looked at, in us or, on a loaded host, ms)
expect_match "console: banner, then the error on its own line" \
	"^####### Primitive Counter Reset #######\|dsh: -c:1: wait: timed out after [0-9.]+(us|ms) waiting for pkt_counter == 0x5 \(last value 0x0\)\|0 passed, 0 failed, 1 error\|VMBANNER END rc=1\|$" \
	"$(sed -n '/^VMBANNER BEGIN/,/^VMBANNER END/p' "$CON.txt" | sed 1d | tr '\n' '|')"
expect_eq "console: every line of it ends CR LF" 0 \
	"$(sed -n '/^VMBANNER BEGIN/,/^VMBANNER END/p' "$CON" | grep -vc $'\r$')"

# ---- what the guest wrote into the ivshmem BAR ----
expect_eq "LLCM words written through BAR2" "00000011000000120000001300000014" \
	"$(od -An -tx4 -j $((0x20000)) -N 16 "$SHM" | tr -d ' \n')"
expect_eq "refused on plain memory: the LLCM untouched" "0000000000000000" "$(od -An -tx8 -j $((0x20100)) -N 8 "$SHM" | tr -d ' \n')"
expect_eq "refused on plain memory: the counter word put back" "0000000000000000" "$(od -An -tx8 -j $((0x40300)) -N 8 "$SHM" | tr -d ' \n')"
expect_eq "Status Area Size written" "0000000000000040" "$(od -An -tx8 -j $((0x40a00)) -N 8 "$SHM" | tr -d ' \n')"

# ---- the guest's journal replayed on the emulator and on the stand-in ----
sed -n '/^VMJOURNAL BEGIN$/,/^VMJOURNAL END$/p' "$CON.txt" | sed '1d;$d' >"$T_TMP/guest.j"
if [ -s "$T_TMP/guest.j" ]; then pass; else fail "no journal from the guest"; fi
"$DSH" replay "$T_TMP/guest.j" >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "replay on the emulator: exit" 0 $?
expect_match "replay on the emulator: no divergence" "guest.j: [0-9]+ records, no divergence" "$(cat "$T_TMP/out" "$T_TMP/err")"
"$DSH" -b "devmem:0x0@$T_TMP/standin" replay "$T_TMP/guest.j" >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "replay on the stand-in: exit" 0 $?
expect_match "replay on the stand-in: no divergence" "guest.j: [0-9]+ records, no divergence" "$(cat "$T_TMP/out" "$T_TMP/err")"
expect_eq "the stand-in ends as the BAR did" "$(md5sum <"$SHM")" "$(md5sum <"$T_TMP/standin")"
finish
