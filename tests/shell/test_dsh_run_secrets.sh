#!/usr/bin/env bash
# Secrets never reach an artefact (issue 22 item 1, D-RUN-SECRETS): a
# dnetd on TCP with an admin token, and dsh-run driving it with the token
# given as -b ...,token=T, as DNET_TOKEN, and in a node table, through every
# launcher there is here (local; mpirun, pdsh and srun on the plain build).
# Every run must pass (the token did reach the ranks), and the token must be
# in none of: the CTRF and JUnit reports, dsh-run's stdout and stderr, the
# kept directory (--keep), and the command line of any process dsh-run
# started (mpirun, pdsh, srun and dsh are shims here that log their argv).
# A failing script and an unreachable daemon put messages and stderr
# excerpts in the reports too.  Then dsh itself: info (text and --json),
# the error naming a backend it could not open, a --journal; and dnetd
# serving a remote: backend that has a token.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
TOK="tok-$$-${RANDOM}SECRET"
printf '%s\n' "$TOK" >"$T_TMP/token"
chmod 600 "$T_TMP/token"
start_dnetd_tcp "$T_TMP/dnetd.out" --sim -N 2 --token-file "$T_TMP/token"
ADDR=$DNETD_ADDR

# Shims: every program dsh-run starts logs its command line, then runs the
# real one.  A token on any of those command lines is a leak (ps shows it).
SHIM=$T_TMP/shim
ARGV_LOG=$T_TMP/argv.log
mkdir -p "$SHIM"
: >"$ARGV_LOG"
for p in mpirun pdsh srun; do
	real=$(command -v "$p") || continue
	printf '#!/usr/bin/env bash\nprintf "%%s\\n" "%s $*" >>"%s"\nexec "%s" "$@"\n' "$p" "$ARGV_LOG" "$real" >"$SHIM/$p"
	chmod 755 "$SHIM/$p"
done
printf '#!/usr/bin/env bash\nprintf "%%s\\n" "dsh $*" >>"%s"\nexec "%s" "$@"\n' "$ARGV_LOG" "$BIN/dsh" >"$SHIM/dsh"
chmod 755 "$SHIM/dsh"
export PATH="$SHIM:$PATH"

printf 'llcm_write from=0x10 it=1 val=5\nassert llcm 0x10 == 5\n' >"$T_TMP/pass.dsh"
printf 'llcm_write from=0x18 it=1 val=5\nassert llcm 0x18 == 6\n' >"$T_TMP/fail.dsh"

# leak_check WHAT FILE-OR-DIR...: the token in none of them.
leak_check() {
	local what=$1 hit; shift
	hit=$(grep -rlaF -- "$TOK" "$@" 2>/dev/null | head -3)
	if [ -n "$hit" ]; then fail "$what: the token is in $hit: $(grep -rhaoF -m1 -- "$TOK" "$@" | head -1)"
	else pass; fi
}

# run_case NAME WANT-RC ARGS...: dsh-run with reports, --keep and -v; the
# exit status, then every artefact checked for the token.
N=0
run_case() {
	local name=$1 want=$2 rc keep d=$T_TMP/c$((++N)); shift 2
	mkdir -p "$d"
	: >"$ARGV_LOG"
	local t0=$SECONDS
	timeout 120 "$BIN/dsh-run" -n 2 -t 20s --dsh "$SHIM/dsh" --keep -v --report "$d/r.json" \
		--junit "$d/r.xml" "$@" >"$d/out" 2>"$d/err"
	rc=$?
	echo "$T_SUITE: $name: exit $rc in $((SECONDS - t0)) s"
	expect_eq "$name: exit status (stderr: $(grep -v kept "$d/err" | head -c 300))" "$want" "$rc"
	keep=$(sed -n 's/^dsh-run: outputs kept in //p' "$d/err")
	if [ -z "$keep" ] || [ ! -d "$keep" ]; then fail "$name: no kept directory"; keep=''; fi
	[ -n "$keep" ] && T_DIRS+=("$keep")
	if [ ! -s "$d/r.json" ] || [ ! -s "$d/r.xml" ]; then fail "$name: a report is missing"; fi
	leak_check "$name: reports, stdout, stderr" "$d"
	[ -n "$keep" ] && leak_check "$name: kept directory $keep" "$keep"
	leak_check "$name: command lines of what dsh-run started" "$ARGV_LOG"
	if [ "$rc" -ne 2 ] && ! grep -q . "$ARGV_LOG"; then fail "$name: no command line logged (shims not used?)"
	else pass; fi
	LAST=$d
}

LAUNCHERS=(local)
if [[ $BIN == */build-san/* ]]; then
	not_applicable "mpirun, pdsh and srun cases: heavy, run on the plain build only"
else
	if command -v mpirun >/dev/null 2>&1; then LAUNCHERS+=(mpirun)
	else skip "mpirun cases: no mpirun (scripts/install-deps.sh)"; fi
	if command -v pdsh >/dev/null 2>&1 && pdsh -R exec -w x true >/dev/null 2>&1; then LAUNCHERS+=(pdsh)
	else skip "pdsh cases: no pdsh with the exec rcmd (scripts/install-deps.sh)"; fi
	if slurm_start; then LAUNCHERS+=(srun)
	else skip "srun cases: one-node Slurm did not come up: $SLURM_WHY"; fi
fi

for l in "${LAUNCHERS[@]}"; do
	run_case "$l token=" 0 -l "$l" -b "remote:$ADDR,token=$TOK" "$T_TMP/pass.dsh"
	expect_eq "$l token=: the report shows the backend redacted" "remote:$ADDR,token=***" \
		"$(jq -r .results.extra.backend "$LAST/r.json")"
	expect_match "$l token=: the JUnit backend property redacted" "value=\"remote:$ADDR,token=\*\*\*\"" \
		"$(cat "$LAST/r.xml")"
	expect_match "$l token=: command_line redacted" "token=\*\*\*" \
		"$(jq -r .results.extra.command_line "$LAST/r.json")"
	DNET_TOKEN=$TOK run_case "$l DNET_TOKEN" 0 -l "$l" -b "remote:$ADDR" "$T_TMP/pass.dsh"
done
# a failing script: failure text and stderr excerpts in both reports (the
# same text under every launcher: local only, for time)
run_case "local failing script" 1 -b "remote:$ADDR,token=$TOK" "$T_TMP/fail.dsh"
# no token at all: the daemon refuses before the first script (exit 2), and
# says so; an unreachable daemon, named in the message
run_case "local no token" 2 -b "remote:$ADDR" "$T_TMP/pass.dsh"
expect_match "local no token: the refusal reaches the terminal" "requires a token" "$(cat "$LAST/err")"
run_case "local unreachable" 2 -b "remote:tcp:127.0.0.1:1,token=$TOK,timeout=2s" "$T_TMP/pass.dsh"
expect_match "local unreachable: named redacted" "127.0.0.1:1" "$(cat "$LAST/err")"
# a node table with the token in its backend column, each rank its node
printf '0 localhost remote:%s,token=%s 1 0\n1 localhost remote:%s,node=2,token=%s 2 0\n' \
	"$ADDR" "$TOK" "$ADDR" "$TOK" >"$T_TMP/nodes"
for l in "${LAUNCHERS[@]}"; do
	rc=(); [ "$l" = pdsh ] && rc=(--rcmd exec) # the table's hosts are this machine
	run_case "$l node table" 0 -l "$l" "${rc[@]}" --nodes "$T_TMP/nodes" "$T_TMP/pass.dsh"
	expect_eq "$l node table: nodes[].backend redacted" "remote:$ADDR,token=*** remote:$ADDR,node=2,token=***" \
		"$(jq -r '[.results.extra.nodes[].backend] | join(" ")' "$LAST/r.json")"
done
[ -n "$SLURM_DIR" ] && slurm_stop

# ---- dsh itself ----
B="remote:$ADDR,token=$TOK"
out=$("$BIN/dsh" -b "$B" -c info 2>&1)
expect_match "dsh info: ran" "remote" "$out"
expect_match "dsh info: spec redacted" "token=\*\*\*" "$out"
leak_check "dsh info" <(printf '%s' "$out")
"$BIN/dsh" --json -b "$B" -c info >"$T_TMP/info.json" 2>&1
json_collect "$T_TMP/info.json"
expect_match "dsh --json info: spec redacted" '"spec":"remote:[^"]*token=\*\*\*' "$(tr -d ' ' <"$T_TMP/info.json")"
leak_check "dsh --json info" "$T_TMP/info.json"
out=$("$BIN/dsh" -b "remote:tcp:127.0.0.1:1,token=$TOK,timeout=1s" -c info 2>&1)
expect_match "dsh: an unopened backend is named redacted" "cannot open backend '.*token=\*\*\*" "$out"
leak_check "dsh: cannot open backend" <(printf '%s' "$out")
"$BIN/dsh" -b "$B" --journal "$T_TMP/j" -c 'llcm_write from=0 it=1 val=1' >/dev/null 2>&1 ||
	fail "dsh --journal: did not run"
leak_check "dsh --journal" "$T_TMP/j"
# dnetd serving a remote: backend with a token (a proxy) says what it serves
spawn timeout 60 "$DNETD" --backend "$B" --listen "unix:$T_TMP/proxy.sock" >"$T_TMP/proxy.out" 2>&1
wait_for_socket "$T_TMP/proxy.sock" 50 || fail "dnetd proxy did not start: $(cat "$T_TMP/proxy.out")"
sleep 0.2
expect_match "dnetd --backend remote: serving line redacted" "serving remote:.*token=\*\*\*" "$(cat "$T_TMP/proxy.out")"
leak_check "dnetd --backend remote:" "$T_TMP/proxy.out"
finish
