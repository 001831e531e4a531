#!/usr/bin/env bash
# Every example in README.md, docs/python.md and the man pages runs as written, on the
# emulator, and prints what it shows (issue 32).  tests/shell/doc_examples.py
# extracts and runs them; this file holds the convention and the tables.
#
# The marker convention (an example block without one fails this test, so a
# new example cannot escape it):
#   README.md: every fenced block is tagged
#     ```sh       commands, one a line (a trailing "\" continues it; blank and
#                 comment-only lines skipped); each must exit 0; no output shown
#     ```console  "$ " lines are commands, the lines after one its output
#     ```dsh      a dsh session transcript: "dsh > " lines are fed to `dsh -x`,
#                 which must print the block exactly; "```dsh continues" goes
#                 on with the session of the transcript before it
#     ```python   a program of the dnet package (libdnet/python), run by python3
#                 on the tree's package and the build's libdnet.so; must exit 0
#                 (it asserts what it shows)
#     ```text     not run, with "<!-- not run: REASON -->" on the line before
#   docs/python.md: the same, for its Python examples
#   man/*.[1358]: every .EX/.EE (or .nf/.fi) block outside SYNOPSIS either has
#     "$ " command lines (the lines after one are its output), or, on the line
#     above it (.PP/.RS/.IP between are fine), a roff comment
#       .\" doctest: dsh                a dsh script, run with `dsh -e -f`
#       .\" doctest: file NAME          the file NAME that later blocks of the page use
#       .\" doctest: not run: REASON    not run (a file format, not commands)
# Shown output is compared line by line (trailing blanks ignored); "<...>"
# in a shown line matches any text within it.  A command with no output shown
# has its output unchecked.  Every command runs with a 120 s timeout in bash,
# in a private directory per block: bin -> the build under test ($BIN, on PATH
# too), scripts -> the repository's, HOME, TMPDIR and XDG_RUNTIME_DIR the
# directory itself (dnetd's default socket lands there), a devmem stand-in
# board.mem (0x51000 zero bytes), the files of the `provide` table.  A command
# ending in "&" runs in the background until the block ends (then SIGTERM to
# its process group); the next command runs when a socket appears in the
# directory.  A block naming unix:/tmp/d.sock that starts no dnetd on it gets
# one (dnetd --sim -N 8, dnetd(8)'s example cluster), as the page assumes.
# A failure is reported as FILE:LINE of the command.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TABLES=$T_TMP/tables
: >"$TABLES"
# not_here FILE COMMAND REASON: a shown command that cannot run here; a skip.
not_here() { printf 'not_here\t%s\t%s\t%s\n' "$@" >>"$TABLES"; }
# plain_only FILE COMMAND REASON: run on the plain build only (slow under ASan;
# not applicable on the sanitized build, counted apart from skips).
plain_only() { printf 'plain_only\t%s\t%s\t%s\n' "$@" >>"$TABLES"; }
# elsewhere FILE COMMAND TEST: a shown command another test runs as it is
# shown (make test is CI itself, make install is test_install.sh...): not
# run twice here; not applicable, counted apart from skips, with the test named.
elsewhere() { printf 'elsewhere\t%s\t%s\t%s\n' "$@" >>"$TABLES"; }
# in_root FILE COMMAND: run in the repository's root, not a private
# directory (a cheap make target that changes nothing: make help).
in_root() { printf 'in_root\t%s\t%s\t\n' "$@" >>"$TABLES"; }
# pending FILE COMMAND REASON: fails until another branch of issue 32 is
# merged; a skip marked PENDING.  Empty this list after those merges.
pending() { printf 'pending\t%s\t%s\t%s\n' "$@" >>"$TABLES"; }
# inline_run FILE COMMAND: an inline command of the prose that is run.
inline_run() { printf 'inline_run\t%s\t%s\n' "$@" >>"$TABLES"; }
# fragment FILE SPAN REASON: an inline span of the prose that reads as a
# command but is a form or a placeholder (not run, not counted).
fragment() { printf 'fragment\t%s\t%s\t%s\n' "$@" >>"$TABLES"; }
# exit_status FILE COMMAND N: the page says the command exits N (not 0).
exit_status() { printf 'exit\t%s\t%s\t%s\n' "$@" >>"$TABLES"; }
# subst FROM TO: in commands and shown output ({dir}: the private directory).
subst() { printf 'subst\t%s\t%s\n' "$@" >>"$TABLES"; }
# provide NAME FILE: a file an example names as a placeholder (a copy of FILE
# of the repository).
provide() { printf 'provide\t%s\t%s\n' "$@" >>"$TABLES"; }
# The prose: an inline code span of README that reads as a command (a program of
# the toolkit with arguments, make TARGET, mpirun, dmesg, scripts/X.sh, echo
# into a file of /proc or /sys) must be in a table: inline_run, not_here,
# pending or fragment; one in none fails.  The same for the bold text of the
# man pages (\fB...\fR, .B lines) outside SYNOPSIS.
# A command matches its entry by its text as shown, without a trailing
# comment (continued lines joined by one blank); an entry that matches no
# command any more fails (remove or correct it).

subst /tmp/d.sock '{dir}/d.sock'
subst devmem:0xBASE 'devmem:0x0@{dir}/board.mem'
provide test.dsh tests/golden/rvs_two_nodes.dsh
provide s.dsh tests/golden/thesis_counter.dsh

# ---- pending: behaviour other branches of issue 32 change --------------------


# ---- README's inline commands ------------------------------------------------
inline_run README.md 'dsh probe'
fragment README.md 'bin/dsh -c bench' \
	"the evaluation; the block below runs it: bench json=b.json out=figs (10 s and more each)"
fragment README.md "dsh -c 'cmd; cmd'" 'the form of -c'
fragment README.md 'dsh -f session.dsh' 'the form of -f'
fragment README.md 'dsh -b devmem:0xBASE' 'the form of the devmem backend'
fragment README.md 'dsh -b pci:SLOT' 'the form of the pci backend'
fragment README.md "bin/dsh --trace t.json -c '...'" 'the form of --trace'
fragment README.md "dsh -b remote:... -c 'source /dev/zero'" 'an attack of tests/attack, run by tests/shell/test_attack.sh'
elsewhere README.md 'make deps' 'make test (its first step, deps-test, is make deps)'
fragment docs/python.md 'make install' 'the target named; tests/shell/test_install.sh installs the package and imports it'
not_here README.md 'make fuzz' 'minutes per fuzz target'
not_here README.md 'dmesg | grep BIOS-e820' 'the kernel log of a board machine'
not_here README.md 'echo "base=0xBASE size=0x10000 type=write-combining" >/proc/mtrr' \
	'sets an MTRR of this machine; tests/shell/test_vm.sh runs it in a VM'
not_here README.md 'dsh replay board.j' 'board.j is a journal recorded on a board; tests/shell/test_board.sh replays one of a stand-in'
elsewhere README.md 'mpirun -np 4 dsh -b remote -f t.dsh' \
	'tests/shell/test_dsh_run_launchers.sh (dsh under a real mpirun, each rank from Open MPI'"'"'s environment)'
inline_run README.md 'scripts/install-deps.sh run'
elsewhere README.md 'scripts/install-deps.sh test' 'make test (which calls it; as a user without sudo: tests/shell/test_make_run.sh)'
fragment man/dnetd.8 'dsh-run --lockstep' 'an option named'
fragment man/dnetd.8 'dsh -b remote' 'the form of the remote backend'
fragment man/libdnet.3 'make install' 'the target named; tests/shell/test_install.sh runs it'

fragment README.md 'dsh -n' 'an option named'
inline_run README.md 'bin/dsh-run -n 8 scripts/tests/*.dsh --report - | jq .results.summary'
plain_only README.md 'bin/dsh-run -n 8 scripts/tests/*.dsh --report - | jq .results.summary' '8 ranks x 10 scripts'

# ---- the man pages' inline commands --------------------------------------------
fragment man/dsh-run.1 'dsh -n' 'an option named'
fragment man/dsh-run.1 'dsh-run -n 8 --report - s.dsh | jq' 'the form of --report - (the README runs it on the shipped scripts)'
inline_run man/dsh.1 'dsh --journal - -f s.dsh >s.journal'
fragment man/dsh.1 "dsh -c 'probe" "the text of dsh -c 'probe ARGS' (the subcommand form runs above)"
fragment man/dsh.1 'dsh --json -c bench' 'the form (bench runs minutes; make bench runs it)'
inline_run man/dsh.1 'dsh probe'
inline_run man/libdnet.3 'dsh probe'
inline_run man/dsh.1 'dsh --help'
inline_run man/dsh.1 "dsh -b devmem:0xBASE -c 'reg ctl_status'"
inline_run man/dsh.1 "dsh -c 'exit 0' -f test.dsh"
exit_status man/dsh.1 "dsh -c 'exit 0' -f test.dsh" 1
inline_run man/dsh-run.1 'dsh -c params'
elsewhere man/dsh.1 'make test' '.ci/run (CI is make test)'
elsewhere man/dsh-run.1 'make bench' 'tests/shell/test_make_bench.sh (scripts/bench.sh, what make bench runs)'
not_here man/dsh.1 'dsh replay board.journal' 'a journal recorded on a board; tests/shell/test_board.sh replays one of a stand-in'
not_here man/dsh.1 'echo "base=0xBASE size=0x10000 type=write-combining" >/proc/mtrr' \
	'sets an MTRR of this machine; tests/shell/test_vm.sh runs it in a VM'
fragment man/dsh-run.1 'mpirun -np N' 'the form of the mpirun launcher'
fragment man/dsh-run.1 'dsh -o' 'an option named'
fragment man/dsh-run.1 'dsh-run --exec-rank DIR -- dsh ...' 'the form a launcher runs'
fragment man/dsh-run.1 'dsh-run --exec-rank' 'an option named'
fragment man/dsh-script.5 'dsh -f FILE' 'the form of -f'
fragment man/dsh-script.5 'dsh FILE.dsh' 'the form of a script argument'
fragment man/dsh-script.5 'dsh -c' 'an option named'
fragment man/dsh-script.5 'dsh -n' 'an option named'
fragment man/dsh.1 'dsh --dry-run' 'an option named'
fragment man/libdnet.3 'dsh bench' 'a command named'
fragment man/libdnet.3 'dnetd --lockstep' 'an option named'
fragment man/libdnet.3 'dsh --journal' 'an option named'

# ---- not here ---------------------------------------------------------------
elsewhere README.md 'make run' 'tests/shell/test_dsh_interactive.sh (in tmux) and tests/shell/test_make_run.sh (as a user)'
elsewhere README.md 'make test' '.ci/run (CI is make test)'
elsewhere README.md "make test TESTS='test_dsh_run*'" 'tests/shell/test_run_suites.sh (make -n: TESTS reaches tests/run.sh; a TESTS run on stand-in suites)'
in_root README.md "make test-list TESTS='test_sim_*'"
elsewhere README.md 'make' 'make test (the build every test runs on)'
elsewhere README.md 'make install PREFIX=/usr/local' 'tests/shell/test_install.sh (as root: the system install, then make uninstall)'
elsewhere README.md 'make bench' 'tests/shell/test_make_bench.sh (scripts/bench.sh, what make bench runs)'
not_here README.md 'make fuzz FUZZ_TIME=600' 'ten minutes per fuzz target'
not_here README.md 'make stress' 'long runs by design'
not_here README.md 'make clean' 'would remove the build under test'
elsewhere README.md 'scripts/bench-toolkit.sh' 'tests/shell/test_make_bench.sh (scripts/bench.sh runs every scripts/bench-*.sh)'
elsewhere README.md 'scripts/bench-sim-speed.sh' 'tests/shell/test_make_bench.sh (scripts/bench.sh runs every scripts/bench-*.sh)'
elsewhere README.md 'scripts/bench-sim-rss.sh' 'tests/shell/test_make_bench.sh (scripts/bench.sh runs every scripts/bench-*.sh)'
not_here README.md 'scripts/sim-diff.sh OLD.a' 'OLD.a stands for an older build of libdnet.a'
not_here README.md "bin/dsh -b devmem:0xBASE,privileged -c 'sreg_write sdimm_init 1; reg ctl_status'" \
	'a board: on a stand-in (plain memory) the first write is refused, as tests/shell/test_vm.sh checks on a real kernel'
not_here man/dnetd.8 'sudo dnetd --backend devmem:0xfe000000,privileged --listen tcp:0.0.0.0:7070 --token-file ~/.dnet-token' \
	'a board, served on all interfaces'
not_here man/dnetd.8 'DNET_TOKEN=$(cat ~/.dnet-token) dsh -b remote:tcp:bench1:7070' 'the bench host bench1'
not_here man/dnetd.8 'cat /etc/dnetd/users' 'a bench machine'"'"'s user-token file'
not_here man/dnetd.8 'dnetd --sim -N 4 --listen tcp:0.0.0.0:7070 --token-file /etc/dnetd/admin --user-tokens /etc/dnetd/users' \
	'serves all interfaces with a bench machine'"'"'s token files'
not_here man/dnetd.8 'DNET_TOKEN=41d7aa0c9e3b26f5d8c2 dsh -b remote:tcp:bench1:7070,user,node=3,wid=1' 'the bench host bench1'
not_here man/dnetd.8 'dnetd --sim -N 4 --socket-group lab --allow /etc/dnetd/allow' \
	'the group lab and a bench machine'"'"'s /etc/dnetd/allow; tests/shell/test_dnetd_auth.sh'
not_here man/dnetd.8 'dsh -b remote:,user,node=2' 'another uid of the group lab (tests/shell/test_dnetd_auth.sh)'
not_here man/dsh-run.1 'dsh-run --nodes lab.nodes --report lab.json bringup.dsh' 'a lab of boards (NODE TABLE)'
not_here man/dsh-run.1 'dsh-run --nodes lab.nodes -l pdsh --rcmd ssh bringup.dsh' 'a lab of boards reached by ssh'

# ---- the plain build only (each about 10 s, several times that under ASan) ---
plain_only README.md 'bin/dsh-run -n 8 scripts/tests/*.dsh --report r.json --junit r.xml' '8 ranks x 10 scripts'
plain_only man/dsh-run.1 'dsh-run -n 8 scripts/tests/*.dsh --report r.json --junit r.xml' '8 ranks x 10 scripts'
plain_only README.md "bin/dsh -c 'bench json=b.json out=figs'" 'every curve of E1-E9'
plain_only README.md 'bin/dsh-run -n 8 --lockstep scripts/tests/*.dsh' '8 ranks x 10 scripts in lockstep'

in_root README.md 'make help'
in_root README.md 'make lib'
elsewhere README.md 'make CC=clang' '.ci/run (make CC=clang unit)'
elsewhere README.md 'make uninstall PREFIX=/usr/local' 'tests/shell/test_install.sh (as root, after the system install)'

SAN=''
ldd "$BIN/dsh" 2>/dev/null | grep -q libasan && SAN=--san

# doc_examples.py's lines to passes, failures (with their detail) and skips
relay() {
	local kind loc text
	while IFS=$'\t' read -r kind loc text; do
		case $kind in
		PASS) pass ;;
		FAIL) fail "$loc: $text" ;;
		SKIP) skip "$loc: $text" ;;
		NOTE) echo "note $loc: $text" ;;
		NA) not_applicable "$loc: $text" ;;
		*) echo "$kind${loc:+ $loc}${text:+ $text}" >&2 ;;
		esac
	done
}

# ---- the convention is enforced: blocks without a marker, inline commands in
# no table and table entries that match nothing are errors ------------------
mkdir "$T_TMP/bad"
printf 'x\n```\nbin/dsh -c v\n```\n```bash\nls\n```\n```text\nlayout\n```\nrun `dsh -c v` here\n' >"$T_TMP/bad/README.md"
printf 'not_here\tREADME.md\tdsh -c gone\twhy\n' >"$T_TMP/bad/tables"
printf '.SH EXAMPLES\n.nf\ndsh \\-c v\n.fi\n.EX\nprose\n.EE\n.\\" doctest: maybe\n.EX\n$ dsh\n.EE\n' >"$T_TMP/bad/x.1"
out=$("$PY" "$ROOT/tests/shell/doc_examples.py" "$T_TMP/bad" "$BIN" "$T_TMP/bad/tables" --check-only \
	"$T_TMP/bad/README.md" "$T_TMP/bad/x.1")
expect_match "unmarked fenced block: an error at its line" $'^FAIL\tREADME.md:2\tfenced block without a marker' "$out"
expect_match "fenced block of another tag: an error" $'^FAIL\tREADME.md:5\tfenced block without a marker' "$out"
expect_match "text block without its reason: an error" $'^FAIL\tREADME.md:8\t```text block without' "$out"
expect_match "man: .nf block without \$ lines or marker: an error" $'^FAIL\tx.1:2\texample block \\(.nf\\)' "$out"
expect_match "man: .EX block of prose: an error" $'^FAIL\tx.1:5\texample block \\(.EX\\)' "$out"
expect_match "man: unknown marker: an error" $'^FAIL\tx.1:8\tunknown doctest marker' "$out"
expect_match "inline command in no table: an error" $'^FAIL\tREADME.md:11\tinline command `dsh -c v` in no table' "$out"
expect_match "table entry matching nothing: an error" $'^FAIL\tREADME.md\tnot_here entry \'dsh -c gone\' matches no example' "$out"
expect_eq "eight errors, nothing more" 8 "$(printf '%s\n' "$out" | grep -c '^FAIL')"

# ---- every example -------------------------------------------------------------
"$PY" "$ROOT/tests/shell/doc_examples.py" "$ROOT" "$BIN" "$TABLES" $SAN \
	"$ROOT/README.md" "$ROOT/docs/python.md" "$ROOT"/man/*.[1358] >"$T_TMP/doc.out" 2>&1
rc=$?
relay <"$T_TMP/doc.out"
expect_eq "doc_examples.py ran to its end" 0 "$rc"
finish
