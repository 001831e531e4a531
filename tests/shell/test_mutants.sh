#!/usr/bin/env bash
# Checks that catch hand-made mutants the rest of the suite let through
# (issue 31, Deliver 9; the mutants are listed in docs/reports.md,
# "Mutants the suite now catches"):
#  - a confined (user) client's cache flush or prefetch that starts in its
#    own WID's pages and runs into the other WID's: refused through dnetd,
#    and nothing of it done (the virtual clock does not move);
#  - dnetd with --allow and --user-tokens together: a client gets what
#    both grant (nodes and WIDs), not what either one does;
#  - a fault rule naming both ends on 3 and 4 nodes: a packet to or from a
#    third node does not match it (counted at each node);
#  - a backend spec naming an option twice (two token=, two nodes=, ...):
#    refused, naming the option, never a token's value (D-SPEC-ONCE).
# UNIX sockets in the test's directory; every daemon stopped by lib.sh's
# trap; every command bounded.  About 5 s (15 s under ASan).
. "$(dirname "$0")/lib.sh"
tmo() { timeout 30 "$@"; }

# ---- 1. a confined client's flush or prefetch across its WID's pages ----
S="$T_TMP/c.sock"
start_dnetd "$S" --sim -N 2
# one-record journals: dsh's replay makes the call as recorded, through
# dnetd, as this client (the only dsh command that takes any range)
jr() { # FILE KIND OFF LEN
	printf '# dsh journal 1\n# backend sim:nodes=2\n%s node=1 off=%s len=%s rc=0\n# end 1 record\n' "$2" "$3" "$4" >"$1"
}
# LLCM of WID 0 (0x20000..0x27fff) runs straight into WID 1's (0x28000);
# the Prefetch Window of WID 0 (0x10000, 2 KB) through a page of nobody's
# into WID 1's (0x12000), write-back lines that cost time when touched.
jr "$T_TMP/f_llcm" cache_flush 0x27f00 0x200
jr "$T_TMP/f_pw" cache_flush 0x107c0 0x1880
jr "$T_TMP/p_llcm" prefetch 0x27fc0 0x80
jr "$T_TMP/p_pw" prefetch 0x107c0 0x1880
for j in f_llcm f_pw p_llcm p_pw; do
	out=$(tmo "$BIN/dsh" --gap 0 -b "remote:unix:$S,user" -c "stat vtime_ns
replay $T_TMP/$j
stat vtime_ns" 2>"$T_TMP/err")
	expect_eq "confined $j: refused (exit)" 1 $?
	expect_match "confined $j: says permission denied" "emulator failed: permission denied: 0x(28000|11000) " "$(cat "$T_TMP/err")"
	t=($(sed -n 's/^vtime_ns //p' <<<"$out"))
	if [ "${#t[@]}" -eq 2 ] && [ "${t[0]}" = "${t[1]}" ]; then pass; else
		fail "confined $j: partly done? the clock moved: [${t[*]}]"; fi
	# the same call made by a privileged client is done (and costs time,
	# for the write-back ranges and any flush): the refusal is the check's
	out=$(tmo "$BIN/dsh" --gap 0 -b "remote:unix:$S" -c "stat vtime_ns
replay $T_TMP/$j
stat vtime_ns" 2>"$T_TMP/err")
	expect_eq "privileged $j: done" 0 $?
	t=($(sed -n 's/^vtime_ns //p' <<<"$out"))
	if [ "$j" = p_llcm ] || { [ "${#t[@]}" -eq 2 ] && [ "${t[1]}" -gt "${t[0]}" ]; }; then pass; else
		fail "privileged $j: the clock did not move: [${t[*]}]"; fi
done
# clipped to its own pages, the user's calls are done
jr "$T_TMP/own" cache_flush 0x27f00 0x100
expect_status "confined: its own pages" 0 tmo "$DSH" -b "remote:unix:$S,user" -c "replay $T_TMP/own"
jr "$T_TMP/own" prefetch 0x107c0 0x40
expect_status "confined: its own PW line" 0 tmo "$DSH" -b "remote:unix:$S,user" -c "replay $T_TMP/own"
stop_pid "${T_PIDS[-1]}"

# ---- 2. --allow and --user-tokens together: the intersection ----
# (as root only: the allow-list confines uids other than dnetd's own)
if ! getent group nogroup >/dev/null; then
	skip "no group nogroup: --allow with --user-tokens not tried"
elif ! other_uid_dir nobody "$BIN/dsh"; then
	skip "$OU_WHY: --allow with --user-tokens not tried"
else
	AL="$OU_DIR/al" UT="$T_TMP/ut"
	printf 'user:nobody node=2 wid=1\ngroup:nogroup node=3 wid=0\nuid:65534 node=1 wid=0,1\n' >"$AL"
	chmod 644 "$AL"
	printf 't2-%s node=2 wid=0,1\nt3-%s node=3 wid=1\nt1-%s node=1 wid=0\n' $$ $$ $$ >"$UT"
	chmod 600 "$UT"
	S="$OU_DIR/g.sock"
	"$DNETD" --sim -N 3 --listen "unix:$S" --socket-group nogroup --allow "$AL" --user-tokens "$UT" >"$T_TMP/g.out" 2>&1 &
	T_PIDS+=($!)
	if wait_for_socket "$S" 100; then pass; else fail "no daemon: $(cat "$T_TMP/g.out")"; fi
	nb() { env -u DNET_TOKEN timeout 20 runuser -u nobody -- "$OU_DIR/dsh" -b "remote:unix:$S,user,$1" -c "$2"; }
	expect_status "both grant node 2 WID 1" 0 nb "token=t2-$$,node=2,wid=1" "stat vtime_ns"
	expect_status "the token grants node 2 WID 0, the allow-list does not" 3 nb "token=t2-$$,node=2,wid=0" "stat vtime_ns"
	expect_match "... says what both grant" "node 2 WID 0 is not granted \(its user token grants node 2 WID 1\)" "$(cat "$T_TMP/err")"
	expect_status "the allow-list grants node 3 WID 0, the token does not" 3 nb "token=t2-$$,node=3,wid=0" "stat vtime_ns"
	expect_status "... nor by @3" 1 nb "token=t2-$$,node=2,wid=1" "@3 stat vtime_ns"
	expect_match "@3 says what both grant" "node 3 WID 1 is not granted .*it may use node 2 WID 1\)" "$(cat "$T_TMP/err")"
	expect_status "no overlap (node 3: WID 0 and WID 1)" 3 nb "token=t3-$$,node=3,wid=1" "stat vtime_ns"
	expect_match "no overlap says nothing is granted" "grants nothing" "$(cat "$T_TMP/err")"
	expect_status "node 1: the token's WID 0 of the allowed 0,1" 0 nb "token=t1-$$,node=1,wid=0" "stat vtime_ns"
	expect_status "node 1: WID 1 (allowed, not the token's)" 3 nb "token=t1-$$,node=1,wid=1" "stat vtime_ns"
	expect_status "without a token: the allow-list's grant" 0 nb "node=1,wid=1" "stat vtime_ns"
	# dnetd's own uid is not confined by the allow-list: the token's grant
	expect_status "dnetd's uid with a token: the token's grant" 0 tmo env -u DNET_TOKEN "$DSH" -b "remote:unix:$S,user,token=t2-$$,node=2,wid=0" -c "stat vtime_ns"
	stop_pid "${T_PIDS[-1]}"
fi

# ---- 3. a rule naming both ends, on 3 and 4 nodes ----
# "drop from 1 to 2": 1->3 and 3->2 share one end with it and must pass
# untouched (no drop, no retransmission, one packet at the receiver);
# 1->2 loses its first 3 data packets.
S3='fault drop from 1 to 2 data count 3
prim RVS dl=3 size=512 src=0 dst=0x4000 wait
@3 stat packets_received
assert last == 1
stat faults_dropped
assert last == 0
stat retransmissions
assert last == 0
@3 prim RVS dl=2 size=512 src=0 dst=0x4000 wait
@2 stat packets_received
assert last == 1
@3 stat faults_dropped
assert last == 0
prim RVS dl=2 size=512 src=0 dst=0x4000 wait
@2 stat packets_received
assert last == 2
stat faults_dropped
assert last == 3
fault'
out=$(tmo "$BIN/dsh" -e -b sim:nodes=3 -c "$S3" 2>"$T_TMP/err")
expect_eq "from 1 to 2 on 3 nodes: exit" 0 $?
expect_match "from 1 to 2 on 3 nodes: fired 3 times only" "rule 1: drop from 1 to 2 count 3 data \(fired 3\)" "$out"
expect_eq "from 1 to 2 on 3 nodes: no stderr" "" "$(cat "$T_TMP/err")"
# the spec's rule, 4 nodes: "from 2 to 3"; 2->4, 4->3, 1->3 untouched
S4='@2 prim RVS dl=4 size=512 src=0 dst=0x4000 wait
@4 prim RVS dl=3 size=512 src=0 dst=0x4000 wait
@1 prim RVS dl=3 size=512 src=0 dst=0x6000 wait
@4 stat packets_received
assert last == 1
@3 stat packets_received
assert last == 2
@1 stat faults_injected
assert last == 0
@2 stat faults_injected
assert last == 0
@4 stat faults_injected
assert last == 0
@2 prim RVS dl=3 size=512 src=0 dst=0x8000 wait
@3 stat packets_received
assert last == 3
@2 stat faults_dropped
assert last == 2'
out=$(tmo "$BIN/dsh" -e -b 'sim:nodes=4,faults=drop:from:2:to:3:data:count:2' -c "$S4" 2>"$T_TMP/err")
expect_eq "faults= from 2 to 3 on 4 nodes: exit" 0 $?
expect_eq "faults= from 2 to 3 on 4 nodes: no stderr" "" "$(cat "$T_TMP/err")"

# ---- 4. an option given twice in a backend spec ----
# (dsh, dnetd's own spec and dnetd --sim-args; the unit checks of the split
# are in tests/unit/test_parse.c)
S="$T_TMP/o.sock"
start_dnetd "$S" --sim -N 2 >"$T_TMP/o.out" 2>&1
expect_status "two token=: refused" 3 tmo env -u DNET_TOKEN "$DSH" -b "remote:unix:$S,token=sec1-$$,token=sec2-$$" -c "stat vtime_ns"
expect_match "two token=: names the option" "option 'token' given twice \(options 1 and 2 of the spec\)" "$(cat "$T_TMP/err")"
if grep -q "sec[12]-$$" "$T_TMP/err" "$T_TMP/out"; then fail "two token=: a token's value shown: $(cat "$T_TMP/err")"; else pass; fi
expect_status "two node=: refused" 3 tmo "$DSH" -b "remote:unix:$S,node=1,user,node=2" -c "stat vtime_ns"
expect_match "two node=: names the option" "option 'node' given twice \(options 1 and 3" "$(cat "$T_TMP/err")"
expect_status "one of each: served" 0 tmo "$DSH" -b "remote:unix:$S,node=2,user,wid=1" -c "stat vtime_ns"
expect_status "sim: two nodes=" 3 tmo "$DSH" -b "sim:nodes=2,nodes=3" -c "info"
expect_match "sim: two nodes= says so" "option 'nodes' given twice" "$(cat "$T_TMP/err")"
expect_status "dnetd -N and --sim-args nodes=" 3 tmo "$DNETD" --sim -N 3 --sim-args nodes=4 --listen "unix:$T_TMP/o2.sock"
expect_match "dnetd -N and nodes= says so" "option 'nodes' given twice" "$(cat "$T_TMP/err")"
# dsh-run takes the token out of the spec before its ranks see it, so it
# refuses two itself: on -b and in a node table (at the row's line)
printf 'x\n' >"$T_TMP/o.dsh"
expect_status "dsh-run -b, two token=: refused" 2 tmo env -u DNET_TOKEN "$BIN/dsh-run" -n 1 -b "remote:unix:$S,token=sec1-$$,token=sec2-$$" "$T_TMP/o.dsh"
expect_match "dsh-run -b, two token=: says so" "token= more than once" "$(cat "$T_TMP/err")"
printf '0 localhost remote:unix:%s,token=sec1-%s,token=sec2-%s 1 0\n' "$S" $$ $$ >"$T_TMP/o.nodes"
expect_status "dsh-run node table, two token=: refused" 2 tmo env -u DNET_TOKEN "$BIN/dsh-run" -n 1 --nodes "$T_TMP/o.nodes" "$T_TMP/o.dsh"
expect_match "dsh-run node table, two token=: at the row" "o.nodes:1: the backend spec gives token= more than once" "$(cat "$T_TMP/err")"
if grep -q "sec[12]-$$" "$T_TMP/err" "$T_TMP/out"; then fail "dsh-run two token=: a token's value shown"; else pass; fi
stop_pid "${T_PIDS[-1]}"

finish
