#!/usr/bin/env bash
# make stress: long runs that do not fit make test's time.  Prints each
# run's result; exits non-zero if one fails.
set -u -o pipefail
cd "$(dirname "$0")/.."
status=0
run() { echo "== $*"; "$@" 2>&1 | tail -n "${TAIL:-3}" || status=1; }
run env MSG_RANDOM_N=200000 build/tests/test_msg
run env MSG_RANDOM_N=20000 build-san/tests/test_msg
# Every fuzz target's standalone driver under ASan+UBSan, many more inputs
# than make test (each prints its executions and exec/s).
for t in "sim 200000" "proto 1000000" "parse 2000000" "dsh 40000" "remote 20000" "server 4000"; do
	set -- $t
	run env FUZZ_ITERS="$2" "build-san/tests/test_fuzz_$1"
done
# 100,000 random primitives of every family among 8 nodes under 5 % loss,
# reordering, duplication, delay, corruption and stalls, compared byte for
# byte with a fault-free run of the same seed (figures on the last 4 lines).
TAIL=5 run env FAULTS_N=100000 build/tests/test_faults
TAIL=5 run env FAULTS_N=10000 FAULTS_SEED=7 build-san/tests/test_faults
# The attack suite against a live dnetd, with its figures (attacks tried,
# the worst read another client saw during each).
TAIL=22 run env BIN="$PWD/bin" bash tests/shell/test_attack.sh
for n in 16 32 64; do
	run bin/dsh-run -n "$n" --timeout 600s scripts/tests/barrier_stress.dsh
done
for i in 1 2 3 4 5; do
	run bin/dsh-run -n 8 --timeout 120s scripts/tests/messages.dsh scripts/tests/counters.dsh
done
# verdicts: 300 random whole scripts and 20,000 conditions (make test: 100 and 10,000)
run env BIN="$PWD/bin" DSH_VERDICT_SCRIPTS=300 DSH_VERDICT_CASES=20000 bash tests/shell/test_dsh_verdicts.sh
# virtual times of a lockstep run: the same every time
run bin/dsh-run -n 8 --lockstep --timeout 120s scripts/tests/*.dsh
exit $status
