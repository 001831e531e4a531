#!/usr/bin/env bash
# The attack suite (issue 12, cases 1-11 and more; tests/attack/attack.py):
# each attack runs against its own live dnetd (UNIX socket in the test's
# temp dir, or TCP on 127.0.0.1 with a token file) while a well-behaved
# client reads Controller Status every 5 ms over its own connection.  An
# attack holds if what it targets is refused or bounded and the other
# client's reads are answered: median within 10 ms.  The worst read is
# printed; it is bounded only loosely (1 s, against the seconds the daemon
# stalled before issue 12) since on a shared 2-CPU machine the probe itself
# may wait for a CPU.  Under the ASan+UBSan build (several times slower,
# also on shared machines) the bounds are 50 ms and 3 s.  Prints one line of
# figures per attack (attacks tried, worst latency another client saw).
#   ATTACKS="name ..." runs only those.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip "no python3: attacks not run"
	finish
	exit
fi
case "$BIN" in
*build-san*) median=50 worst=3000 ;;
*) median=10 worst=1000 ;;
esac
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
# privilege-claim runs attack.py as uid nobody: from a copy in its reach
ou=()
other_uid_dir nobody "$(dirname "$0")/../attack/attack.py" && ou=(--other-uid-dir "$OU_DIR")
# Bounded: each attack lasts a few seconds; the whole suite about 45 s (plain).
# shellcheck disable=SC2086
timeout 170 python3 "$(dirname "$0")/../attack/attack.py" --bin "$BIN" --tmp "$T_TMP" "${ou[@]}" \
	--bound-ms "$median" --worst-ms "$worst" ${ATTACKS:-} >"$T_TMP/attack.out" 2>"$T_TMP/attack.err"
rc=$?
n=0
while IFS= read -r line; do
	case "$line" in
	ok\ *) pass; n=$((n + 1)) ;;
	FAIL\ *) fail "${line#FAIL }"; n=$((n + 1)) ;;
	SKIP\ *) # other_uid_dir's reason is the more precise
		line=${line#SKIP }; skip "${line/no --other-uid-dir/${OU_WHY:-no --other-uid-dir}}" ;;
	esac
done <"$T_TMP/attack.out"
[ "$n" -gt 0 ] || [ "$T_SKIP" -gt 0 ] || fail "no attack ran (exit $rc): $(tail -c 600 "$T_TMP/attack.err")"
[ "$rc" -eq 0 ] || [ "$T_FAIL" -gt 0 ] || fail "attack.py exited $rc: $(tail -c 600 "$T_TMP/attack.err")"
# The figures: attacks tried, the worst read another client saw during each.
echo "$T_SUITE: $n attacks (bounds: median $median ms, worst $worst ms):"
sed 's/^/  /' "$T_TMP/attack.out"
finish
