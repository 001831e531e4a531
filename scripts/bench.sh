#!/usr/bin/env bash
# Run every benchmark (scripts/bench-*.sh).  Benchmarks print figures
# (medians, ratios); they do not pass or fail.
set -u
cd "$(dirname "$0")/.."
status=0
for b in scripts/bench-*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	bash "$b" || status=1
done
exit $status
