# Helpers for shell tests.  Source it; call `finish` at the end.
# Environment: BIN (directory with dsh and dnetd), set by tests/run.sh.
set -u
: "${BIN:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bin}"
DNETD="$BIN/dnetd"
T_PASS=0
T_FAIL=0
T_SKIP=0
T_NA=0
T_SUITE=$(basename "$0" .sh)
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/dshtest.XXXXXX")
T_SHELL=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3 # Debian's, with python3-jsonschema
[ -x "$PY" ] || PY=python3
# "$DSH" is dsh through dsh-collect: every --json output is kept in
# $DSH_COLLECT_DIR and validated by finish against the JSON Schema.  A test
# that signals a background dsh ($! is the wrapper's) or needs dsh itself on
# a pipe (SIGPIPE) runs "$BIN/dsh", and may hand its output to json_collect.
# Copy "$BIN/dsh", not "$DSH", for another uid.  DSH_JSON_KEEP=DIR keeps the
# collected outputs (DIR/SUITE).
DSH="$T_SHELL/dsh-collect"
DSH_RUN="$T_SHELL/dsh-run-collect" # dsh-run, its ranks through dsh-collect
export DSH_COLLECT_REAL="$BIN/dsh" DSH_COLLECT_DIR="$T_TMP/json"
mkdir -m 1777 "$DSH_COLLECT_DIR" # other uids (runuser) write there too
T_PIDS=()
T_DIRS=() # removed by cleanup, beside T_TMP
T_JSON_N=0
# Stop what a test started: SIGTERM, up to 5 s to exit (a sanitizer's exit
# report included), then SIGKILL for it and its children.  Never hangs.
stop_pid() {
	local p=$1 i=0
	kill "$p" 2>/dev/null || return 0
	while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 "$p" 2>/dev/null; then
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	fi
	wait "$p" 2>/dev/null
	return 0
}
cleanup() {
	for p in "${T_PIDS[@]}"; do stop_pid "$p"; done
	rm -rf "$T_TMP" "${T_DIRS[@]}"
}
trap cleanup EXIT

pass() { T_PASS=$((T_PASS + 1)); }
fail() { T_FAIL=$((T_FAIL + 1)); echo "FAIL [$T_SUITE] $*" >&2; }
# skip REASON...: checks that cannot run here (a tool, root or a build
# missing), counted as one skip, never as passed; say what and why.
skip() { T_SKIP=$((T_SKIP + 1)); echo "SKIP [$T_SUITE] $*" >&2; }
# not_applicable REASON...: checks this build does not do by design (the
# heavy launcher cells and the benchmarks on the sanitized build: they run
# on the plain one).  Neither passed nor skipped, so that a skip means only
# "cannot run here"; counted apart ("N not applicable" after the skips) and
# printed as "N/A [suite] REASON".
not_applicable() { T_NA=$((T_NA + 1)); echo "N/A [$T_SUITE] $*" >&2; }

# expect_eq NAME EXPECTED ACTUAL
expect_eq() {
	if [ "$2" == "$3" ]; then pass; else
		fail "$1: expected [$2] got [$3]"; fi
}
# expect_match NAME REGEX TEXT
expect_match() {
	if printf '%s' "$3" | grep -Eq -- "$2"; then pass; else
		fail "$1: [$3] does not match /$2/"; fi
}
# expect_status NAME EXPECTED_CODE COMMAND...
expect_status() {
	local name=$1 want=$2; shift 2
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then pass; else
		fail "$name: exit $got, expected $want; stderr: $(head -c 400 "$T_TMP/err")"; fi
}
# Start a background process and remember it for cleanup.
spawn() { "$@" & T_PIDS+=($!); }
# wait_for_socket PATH [TIMEOUT_TENTHS]
wait_for_socket() {
	local i=0 max=${2:-50}
	while [ ! -S "$1" ] && [ $i -lt "$max" ]; do sleep 0.1; i=$((i + 1)); done
	[ -S "$1" ]
}
# start_dnetd SOCK ARGS...: dnetd listening on unix:SOCK, remembered for
# cleanup; fails the suite and exits if the socket does not appear in 5 s.
start_dnetd() {
	local sock=$1; shift
	spawn timeout 300 "$DNETD" "$@" --listen "unix:$sock"
	if ! wait_for_socket "$sock" 50; then
		fail "dnetd did not create $sock within 5 s"
		finish
		exit 1
	fi
}
# start_dnetd_tcp OUT ARGS...: dnetd on tcp:127.0.0.1:0 (a free port), its
# output in OUT, remembered for cleanup; its address (tcp:127.0.0.1:PORT) in
# DNETD_ADDR; fails the suite and exits if it does not say it within 5 s.
start_dnetd_tcp() {
	local out=$1 i; shift
	spawn timeout 300 "$DNETD" --listen tcp:127.0.0.1:0 "$@" >"$out" 2>&1
	DNETD_ADDR=''
	for i in $(seq 50); do
		DNETD_ADDR=$(sed -n 's/^dnetd: serving .* on \(tcp:[^ ]*\)$/\1/p' "$out")
		[ -n "$DNETD_ADDR" ] && return 0
		sleep 0.1
	done
	fail "dnetd on TCP did not start: $(head -c 300 "$out")"
	finish
	exit 1
}
# other_uid_dir USER FILE...: copies of FILE... (executables 755, others
# 644) in a fresh directory under /tmp (755) that USER can reach, its path
# in OU_DIR, removed by cleanup.  For what a test runs as USER through
# runuser: USER cannot traverse a checkout or T_TMP under a mode-700
# directory ($HOME, a private mktemp -d, TMPDIR).  Returns 1, the reason
# in OU_WHY, when this shell cannot run commands as USER.
other_uid_dir() {
	local user=$1 f; shift
	OU_DIR='' OU_WHY=''
	if [ "$(id -u)" -ne 0 ]; then OU_WHY="not root"; return 1; fi
	if ! command -v runuser >/dev/null 2>&1; then OU_WHY="no runuser"; return 1; fi
	if ! id "$user" >/dev/null 2>&1; then OU_WHY="no user $user"; return 1; fi
	OU_DIR=$(mktemp -d /tmp/dsh-otheruid.XXXXXX) || { fail "mktemp under /tmp"; finish; exit 1; }
	T_DIRS+=("$OU_DIR")
	chmod 755 "$OU_DIR"
	for f in "$@"; do
		cp "$f" "$OU_DIR/" || { fail "copy $f for uid $user"; finish; exit 1; }
		if [ -x "$f" ]; then chmod 755 "$OU_DIR/${f##*/}"; else chmod 644 "$OU_DIR/${f##*/}"; fi
	done
	# a /tmp out of USER's reach would fail later, less clearly
	if ! runuser -u "$user" -- test -x "$OU_DIR"; then
		fail "uid $user cannot reach $OU_DIR"; finish; exit 1
	fi
}
# json_collect FILE...: --json output of "$BIN/dsh", validated by finish too.
json_collect() {
	local f k
	for f; do
		k=$DSH_COLLECT_DIR/c$BASHPID.$((++T_JSON_N))
		printf 'json_collect %q' "$f" >"$k.cmd"
		cp "$f" "$k.json"
	done
}
# Validate what was collected: a failure per object the schema rejects.
json_validate() {
	local schema=$T_SHELL/../schemas/dsh-json.schema.json line n='' bad=0
	compgen -G "$DSH_COLLECT_DIR/*.json" >/dev/null || return 0
	[ -n "${DSH_JSON_KEEP:-}" ] && cp -r "$DSH_COLLECT_DIR" "$DSH_JSON_KEEP/$T_SUITE"
	while IFS= read -r line; do
		case $line in
		"checked "*) n=${line#checked } ;;
		*) fail "--json output: $line"; bad=1 ;;
		esac
	done < <("$PY" "$T_SHELL/json_validate.py" "$schema" "$DSH_COLLECT_DIR" 2>&1)
	if [ -z "$n" ]; then fail "--json output: json_validate.py did not finish"; return; fi
	echo "$T_SUITE: $n --json objects checked against $(basename "$schema")"
	[ "$bad" -eq 0 ] && pass
}
finish() {
	json_validate
	if [ "$T_NA" -gt 0 ]; then
		echo "$T_SUITE: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped, $T_NA not applicable"
	else
		echo "$T_SUITE: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	fi
	[ "$T_FAIL" -eq 0 ]
}
