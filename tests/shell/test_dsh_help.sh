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
# every command: help CMD has an example; every alias is in help and in the man page
for c in $cmds; do
	out=$("$DSH" -c "help $c")
	expect_match "help $c example" "^example: " "$out"
	al=$(sed -n 's/^aliases: //p' <<<"$out" | tr -d ',')
	for a in $al; do
		if [ "$("$DSH" -c "help $a" | head -n 1)" = "$(head -n 1 <<<"$out")" ]; then pass; else fail "help $a is not help $c"; fi
		pat="\\fB$a\\fR"
		[ "$a" = . ] && pat='\fB\&.\fR'
		if grep -qF -- "$pat" "$ROOT/man/dsh.1"; then pass; else fail "man/dsh.1 lacks alias $a of $c"; fi
	done
done
# every option of dsh --help is in man/dsh.1
opts=$("$DSH" --help | grep -oE '(^|[ ,])--?[a-zA-Z][a-z-]*' | tr -d ' ,' | sort -u)
expect_match "options listed" "--json" "$opts"
for o in $opts; do
	if grep -qF -- "${o//-/\\-}" "$ROOT/man/dsh.1"; then pass; else fail "man/dsh.1 lacks option $o"; fi
done
# the environment and files dsh uses are in man/dsh.1
for w in DSH_BACKEND HOME .dsh_history; do
	if grep -qF "$w" "$ROOT/man/dsh.1"; then pass; else fail "man/dsh.1 lacks $w"; fi
done
# every script construct is in man/dsh-script.5
for w in '\fB#\fR' '\fB;\fR' '$NAME' '${NAME}' '$_' '@\fIK' "\\fB'...'\\fR" '\fB"..."\fR' \
	'.BI "set "' 'set \-e' 'set +e' '.BI "unset "' '.BI "source "' '.BI "repeat "' '.B end' \
	'.BI "assert "' '.BI "expect "' '.BI "wait "' '.BI "echo "' '.BI "sleep "' '.BR quit' 'set gap' \
	'set base' 'set timeout' 'set wid'; do
	if grep -qF -- "$w" "$ROOT/man/dsh-script.5"; then pass; else fail "man/dsh-script.5 lacks $w"; fi
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
