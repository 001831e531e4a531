#!/usr/bin/env bash
# Which predictions rest on which constant (issue 25, Deliver 3): every step
# cost of the emulator's timing model (backends/sim/timing.c, listed by
# `dsh -c params` as timing.*) raised by 10 % in turn (at least by one unit),
# `bench all quick` re-run with it (bench timing.NAME=VALUE), and the change
# of each headline value printed, in % of its value with the model as it is.
#   scripts/timing-sensitivity.sh [OUT.md]   (default: standard output)
# Not part of `make bench` (about 75 s; it describes the model, not the
# toolkit's speed).
# The emulator is deterministic: one run per constant is the result.  Only
# changes of at least 0.5 % are shown; a constant that moves nothing is
# listed at the end.  The slow-event constants (SO-DIMM init, link up/reset)
# and the L2 size are left out: no experiment times them.
set -eu
cd "$(dirname "$0")/.."
DSH=${DSH:-bin/dsh}
out=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$DSH" -c 'bench all quick json='"$tmp"'/base.json' >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
"$DSH" --json -c params | python3 -c '
import json, sys
for p in json.load(sys.stdin)["result"]["params"]:
    if p["name"].startswith("timing.") and p["name"] not in (
            "timing.sdimm_init_ns", "timing.sma_up_ns", "timing.sma_reset_ns", "timing.host_l2_bytes",
            "timing.host_l2_ways", "timing.host_page_bytes"):
        print(p["name"], p["value"])' >"$tmp/consts"
while read -r name value; do
	up=$((value + (value / 10 > 0 ? value / 10 : 1)))
	"$DSH" -c "bench all quick $name=$up json=$tmp/$name.json" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	echo "$name $value $up" >>"$tmp/done"
done <"$tmp/consts"
report() { if [ -n "$out" ]; then cat >"$out"; else cat; fi; }
python3 - "$tmp" <<'EOF' | report
import json, sys, os
tmp = sys.argv[1]
base = json.load(open(os.path.join(tmp, "base.json")))["values"]
key = lambda v: (v["experiment"], v["what"])
bv = {key(v): v for v in base}
consts, moves = [], {}          # moves[key] = [(|d|, d, const)]
for line in open(os.path.join(tmp, "done")):
    name, value, up = line.split()
    consts.append((name[7:], value, up))
    for v in json.load(open(os.path.join(tmp, name + ".json")))["values"]:
        b = bv.get(key(v))
        if b and b["model"] is not None and v["model"] is not None and abs(b["model"]) > 1e-12:
            d = (v["model"] - b["model"]) / abs(b["model"]) * 100
            if abs(d) >= 0.5:
                moves.setdefault(key(v), []).append((abs(d), d, name[7:]))
print("Each constant raised by 10 % (at least one unit): " + ", ".join("`%s` %s -> %s" % c for c in consts) + ".")
print()
print("| experiment | headline value (kind) | the constants it moves with, change per +10 % |")
print("|---|---|---|")
used = set()
for v in base:
    m = sorted(moves.get(key(v), []), key=lambda x: -x[0])
    used.update(c for _, _, c in m)
    print("| %s | %s (%s) | %s |" % (v["experiment"], v["what"].replace("|", "/"), v["kind"],
          "; ".join("`%s` %+.1f %%" % (c, d) for _, d, c in m[:5]) + (" ..." if len(m) > 5 else "") or "none by 0.5 % or more"))
print()
print("Constants that move no headline value by 0.5 % or more: " +
      (", ".join("`%s`" % c for c, _, _ in consts if c not in used) or "none") + ".")
EOF
