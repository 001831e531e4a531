#!/usr/bin/env bash
# The instructions the built accessors are made of (objdump on the plain
# build's objects, x86-64): a 64-bit device access is one mov, a 128-bit one
# one movdqa (never split in halves), the WC flush is an sfence, and
# dnet_issue flushes write-combining buffers before the first store of a
# request (the doorbell comes after it).
. "$(dirname "$0")/lib.sh"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OBJ="$ROOT/build/obj"
why=
if [ "$(uname -m)" != x86_64 ]; then why="not x86-64 ($(uname -m))"
elif ! command -v objdump >/dev/null; then why="no objdump (binutils)"
elif [ ! -f "$OBJ/backends/mmio/mmio.o" ]; then why="no plain build in build/obj"; fi
if [ -n "$why" ]; then
	skip "$why: the accessors' instructions not checked"
	finish
	exit
fi
dis() { objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {on = 1; next} on && /^$/ {exit} on' |
	sed -E 's/^\s+[0-9a-f]+:\s+//'; }
count() { grep -cE -- "$1" <<<"$2"; }
MM="$OBJ/backends/mmio/mmio.o"
# A memory operand through a register other than the stack or frame pointer.
DEV='\((%r(ax|bx|cx|dx|si|di|[0-9]+))\)'
d=$(dis "$MM" mmio_read64)
expect_eq "read64: one 64-bit load" 1 "$(count "^mov +(0x[0-9a-f]+)?$DEV,%r[a-z0-9]+$" "$d")"
d=$(dis "$MM" mmio_write64)
expect_eq "write64: one 64-bit store" 1 "$(count "^mov +%r[a-z0-9]+,(0x[0-9a-f]+)?$DEV$" "$d")"
d=$(dis "$MM" mmio_read128)
expect_eq "read128: one movdqa load" 1 "$(count "^movdqa +$DEV,%xmm[0-9]+$" "$d")"
expect_eq "read128: no 64-bit halves" 0 "$(count "^mov +(0x8)?$DEV,%r" "$d")"
d=$(dis "$MM" mmio_write128)
expect_eq "write128: one movdqa store" 1 "$(count "^movdqa +%xmm[0-9]+,$DEV$" "$d")"
expect_eq "write128: no 64-bit halves" 0 "$(count "^mov +%r[a-z0-9]+,(0x8)?$DEV$" "$d")"
expect_eq "wc_flush is an sfence" 1 "$(count '^sfence' "$(dis "$MM" mmio_op_wc_flush)")"
expect_eq "mmio_wc_flush is an sfence" 1 "$(count '^sfence' "$(dis "$MM" mmio_wc_flush)")"
# The fallback poll spins with pause before it sleeps.
expect_eq "poll spins with pause" 1 "$(objdump -d --no-show-raw-insn "$OBJ/libdnet/src/device.o" | grep -cm1 -P '\spause\b')"
# dnet_issue: the WC flush before the first write (Upper, Ex, Lower).
d=$(objdump -dr --no-show-raw-insn "$OBJ/libdnet/src/device.o" | awk '/^[0-9a-f]+ <dnet_issue>:/,/^$/' |
	grep -oE 'R_X86_64_PLT32\s+dnet_[a-z0-9_]+' | awk '{print $2}')
first_flush=$(grep -n -m1 -x 'dnet_wc_flush' <<<"$d" | cut -d: -f1)
first_write=$(grep -n -m1 -E '^dnet_write(64)?$' <<<"$d" | cut -d: -f1)
if [ -n "$first_flush" ] && [ -n "$first_write" ] && [ "$first_flush" -lt "$first_write" ]; then pass; else
	fail "dnet_issue: no dnet_wc_flush call before the first dnet_write (calls: $(tr '\n' ' ' <<<"$d"))"; fi
finish
