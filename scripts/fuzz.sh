#!/usr/bin/env bash
# make fuzz: each fuzz target of tests/fuzz for SECONDS (default 120).
# With clang: libFuzzer + ASan + UBSan (coverage-guided, corpus kept in
# build-fuzz/corpus-NAME).  Without: the standalone driver of the SAN build
# for as many random and mutated inputs as fit the time.
# A finding leaves its input (crash-* or fuzz-crash.bin) in build-fuzz/.
set -u -o pipefail
secs=${1:-120}
cd "$(dirname "$0")/.."
root=$PWD
mkdir -p build-fuzz
srcs=$(ls libdnet/src/*.c backends/*/*.c)
status=0
for t in tests/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	if command -v clang >/dev/null 2>&1; then
		bin=build-fuzz/$name
		echo "== $name: libFuzzer for ${secs}s"
		# shellcheck disable=SC2086
		clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
			-Ilibdnet/include -Ibackends $(pkg-config --cflags libcjson libpci 2>/dev/null) \
			-Itests/fuzz -o "$bin" "$t" $srcs $(pkg-config --libs libcjson libpci 2>/dev/null || echo -lcjson -lpci) -lm \
			|| { status=1; continue; }
		mkdir -p "build-fuzz/corpus-$name"
		(cd build-fuzz && "./$name" -max_total_time="$secs" -max_len=4096 "corpus-$name") 2>&1 | tail -n 5 \
			|| status=1
	else
		echo "== $name: standalone driver for ${secs}s"
		end=$((SECONDS + secs))
		while [ $SECONDS -lt $end ]; do
			(cd build-fuzz && FUZZ_ITERS=20000 "$root/build-san/tests/test_$name") >/dev/null 2>build-fuzz/$name.err \
				|| { cat build-fuzz/$name.err; status=1; break; }
		done
	fi
done
exit $status
