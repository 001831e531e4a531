#!/usr/bin/env bash
# The timing model's fitted constants are the fit's (issue 34, D-SIM-TIMING-FIT):
# scripts/timing-fit.sh --local finds timing.c's values inside their bounds
# and no neighbour on the fit's grid better on the calibration points of
# E1, E3, E5 and E6.  (The whole search, `timing-fit.sh --check`, takes a
# minute or two: make bench's, not make test's.)  The check is seen to fail
# on a model whose constant is off the optimum: a dsh that reports
# host_bus_line_ns as 62 (the bench then runs with 62).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$T_SHELL/../.." && pwd)
if [[ $BIN == */build-san/* ]]; then
	not_applicable "the fit: the model's values are the plain build's (run there)"
elif ! command -v python3 >/dev/null; then
	skip "python3 not installed"
else
	expect_status "timing.c holds the fit's optimum" 0 env DSH="$BIN/dsh" bash "$ROOT/scripts/timing-fit.sh" --local
	expect_match "said so" "optimum among their neighbours" "$(cat "$T_TMP/out")"
	# A model off the optimum: params says 62 (and the wire of E1's host part
	# follows it, as the fit ties it), every bench trial starts from there.
	cat >"$T_TMP/dsh62" <<SH
#!/usr/bin/env bash
if [ "\$*" = "--json -c params" ]; then
	"$BIN/dsh" --json -c params | sed 's/"timing.host_bus_line_ns", *"type": *"u64", *"access": *"rw", *"value": *"57"/"timing.host_bus_line_ns", "type": "u64", "access": "rw", "value": "62"/; s/"timing.host_wc_drain_ns", *"type": *"u64", *"access": *"rw", *"value": *"97"/"timing.host_wc_drain_ns", "type": "u64", "access": "rw", "value": "92"/'
else
	exec "$BIN/dsh" "\$@"
fi
SH
	chmod +x "$T_TMP/dsh62"
	expect_match "the stand-in reports 62" '"value": *"62"' "$("$T_TMP/dsh62" --json -c params)"
	expect_status "a constant off the optimum is found" 1 env DSH="$T_TMP/dsh62" bash "$ROOT/scripts/timing-fit.sh" --local
	expect_match "and named" "host_bus_line_ns = 5[0-9] fits better than timing.c's 62" "$(cat "$T_TMP/out")"
	expect_status "an unknown option is refused" 2 bash "$ROOT/scripts/timing-fit.sh" --fast
fi
finish
