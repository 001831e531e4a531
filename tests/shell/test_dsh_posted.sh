#!/usr/bin/env bash
# Posted commands through dnetd (dsh(1) POSTED WRITES): a failure the daemon
# finds only after the command has returned is still reported at the
# command's own line, counted, and decides the exit status -- the same
# verdicts, messages and device state as `set posted off`.
# Decisions pinned here (docs/decisions.md): D-DSH-POSTED.
. "$(dirname "$0")/lib.sh"
SOCK="$T_TMP/d.sock"
start_dnetd "$SOCK" --sim -N 2
# A user client of WID 0: `set wid 1` makes dsh address WID 1's LLCM, which
# only the daemon refuses (the library does not know the connection's WID).
R="remote:unix:$SOCK,user"
S="$T_TMP/s.dsh"
cat >"$S" <<'EOF'
llcm_write from=0x10 it=1 val=0x11
llcm_write from=0x18 it=1 val=0x12
set wid 1
llcm_write from=0 it=1 val=7
llcm_write from=8 it=1 val=8
set wid 0
llcm_write from=0x20 it=4 val=0x21 inc=1
llcm_read 0x10 32
EOF
run() { # posted|off, extra options; prints stdout, then stderr after a marker
	local mode=$1; shift
	{ echo "set posted $mode"; cat "$S"; } >"$T_TMP/m.dsh"
	timeout 60 "$DSH" "$@" -b "$R" -f "$T_TMP/m.dsh" >"$T_TMP/out" 2>"$T_TMP/err"
	echo "status $?"
	cat "$T_TMP/out"
	echo "-- stderr"
	sed "s|$T_TMP/m.dsh|S|" "$T_TMP/err"
}
posted=$(run on)
off=$(run off)
expect_eq "posted = not posted (continue)" "$off" "$posted"
expect_match "failure at its own line" "S:5: llcm_write: .*WID 1" "$posted"
expect_match "the next failed one too" "S:6: llcm_write: .*WID 1" "$posted"
expect_match "exit status 1" "^status 1" "$posted"
expect_match "the writes around it are done" "#4215c010: 0000000000000011 0000000000000012" "$posted"
expect_match "counted" "0 passed, 0 failed, 2 errors" "$posted"

posted=$(run on -e)
off=$(run off -e)
expect_eq "posted = not posted (-e)" "$off" "$posted"
expect_match "-e: the first failure" "S:5: llcm_write: .*WID 1" "$posted"
if grep -q "S:6:" <<<"$posted"; then fail "-e: the line after the failure was run: $posted"; else pass; fi
if grep -q "4215c010" <<<"$posted"; then fail "-e: the script went on after the failure"; else pass; fi
expect_match "-e: exit status 1" "^status 1" "$posted"

# JSON and echo go one command at a time; their verdicts are the same.
out=$(timeout 60 "$DSH" --json -b "$R" -f "$S" 2>/dev/null | grep '"ok":false' | grep -c llcm_write)
expect_eq "json: both failures in the objects" 2 "$out"

# Many posted commands (more than one batch, more than the 1024 between
# waits), then a read: every write arrived, in order.
for i in $(seq 3000); do echo "llcm_write from=$(( (i % 64) * 4 )) it=1 val=$i"; done >"$T_TMP/many.dsh"
echo "llcm_read 0 16" >>"$T_TMP/many.dsh"
out=$(timeout 60 "$DSH" -b "$R" -f "$T_TMP/many.dsh" 2>&1)
expect_eq "3000 posted writes" "# ADDR     7 6 5 4 3 2 1 0 F E D C B A 9 8
#4215c000: 00000b8100000b80 00000b8300000b82" "$out"
finish
