#!/usr/bin/env bash
# On a board: the devmem safety checks as dsh users meet them, the access
# rules named, a Prefetch Window read that waits for the VL counter (not
# stale flags), --dry-run showing exactly the accesses a run makes, and a
# --journal recorded on a stand-in for the board replayed on the emulator.
# Decisions pinned here (docs/decisions.md): D-PW-DONE.
. "$(dirname "$0")/lib.sh"
MEM="$T_TMP/board.mem"
fresh() { rm -f "$MEM"; truncate -s $((0x51000)) "$MEM"; }
put() { printf "$2" | dd of="$MEM" bs=1 seek=$(($1)) conv=notrunc status=none; }
fresh

# ---- safety, as dsh reports it (exit 3: the backend is not opened) ----
expect_status "force is gone" 3 "$DSH" -b "devmem:0x0@$MEM,force" -c 'v'
expect_match "force message" "',force' is gone.*memmap=" "$(cat "$T_TMP/err")"
printf '00000000-000fffff : System RAM\n' >"$T_TMP/iomem"
expect_status "System RAM" 3 "$DSH" -b "devmem:0x0@$MEM,iomem=$T_TMP/iomem" -c 'v'
expect_match "System RAM message" "overlaps System RAM 0-fffff.*no override" "$(cat "$T_TMP/err")"
printf '00000000-000fffff : ACPI Non-volatile Storage\n' >"$T_TMP/iomem"
expect_status "ACPI NVS" 3 "$DSH" -b "devmem:0x0@$MEM,iomem=$T_TMP/iomem" -c 'v'
expect_match "ACPI NVS message" "'ACPI Non-volatile Storage'.*not in a Reserved entry" "$(cat "$T_TMP/err")"
printf '00000000-000fffff : Reserved\n' >"$T_TMP/iomem"
expect_status "Reserved" 0 "$DSH" -b "devmem:0x0@$MEM,iomem=$T_TMP/iomem" -c 'v'
: >"$T_TMP/iomem"
expect_status "empty iomem" 3 "$DSH" -b "devmem:0x0@$MEM,iomem=$T_TMP/iomem" -c 'v'
expect_match "empty iomem message" "is empty.*known-machine" "$(cat "$T_TMP/err")"
expect_status "empty iomem, known machine" 0 "$DSH" -b "devmem:0x0@$MEM,iomem=$T_TMP/iomem,known-machine" -c 'v'
expect_status "not /dev/mem" 3 "$DSH" -b "devmem:0x0@/dev/null" -c 'v'
expect_match "not /dev/mem message" "character device 1:3, not /dev/mem \(1:1\)" "$(cat "$T_TMP/err")"
# /dev/mem reached through a symlink is checked like /dev/mem (refused
# here before it is opened: the real /proc/iomem has RAM at 0x1000).
if mknod "$T_TMP/mem" c 1 1 2>"$T_TMP/mknod.err"; then
	ln -s "$T_TMP/mem" "$T_TMP/link"
	expect_status "symlinked /dev/mem" 3 "$DSH" -b "devmem:0x0@$T_TMP/link" -c 'v'
	expect_match "symlinked /dev/mem message" "System RAM|not in a Reserved|not wholly inside|cannot be checked" \
		"$(cat "$T_TMP/err")"
else
	skip "$(cat "$T_TMP/mknod.err"): symlinked /dev/mem not tried"
fi
# The System Register only with ,privileged.
expect_status "sreg without privilege" 1 "$DSH" -b "devmem:0x0@$MEM" -c 'sreg_write pgid0 5'
expect_match "sreg message" "\[privileged\].*,privileged" "$(cat "$T_TMP/err")"
expect_status "sreg with privilege" 0 "$DSH" -b "devmem:0x0@$MEM,privileged" -c 'sreg_write pgid0 5'
expect_eq "PGID0 written" "0000000000000005" "$(od -An -tx8 -j $((0x50800)) -N 8 "$MEM" | tr -d ' ')"
# Presence check before the first write: all ones where a register is.
fresh
head -c 4096 /dev/zero | tr '\0' '\377' | dd of="$MEM" bs=1 seek=$((0x40000)) conv=notrunc status=none
expect_status "nothing answers" 1 "$DSH" -b "devmem:0x0@$MEM" -c 'llcm_write from=0 it=1 val=5'
expect_match "presence message" "no DIMMnet-2 answers.*Controller Status.*all ones" "$(cat "$T_TMP/err")"
# whole, however long (messages were cut at 255 characters: "; nothing was written" lost)
expect_match "presence message: whole" "memory decoding is off\); nothing was written" "$(cat "$T_TMP/err")"
expect_eq "nothing written" "0000000000000000" "$(od -An -tx8 -j $((0x20000)) -N 8 "$MEM" | tr -d ' ')"
# A register read with reserved bits set (all ones here) is not the
# register: the raw value beside the decode, the command fails naming the
# bits; peek stays raw and passes.
"$DSH" -b "devmem:0x0@$MEM" -c 'reg ctl_status' >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "all ones: reg fails" 1 $?
expect_match "all ones: the raw value beside the decode" "= 0xffffffffffffffff  \[raw: reserved bits set\]" "$(cat "$T_TMP/out")"
expect_match "all ones: the decode still shown" "rc_state +\[19:18\] += 0x3" "$(cat "$T_TMP/out")"
expect_match "all ones: the bits named" "'ctl_status' read 0xffffffffffffffff: its reserved bits 63:20 are set.*all ones" "$(cat "$T_TMP/err")"
"$DSH" -b "devmem:0x0@$MEM" -c 'reg ctl_status.rc_state' >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "all ones: a field read fails" 1 $?
expect_match "all ones: the field with the raw value" "rc_state = 0x3 .*\[raw 0xffffffffffffffff: reserved bits set\]" "$(cat "$T_TMP/out")"
expect_status "all ones: peek stays raw" 0 "$DSH" -b "devmem:0x0@$MEM" -c 'peek ureg 0x200'
expect_match "all ones: peek's value" "0xffffffffffffffff" "$(cat "$T_TMP/out")"
# That reserved bits read 0 is a bring-up check: assert and wait may name
# them (a whole register's mask), and here they fail on the raw value.
expect_status "all ones: assert on reserved bits fails" 1 "$DSH" -b "devmem:0x0@$MEM" -c 'assert ctl_status & 0xfffffffffff00000 == 0'
expect_match "all ones: assert's raw value" "assertion failed: ctl_status & 0xfffffffffff00000 == 0x0 \(got 0xfffffffffff00000\)" "$(cat "$T_TMP/err")"
expect_status "all ones: wait on reserved bits times out" 1 "$DSH" -b "devmem:0x0@$MEM" --timeout 10ms -c 'wait ctl_status & 0xfffffffffff00000 == 0'
# One reserved bit is enough (bit 40 of Controller Status,
# a value that is not all ones).
fresh
put 0x40200 '\x12\x00\x00\x00\x00\x01'
expect_status "one reserved bit: reg fails" 1 "$DSH" -b "devmem:0x0@$MEM" -c 'reg ctl_status'
expect_match "one reserved bit: named" "read 0x0000010000000012: its reserved bits 40 are set" "$(cat "$T_TMP/err")"
expect_status "one reserved bit: no write" 1 "$DSH" -b "devmem:0x0@$MEM" -c 'llcm_write from=0 it=1 val=5'
expect_match "one reserved bit: the presence check" "no DIMMnet-2 answers.*0x0000010000000012.*63:20" "$(cat "$T_TMP/err")"
fresh
# ... and hold where they read 0 (the stand-in, the emulator, through dnetd);
# a zero mask and a condition constant over the 64-bit word stay refused.
put 0x40200 '\x12'
expect_status "reserved bits 0: assert and wait hold" 0 "$DSH" -b "devmem:0x0@$MEM" -c 'assert ctl_status & 0xfffffffffff00000 == 0; wait ctl_status & 0xfffffffffff00000 == 0'
expect_status "reserved bits: emulator" 0 "$DSH" -c 'assert ctl_status & 0xfffffffffff00000 == 0; wait ctl_status & 0xfffffffffff00000 == 0; assert prim_counter & 0xf000000000000000 == 0'
start_dnetd "$T_TMP/d.sock" --sim
expect_status "reserved bits: through dnetd" 0 "$DSH" -b "remote:unix:$T_TMP/d.sock" -c 'assert ctl_status & 0xfffffffffff00000 == 0; wait ctl_status & 0xfffffffffff00000 == 0'
expect_status "reserved bits: mask 0 refused" 2 "$DSH" -c 'assert ctl_status & 0 == 0'
expect_status "reserved bits: constant over 64 bits refused" 2 "$DSH" -c 'assert ctl_status & 0xfffffffffff00000 <= 0xfffffffffff00000'
expect_match "reserved bits: constant message" "holds for every value.*the condition is constant" "$(cat "$T_TMP/err")"
expect_status "a field's mask stays inside it" 2 "$DSH" -c 'wait ctl_status.rc_state & 0x10 == 0'
expect_match "a field's mask message" "mask 0x10 has bits outside ctl_status.rc_state" "$(cat "$T_TMP/err")"
fresh

# ---- access rules named ----
expect_status "32-bit register read" 1 "$DSH" -b "devmem:0x0@$MEM" -c 'peek ureg 0x200 width=32'
expect_match "reg-width" "\[reg-width\] a 32-bit access at 0x40200" "$(cat "$T_TMP/err")"
expect_status "16-bit Command Lower write" 1 "$DSH" -b "devmem:0x0@$MEM" -c 'poke ureg 0x0 1 width=16'
expect_match "reg-width write" "\[reg-width\]" "$(cat "$T_TMP/err")"

# ---- a Prefetch Window read waits for the VL counter, not stale flags ----
# PW#3's flags already read 4'b1111 (from an earlier read) and the counter
# never moves: the read must fail, not return the old window.
put 0x40400 '\x00\xf0'
put 0x10600 'STALEDAT'
expect_status "stale PW flags" 1 "$DSH" -b "devmem:0x0@$MEM" --timeout 20ms -c 'sodimm read 0 8'
expect_match "stale PW message" "VL count did not move from 0" "$(cat "$T_TMP/err")"
if grep -q 5354414c "$T_TMP/out"; then fail "the stale window was returned"; else pass; fi
fresh

# ---- dry run: exactly the accesses of a real run, none done ----
S='llcm_write from=0 it=4 val=0x11 inc=1; llcm_read 0 32; poke ureg 0x900 0x100; pw_read 1 16;
prim VS size=8 src=0 dst=0x100; peek llcm 0x8 width=32'
sum0=$(md5sum <"$MEM")
"$DSH" --dry-run -b "devmem:0x0@$MEM,privileged" -c "$S" >"$T_TMP/dry" 2>&1
expect_eq "dry run exit" 0 $?
expect_eq "dry run wrote nothing" "$sum0" "$(md5sum <"$MEM")"
expect_match "dry run header" "^dry: devmem:0x0@.*nothing is done" "$(head -n 1 "$T_TMP/dry")"
expect_match "dry run shows the Lower write" "dry: write node=1 off=0x40000 width=8 val=0x0000000800000008 rc=0  # ureg0\+0x0 cmd0_lower" "$(cat "$T_TMP/dry")"
# Controller Status of an idle board (SO-DIMM Init done, status ring empty),
# as the emulator starts: the verdict of the VS reads it before and after.
put 0x40200 '\x12'
"$DSH" -b "devmem:0x0@$MEM,privileged" --journal "$T_TMP/real.j" -c "$S" >/dev/null 2>&1
expect_eq "journal run exit" 0 $?
# Values read differ (a dry read gives 0); the accesses are the same, in order.
norm() { sed -E 's/^dry: //; s/ (val|data|last)=[0-9a-fx]+//' | grep -v '^#' ; }
grep '^dry: ' "$T_TMP/dry" | tail -n +2 | norm >"$T_TMP/dry.n"
norm <"$T_TMP/real.j" >"$T_TMP/real.n"
expect_eq "dry run = real run's accesses" "" "$(diff "$T_TMP/real.n" "$T_TMP/dry.n")"
# 13 of the commands, and the VS's pending verdict (flags.c): Controller
# Status before it, then at the end of the run a look at busy and Controller
# Status again.
expect_eq "accesses recorded" 16 "$(wc -l <"$T_TMP/real.n" | tr -d ' ')"
expect_match "the verdict reads Controller Status after the VS" "^busy node=1 val=0 rc=0
read node=1 off=0x40200 width=8 val=0x0000000000000012 rc=0" "$(tail -n 2 "$T_TMP/real.j")"
# JSON: the listing goes to stderr, stdout stays JSON.
"$DSH" --dry-run --json -b "devmem:0x0@$MEM" -c 'llcm_read 0 8' >"$T_TMP/j.out" 2>"$T_TMP/j.err"
expect_match "dry run JSON listing on stderr" "dry: read_block node=1 off=0x20000 len=8" "$(cat "$T_TMP/j.err")"
if grep -q '^dry:' "$T_TMP/j.out"; then fail "dry listing on JSON stdout"; else pass; fi

# ---- a board's sticky flags (D-VERDICT-CAUSE): nothing attributes them ----
# Controller Status with rc_overrun (bit 17) already up: the VS's verdict
# (pending: no wait) fails naming it as set before; the same board without
# it passes.
fresh
put 0x40200 '\x12\x00\x02'
"$DSH" -b "devmem:0x0@$MEM" -c 'prim VS size=8 src=0 dst=0x100' >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "board: sticky flag fails the primitive" 1 $?
expect_match "board: sticky flag named" "prim: device error flag raised by prim at -c:1: node 1 rc_overrun .*already set before the primitive" "$(cat "$T_TMP/err")"
put 0x40200 '\x12\x00\x00'
expect_status "board: no flag, the primitive passes" 0 "$DSH" -b "devmem:0x0@$MEM" -c 'prim VS size=8 src=0 dst=0x100'
fresh

# ---- journal on the stand-in, replayed on the emulator ----
# Without the VS (which the stand-in does not run) a board journal replays
# whole on the emulator.
grep -v '^#' "$T_TMP/real.j" | grep -v 'off=0x400[01]0 \|off=0x40200\|^busy\|^wc_flush\|^wait ' >"$T_TMP/novs.body"
{ grep '^# dsh\|^# backend' "$T_TMP/real.j"; cat "$T_TMP/novs.body"; echo "# end $(wc -l <"$T_TMP/novs.body") records"; } >"$T_TMP/novs.j"
"$DSH" replay "$T_TMP/novs.j" >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "replay on sim: exit" 0 $?
expect_match "replay on sim: no divergence" "replay: .*novs.j: 9 records, no divergence" "$(cat "$T_TMP/out")"
cp "$T_TMP/real.j" "$T_TMP/pc.j"
# A board that answered differently: the first divergence, with its line.
sed -i 's/^\(read_block node=1 off=0x20000 len=32 data=\)11/\1ee/' "$T_TMP/real.j"
line=$(grep -n '^read_block node=1 off=0x20000' "$T_TMP/real.j" | cut -d: -f1)
expect_status "divergence" 1 "$DSH" replay "$T_TMP/real.j"
expect_match "divergence message" "real.j:$line: replay: first divergence after 4 records: block read of 32 bytes at 0x20000 \(llcm0\+0x0\): first difference at byte 0 \(0x20000\): journal 0xee, emulator 0x11" "$(cat "$T_TMP/err")"
# The stand-in does not run the VS the emulator runs: the verdict's read of
# Controller Status after it (the window's write-complete bit) diverges, and
# so would a read of the Primitive Counter.
expect_status "status divergence" 1 "$DSH" replay "$T_TMP/pc.j"
expect_match "status divergence message" "pc.j:18: replay: first divergence after 15 records: read of 64 bits at 0x40200 \(ureg0\+0x200 ctl_status\): journal 0x12, emulator 0x32" "$(cat "$T_TMP/err")"
# (the end record, then that read, replaced; the end record's count stays 16)
sed -i '$d' "$T_TMP/pc.j"
sed -i '$d' "$T_TMP/pc.j"
echo 'read node=1 off=0x40300 width=8 val=0x0000000000000000 rc=0' >>"$T_TMP/pc.j"
echo '# end 16 records' >>"$T_TMP/pc.j"
expect_status "counter divergence" 1 "$DSH" replay "$T_TMP/pc.j"
expect_match "counter divergence message" "pc.j:18: replay: first divergence after 15 records: read of 64 bits at 0x40300 \(ureg0\+0x300 prim_counter\): journal 0x0, emulator 0x100000" "$(cat "$T_TMP/err")"
# A session on the emulator replays on the emulator (reads of live registers too).
"$DSH" --journal "$T_TMP/sim.j" -c 'prim VS size=8 src=0 dst=0x100 wait; reg ctl_status; reg prim_counter; reg ctl_reset confirm' >/dev/null 2>&1
expect_status "sim journal replays" 0 "$DSH" -c "replay '$T_TMP/sim.j'"
expect_match "confirmed read recorded" "read node=1 off=0x50a00 width=8 .* confirm rc=0" "$(cat "$T_TMP/sim.j")"
# Several nodes: node switches are records; a journal of node 2 needs node 2.
"$DSH" --journal "$T_TMP/n.j" -c '@2 llcm_write from=0 it=1 val=7; @2 llcm_read 0 8; llcm_read 0 8' >/dev/null 2>&1
expect_match "node switch recorded" "^node node=2 val=2 rc=0" "$(cat "$T_TMP/n.j")"
expect_status "two-node journal replays" 0 "$DSH" replay "$T_TMP/n.j"
expect_status "one node is not enough" 1 "$DSH" -N 1 replay "$T_TMP/n.j"
expect_match "one node message" "n.j:3: replay: first divergence after 0 records: node: .*node 2 does not exist" "$(cat "$T_TMP/err")"
# Bad journals: clear errors naming file and line.
printf 'hello\n' >"$T_TMP/bad.j"
expect_status "not a journal" 1 "$DSH" replay "$T_TMP/bad.j"
expect_match "not a journal message" "bad.j:1: replay: not a dsh journal" "$(cat "$T_TMP/err")"
printf '# dsh journal 1\nwrite node=1 off=0x20000 width=3 val=0x1 rc=0\n' >"$T_TMP/bad.j"
expect_status "bad width" 1 "$DSH" replay "$T_TMP/bad.j"
expect_match "bad width message" "bad.j:2: replay: bad value '3' for width" "$(cat "$T_TMP/err")"
# Block data: two hex digits a byte, either case, nothing else ('_', which
# groups digits in numbers, is not a digit here).
printf '# dsh journal 1\nwrite_block node=1 off=0x20000 len=8 data=aB0c0000000000fF rc=0\n# end 1 record\n' >"$T_TMP/ok.j"
expect_status "block data, mixed case" 0 "$DSH" replay "$T_TMP/ok.j"
for data in 1_0c 0g0c -10c; do
	printf '# dsh journal 1\nwrite_block node=1 off=0x20000 len=2 data=%s rc=0\n' "$data" >"$T_TMP/bad.j"
	expect_status "block data $data" 1 "$DSH" replay "$T_TMP/bad.j"
	expect_match "block data $data message" "bad.j:2: replay: bad value '$data' for data" "$(cat "$T_TMP/err")"
done
printf '# dsh journal 1\nfrob node=1 rc=0\n' >"$T_TMP/bad.j"
expect_status "unknown record" 1 "$DSH" replay "$T_TMP/bad.j"
expect_match "unknown record message" "bad.j:2: replay: unknown record 'frob'" "$(cat "$T_TMP/err")"
expect_status "missing journal" 1 "$DSH" replay "$T_TMP/none.j"
expect_match "missing journal message" "cannot open '.*none.j'" "$(cat "$T_TMP/err")"
expect_status "replay usage" 2 "$DSH" replay
expect_status "journal not writable" 2 "$DSH" --journal /nonexistent/dir/j -c 'v'
expect_match "journal not writable message" "--journal: cannot write '/nonexistent/dir/j'" "$(cat "$T_TMP/err")"
# ---- probe (libpci on fixture dumps) ----
FIX="$(cd "$(dirname "$0")/../fixtures/pci" && pwd)"
expect_status "probe exit" 0 "$DSH" -c "probe dump=$FIX/i875p.dump"
out=$("$DSH" -c "probe dump=$FIX/i875p.dump" 2>&1)
expect_match "probe names the host bridge" "^host bridge +0000:00:00.0 8086:2578 Intel Corporation 82875P" "$out"
expect_match "probe decodes DRB row 1" "row 1 \(DIMM socket 0, side 1\): 0x020000000-0x03fffffff \(512 MB\): devmem:0x20000000" "$out"
expect_match "probe decodes DRB row 4" "row 4 \(DIMM socket 2, side 0\): 0x040000000-0x05fffffff \(512 MB\)" "$out"
expect_match "probe: empty row" "row 2 \(DIMM socket 1, side 0\): empty" "$out"
expect_match "probe lists the BAR with its spec" "memory BAR0 at 0xf0000000, size unknown \(dump\): -b pci:0000:03:00.0,bar=0" "$out"
# dsh probe [ARGS] is a subcommand (README "Running on a board", step 1), as dsh replay.
expect_status "dsh probe subcommand exit" 0 "$DSH" probe "dump=$FIX/i875p.dump"
expect_eq "dsh probe = the command probe" "$out" "$("$DSH" probe "dump=$FIX/i875p.dump" 2>&1)"
expect_status "dsh probe without arguments" 0 "$DSH" probe
"$DSH" probe frob=1 >/dev/null 2>"$T_TMP/err"
expect_eq "dsh probe bad argument exit" 1 $?
expect_match "dsh probe bad argument message" "'frob=1' is not sysfs=PATH, dump=FILE or id=" "$(cat "$T_TMP/err")"
expect_status "dsh probe unusable argument" 2 "$DSH" probe "dump=a'b"
expect_match "dsh --help names probe" "dsh \[options\] probe \[ARGS\]" "$("$DSH" --help)"
out=$("$DSH" -c "probe dump=$FIX/decoding-off.dump id=1234:5678" 2>&1)
expect_match "probe: decoding off asks for enable" "memory decoding off: -b pci:0000:03:00.0,bar=0,enable" "$out"
# libpci's fatal error (it must not return) comes back as a message.
"$DSH" -c "probe dump=$T_TMP/none.dump" >/dev/null 2>"$T_TMP/err"
expect_eq "probe: libpci error exit" 1 $?
expect_match "probe: libpci error message" "probe: libpci: dump: Cannot open .*none.dump" "$(cat "$T_TMP/err")"
out=$("$DSH" -c "probe dump=$FIX/board.dump id=abcd:0001" 2>&1)
expect_match "probe: no candidate among the ids" "no device exposes the DIMMnet-2 map through a PCI BAR among the ids given" "$out"
expect_eq "probe JSON: DRB row 4 start" '"0x40000000"' "$("$DSH" -j -c "probe dump=$FIX/i875p.dump" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps([x for x in d["result"]["devices"] if x["role"]=="host bridge"][0]["rows"][4]["start"]))')"
# From a sysfs tree (sizes known): an 82865 host bridge and an accelerator.
SYS="$T_TMP/sys"
mkdev() { # SLOT VENDOR DEVICE CLASS CONFIG-HEX RESOURCE-LINE0
	local d="$SYS/devices/$1"
	mkdir -p "$d"
	echo "$2" >"$d/vendor"; echo "$3" >"$d/device"; echo "$4" >"$d/class"; echo 0 >"$d/irq"
	printf "$5" >"$d/config"
	{ echo "$6"; for i in 1 2 3 4 5 6; do echo "0x0000000000000000 0x0000000000000000 0x0000000000000000"; done; } >"$d/resource"
}
z16='\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
mkdev 0000:00:00.0 0x8086 0x2570 0x060000 "\x86\x80\x70\x25\x06\x00\x00\x00\x00\x00\x00\x06\x00\x00\x00\x00$z16$z16$z16$z16$z16\x04\x04\x08\x08\x08\x08\x08\x08\x00\x00\x00\x00\x00\x00\x00\x00" \
	"0x0000000000000000 0x0000000000000000 0x0000000000000000"
mkdev 0000:03:00.0 0x10ee 0x7038 0x120000 "\xee\x10\x38\x70\x02\x00\x00\x00\x00\x00\x00\x12\x00\x00\x00\x00\x00\x00\x00\xf0$z16$z16$z16" \
	"0x00000000f0000000 0x00000000f00fffff 0x0000000000040200"
out=$("$DSH" -c "probe sysfs=$SYS" 2>&1)
expect_match "probe sysfs: 82865 decoded" "row 2 \(DIMM socket 1, side 0\): 0x010000000-0x01fffffff \(256 MB\): devmem:0x10000000" "$out"
expect_match "probe sysfs: row 1 empty" "row 1 \(DIMM socket 0, side 1\): empty" "$out"
expect_match "probe sysfs: BAR size known" "memory BAR0 at 0xf0000000, 0x100000 bytes: -b pci:0000:03:00.0,bar=0" "$out"
expect_status "probe: bad argument" 1 "$DSH" -c "probe frob"
expect_match "probe: bad argument message" "argument 1: 'frob' is not sysfs=PATH" "$(cat "$T_TMP/err")"
expect_status "probe: missing dump" 1 "$DSH" -c "probe dump=$T_TMP/none.dump"
expect_match "probe: missing dump message" "libpci" "$(cat "$T_TMP/err")"
finish
