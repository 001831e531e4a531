#!/usr/bin/env bash
# dnetd's privilege model and limits (issue 12, "a daemon that holds"):
#  - grant files (--user-tokens, --allow): strict parsing with FILE:LINE
#    errors, token files readable by others refused;
#  - TCP: the admin token admits privileged clients, a user token a user of
#    its node and WIDs only; a HELLO can only ask for less; a request on a node outside
#    the grant refused;
#  - UNIX with --allow (as root: other uids through runuser): confined to
#    their lines, a uid in no line refused;
#  - --idle-evict: a full table makes room by dropping the client idle longest;
#  - --vtime-budget: the virtual time one peer may add to the shared clock.
# UNIX sockets in a temp dir and TCP on 127.0.0.1 only; every daemon is
# stopped by lib.sh's trap; every wait is bounded.  About 12 s (30 s under ASan).
# Decisions pinned here (docs/decisions.md): D-DNETD-PRIV.
. "$(dirname "$0")/lib.sh"

tmo() { timeout 20 "$@"; }
# wait_for_line FILE REGEX [TENTHS]
wait_for_line() {
	local i=0 max=${3:-50}
	while ! grep -Eq -- "$2" "$1" 2>/dev/null && [ $i -lt "$max" ]; do sleep 0.1; i=$((i + 1)); done
	grep -Eq -- "$2" "$1" 2>/dev/null
}
if [ ! -x "$DNETD" ]; then
	fail "no $DNETD"
	finish
	exit
fi

# ---- grant files: errors name FILE:LINE; the daemon does not start ----
UT="$T_TMP/ut"
bad_tokens() { # NAME CONTENT REGEX
	printf '%b' "$2" >"$UT"
	chmod 600 "$UT"
	expect_status "user tokens: $1" 2 tmo "$DNETD" --sim --listen "unix:$T_TMP/x.sock" --user-tokens "$UT"
	expect_match "user tokens: $1 says" "$3" "$(cat "$T_TMP/err")"
}
# (every error of the grammar: tests/unit/test_dnetd_grants.c)
bad_tokens "no wid" '# c\n\nt1 node=1\n' "ut:3: missing wid"
bad_tokens "same token" 't1 node=1 wid=0\nt2 node=1 wid=1\n  t1 node=2 wid=0\n' "ut:3: the same token as .*ut:1"
printf 't1 node=1 wid=0\n' >"$UT"
chmod 644 "$UT"
expect_status "user tokens readable by others" 2 tmo "$DNETD" --sim --listen "unix:$T_TMP/x.sock" --user-tokens "$UT"
expect_match "readable by others says so" "readable by others.*chmod o-rwx" "$(cat "$T_TMP/err")"
chmod 600 "$UT"
printf 'admin\n' >"$T_TMP/at"
chmod 644 "$T_TMP/at"
expect_status "token file readable by others" 2 tmo "$DNETD" --sim --listen tcp:127.0.0.1:0 --token-file "$T_TMP/at"
expect_match "token file readable says so" "readable by others" "$(cat "$T_TMP/err")"
chmod 600 "$T_TMP/at"
printf 't1 node=9 wid=0\n' >"$UT"
expect_status "a node that does not exist" 1 tmo "$DNETD" --sim -N 2 --listen "unix:$T_TMP/x.sock" --user-tokens "$UT"
expect_match "node 9 says so" "ut:1: node 9 does not exist" "$(cat "$T_TMP/err")"
printf 'admin node=1 wid=0\n' >"$UT"
expect_status "user token = admin token" 1 tmo "$DNETD" --sim --listen tcp:127.0.0.1:0 --token-file "$T_TMP/at" --user-tokens "$UT"
expect_match "user token = admin token says so" "ut:1: this user token is the admin token" "$(cat "$T_TMP/err")"
AL="$T_TMP/al"
bad_allow() { # NAME CONTENT REGEX
	printf '%b' "$2" >"$AL"
	chmod 644 "$AL"
	expect_status "allow: $1" 2 tmo "$DNETD" --sim --listen "unix:$T_TMP/x.sock" --allow "$AL"
	expect_match "allow: $1 says" "$3" "$(cat "$T_TMP/err")"
}
bad_allow "unknown group" '\n group:no-such-group-x node=1 wid=0\n' "al:2: no group 'no-such-group-x'"
printf 'uid:65534 node=1 wid=0\n' >"$AL"
chmod 666 "$AL"
expect_status "allow-list writable by others" 2 tmo "$DNETD" --sim --listen "unix:$T_TMP/x.sock" --allow "$AL"
expect_match "writable by others says so" "writable by others" "$(cat "$T_TMP/err")"
chmod 644 "$AL"
expect_status "allow-list on TCP" 2 tmo "$DNETD" --sim --listen tcp:127.0.0.1:0 --token admin --allow "$AL"
expect_match "allow-list on TCP says so" "for UNIX sockets" "$(cat "$T_TMP/err")"
expect_status "--vtime-budget bad" 2 tmo "$DNETD" --sim --vtime-budget 3parsecs
help=$("$DNETD" --help)
for o in --user-tokens --allow --idle-evict --vtime-budget; do
	expect_match "help: $o" "$o" "$help"
done

# ---- TCP: the admin token and user tokens ----
printf '# user tokens\n\nalice-%s node=2 wid=1\nbob-%s   node=1 wid=0,1\n' $$ $$ >"$UT"
chmod 600 "$UT"
"$DNETD" --sim -N 3 --listen tcp:127.0.0.1:0 --token-file "$T_TMP/at" --user-tokens "$UT" >"$T_TMP/t.out" 2>&1 &
T_PIDS+=($!)
if wait_for_line "$T_TMP/t.out" "on tcp:127\.0\.0\.1:[0-9]+" 100; then pass; else fail "no TCP daemon: $(cat "$T_TMP/t.out")"; fi
TA=$(grep -Eo "tcp:127\.0\.0\.1:[0-9]+" "$T_TMP/t.out" | head -n 1)
r() { env -u DNET_TOKEN timeout 20 "$DSH" -b "remote:$TA,$1" -c "$2"; }
expect_status "admin token: privileged" 0 r "token=admin" "reg sma_lid"
expect_status "admin token: any node" 0 r "token=admin,node=3,wid=1" "@1 stat vtime_ns"
expect_status "user token asking for privilege" 3 r "token=alice-$$,node=2,wid=1" "stat vtime_ns"
expect_match "privilege refused says why" "may be a user only.*,user" "$(cat "$T_TMP/err")"
expect_status "user token, another node" 3 r "token=alice-$$,user,node=1,wid=1" "stat vtime_ns"
expect_match "another node says what is granted" "node 1 WID 1 is not granted.*grants node 2 WID 1" "$(cat "$T_TMP/err")"
expect_status "user token, another WID" 3 r "token=alice-$$,user,node=2,wid=0" "stat vtime_ns"
expect_status "user token, its node and WID" 0 r "token=alice-$$,user,node=2,wid=1" "stat vtime_ns"
expect_status "user token: no System Register" 1 r "token=alice-$$,user,node=2,wid=1" "reg sma_lid"
expect_status "user token: @1 outside" 1 r "token=alice-$$,user,node=2,wid=1" "@1 stat vtime_ns"
expect_match "@1 outside says so" "node 1 WID 1 is not granted" "$(cat "$T_TMP/err")"
expect_status "user token of WIDs 0,1 asks for WID 1 (less)" 0 r "token=bob-$$,user,node=1,wid=1" "stat vtime_ns"
expect_status "user token of WIDs 0,1 asks for WID 0" 0 r "token=bob-$$,user,node=1,wid=0" "stat vtime_ns"
expect_status "admin asks for less (user)" 0 r "token=admin,user" "stat vtime_ns"
expect_status "a wrong token" 3 r "token=carol,user" "stat vtime_ns"
expect_match "the refusals are logged" "user token of .*ut:3" "$(cat "$T_TMP/t.out")"

# UNIX with user tokens only: the uid decides, a user token narrows it
S="$T_TMP/ut.sock"
"$DNETD" --sim -N 3 --listen "unix:$S" --user-tokens "$UT" >"$T_TMP/ut.out" 2>&1 &
T_PIDS+=($!)
if wait_for_socket "$S" 100; then pass; else fail "no daemon: $(cat "$T_TMP/ut.out")"; fi
ru() { env -u DNET_TOKEN timeout 20 "$DSH" -b "remote:unix:$S$1" -c "$2"; }
expect_status "UNIX, user tokens only: no token, the uid decides" 0 ru "" "reg sma_lid"
expect_status "UNIX: a user token narrows it" 1 ru ",token=bob-$$,user" "reg sma_lid"
expect_status "UNIX: a user token's node" 3 ru ",token=bob-$$,user,node=2" "stat vtime_ns"
expect_status "UNIX: a wrong token" 3 ru ",token=carol" "stat vtime_ns"
stop_pid "${T_PIDS[-1]}"

# ---- UNIX with --allow: other uids confined (root only: runuser) ----
# (uid nobody runs a copy of dsh; the socket is in the same directory, in
# its reach wherever the checkout and T_TMP are)
if ! getent group nogroup >/dev/null; then
	skip "no group nogroup: --allow for other uids not tried"
elif ! other_uid_dir nobody "$BIN/dsh"; then
	skip "$OU_WHY: --allow for other uids not tried"
else
	printf '# who may use what\nuser:nobody node=2 wid=1\ngroup:nogroup node=3 wid=0\nuid:65534 node=1 wid=1\n' >"$AL"
	chmod 644 "$AL"
	S="$OU_DIR/u.sock"
	"$DNETD" --sim -N 3 --listen "unix:$S" --socket-group nogroup --allow "$AL" -v >"$T_TMP/u.out" 2>&1 &
	T_PIDS+=($!)
	if wait_for_socket "$S" 100; then pass; else fail "no UNIX daemon: $(cat "$T_TMP/u.out")"; fi
	nb() { timeout 20 runuser -u nobody -- "$OU_DIR/dsh" -b "remote:unix:$S,$1" -c "$2"; }
	expect_status "allow: its node and WID" 0 nb "user,node=2,wid=1" "stat vtime_ns"
	expect_status "allow: by its group" 0 nb "user,node=3,wid=0" "stat vtime_ns"
	expect_status "allow: @1, another node of its grant" 0 nb "user,node=2,wid=1" "stat vtime_ns; @1 stat vtime_ns"
	expect_status "allow: @3, outside its grant" 1 nb "user,node=2,wid=1" "@3 stat vtime_ns"
	expect_status "allow: another WID" 3 nb "user,node=3,wid=1" "stat vtime_ns"
	expect_match "allow: another WID says what is granted" "grants node 2 WID 1; node 3 WID 0; node 1 WID 1" "$(cat "$T_TMP/err")"
	expect_status "allow: asking for privilege" 3 nb "node=2,wid=1" "stat vtime_ns"
	expect_status "allow: the daemon's uid is not confined" 0 timeout 20 "$DSH" -b "remote:unix:$S,node=1" -c "reg sma_lid"
	stop_pid "${T_PIDS[-1]}"
	printf 'user:root node=1 wid=0\n' >"$AL"
	"$DNETD" --sim -N 3 --listen "unix:$S" --socket-group nogroup --allow "$AL" >"$T_TMP/u2.out" 2>&1 &
	T_PIDS+=($!)
	if wait_for_socket "$S" 100; then pass; else fail "no UNIX daemon: $(cat "$T_TMP/u2.out")"; fi
	expect_status "allow: a uid in no line" 3 nb "user" "stat vtime_ns"
	expect_match "a uid in no line says so" "uid 65534 \(nobody\) is not in this dnetd's allow-list" "$(cat "$T_TMP/err")"
	stop_pid "${T_PIDS[-1]}"
fi

# ---- --idle-evict: a full table drops the client idle longest ----
S="$T_TMP/e.sock"
"$DNETD" --sim --listen "unix:$S" --max-clients 2 --idle-evict 1s >"$T_TMP/e.out" 2>&1 &
T_PIDS+=($!)
if wait_for_socket "$S" 100; then pass; else fail "no daemon: $(cat "$T_TMP/e.out")"; fi
# two clients that connect and then think (dsh reads its script from a FIFO
# this shell holds open: no end of input)
mkfifo "$T_TMP/think"
exec 7<>"$T_TMP/think"
"$DSH" -b "remote:unix:$S" <"$T_TMP/think" >"$T_TMP/idle1" 2>&1 &
T_PIDS+=($!)
"$DSH" -b "remote:unix:$S" <"$T_TMP/think" >"$T_TMP/idle2" 2>&1 &
T_PIDS+=($!)
sleep 0.5
expect_status "full: refused while nobody has been idle 1 s" 3 tmo "$DSH" -b "remote:unix:$S" -c "stat vtime_ns"
expect_match "full says so" "too many clients" "$(cat "$T_TMP/err")"
sleep 1.2
expect_status "full: a new client replaces the one idle longest" 0 tmo "$DSH" -b "remote:unix:$S" -c "stat vtime_ns"
expect_match "the eviction is logged" "idle: dnetd was full.*--idle-evict" "$(cat "$T_TMP/e.out")"
stop_pid "${T_PIDS[-1]}"
stop_pid "${T_PIDS[-2]}"
exec 7>&-

# ---- --vtime-budget: what one peer may add to the shared virtual clock ----
S="$T_TMP/v.sock"
"$DNETD" --sim --listen "unix:$S" --vtime-budget 10min >"$T_TMP/v.out" 2>&1 &
T_PIDS+=($!)
if wait_for_socket "$S" 100; then pass; else fail "no daemon: $(cat "$T_TMP/v.out")"; fi
v() { tmo "$DSH" -b "remote:unix:$S" -c "$1"; }
expect_status "a delay longer than the budget" 1 v "sleep 700s"
expect_match "longer than the budget says so" "at most 600.000s .*--vtime-budget" "$(cat "$T_TMP/err")"
expect_status "a delay within it" 0 v "sleep 500s"
expect_status "then one more than is left" 1 v "sleep 500s"
expect_match "more than is left says so" "may add only .* more" "$(cat "$T_TMP/err")"
expect_status "a never-true wait stops at the budget" 1 v "wait ctl_status == 0xdead timeout=3000s"
expect_match "the wait says why" "wait stopped .*budget" "$(cat "$T_TMP/err")"
expect_status "the clock is usable: a primitive" 0 v "prim RVS dl=2 size=4096 src=0 dst=0x1000 wait; stat vtime_ns"
vt=$(sed -n 's/^vtime_ns //p' "$T_TMP/out")
if [ -n "$vt" ] && [ "$vt" -lt 1200000000000 ]; then pass; else fail "clock after the budget: [$vt] ns"; fi
stop_pid "${T_PIDS[-1]}"
"$DNETD" --sim --listen "unix:$S" --vtime-budget 0 >"$T_TMP/v0.out" 2>&1 &
T_PIDS+=($!)
if wait_for_socket "$S" 100; then pass; else fail "no daemon: $(cat "$T_TMP/v0.out")"; fi
expect_status "--vtime-budget 0: no cap" 0 v "sleep 7200s"
stop_pid "${T_PIDS[-1]}"

finish
