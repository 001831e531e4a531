#!/usr/bin/env bash
# make fuzz: each fuzz target of tests/fuzz for SECONDS (default 120;
# FUZZ_TIME in make), one after the other; FUZZ_TARGETS="proto dsh" runs
# only those.
#
# With clang: libFuzzer + ASan + UBSan, coverage-guided.  The library (and
# for fuzz_dsh, dsh's objects but main.o; for fuzz_server, the server's)
# is compiled once into build-fuzz/;
# each target starts from its seed corpus tests/fuzz/corpus/NAME and its
# regression inputs tests/fuzz/regress/NAME, and adds what it finds to
# build-fuzz/corpus-NAME (kept between runs).  A finding stops the target
# and leaves its input in build-fuzz/artifacts-NAME/ (crash-*, timeout-*,
# leak-*, oom-*): copy it to tests/fuzz/regress/NAME/ once fixed, and the
# make-test run replays it.
# FUZZ_MERGE=1: fuzz nothing; add to tests/fuzz/corpus/NAME the inputs of
# build-fuzz/corpus-NAME that reach code the seeds there do not (libFuzzer's
# -merge=1), for make test's replay.
# Without clang: the standalone driver of the SAN build, for as many random
# and mutated inputs as fit the time.
#
# One summary line per target: executions, exec/s, corpus size, findings.
set -u -o pipefail
secs=${1:-120}
cd "$(dirname "$0")/.."
root=$PWD
out=build-fuzz
mkdir -p "$out"
targets=()
for t in tests/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	if [ -n "${FUZZ_TARGETS:-}" ] && ! [[ " $FUZZ_TARGETS " == *" ${name#fuzz_} "* ]]; then
		continue
	fi
	targets+=("$name")
done
status=0
summary=()

pkg_cflags=$(pkg-config --cflags libcjson libpci 2>/dev/null)
pkg_libs=$(pkg-config --libs libcjson libpci 2>/dev/null || echo -lcjson -lpci)
CFLAGS_FUZZ="-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all -Ilibdnet/include -Ibackends -Idsh -Itests/fuzz $pkg_cflags"

# Compile every source once with coverage instrumentation; prints the objects.
compile_objs() { # listname files...
	local list=$1; shift
	local objs=() todo=() f o
	for f in "$@"; do
		o=$out/obj/${f%.c}.o
		objs+=("$o")
		if [ ! -e "$o" ] || [ "$f" -nt "$o" ] || [ -n "$(find libdnet/include backends dsh -name '*.h' -newer "$o" -print -quit)" ]; then
			todo+=("$f")
		fi
	done
	[ ${#todo[@]} -gt 0 ] && echo "== compiling ${#todo[@]} sources for libFuzzer"
	# shellcheck disable=SC2016
	printf '%s\n' "${todo[@]}" | xargs -r -P 2 -I{} env OUT="$out" CF="$CFLAGS_FUZZ" sh -c \
		'o=$OUT/obj/${1%.c}.o; mkdir -p "$(dirname "$o")"; clang $CF -fsanitize=fuzzer-no-link,address,undefined -c "$1" -o "$o"' sh {} \
		|| return 1
	printf '%s\n' "${objs[@]}" > "$out/$list.objs"
}

if command -v clang >/dev/null 2>&1; then
	# other flags than last time: compile everything again
	if [ "$(cat "$out/flags" 2>/dev/null)" != "$CFLAGS_FUZZ" ]; then
		rm -rf "$out/obj"
		printf '%s\n' "$CFLAGS_FUZZ" > "$out/flags"
	fi
	# shellcheck disable=SC2046
	compile_objs lib $(ls libdnet/src/*.c backends/*/*.c backends/remote/wire/*.c) || exit 1
	# shellcheck disable=SC2046
	compile_objs dsh $(ls dsh/*.c | grep -v '^dsh/main\.c$') || exit 1
	# the server: dnetd's room but the program's main (as the Makefile's SERVER_SRC)
	# shellcheck disable=SC2046
	compile_objs server $(ls backends/remote/dnetd/*.c | grep -v '/dnetd\.c$') || exit 1
fi

for name in "${targets[@]}"; do
	t=tests/fuzz/$name.c
	if command -v clang >/dev/null 2>&1; then
		bin=$out/$name
		extra=()
		maxlen=4096
		if [ "$name" = fuzz_dsh ]; then
			mapfile -t extra < "$out/dsh.objs"
			extra+=(-Wl,--wrap=cmd_bench -Wl,--wrap=cmd_replay -Wl,--wrap=cmd_source -Wl,--wrap=cmd_probe -lreadline)
		fi
		if [ "$name" = fuzz_server ]; then
			mapfile -t extra < "$out/server.objs"
			maxlen=8192
		fi
		if [ -n "${FUZZ_MERGE:-}" ]; then echo "== $name: merging"; else echo "== $name: libFuzzer for ${secs}s"; fi
		mapfile -t libobjs < "$out/lib.objs"
		# shellcheck disable=SC2086
		if ! clang $CFLAGS_FUZZ -fsanitize=fuzzer,address,undefined -o "$bin" "$t" "${extra[@]}" "${libobjs[@]}" \
			$pkg_libs -lm -lpthread; then
			status=1
			summary+=("$name: does not build")
			continue
		fi
		corpus=$out/corpus-$name
		art=$out/artifacts-$name
		mkdir -p "$corpus" "$art" "tests/fuzz/corpus/$name" "tests/fuzz/regress/$name"
		if [ -n "${FUZZ_MERGE:-}" ]; then
			n0=$(find "tests/fuzz/corpus/$name" -type f | wc -l)
			"$bin" -merge=1 -max_len="$maxlen" -timeout=20 -close_fd_mask=1 "tests/fuzz/corpus/$name" "$corpus" \
				> "$out/$name.merge.log" 2>&1 || { status=1; tail -n 20 "$out/$name.merge.log"; }
			n1=$(find "tests/fuzz/corpus/$name" -type f | wc -l)
			summary+=("$(printf '%-12s merged: %s new inputs in tests/fuzz/corpus/%s (%s in all)' "$name" $((n1 - n0)) "$name" "$n1")")
			continue
		fi
		before=$(find "$art" -type f | wc -l)
		log=$out/$name.log
		start=$SECONDS
		"$bin" -max_total_time="$secs" -max_len="$maxlen" -timeout=20 -rss_limit_mb=2048 \
			-print_final_stats=1 -close_fd_mask=1 -artifact_prefix="$art/" \
			"$corpus" "tests/fuzz/corpus/$name" "tests/fuzz/regress/$name" > "$log" 2>&1
		rc=$?
		el=$((SECONDS - start))
		grep -E '^(#[0-9]+[[:space:]]+(DONE|INITED)|==[0-9]+==ERROR|SUMMARY|.*(deadly signal|Test unit written|ALARM))' "$log" | tail -n 6
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
		findings=$(( $(find "$art" -type f | wc -l) - before ))
		csize=$(find "$corpus" -type f | wc -l)
		if [ "$rc" -ne 0 ] || [ "$findings" -gt 0 ]; then
			status=1
			[ "$findings" -eq 0 ] && findings=1
			tail -n 40 "$log" | sed 's/^/    | /'
		fi
		summary+=("$(printf '%-12s %10s executions in %4ss, %6s exec/s, corpus %5s inputs, %s findings' \
			"$name" "${execs:-?}" "$el" "${rate:-?}" "$csize" "$findings")")
	else
		echo "== $name: standalone driver for ${secs}s"
		end=$((SECONDS + secs))
		execs=0
		findings=0
		start=$SECONDS
		while [ $SECONDS -lt $end ]; do
			if ! line=$(cd "$out" && FUZZ_ITERS=20000 "$root/build-san/tests/test_$name" 2>"$name.err"); then
				cat "$out/$name.err"
				status=1
				findings=1
				break
			fi
			n=$(printf '%s\n' "$line" | sed -n 's/^[a-z_]*: \([0-9]*\) passed.*/\1/p')
			execs=$((execs + ${n:-0}))
		done
		el=$((SECONDS - start))
		summary+=("$(printf '%-12s %10s executions in %4ss, %6s exec/s, corpus %5s inputs, %s findings' \
			"$name" "$execs" "$el" "$((execs / (el ? el : 1)))" "$(find "tests/fuzz/corpus/$name" -type f 2>/dev/null | wc -l)" "$findings")")
	fi
done
echo "== fuzz summary"
printf '  %s\n' "${summary[@]}"
exit $status
