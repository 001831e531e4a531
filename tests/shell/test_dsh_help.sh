#!/usr/bin/env bash
# help, man pages and the command table stay in sync; history only when interactive.
. "$(dirname "$0")/lib.sh"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cmds=$("$DSH" -c help | grep -E '^[a-z_]+ +: ' | awk '{print $1}')
expect_match "help lists original commands" "evpbuf_read" "$cmds"
for c in evpbuf_read help llcm_read llcm_write prim pw_read quit rllcm_write sreg_read sreg_write \
	ureg_read ureg_write version ww_write dump reg snapshot diff watch botf wait; do
	if grep -qx "$c" <<<"$cmds"; then pass; else fail "help lacks $c"; fi
done
for c in $cmds; do
	out=$("$DSH" -c "help $c")
	expect_match "help $c usage" "^$c : .*
usage: " "$out"
	if grep -qxF ".B $c" "$ROOT/man/dsh.1"; then pass; else fail "man/dsh.1 lacks command $c"; fi
done
expect_eq "original help layout" "evpbuf_read    : LH Buffer Read
    - evpbuf_read [Offset] [Size(Byte)]" "$("$DSH" -c h | head -n 2)"
expect_match "aliases" "DIMMnet-2 Shell" "$("$DSH" -c 'v; version')"
out=$("$DSH" -c 'version full')
expect_match "version full" "^DIMMnet-2 Shell version 2.1a released by Yomi
dsh " "$out"
# no history file when not interactive
HOME="$T_TMP" "$DSH" -c 'v' >/dev/null
HOME="$T_TMP" "$DSH" -x <<<'v' >/dev/null
if [ -e "$T_TMP/.dsh_history" ]; then fail "history written while not interactive"; else pass; fi
finish
