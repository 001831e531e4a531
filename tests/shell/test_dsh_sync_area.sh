#!/usr/bin/env bash
# The synchronisation area belongs to runs that synchronise (issue 22, item
# 7; decision D-SYNC-AREA): a one-node session may write the whole LLCM; a
# run of several ranks, or a shell that used barrier/signal/waitfor, may
# not without 'force'; set sync_area moves the refusal, the flags and the
# messaging layer's AMT check together.
. "$(dirname "$0")/lib.sh"
S=$T_TMP
tmo() { timeout 60 "$@"; }

# ---- one node, no synchronisation: the whole 32 KB LLCM, every writer -------------
expect_status "one-node session writes the whole LLCM" 0 tmo "$DSH" -c 'llcm_write from=0 it=8192 val=0x11110000 inc=1
assert llcm 0x7ff8 == 0x11111fff11111ffe
poke llcm 0x7000 5
amt 3700 head=1
rllcm_write 2 0x7ff8 1'
# ---- where ranks synchronise: refused, naming why ---------------------------------
expect_status "DSH_SIZE=2: refused" 1 tmo env DSH_RANK=0 DSH_SIZE=2 "$DSH" -c 'llcm_write from=0 it=8192 val=0'
expect_match "DSH_SIZE=2: says why" "overlaps the synchronisation area 0x7000-0x7fff .*\(this run has several ranks\)" "$(cat "$T_TMP/err")"
expect_status "after a barrier: refused" 1 tmo "$DSH" -c 'barrier
llcm_write from=0x7ff8 it=1 val=0'
expect_match "after a barrier: says why" "\(this shell synchronised\)" "$(cat "$T_TMP/err")"
expect_status "after a barrier: poke refused" 1 tmo "$DSH" -c 'barrier
poke llcm 0x7100 1'
expect_status "after a barrier: force writes" 0 tmo "$DSH" -c 'barrier
llcm_write from=0x7000 it=1 val=1 force'
# ---- set sync_area moves the refusal ----------------------------------------------
expect_status "moved: the old area is free" 0 tmo env DSH_RANK=0 DSH_SIZE=2 "$DSH" -c 'set sync_area 0x1000
llcm_write from=0x7000 it=1024 val=1'
expect_status "moved: the new area refused" 1 tmo env DSH_RANK=0 DSH_SIZE=2 "$DSH" -c 'set sync_area 0x1000
llcm_write from=0x1ff8 it=1 val=1'
expect_match "moved: the new area named" "synchronisation area 0x1000-0x1fff" "$(cat "$T_TMP/err")"
expect_status "sync_area past the LLCM refused" 1 tmo "$DSH" -c 'set sync_area 0x7008'
expect_match "sync_area range said" "sync_area '0x7008' out of range \(max 0x7000" "$(cat "$T_TMP/err")"
expect_status "unaligned sync_area refused" 1 tmo "$DSH" -c 'set sync_area 0x1004'
expect_match "alignment said" "0x1004 is not 8-byte aligned" "$(cat "$T_TMP/err")"

# ---- set sync_area moves the flags: a barrier between two ranks at 0x2000 --------
start_dnetd "$S/d.sock" --sim -N 2
cat >"$S/moved.dsh" <<'EOS'
set sync_area 0x2000
llcm_write from=0x7000 it=1024 val=0xdead inc=0
barrier
repeat 3; barrier; end
# the flags went to the moved area (barrier round 0 word, generation:count), not to 0x7000
assert llcm 0x2000 & 0xffffffff == 4
assert llcm 0x7000 == 0x0000dead0000dead
# joined: the area cannot move any more (the peers store into it)
set sync_area 0x3000
EOS
for r in 0 1; do
	env DSH_RUN_ID=7 DSH_RANK=$r DSH_SIZE=2 timeout 60 "$BIN/dsh" -b "remote:unix:$S/d.sock" -f "$S/moved.dsh" \
		>"$S/m$r.out" 2>"$S/m$r.err" &
	eval "p$r=\$!"
done
wait "$p0"; r0=$?
wait "$p1"; r1=$?
# each rank: everything passed but the last line
expect_eq "moved area: rank 0 (only the move after joining failed)" "1 1" "$r0 $(grep -c '^dsh: ' "$S/m0.err")"
expect_eq "moved area: rank 1 (only the move after joining failed)" "1 1" "$(echo $r1) $(grep -c '^dsh: ' "$S/m1.err")"
expect_match "moved area: assertions held" "^2 passed, 0 failed, 1 error" "$(tail -1 "$S/m0.out")"
expect_match "joined: the area cannot move" "moved.dsh:9: set: set sync_area: this rank has joined the run with its flags at LLCM 0x2000" \
	"$(cat "$S/m0.err")"

# ---- the messaging layer follows: its AMT keeps out of the (moved) area ----------
# two ranks, 2 AMT entries from word 256 (LLCM 0x800-0x80f): an area at 0x800
# overlaps them and the first send is refused, naming both; at 0x1000 it works.
cat >"$S/msg.dsh" <<'EOS'
set sync_area $area
barrier
send $peer 1 size=16
recv $peer 1
EOS
msgrun() { # AREA: exit statuses of both ranks
	local area=$1 r
	for r in 0 1; do
		env DSH_RUN_ID=$((9 + ${area#0x})) DSH_RANK=$r DSH_SIZE=2 timeout 60 "$BIN/dsh" -b "remote:unix:$S/d.sock" \
			-c "set area $area" -c "set peer $((1 - r))" -f "$S/msg.dsh" >"$S/g$r.out" 2>"$S/g$r.err" &
		eval "g$r=\$!"
	done
	wait "$g0"; local a=$?
	wait "$g1"; echo "$a $?"
}
expect_eq "messages beside a moved area" "0 0" "$(msgrun 0x1000)"
expect_eq "AMT inside the moved area refused" "1 1" "$(msgrun 0x800)"
expect_match "AMT refusal names the area" "overlap the reserved LLCM 0x800-0x17ff" "$(cat "$S/g0.err")"
finish
