#!/usr/bin/env bash
# dsh-run's reports read as a CI dashboard reads them, on failing runs whose
# outcome per rank is known by construction: every count of the CTRF summary
# and of JUnit's headers, each test's status, name, filePath and line, the
# <failure>/<skipped> element of each rank; excerpts of a rank's stderr cut
# between characters with invalid bytes and control characters made valid;
# a report that cannot be written (exit 2, a message, the other report
# still written); test names unique across directories.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/reports.sh"
RUN=$DSH_RUN
tmo() { timeout 120 "$@"; }
S=$T_TMP/suite
mkdir -p "$S/a" "$S/b" "$S/lib"

# ---- a failing run whose every outcome is known ----------------------------------------
# pass.dsh passes everywhere; a/t.dsh fails on rank 0 only, b/t.dsh (same
# base name) on every rank; quit3.dsh passes its assertion and quits 3 on
# rank 1 only; outer.dsh sources lib/inner.dsh, whose line 3 fails everywhere.
printf '# passes\nassert ctl_status == 0x12\n' >"$S/pass.dsh"
printf 'set want 0x13\nrepeat $rank\nset want 0x12\nend\nassert ctl_status == $want\n' >"$S/a/t.dsh"
printf '# fails\n\nassert ctl_status == 0x13\n' >"$S/b/t.dsh"
printf 'assert ctl_status == 0x12\nrepeat $rank\nquit 3\nend\n' >"$S/quit3.dsh"
printf '# inner\n\nassert ctl_status == 0x14\n' >"$S/lib/inner.dsh"
printf 'assert ctl_status == 0x12\nsource %s\n' "$S/lib/inner.dsh" >"$S/outer.dsh"
SCRIPTS=("$S/pass.dsh" "$S/a/t.dsh" "$S/b/t.dsh" "$S/quit3.dsh" "$S/outer.dsh")
expect_status "known run: exit 1" 1 tmo "$RUN" -n 2 "${SCRIPTS[@]}" --report "$S/k.json" --junit "$S/k.xml"
expect_eq "known run: summary line" "4 passed, 6 failed (2 ranks x 5 scripts)" "$(cat "$T_TMP/out")"
expect_eq "known run: CTRF validates" "" "$(ctrf_valid "$S/k.json" 2>&1)"
expect_match "known run: JUnit validates" "validates$" "$(junit_valid "$S/k.xml")"
# tests passed failed skipped pending other
expect_eq "known run: CTRF summary" "10 4 6 0 0 0" "$(ctrf_summary "$S/k.json")"
expect_eq "known run: CTRF suites" "5" "$(jq -r '.results.summary.suites' "$S/k.json")"
expect_eq "known run: CTRF not healthy" "false" "$(jq -r '.results.environment.healthy' "$S/k.json")"
expect_eq "known run: CTRF tests" "pass.dsh [rank 0]|passed|$S/pass.dsh|1
pass.dsh [rank 1]|passed|$S/pass.dsh|1
a/t.dsh [rank 0]|failed|$S/a/t.dsh|5
a/t.dsh [rank 1]|passed|$S/a/t.dsh|1
b/t.dsh [rank 0]|failed|$S/b/t.dsh|3
b/t.dsh [rank 1]|failed|$S/b/t.dsh|3
quit3.dsh [rank 0]|passed|$S/quit3.dsh|1
quit3.dsh [rank 1]|failed|$S/quit3.dsh|3
outer.dsh [rank 0]|failed|$S/lib/inner.dsh|3
outer.dsh [rank 1]|failed|$S/lib/inner.dsh|3" "$(ctrf_rows "$S/k.json")"
expect_eq "known run: CTRF suite of each test" "pass.dsh pass.dsh a/t.dsh a/t.dsh b/t.dsh b/t.dsh quit3.dsh quit3.dsh outer.dsh outer.dsh" \
	"$(jq -r '[.results.tests[].suite[0]] | join(" ")' "$S/k.json")"
expect_eq "known run: CTRF ranks" "0 1 0 1 0 1 0 1 0 1" "$(jq -r '[.results.tests[].extra.rank] | map(tostring) | join(" ")' "$S/k.json")"
expect_match "known run: quit 3 named at its line" "quit3.dsh:3: exit: the script asked to exit 3" "$(jq -r '.results.tests[7].message' "$S/k.json")"
expect_eq "known run: JUnit" "suites 10 6 0 0
suite pass.dsh 2 0 0 0
pass.dsh [rank 0]|passed|$S/pass.dsh|1
pass.dsh [rank 1]|passed|$S/pass.dsh|1
suite a/t.dsh 2 1 0 0
a/t.dsh [rank 0]|failure|$S/a/t.dsh|5
a/t.dsh [rank 1]|passed|$S/a/t.dsh|1
suite b/t.dsh 2 2 0 0
b/t.dsh [rank 0]|failure|$S/b/t.dsh|3
b/t.dsh [rank 1]|failure|$S/b/t.dsh|3
suite quit3.dsh 2 1 0 0
quit3.dsh [rank 0]|passed|$S/quit3.dsh|1
quit3.dsh [rank 1]|failure|$S/quit3.dsh|3
suite outer.dsh 2 2 0 0
outer.dsh [rank 0]|failure|$S/lib/inner.dsh|3
outer.dsh [rank 1]|failure|$S/lib/inner.dsh|3" "$(junit_rows "$S/k.xml")"

# classname: Jenkins splits it at its last dot into package and class, so
# only the dot after dsh-run may be in it (no .dsh: D-JUNIT-CLASSNAME)
expect_eq "known run: JUnit classnames" "dsh-run.pass dsh-run.a/t dsh-run.b/t dsh-run.quit3 dsh-run.outer" \
	"$("$PY" -c 'import sys, xml.etree.ElementTree as ET
seen = []
for tc in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if tc.get("classname") not in seen: seen.append(tc.get("classname"))
print(" ".join(seen))' "$S/k.xml")"

# ---- a run stopped by SIGTERM: the finished script, the killed one, those never run -----
# first.dsh fails on rank 0 only; in slow.dsh each rank waits for the other
# at line 6 (after an echo: its object in the rank's output says it is
# there); never.dsh is never run: skipped.
printf 'set want 0x13\nrepeat $rank\nset want 0x12\nend\nassert ctl_status == $want\n' >"$S/first.dsh"
printf 'set other 1\nrepeat $rank\nset other 0\nend\necho waiting\nwaitfor $other timeout=60s\n' >"$S/slow.dsh"
printf 'assert ctl_status == 0x12\n' >"$S/never.dsh"
mkdir "$S/sigtmp" # dsh-run's private directory in it: the ranks' outputs
# "$BIN/dsh-run" itself: $! must be dsh-run, not a wrapper.  Its ranks are
# dsh itself: through dsh-collect, the wrapper dies of the SIGTERM before
# dsh has written what it does on SIGTERM, and dsh-run reads the output then.
TMPDIR=$S/sigtmp "$BIN/dsh-run" -n 2 "$S/first.dsh" "$S/slow.dsh" "$S/never.dsh" \
	--report "$S/sig.json" --junit "$S/sig.xml" >"$S/sig.out" 2>"$S/sig.err" &
p=$!
i=0
until [ "$(cat "$S"/sigtmp/dsh-run.*/s1.rank[01].json 2>/dev/null | grep -c '"cmd":"echo"')" = 2 ]; do
	[ $i -lt 300 ] || break
	sleep 0.1
	i=$((i + 1))
done
sleep 0.3 # both ranks in their waitfor
kill -TERM "$p"
wait "$p"
expect_eq "SIGTERM: exit 143" "143" "$?"
expect_eq "SIGTERM: CTRF validates" "" "$(ctrf_valid "$S/sig.json" 2>&1)"
expect_match "SIGTERM: JUnit validates" "validates$" "$(junit_valid "$S/sig.xml")"
sum=$(ctrf_summary "$S/sig.json")
expect_eq "SIGTERM: CTRF summary" "6 1 3 2 0 0" "$sum"
[ "$sum" = "6 1 3 2 0 0" ] || jq -r '.results.tests[] | "  \(.name): \(.status): \(.message)"' "$S/sig.json" >&2
expect_eq "SIGTERM: CTRF tests" "first.dsh [rank 0]|failed|$S/first.dsh|5
first.dsh [rank 1]|passed|$S/first.dsh|1
slow.dsh [rank 0]|failed|$S/slow.dsh|6
slow.dsh [rank 1]|failed|$S/slow.dsh|6
never.dsh [rank 0]|skipped|$S/never.dsh|1
never.dsh [rank 1]|skipped|$S/never.dsh|1" "$(ctrf_rows "$S/sig.json")"
expect_eq "SIGTERM: JUnit" "suites 6 3 0 2
suite first.dsh 2 1 0 0
first.dsh [rank 0]|failure|$S/first.dsh|5
first.dsh [rank 1]|passed|$S/first.dsh|1
suite slow.dsh 2 2 0 0
slow.dsh [rank 0]|failure|$S/slow.dsh|6
slow.dsh [rank 1]|failure|$S/slow.dsh|6
suite never.dsh 2 0 0 2
never.dsh [rank 0]|skipped|$S/never.dsh|1
never.dsh [rank 1]|skipped|$S/never.dsh|1" "$(junit_rows "$S/sig.xml")"
expect_eq "SIGTERM: signal in the report" "15 false" "$(jq -r '"\(.results.extra.signal) \(.results.environment.healthy)"' "$S/sig.json")"

# ---- test names: unique, relative to the scripts' common directory ------------------------
expect_status "names: same script twice" 1 tmo "$RUN" -n 1 "$S/b/t.dsh" "$S/a/../b/t.dsh" "$S/pass.dsh" --report "$S/n.json" --junit "$S/n.xml"
expect_eq "names: CTRF" "b/t.dsh [rank 0]|b/t.dsh #2 [rank 0]|pass.dsh [rank 0]" "$(jq -r '[.results.tests[].name] | join("|")' "$S/n.json")"
expect_eq "names: JUnit" "b/t.dsh [rank 0]|b/t.dsh #2 [rank 0]|pass.dsh [rank 0]" \
	"$(junit_rows "$S/n.xml" | grep '|' | cut -d'|' -f1 | paste -sd'|')"
expect_status "names: relative paths" 1 tmo bash -c 'cd "$1" && shift && exec "$@"' _ "$S/a" \
	"$RUN" -n 1 t.dsh ./../b/t.dsh --report "$S/rel.json"
expect_eq "names: relative paths" "a/t.dsh [rank 0]|b/t.dsh [rank 0]" "$(jq -r '[.results.tests[].name] | join("|")' "$S/rel.json")"
expect_status "names: one script" 0 tmo "$RUN" -n 1 "$S/pass.dsh" --report "$S/one.json"
expect_eq "names: one script is its base name" "pass.dsh [rank 0] pass.dsh" "$(jq -r '.results.tests[0] | "\(.name) \(.suite[0])"' "$S/one.json")"

# ---- a rank's stderr: cut between characters, made valid, the rest counted -----------------
# Invalid bytes, ESC, NUL, a control, U+FFFE, then "€" (3 bytes) from byte
# 2046 on: one crosses byte 2048 (the trace's excerpt), one 4096 (system-err's).
"$PY" - "$S/noise.bin" <<'EOF'
import sys
head = b"bad:\xff\xfe esc:\x1b[31m nul:\x00 ctl:\x01 nonchar:\xef\xbf\xbe end\n"
data = head + b"x" * (2046 - len(head)) + "\u20ac".encode() * 1000 + b"\n"
open(sys.argv[1], "wb").write(data)
EOF
cat >"$S/noisy-dsh" <<EOF
#!/usr/bin/env bash
cat "$S/noise.bin" >&2
exec "$T_SHELL/dsh-collect" "\$@"
EOF
chmod +x "$S/noisy-dsh"
expect_status "stderr excerpts: run" 1 tmo "$BIN/dsh-run" --dsh "$S/noisy-dsh" --keep -n 1 "$S/b/t.dsh" --report "$S/x.json" --junit "$S/x.xml"
kept=$(sed -n 's/^dsh-run: outputs kept in //p' "$T_TMP/err")
T_DIRS+=("$kept")
expect_eq "stderr excerpts: CTRF validates" "" "$(ctrf_valid "$S/x.json" 2>&1)"
expect_match "stderr excerpts: JUnit validates" "validates$" "$(junit_valid "$S/x.xml")"
# What each excerpt must be, computed from the rank's stderr file: its bytes
# up to the last character that ends by the limit, NUL and U+FFFE (and in
# XML the other C0 controls but tab, LF, CR) as U+FFFD, then the count of
# bytes left out.
expect_eq "stderr excerpts: cut, valid, counted" "ok" "$("$PY" - "$kept/s0.rank0.err" "$S/x.json" "$S/x.xml" <<'EOF'
import json, re, sys, xml.etree.ElementTree as ET
raw = open(sys.argv[1], "rb").read()
def cut(limit):
    n = limit
    while n < len(raw) and n > 0 and 0x80 <= raw[n] < 0xC0:  # a continuation byte: inside a character
        n -= 1
    return n
def expect(limit, xml):
    n = cut(limit)
    t = raw[:n].decode("utf-8", "replace").replace("\0", "\ufffd").replace("\ufffe", "\ufffd")
    if xml:
        t = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f]", "\ufffd", t)
    return t + ("" if t.endswith("\n") else "\n") + "... (%d bytes more)\n" % (len(raw) - n)
bad = []
for path in sys.argv[2:]:
    try:
        open(path, "rb").read().decode("utf-8")
    except UnicodeDecodeError as e:
        bad.append("%s is not UTF-8: %s" % (path, e))
trace = json.load(open(sys.argv[2], encoding="utf-8"))["results"]["tests"][0]["trace"]
got = trace.split("-- stderr of rank 0 --\n", 1)[-1]
if got != expect(2048, False):
    bad.append("trace excerpt: %r ... %r" % (got[:60], got[-60:]))
err = ET.parse(sys.argv[3]).getroot().find(".//system-err").text
if err != expect(4096, True):
    bad.append("system-err: %r ... %r" % (err[:60], err[-60:]))
if cut(2048) == 2048 or cut(4096) == 4096:
    bad.append("the test's stderr does not cut a character at 2048 and 4096")
print("; ".join(bad) or "ok")
EOF
)"

# ---- report size (D-REPORT-SIZE): 64 ranks x 10 scripts, every rank failing
# 200 assertions in one of them, under 1 MB and valid; plain build only
if [[ $BIN == */build-san/* ]]; then
	not_applicable "64-rank report size: heavy, run on the plain build only"
else
	printf 'repeat 30\nllcm_write from=0x10 it=1 val=5\nassert llcm 0x10 == 5\nend\nbarrier\n' >"$S/size-pass.dsh"
	printf 'repeat 200\nassert llcm 0x18 == 7\nend\nbarrier\n' >"$S/size-fail.dsh"
	SZ=()
	for i in 1 2 3 4 5 6 7 8 9; do cp "$S/size-pass.dsh" "$S/size-p$i.dsh"; SZ+=("$S/size-p$i.dsh"); done
	t0=$SECONDS
	expect_status "64 x 10: exit 1" 1 timeout 300 "$BIN/dsh-run" -n 64 "${SZ[@]}" "$S/size-fail.dsh" --report "$S/size.json"
	echo "$T_SUITE: 64 ranks x 10 scripts in $((SECONDS - t0)) s, CTRF $(stat -c %s "$S/size.json") bytes"
	expect_eq "64 x 10: CTRF under 1 MB" 1 "$(($(stat -c %s "$S/size.json") < 1000000))"
	expect_eq "64 x 10: CTRF validates" "" "$(ctrf_valid "$S/size.json" 2>&1 | tail -n 3)"
	expect_eq "64 x 10: counts" "640 576 64" "$(jq -r '.results.summary | "\(.tests) \(.passed) \(.failed)"' "$S/size.json")"
	expect_eq "64 x 10: passed tests list no commands" 0 \
		"$(jq '[.results.tests[] | select(.status == "passed") | .extra.command_results | length] | add' "$S/size.json")"
	expect_eq "64 x 10: a failed test: 8 failures listed, the rest counted" "8 192 200" \
		"$(jq -r '[.results.tests[] | select(.status == "failed")][0].extra | "\(.failures | length) \(.failures_omitted) \(.assertions_failed)"' "$S/size.json")"
	expect_match "64 x 10: the trace says what it left out" "and 192 more failures" \
		"$(jq -r '[.results.tests[] | select(.status == "failed")][0].trace' "$S/size.json")"
fi

# ---- reports that cannot be written: exit 2, the file and the error named, the other written
for which in report junit; do
	if [ $which = report ]; then bad=(--report /dev/full) good=(--junit "$S/w.xml") kind=CTRF
	else bad=(--junit /dev/full) good=(--report "$S/w.json") kind=JUnit; fi
	rm -f "$S/w.xml" "$S/w.json"
	expect_status "--$which /dev/full: exit 2" 2 tmo "$RUN" -n 2 "${SCRIPTS[@]}" "${bad[@]}" "${good[@]}"
	expect_match "--$which /dev/full: named" "^dsh-run: cannot write the $kind report '/dev/full': No space left on device$" "$(cat "$T_TMP/err")"
	expect_eq "--$which /dev/full: no crash" "" "$(grep -E 'free|Sanitizer|runtime error|Abort' "$T_TMP/err")"
	expect_eq "--$which /dev/full: the run's verdict still printed" "4 passed, 6 failed (2 ranks x 5 scripts)" "$(cat "$T_TMP/out")"
	if [ $which = report ]; then
		expect_match "--report /dev/full: JUnit written" "validates$" "$(junit_valid "$S/w.xml")"
		expect_eq "--report /dev/full: JUnit counts" "suites 10 6 0 0" "$(junit_rows "$S/w.xml" | sed -n 1p)"
	else
		expect_eq "--junit /dev/full: CTRF written" "" "$(ctrf_valid "$S/w.json" 2>&1)"
		expect_eq "--junit /dev/full: CTRF counts" "10 4 6 0 0 0" "$(ctrf_summary "$S/w.json")"
	fi
done
expect_status "both reports unwritable: exit 2" 2 tmo "$RUN" -n 1 "$S/pass.dsh" --report /dev/full --junit "$S/nodir/r.xml"
expect_match "both reports unwritable: CTRF named" "cannot write the CTRF report '/dev/full': No space left on device" "$(cat "$T_TMP/err")"
expect_match "both reports unwritable: JUnit named" "cannot write the JUnit report '$S/nodir/r.xml': No such file or directory" "$(cat "$T_TMP/err")"
expect_eq "a passing run, report unwritable: the tests passed" "1 passed, 0 failed (1 rank x 1 script)" "$(cat "$T_TMP/out")"
finish
