#!/usr/bin/env bash
# dsh-run on several hosts (issue 22, items 2 and 6; decision D-RUN-HOSTS):
# the node table's HOST column reaches real Open MPI and real pdsh, each
# rank reports where it ran, and a rank placed elsewhere than the table
# says fails.
#
# The hosts are network namespaces this test makes (root): a bridge in a
# namespace of its own and a veth pair to each of "dn" (one dnetd on TCP
# with a token), "ctl" (dsh-run, mpirun, pdsh) and the two rank hosts
# "h1" and "h2"; ctl, h1 and h2 each get their own UTS name (unshare
# --uts), so uname tells where a rank ran.  The hosts' addresses (a /24 of
# the 198.18.0.0/15 benchmark range) exist only inside the namespaces:
# before anything starts the range is routed to a blackhole in the outer
# namespace, and every client runs inside a namespace, so no packet leaves
# the machine.  AGENT below plays ssh for both launchers: Open MPI's rsh
# agent (plm_rsh_agent) and, first on pdsh's PATH, the "ssh" of pdsh's ssh
# rcmd (dsh-run --rcmd ssh); it reaches a host by `ip netns exec`, with an
# empty environment as ssh would (so nothing depends on what a launcher
# forwards) and a TMPDIR per host (Open MPI's session directories).  Its
# host map, MAP, is the "name service": swapped (as a wrong /etc/hosts or
# ssh config would), every name of the table reaches the other host, and
# the ranks must then fail as placed elsewhere; so must ranks that pdsh's
# exec rcmd keeps on ctl.
#
# Every process is ended by PID, and every namespace (with its veths and
# the bridge) and the blackhole route are removed at exit.  Plain build
# only (heavy, like the launcher cells of test_dsh_run_launchers.sh);
# skipped where namespaces cannot be made.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"

if [[ $BIN == */build-san/* ]]; then
	not_applicable "multi-host cells: heavy, run on the plain build only"
	finish
	exit
fi
for t in ip unshare; do
	if ! command -v $t >/dev/null 2>&1; then
		skip "multi-host cells: no $t (iproute2, util-linux: scripts/install-deps.sh test)"
		finish
		exit
	fi
done
P=dmh$$ # namespace and veth prefix: unique per run
if [ "$(id -u)" -ne 0 ]; then
	skip "multi-host cells: cannot make network namespaces: not root"
	finish
	exit
fi
if ! ip netns add "${P}probe" 2>"$T_TMP/probe.err"; then
	skip "multi-host cells: cannot make network namespaces: $(head -c 200 "$T_TMP/probe.err")"
	finish
	exit
fi
if ! ip netns exec "${P}probe" unshare --uts hostname probe 2>"$T_TMP/probe.err"; then
	ip netns del "${P}probe"
	skip "multi-host cells: cannot give a namespace its own host name: $(head -c 200 "$T_TMP/probe.err")"
	finish
	exit
fi
ip netns del "${P}probe"

# ---- the network, all of it removed at exit ----
NET=198.$((18 + $$ / 256 % 2)).$(($$ % 256)) # a /24 of 198.18.0.0/15
NSS=()
ROUTED=0
mh_cleanup() {
	local ns p
	for ns in "${NSS[@]}"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do stop_pid "$p"; done
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null || echo "$T_SUITE: could not remove namespace $ns" >&2
	done
	[ "$ROUTED" = 1 ] && { ip route del blackhole "$NET.0/24" 2>/dev/null || echo "$T_SUITE: could not remove the blackhole route $NET.0/24" >&2; }
}
trap 'mh_cleanup; cleanup' EXIT
# a signal ends the test through exit, so the EXIT trap removes everything
# (bash runs it once the command in the foreground has ended)
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
setup_net() {
	# first: nothing for the range may leave the outer namespace
	ip route add blackhole "$NET.0/24" || return 1
	ROUTED=1
	ip netns add "${P}br" || return 1
	NSS+=("${P}br")
	ip -n "${P}br" link add br0 type bridge && ip -n "${P}br" link set br0 up || return 1
	local i=1 h
	for h in dn ctl h1 h2; do
		ip netns add "$P$h" || return 1
		NSS+=("$P$h")
		# made in the outer namespace, both ends moved out at once
		ip link add "v$P$h" netns "${P}br" type veth peer name eth0 netns "$P$h" || return 1
		ip -n "${P}br" link set "v$P$h" master br0 up &&
			ip -n "$P$h" addr add "$NET.$i/24" dev eth0 &&
			ip -n "$P$h" link set eth0 up && ip -n "$P$h" link set lo up || return 1
		i=$((i + 1))
	done
}
if ! setup_net 2>"$T_TMP/net.err"; then
	fail "could not make the namespaces' network: $(head -c 300 "$T_TMP/net.err")"
	finish
	exit 1
fi
echo "$T_SUITE: hosts ${P}{dn,ctl,h1,h2} on $NET.0/24 (blackholed outside)"

# ---- the token: the one place to switch to another mechanism ----
# Today the ranks' backend carries it (",token=T", in the node table and on
# the readiness probe's command line); dnetd reads it from a file.  AGENT
# starts every rank with an empty environment, as ssh does: a token given
# as DNET_TOKEN must reach the ranks through dsh-run itself.
TOKEN=mh$RANDOM$RANDOM$RANDOM
printf '%s\n' "$TOKEN" >"$T_TMP/token" && chmod 600 "$T_TMP/token"
BACKEND="remote:tcp:$NET.1:7321,token=$TOKEN"
# ---- end of the token ----

spawn timeout 300 ip netns exec "${P}dn" "$DNETD" --sim -N 4 --listen "tcp:$NET.1:7321" --token-file "$T_TMP/token"
# in_ctl CMD...: CMD on host ctl (its own UTS name, TMPDIR, Open MPI settings)
mkdir -p "$T_TMP/tmp.ctl" "$T_TMP/where"
in_ctl() {
	ip netns exec "${P}ctl" unshare --uts env TMPDIR="$T_TMP/tmp.ctl" OMPI_MCA_plm_rsh_agent="$AGENT" \
		OMPI_MCA_rtc='^hwloc' OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		PATH="$T_TMP/fakessh:$PATH" sh -c 'hostname ctl && exec "$@"' in_ctl "$@"
}
up=0
for _ in $(seq 50); do
	if ip netns exec "${P}ctl" "$BIN/dsh" -b "$BACKEND" -c info >/dev/null 2>&1; then up=1; break; fi
	sleep 0.1
done
if [ "$up" != 1 ]; then
	fail "dnetd in ${P}dn did not answer on $NET.1:7321 within 5 s"
	finish
	exit 1
fi

# AGENT HOST CMD...: ssh for Open MPI and pdsh (options before HOST skipped,
# CMD through a shell as ssh does), into the namespace MAP gives HOST.
AGENT=$T_TMP/fakessh/ssh
MAP=$T_TMP/map
mkdir -p "$T_TMP/fakessh"
cat >"$AGENT" <<EOF
#!/usr/bin/env bash
while [ \$# -gt 0 ]; do case \$1 in -l|-p|-o) shift 2 ;; -*) shift ;; *) break ;; esac; done
host=\$1; shift
ns=\$(awk -v h="\$host" '\$1 == h { print \$2 }' "$MAP")
[ -n "\$ns" ] || { echo "agent: no host \$host" >&2; exit 255; }
uts=\${ns#$P}
mkdir -p "$T_TMP/tmp.\$uts"
exec ip netns exec "\$ns" unshare --uts env -i PATH="$PATH" HOME=/root TMPDIR="$T_TMP/tmp.\$uts" \\
	sh -c 'hostname "\$1" && shift && exec sh -c "\$*"' agent "\$uts" "\$@"
EOF
chmod 755 "$AGENT"
map_right() { printf 'h1 %sh1\nh2 %sh2\n' "$P" "$P" >"$MAP"; }
map_swapped() { printf 'h1 %sh2\nh2 %sh1\n' "$P" "$P" >"$MAP"; }

# --dsh: what each rank ran on, from the rank itself (OMPI_COMM_WORLD_RANK
# under mpirun, DSH_RANK under pdsh), beside what dsh-run reports
WRAP=$T_TMP/rank-wrapper
cat >"$WRAP" <<EOF
#!/usr/bin/env bash
uname -n >"$T_TMP/where/\${OMPI_COMM_WORLD_RANK:-\${DSH_RANK:-x}}"
exec "$BIN/dsh" "\$@"
EOF
chmod 755 "$WRAP"

# 4 ranks, alternating hosts, one dnetd: the barrier holds only if all
# four reach the same emulated cluster
TABLE=$T_TMP/hosts.table
{
	echo "# RANK HOST BACKEND CLID WID"
	for r in 0 1 2 3; do echo "$r h$((r % 2 + 1)) $BACKEND $((r + 1)) 0"; done
} >"$TABLE"
SCRIPT=$T_TMP/mh.dsh
printf 'llcm_write from=0x200 it=1 val=0x5a\nbarrier\nassert llcm 0x200 == 0x5a\nbarrier\n' >"$SCRIPT"

# run TAG ARGS...: dsh-run on ctl; exit status in RC, files under $T_TMP/TAG.*
run() {
	local tag=$1 t0=$SECONDS; shift
	rm -f "$T_TMP/where/"*
	in_ctl timeout 60 "$BIN/dsh-run" -t 20s --dsh "$WRAP" --report "$T_TMP/$tag.json" --junit "$T_TMP/$tag.xml" \
		"$@" "$SCRIPT" >"$T_TMP/$tag.out" 2>"$T_TMP/$tag.err"
	RC=$?
	echo "$T_SUITE: $tag: exit $RC in $((SECONDS - t0)) s"
}
# the hosts as each rank saw them, CTRF's and JUnit's, in rank order
where() { local r; for r in "$@"; do cat "$T_TMP/where/$r" 2>/dev/null || echo -; done | tr '\n' ' ' | sed 's/ $//'; }
ctrf_hosts() { jq -r '[.results.tests | sort_by(.extra.rank)[] | .extra.host // "-"] | join(" ")' "$1" 2>&1; }
junit_hosts() {
	"$PY" - "$1" <<'PYEOF'
import re, sys
import xml.etree.ElementTree as ET
cases = sorted(ET.parse(sys.argv[1]).getroot().iter("testcase"),
               key=lambda c: int(re.search(r"rank (\d+)", c.get("name")).group(1)))
print(" ".join(next((p.get("value") for p in c.iter("property") if p.get("name") == "host"), "-") for c in cases))
PYEOF
}
reports_valid() { # TAG WHAT
	expect_eq "$2: CTRF validates" "" "$(ctrf_valid "$T_TMP/$1.json" 2>&1 | tail -n 3)"
	expect_match "$2: JUnit validates" "validates$" "$(junit_valid "$T_TMP/$1.xml")"
}

# placed LAUNCHER ARGS...: the table's placement, seen by the ranks and both reports
placed() {
	local l=$1 tag=$1.placed; shift
	map_right
	run "$tag" --nodes "$TABLE" -l "$l" "$@"
	expect_eq "$l: exit status (stderr: $(head -c 400 "$T_TMP/$tag.err"))" 0 "$RC"
	expect_match "$l: summary" "^4 passed, 0 failed" "$(cat "$T_TMP/$tag.out")"
	expect_eq "$l: where the ranks ran (uname on the rank)" "h1 h2 h1 h2" "$(where 0 1 2 3)"
	expect_eq "$l: CTRF tests[].extra.host" "h1 h2 h1 h2" "$(ctrf_hosts "$T_TMP/$tag.json")"
	expect_eq "$l: JUnit testcase property host" "h1 h2 h1 h2" "$(junit_hosts "$T_TMP/$tag.xml")"
	reports_valid "$tag" "$l"
}
# misplaced LAUNCHER ARGS...: every name reaches the other host: every rank fails, named
misplaced() {
	local l=$1 tag=$1.misplaced r; shift
	map_swapped
	run "$tag" --nodes "$TABLE" -l "$l" "$@"
	expect_eq "$l swapped: exit status" 1 "$RC"
	expect_match "$l swapped: summary" "^0 passed, 4 failed" "$(cat "$T_TMP/$tag.out")"
	expect_eq "$l swapped: where the ranks ran" "h2 h1 h2 h1" "$(where 0 1 2 3)"
	for r in 0 1 2 3; do
		expect_match "$l swapped: terminal names rank $r's hosts" \
			"FAIL rank $r ran on host h$(((r + 1) % 2 + 1)), but the node table \(.*\) puts it on h$((r % 2 + 1))" \
			"$(grep -a "FAIL rank $r " "$T_TMP/$tag.err")"
	done
	expect_eq "$l swapped: CTRF statuses" "failed failed failed failed" \
		"$(jq -r '[.results.tests | sort_by(.extra.rank)[] | .status] | join(" ")' "$T_TMP/$tag.json")"
	expect_eq "$l swapped: CTRF hosts (where they ran)" "h2 h1 h2 h1" "$(ctrf_hosts "$T_TMP/$tag.json")"
	expect_eq "$l swapped: JUnit failures" 4 "$(grep -c '<failure ' "$T_TMP/$tag.xml")"
	reports_valid "$tag" "$l swapped"
}

if command -v mpirun >/dev/null 2>&1; then
	placed mpirun
	misplaced mpirun
	# without a table the ranks run where mpirun does, and say so
	run mpirun.notable -n 2 -b "$BACKEND" -l mpirun
	expect_eq "mpirun, no table: exit status (stderr: $(head -c 300 "$T_TMP/mpirun.notable.err"))" 0 "$RC"
	expect_eq "mpirun, no table: CTRF hosts" "ctl ctl" "$(ctrf_hosts "$T_TMP/mpirun.notable.json")"
else
	skip "mpirun cells: no mpirun (openmpi-bin: scripts/install-deps.sh test)"
fi
if ! command -v pdsh >/dev/null 2>&1; then
	skip "pdsh cells: no pdsh (scripts/install-deps.sh test)"
elif ! pdsh -V 2>&1 | grep -q 'rcmd modules:.*ssh'; then
	skip "pdsh cells: pdsh has no ssh rcmd module ($(pdsh -V 2>&1 | tr '\n' ' '))"
else
	placed pdsh --rcmd ssh
	misplaced pdsh --rcmd ssh
	# an rcmd that never leaves this machine (pdsh's exec runs the command
	# here): every rank ran on ctl, and fails
	map_right
	run pdsh.exec --nodes "$TABLE" -l pdsh --rcmd exec
	expect_eq "pdsh --rcmd exec: exit status" 1 "$RC"
	expect_eq "pdsh --rcmd exec: where the ranks ran" "ctl ctl ctl ctl" "$(where 0 1 2 3)"
	expect_match "pdsh --rcmd exec: terminal names rank 3's hosts" \
		"FAIL rank 3 ran on host ctl, but the node table \(.*\) puts it on h2" "$(grep -a "FAIL rank 3 " "$T_TMP/pdsh.exec.err")"
	expect_eq "pdsh --rcmd exec: CTRF statuses" "failed failed failed failed" \
		"$(jq -r '[.results.tests | sort_by(.extra.rank)[] | .status] | join(" ")' "$T_TMP/pdsh.exec.json")"
fi
finish
