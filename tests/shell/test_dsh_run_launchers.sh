#!/usr/bin/env bash
# dsh-run's verdict matrix (issue 21, docs/reports.md "dsh-run's verdict
# matrix"): every failure class a run can meet, crossed with every launcher
# (local, real mpirun, real pdsh with its exec rcmd, real srun on a one-node
# Slurm this test starts itself), must fail in every layer a reader sees --
# dsh-run's exit status, its terminal output (the failing rank, file and
# line named), the CTRF report (summary.failed and the test's status) and
# the JUnit report (failures + errors of the script's testsuite, the
# failing rank's testcase) -- and the same scripts with the failure removed
# must pass in every layer.
#
# Each class is one script run on 2 ranks, failing on rank 1 only (`repeat
# $rank ... end` runs its body on rank 1, not on rank 0: scripts have no
# conditionals); rank 0 must pass, so a launcher that blames an innocent
# rank fails too.  The classes:
#   assert       an assertion that does not hold
#   device       a device error: an RVS that overruns the receiver
#   posted       a failure only the daemon sees: a delay dnetd refuses
#                (--vtime-budget) after an llcm_write (dsh-run's ranks
#                write --json, which never posts: the refusal is the reply)
#   exit         exit 3
#   crash        dsh itself dies of SIGSEGV in the middle of the script
#   crash_after  the rank dies of SIGSEGV after dsh wrote its summary
#   hang         a rank stuck past -t (waitfor a rank that never signals)
#   nostart      a rank that never starts dsh (exits 127 first)
#   early        rank 1 exits 3 at once while rank 0 is still working (the
#                wrapper holds it 3 s before dsh starts) and then passes: a
#                launcher that aborts the job at the first failure (Open MPI's
#                default) would report rank 0 failed (issue 31 class 8)
# The passing variants also hold pass/setwid.dsh: `set wid 1` before the
# first barrier, then barriers and signals (issue 31 class 10: the flags had
# gone to the run's WID while each rank polled its new one).
# crash, crash_after and nostart are done by the --dsh wrapper below (no dsh
# command kills dsh); the wrapper knows its rank from DSH_RANK (local, pdsh),
# OMPI_COMM_WORLD_RANK (mpirun) or SLURM_PROCID (srun).  Each class is a
# dsh-run call of its own, so that the exit status and the report totals
# are that class's alone (dsh-run costs one launcher start per script
# anyway: sharing a call would save little); the passing variants of every
# class share one call.  The cells print "cell CLASS x LAUNCHER: pass|FAIL",
# the table of docs/reports.md.  mpirun, pdsh and srun run on the plain
# build only.
# Decisions pinned here (docs/decisions.md): D-RUN-ENV, D-RUN-LAUNCHER-ABORT.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"
. "$(dirname "$0")/slurm.sh"
CLASSES=(assert device posted exit crash crash_after hang nostart early)
TMO=10s # dsh-run -t: the hang class costs this much per launcher; a launcher starting
        # a rank on a loaded machine (mpirun: seconds) must never reach it
M=$T_TMP/m
mkdir -p "$M/fail" "$M/pass"

# mk CLASS PRELUDE FAILING POSTLUDE: fail/CLASS.dsh runs FAILING on rank 1
# (at line P+2, P the prelude's lines); pass/CLASS.dsh is the same script
# without it.
mk() {
	local c=$1
	{ printf '%s\n' "$2"; printf 'repeat $rank\n%s\nend\n' "$3"; printf '%s\n' "$4"; } >"$M/fail/$c.dsh"
	{ printf '%s\n' "$2"; printf '%s\n' "$4"; } >"$M/pass/$c.dsh"
}
mk assert 'llcm_write from=0x10 it=1 val=5' 'assert llcm 0x10 == 6' 'assert llcm 0x10 == 5'
mk device 'ww_write ww=0 from=0 it=64 val=0xc0de0000 inc=1
prim VS size=256 src=0 dst=0x1000 wait' \
	'prim RVS dl=$clid ef=1 size=0x200 src=0x1000 dst=0xfffff00 wait' \
	'prim RVS dl=$clid ef=1 size=0x100 src=0x1000 dst=0x4000 wait
assert sodimm 0x4000 == 0xc0de0001c0de0000'
mk posted 'llcm_write from=0x20 it=1 val=7' 'sleep 7200s' 'llcm_write from=0x28 it=1 val=8
assert llcm 0x28 == 8'
mk exit 'llcm_write from=0x30 it=1 val=9' 'exit 3' 'assert llcm 0x30 == 9'
# crash: rank 1 waits (for a signal that never comes) until the wrapper's
# SIGSEGV, 1 s after the start, ends dsh
mk crash 'llcm_write from=0x38 it=1 val=1' 'waitfor 0 timeout=20s' 'assert llcm 0x38 == 1'
mk crash_after 'llcm_write from=0x40 it=1 val=2' 'echo summary next' 'assert llcm 0x40 == 2'
mk hang 'llcm_write from=0x48 it=1 val=3' 'waitfor 0 timeout=600s' 'assert llcm 0x48 == 3'
mk nostart 'llcm_write from=0x50 it=1 val=4' 'echo started' 'assert llcm 0x50 == 4'
mk early 'llcm_write from=0x58 it=1 val=5' 'exit 3' 'assert llcm 0x58 == 5'
printf 'set wid 1\nbarrier timeout=20s\nsignal $next timeout=20s\nwaitfor $prev timeout=20s\nbarrier timeout=20s\nset wid 0\nassert llcm 0x60 == 0\n' >"$M/pass/setwid.dsh"
# the line of the failing command in fail/CLASS.dsh, where dsh names it (a
# failed command): CTRF's line of rank 1's test.  (exit's line is in dsh's
# summary, exit_at; where a hang or a crash stopped is not always known.)
declare -A LINE=([assert]=3 [device]=4 [posted]=3)

WRAP=$T_TMP/rank-wrapper
cat >"$WRAP" <<EOF
#!/usr/bin/env bash
# dsh-run --dsh for the verdict matrix: rank 1 of fail/nostart.dsh exits 127
# before dsh runs; rank 1 of fail/crash.dsh is dsh killed by SIGSEGV 1 s
# after it started; rank 1 of fail/crash_after.dsh dies of SIGSEGV after
# dsh ran to its end.  Everything else is dsh through dsh-collect.
r=\${DSH_RANK:-\${OMPI_COMM_WORLD_RANK:-\${SLURM_PROCID:-x}}}
case " \$* " in
*" $M/fail/nostart.dsh "*) [ "\$r" = 1 ] && exit 127 ;;
*" $M/fail/early.dsh "*) [ "\$r" = 0 ] && sleep 3 ;;
*" $M/fail/crash.dsh "*)
	if [ "\$r" = 1 ]; then
		ulimit -c 0
		# a sanitizer build would catch the signal and exit 1: let it kill
		export ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}handle_segv=0"
		export UBSAN_OPTIONS="\${UBSAN_OPTIONS:+\$UBSAN_OPTIONS:}handle_segv=0"
		# the pid of this shell is dsh's once exec'd
		( sleep 1; kill -SEGV \$\$ ) </dev/null >/dev/null 2>&1 &
		exec "$BIN/dsh" "\$@"
	fi ;;
esac
"$T_SHELL/dsh-collect" "\$@"
rc=\$?
case " \$* " in
*" $M/fail/crash_after.dsh "*) if [ "\$r" = 1 ]; then ulimit -c 0; kill -SEGV \$\$; fi ;;
esac
exit \$rc
EOF
chmod 755 "$WRAP"

# the terminal: what dsh-run must say about rank 1 of fail/CLASS.dsh
declare -A SAYS=(
	[assert]="rank 1: [^ ]*fail/assert\.dsh:3: assert: assertion failed"
	[device]="rank 1: [^ ]*fail/device\.dsh:4: prim: .*rc_overrun"
	[posted]="rank 1: [^ ]*fail/posted\.dsh:3: sleep: .*refused"
	[exit]="rank 1[: ].*fail/exit\.dsh.*(exit status 3|exit 3)"
	[crash]="rank 1[: ].*fail/crash\.dsh.*(exit status 139|signal|SIGSEGV|[Ss]egmentation)"
	[crash_after]="rank 1[: ].*fail/crash_after\.dsh.*(exit status 139|signal|SIGSEGV|[Ss]egmentation)"
	[hang]="rank 1[: ].*(timed out.*fail/hang\.dsh|fail/hang\.dsh.*timed out)"
	[nostart]="rank 1[: ].*fail/nostart\.dsh.*(127|not start|never started|not finish|no summary)"
	[early]="rank 1[: ].*fail/early\.dsh.*(exit status 3|exit 3)"
)

# junit_cells FILE: per testcase "SCRIPT RANK BAD SUITE_FAILURES SUITE_ERRORS",
# BAD 1 when it holds a <failure> or <error>; then "total F E" of <testsuites>.
junit_cells() {
	"$PY" - "$1" <<'PYEOF'
import os, re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
for s in suites:
    for c in s.findall("testcase"):
        script = os.path.basename(c.get("file") or s.get("name") or "?")
        m = re.search(r"rank (\d+)", c.get("name", ""))
        bad = int(c.find("failure") is not None or c.find("error") is not None)
        print(script, m.group(1) if m else "?", bad, s.get("failures", "?"), s.get("errors", "0"))
print("total", root.get("failures", "?"), root.get("errors", "0"))
PYEOF
}

# One line per cell of the matrix, for docs/reports.md: "cell CLASS x
# LAUNCHER: pass" or "FAIL (N checks)" (the checks are listed above it).
CELL_F=0
cell_begin() { CELL_F=$T_FAIL; }
cell_end() {
	if [ "$T_FAIL" -eq "$CELL_F" ]; then echo "$T_SUITE: cell $1: pass"
	else echo "$T_SUITE: cell $1: FAIL ($((T_FAIL - CELL_F)) checks)"; fi
	CELL_F=$T_FAIL
}

# run_matrix LAUNCHER: every cell of one launcher.
run_matrix() {
	local l=$1 c
	for c in "${CLASSES[@]}"; do run_cell "$l" fail "$c" "$M/fail/$c.dsh"; done
	run_cell "$l" pass "" "$M/pass/"*.dsh
}

# run_cell LAUNCHER fail CLASS SCRIPT: one failure class on its own (so that
# dsh-run's exit status and the report totals are that class's alone), and
# every layer of it.  run_cell LAUNCHER pass "" SCRIPTS...: the passing
# variants of every class in one call, every layer passing.
run_cell() {
	local l=$1 mode=$2 c=$3 rc r x out err t0 ns sum cells jtot st jc n; shift 3
	local tag=$l.$mode${c:+.$c}
	r=$T_TMP/$tag.json x=$T_TMP/$tag.xml out=$T_TMP/$tag.out err=$T_TMP/$tag.err
	ns=$#
	cell_begin
	t0=$SECONDS
	timeout 90 "$BIN/dsh-run" -n 2 -l "$l" -t "$TMO" --dsh "$WRAP" "$@" \
		--report "$r" --junit "$x" >"$out" 2>"$err"
	rc=$?
	echo "$T_SUITE: $l $mode ${c:-(every class)}: exit $rc in $((SECONDS - t0)) s"
	local what="$l ${c:-pass}"
	if [ "$mode" = fail ]; then
		expect_eq "$what: exit status (stderr: $(head -c 300 "$err"))" 1 "$rc"
		expect_match "$what: summary line" "^1 passed, 1 failed " "$(cat "$out")"
		expect_match "$what: terminal names rank 1" "${SAYS[$c]}" "$(grep -a FAIL "$err")"
		# blamed = the rank a FAIL line is about; rank 1's own line may
		# name rank 0 as what it waited for
		if grep -a FAIL "$err" | grep -Eq "FAIL rank 0[: ]"; then
			fail "$what: terminal blames rank 0: $(grep -a FAIL "$err" | grep -E "FAIL rank 0[: ]" | head -2)"
		else pass; fi
	else
		expect_eq "$what: exit status (stderr: $(head -c 300 "$err"))" 0 "$rc"
		expect_match "$what: summary line" "^$((2 * ns)) passed, 0 failed " "$(cat "$out")"
		if grep -q FAIL "$err"; then fail "$what: FAIL on the terminal: $(grep FAIL "$err" | head -5)"; else pass; fi
	fi
	if [ ! -s "$r" ] || [ ! -s "$x" ]; then
		fail "$what: no report (CTRF $(stat -c %s "$r" 2>&1), JUnit $(stat -c %s "$x" 2>&1))"
		cell_end "${c:-passing variants} x $l"
		return
	fi
	expect_eq "$what: CTRF validates" "" "$(ctrf_valid "$r" 2>&1 | tail -n 3)"
	expect_match "$what: JUnit validates" "validates$" "$(junit_valid "$x")"
	sum=$(jq -r '.results.summary | "\(.tests) \(.passed) \(.failed)"' "$r")
	cells=$(junit_cells "$x" 2>&1)
	jtot=$(grep '^total ' <<<"$cells")
	if [ "$mode" = fail ]; then
		expect_eq "$what: CTRF summary tests passed failed" "2 1 1" "$sum"
		# CTRF: the status of each rank's test
		st=$(jq -r '[.results.tests[] | "\(.extra.rank)=\(.status)"] | sort | join(" ")' "$r")
		expect_eq "$what: CTRF test statuses (rank=status)" "0=passed 1=failed" "$st"
		if [ -n "${LINE[$c]:-}" ]; then
			expect_eq "$what: CTRF line of rank 1's test" "${LINE[$c]}" \
				"$(jq -r '.results.tests[] | select(.extra.rank == 1) | .line' "$r")"
		fi
		expect_eq "$what: JUnit <testsuites> failures+errors" 1 "$(awk '{print $2 + $3}' <<<"$jtot")"
		expect_eq "$what: JUnit failures+errors of the testsuite" 1 \
			"$(awk -v f="$c.dsh" '$1 == f && $2 == 1 {print $4 + $5}' <<<"$cells")"
		jc=$(awk '$1 != "total" {print $2 "=" $3}' <<<"$cells" | sort | tr '\n' ' ' | sed 's/ $//')
		expect_eq "$what: JUnit testcases (rank=1 when it holds a failure or error)" "0=0 1=1" "$jc"
		cell_end "$c x $l"
		return
	fi
	expect_eq "$what: CTRF summary tests passed failed" "$((2 * ns)) $((2 * ns)) 0" "$sum"
	n=$(jq -r '[.results.tests[] | select(.status != "passed")] | length' "$r")
	expect_eq "$what: CTRF tests not passed" 0 "$n"
	expect_eq "$what: JUnit <testsuites> failures errors" "total 0 0" "$(sed 's/ $//' <<<"$jtot")"
	n=$(awk '$1 != "total" && $3 != 0' <<<"$cells" | wc -l)
	expect_eq "$what: JUnit testcases with a failure or error" 0 "$n"
	n=$(awk '$1 != "total"' <<<"$cells" | wc -l)
	expect_eq "$what: JUnit testcases" $((2 * ns)) "$n"
	cell_end "passing variants x $l"
}

# run_nodes LAUNCHER: a node table under the launcher drives the table's
# dnetd, each rank its own node (issue 21 item 2: the ranks had run on a
# built-in emulator each, and passed), reset before the script (D-RUN-STATE:
# the 0x55 left there is gone); rows with no backend ("-") share the private
# dnetd (they too had run on a built-in emulator each: the barrier fails).
NT_SOCK=$T_TMP/nt.sock
start_dnetd "$NT_SOCK" --sim -N 2
printf '0 localhost remote:unix:%s 1 0\n1 localhost remote:unix:%s 2 0\n' "$NT_SOCK" "$NT_SOCK" >"$T_TMP/nt.table"
printf 'assert llcm 0x100 == 0\nllcm_write from=0x108 it=1 val=0x77\n' >"$M/nodes.dsh"
printf '0 localhost - 1 0\n1 localhost - 2 0\n' >"$T_TMP/ntp.table"
# twice: the second starts from a fresh private dnetd (D-RUN-STATE), not the first's 0x99
printf 'assert llcm 0x200 == 0\nllcm_write from=0x200 it=1 val=0x99\nbarrier timeout=20s\n' | tee "$M/nodes-private.dsh" >"$M/nodes-private2.dsh"
run_nodes() {
	local l=$1 rc
	"$BIN/dsh" -b "remote:unix:$NT_SOCK" -c 'llcm_write from=0x100 it=1 val=0x55; @2 llcm_write from=0x100 it=1 val=0x55; llcm_write from=0x108 it=1 val=0; @2 llcm_write from=0x108 it=1 val=0' ||
		fail "$l nodes: could not prepare the table's dnetd"
	cell_begin
	# the table's HOST is localhost: pdsh's exec rcmd runs there (its
	# default, rsh, would need an rsh server)
	local rcmd=(); [ "$l" = pdsh ] && rcmd=(--rcmd exec)
	timeout 90 "$BIN/dsh-run" -n 2 -l "$l" "${rcmd[@]}" -t "$TMO" --nodes "$T_TMP/nt.table" "$M/nodes.dsh" \
		--report "$T_TMP/$l.nodes.json" >"$T_TMP/$l.nodes.out" 2>"$T_TMP/$l.nodes.err"
	rc=$?
	expect_eq "$l nodes: exit status (stderr: $(head -c 300 "$T_TMP/$l.nodes.err"))" 0 "$rc"
	expect_eq "$l nodes: both ranks wrote the table's dnetd" "llcm 0x108 = 0x0000000000000077 llcm 0x108 = 0x0000000000000077" \
		"$("$BIN/dsh" -b "remote:unix:$NT_SOCK" -c 'peek llcm 0x108 width=64; @2 peek llcm 0x108 width=64' | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "$l nodes: the report names the table's backend" "remote:unix:$NT_SOCK remote:unix:$NT_SOCK" \
		"$(jq -r '[.results.extra.nodes[].backend] | join(" ")' "$T_TMP/$l.nodes.json" 2>&1)"
	expect_eq "$l nodes: each rank reports where it ran (this host)" "$(uname -n) $(uname -n)" \
		"$(jq -r '[.results.tests[].extra.host] | join(" ")' "$T_TMP/$l.nodes.json" 2>&1)"
	timeout 90 "$BIN/dsh-run" -n 2 -l "$l" "${rcmd[@]}" -t "$TMO" --nodes "$T_TMP/ntp.table" "$M/nodes-private.dsh" "$M/nodes-private2.dsh" \
		--report "$T_TMP/$l.ntp.json" >"$T_TMP/$l.ntp.out" 2>"$T_TMP/$l.ntp.err"
	rc=$?
	expect_eq "$l nodes -: one private cluster, the barrier met, each script from a fresh one (stderr: $(head -c 300 "$T_TMP/$l.ntp.err"))" 0 "$rc"
	expect_eq "$l nodes -: the report names the private dnetd" "sim (private dnetd),sim (private dnetd)" \
		"$(jq -r '[.results.extra.nodes[].backend] | join(",")' "$T_TMP/$l.ntp.json" 2>&1)"
	cell_end "node table x $l"
}

# run_stale LAUNCHER: dsh-run's own environment holds stale launcher
# variables (issue 31 classes 7 and 9b: a DSH_RANKMAP that moved local ranks
# onto node 3, which no reset touched; a DSH_RANK that made every mpirun and
# srun rank rank 0): every rank must still be rank r on node r + 1, reset,
# and pass in every layer.  Node 3 of the dnetd holds 0x55 where the script
# asserts 0.
ST_SOCK=$T_TMP/st.sock
start_dnetd "$ST_SOCK" --sim -N 3
printf 'assert llcm 0x100 == 0\nbarrier timeout=20s\nllcm_write from=0x108 it=1 val=0x7$rank\nbarrier timeout=20s\n' >"$M/stale.dsh"
run_stale() {
	local l=$1 rc p=$T_TMP/$1.stale
	"$BIN/dsh" -b "remote:unix:$ST_SOCK" -c '@1 llcm_write from=0x108 it=1 val=0; @2 llcm_write from=0x108 it=1 val=0; @3 llcm_write from=0x100 it=1 val=0x55; @3 llcm_write from=0x108 it=1 val=0' ||
		fail "$l stale: could not prepare the dnetd"
	cell_begin
	DSH_RANK=0 DSH_SIZE=5 DSH_RANKMAP=1:0,3:0 DSH_RUN_ID=9 DSH_PGID=7 timeout 90 "$BIN/dsh-run" -n 2 -l "$l" \
		-t "$TMO" -b "remote:unix:$ST_SOCK" "$M/stale.dsh" --report "$p.json" --junit "$p.xml" >"$p.out" 2>"$p.err"
	rc=$?
	expect_eq "$l stale env: exit status (stderr: $(head -c 300 "$p.err"))" 0 "$rc"
	expect_match "$l stale env: summary line" "^2 passed, 0 failed " "$(cat "$p.out")"
	if grep -q FAIL "$p.err"; then fail "$l stale env: FAIL on the terminal: $(grep FAIL "$p.err" | head -3)"; else pass; fi
	expect_eq "$l stale env: CTRF tests passed failed" "2 2 0" \
		"$(jq -r '.results.summary | "\(.tests) \(.passed) \(.failed)"' "$p.json" 2>&1)"
	expect_eq "$l stale env: JUnit failures errors" "total 0 0" "$(junit_cells "$p.xml" 2>&1 | grep '^total ' | sed 's/ $//')"
	expect_eq "$l stale env: rank r wrote node r + 1, node 3 untouched" \
		"llcm 0x108 = 0x0000000000000070 llcm 0x108 = 0x0000000000000071 llcm 0x108 = 0x0000000000000000" \
		"$("$BIN/dsh" -b "remote:unix:$ST_SOCK" -c 'peek llcm 0x108 width=64; @2 peek llcm 0x108 width=64; @3 peek llcm 0x108 width=64' | tr '\n' ' ' | sed 's/ $//')"
	cell_end "stale launcher environment x $l"
}

# run_dup LAUNCHER: a node table with two ranks on one CLID:WID (issue 31
# class 5: they shared a flag area and passed each other's barriers) is
# refused before anything runs, naming the line.
printf '0 localhost - 1 0\n1 localhost - 1 0\n' >"$T_TMP/dup.table"
printf 'barrier timeout=5s\nrepeat $next\nbarrier timeout=3s\nend\n' >"$M/dup.dsh"
run_dup() {
	local l=$1 rc p=$T_TMP/$1.dup
	cell_begin
	local rcmd=(); [ "$l" = pdsh ] && rcmd=(--rcmd exec)
	timeout 90 "$BIN/dsh-run" -l "$l" "${rcmd[@]}" -t "$TMO" --nodes "$T_TMP/dup.table" "$M/dup.dsh" >"$p.out" 2>"$p.err"
	rc=$?
	expect_eq "$l shared CLID:WID: exit status" 2 "$rc"
	expect_match "$l shared CLID:WID: refused at the table's line" \
		"dup\.table:2: rank 1 is on CLID 1 WID 0, as rank 0 \(line 1\): two ranks on one CLID:WID" "$(cat "$p.err")"
	expect_eq "$l shared CLID:WID: nothing passed" "" "$(grep -a passed "$p.out")"
	cell_end "shared CLID:WID x $l"
}

# The launchers' matrices run side by side (most of a cell is waiting: a
# launcher starting, the hang class's -t, the early class's 3 s); each cell's
# files are its launcher's own ($tag).  A matrix runs in a subshell that
# hands its counts back in a file; a subshell that died without writing them
# fails.  The node-table, stale-environment and shared-CLID cells share two
# dnetds, so they run one launcher at a time afterwards.
MATRIX=()
par_matrix() { # LAUNCHER
	( T_PASS=0 T_FAIL=0 T_SKIP=0 CELL_F=0
	  run_matrix "$1"
	  echo "$T_PASS $T_FAIL $T_SKIP" >"$T_TMP/counts.$1" ) &
	MATRIX+=("$1:$!")
}
matrix_wait() {
	local m l p c
	for m in "${MATRIX[@]}"; do
		l=${m%%:*} p=${m#*:}
		wait "$p"
		if read -r -a c <"$T_TMP/counts.$l" 2>/dev/null && [ ${#c[@]} -eq 3 ]; then
			T_PASS=$((T_PASS + c[0])) T_FAIL=$((T_FAIL + c[1])) T_SKIP=$((T_SKIP + c[2]))
		else
			fail "$l matrix: its subshell ended without its counts"
		fi
	done
}

# local: dsh-run forks the ranks (proves the test on the launcher that is
# right); mpirun, pdsh, srun: real launchers, plain build only.
LAUNCHERS=(local)
if [[ $BIN == */build-san/* ]]; then
	not_applicable "mpirun, pdsh and srun cells: heavy, run on the plain build only"
else
	if command -v mpirun >/dev/null 2>&1; then LAUNCHERS+=(mpirun)
	else skip "mpirun cells: no mpirun (openmpi-bin: scripts/install-deps.sh test)"; fi
	if command -v pdsh >/dev/null 2>&1; then
		if pdsh -R exec -w x true >/dev/null 2>&1; then LAUNCHERS+=(pdsh)
		else skip "pdsh cells: pdsh has no exec rcmd module ($(pdsh -V 2>&1 | tr '\n' ' '))"; fi
	else skip "pdsh cells: no pdsh (scripts/install-deps.sh test)"; fi
	t0=$SECONDS
	if slurm_start; then
		echo "$T_SUITE: Slurm up in $((SECONDS - t0)) s ($SLURM_CONF)"
		LAUNCHERS+=(srun)
	else
		skip "srun cells: one-node Slurm did not come up: $SLURM_WHY"
	fi
fi
for l in "${LAUNCHERS[@]}"; do par_matrix "$l"; done
matrix_wait
for l in "${LAUNCHERS[@]}"; do run_nodes "$l"; run_stale "$l"; run_dup "$l"; done
[[ " ${LAUNCHERS[*]} " == *" srun "* ]] && slurm_stop
finish
