#!/usr/bin/env bash
# The thesis's evaluation (docs/timing-model.md E1-E9) on the emulator's
# timing model: one line per headline figure, model beside thesis.  Curves
# in build/bench/thesis.json, per-figure data (and plots with gnuplot) in
# build/bench/figures/.  Deterministic: one run is the result.
set -u
cd "$(dirname "$0")/.."
mkdir -p build/bench
exec bin/dsh -c "bench json=build/bench/thesis.json out=build/bench/figures"
