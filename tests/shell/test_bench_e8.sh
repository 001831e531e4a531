#!/usr/bin/env bash
# dsh bench E8: the IPUSH receive-area trace analysis (Table 7.3).  The
# trace parser (errors with file:line), P from small hand-made traces with
# known answers, and the built-in NPB patterns against partner sets worked
# out here from the NPB 3.3 formulas (not from the bench's generators).
# No emulator: a few seconds.
# Decisions pinned here (docs/decisions.md): D-BENCH-E8-COLL,
# D-BENCH-E8-PARTNER.
. "$(dirname "$0")/lib.sh"
S=$T_TMP
PY=python3

# ---- trace parser ----
cat >"$S/ok.trace" <<'EOF'
# a hand-made trace, ranks=8
1 0 64
2 0 64   # trailing comment
3 0 8

1 0 64
0 0 8
7 6 1
7 5 1
7 4 1
7 3 1
EOF
printf '0 1 8\r\n' >>"$S/ok.trace"
# senders: 0 <- {1,2,3} (the self message is no partner), 3..6 <- {7},
# 1 <- {0}: P = 3; senders or receivers: 7 <-> {3,4,5,6}: P = 4.
expect_status "hand trace" 0 "$DSH" --json -c "bench E8 traces=$S/ok.trace ranks=8"
row() { jq -c "select(.cmd == \"bench\") | .result.table7_3[$1] | [.application, .partners, .ranks, .ratio, .processes_with_max, .messages]" "$T_TMP/out"; }
expect_eq "P = 3 of 8 (senders)" '["ok",3,8,0.5,1,10]' "$(row 0)"
expect_status "hand trace, partners=any" 0 "$DSH" --json -c "bench E8 traces=$S/ok.trace ranks=8 partners=any"
expect_eq "P = 4 of 8 (senders or receivers)" '["ok",4,8,0.625,1,10]' "$(row 0)"

bad() { # name line-content expected-message
	printf '# header\n0 1 8\n%s\n' "$2" >"$S/bad.trace"
	expect_status "$1" 1 "$DSH" -c "bench E8 traces=$S/bad.trace"
	expect_match "$1: file:line" "$S/bad.trace:3: $3" "$(cat "$T_TMP/err")"
}
bad "two fields" "0 1" "2 fields, expected 3"
bad "four fields" "0 1 2 3" "more than 3 fields"
bad "not a number" "0 x1 8" "field 2 'x1' is not a decimal number"
bad "negative" "0 1 -8" "field 3 '-8' is not a decimal number"
bad "junk after a number" "0 1 8k" "field 3 '8k' is not a decimal number"
bad "rank out of range" "64 1 8" "src rank 64 is not below ranks=64"
bad "overflow" "0 1 99999999999999999999999" "field 3 '99999999999999999999999' is not a decimal number"
expect_status "missing file" 1 "$DSH" -c "bench E8 traces=$S/nonexistent"
expect_match "names it" "traces=$S/nonexistent: No such file" "$(cat "$T_TMP/err")"
mkdir -p "$S/empty"
expect_status "empty directory" 1 "$DSH" -c "bench E8 traces=$S/empty"
expect_match "says so" "no trace files" "$(cat "$T_TMP/err")"

# A directory: one application per file, named before the first '.'.
mkdir -p "$S/dir"
printf '0 1 8\n1 0 8\n' >"$S/dir/b.txt"
printf '%s\n' "0 1 8" "2 1 8" "3 1 8" >"$S/dir/a.trace"
expect_status "trace directory" 0 "$DSH" --json -c "bench E8 traces=$S/dir"
expect_eq "rows in name order" '["a",3,64,0.0625,1,3]|["b",1,64,0.03125,2,2]' "$(row 0)|$(row 1)"

# SimGrid's time-independent traces ("[p]RANK ACTION ARGS"): sends are
# messages, collectives their point-to-point pattern once (coll=).
cat >"$S/ring.ti" <<'EOF'
# 4 ranks
p0 init
p0 compute 1e6
p0 Isend p1 1e6
p1 recv p0 1e6
p1 send 2 1024
p2 Irecv 1 1024
p2 wait
p3 send p0 8
p0 bcast 5e4 3
p1 bcast 5e4 3
p0 finalize
EOF
# sends: 1 <- 0, 2 <- 1, 0 <- 3: P = 1 (3 processes);
# a binomial Bcast from rank 3 adds 3 -> 0, 3 -> 1, 1 -> 2: 1 <- {0, 3}, P = 2.
expect_status "SimGrid trace, coll=none" 0 "$DSH" --json -c "bench E8 traces=$S/ring.ti ranks=4 coll=none"
expect_eq "sends only" '["ring",1,4,0.5,3,3]' "$(row 0)"
expect_status "SimGrid trace, collectives" 0 "$DSH" --json -c "bench E8 traces=$S/ring.ti ranks=4"
expect_eq "with the Bcast tree" '["ring",2,4,0.75,1,6]' "$(row 0)"
ti_bad() { # name line expected-message
	printf 'p0 init\n%s\n' "$2" >"$S/bad.ti"
	expect_status "$1" 1 "$DSH" -c "bench E8 traces=$S/bad.ti"
	expect_match "$1: file:line" "$S/bad.ti:2: $3" "$(cat "$T_TMP/err")"
}
ti_bad "unknown action" "p0 frobnicate 3" "unknown action 'frobnicate'"
ti_bad "bad destination" "p0 send px 3" "destination 'px' is not a rank"
ti_bad "bad size" "p0 send p1 lots" "size 'lots' is not a number of bytes"
ti_bad "bad root" "p0 bcast 8 99" "root '99' of bcast is not a rank below ranks=64"
ti_bad "send without size" "p0 send p1" "send needs a destination and a size"

# ---- options ----
expect_status "coll= unknown" 1 "$DSH" -c "bench E8 coll=linear"
expect_match "names the choices" "coll=linear: rd, binomial or none" "$(cat "$T_TMP/err")"
expect_status "ranks=1" 1 "$DSH" -c "bench E8 ranks=1"
expect_status "E8 options with E1" 1 "$DSH" -c "bench E1 quick coll=none"
expect_match "says so" "coll=none: an option of E8" "$(cat "$T_TMP/err")"
expect_status "SP needs a square" 1 "$DSH" -c "bench E8 ranks=32"
expect_match "says so" "SP needs a square number of ranks" "$(cat "$T_TMP/err")"

# ---- built-in NPB patterns (64 ranks, Class A) ----
for c in rd binomial none; do
	expect_status "built-in coll=$c" 0 "$DSH" -c "bench E8 coll=$c json=$S/$c.json out=$S/out-$c"
done
# The default is MPICH-1's binomial collectives (D-BENCH-E8-COLL).
expect_status "built-in default" 0 "$DSH" -c "bench E8 json=$S/def.json out=$S/out-def"
expect_match "default coll=binomial" "coll=binomial\$" "$(head -1 "$S/out-def/e8-MG.trace")"
expect_eq "default table = coll=binomial" "$(jq -c '.table7_3' "$S/binomial.json")" "$(jq -c '.table7_3' "$S/def.json")"
expect_match "table printed" "IS +built-in +63 " "$("$DSH" -c 'bench E8' 2>/dev/null)"
expect_eq "table file" 7 "$(wc -l <"$S/out-rd/table7.3.txt")"
expect_eq "histogram data" "table7.3.dat table7.3.gp" "$(cd "$S/out-rd" && ls table7.3.dat table7.3.gp | tr '\n' ' ' | sed 's/ $//')"
expect_eq "JSON kinds" "prediction" "$(jq -r '[.values[] | select(.experiment == "E8") | .kind] | unique | join(" ")' "$S/rd.json")"

# Expected senders of every rank from the NPB 3.3 formulas, compared with
# the dumped traces and with P in the JSON.
"$PY" - "$S" <<'EOF' && pass || fail "built-in patterns differ from the NPB formulas (above)"
import json, sys
S = sys.argv[1]
P = 64
def senders(path):
    s = {r: set() for r in range(P)}
    for line in open(path):
        line = line.split('#')[0].split()
        if line:
            a, b = int(line[0]), int(line[1])
            if a != b:
                s[b].add(a)
    return s
def rd():  # recursive-doubling allreduce partners: r xor 2^k
    return {r: {r ^ (1 << k) for k in range(6)} for r in range(P)}
def binom():  # binomial Reduce to 0 + Bcast from 0: children r + 2^k below r's lowest bit, parent r & (r - 1)
    low = lambda r: r & -r if r else P
    return {r: {r + (1 << k) for k in range(6) if (1 << k) < low(r)} | ({r & (r - 1)} if r else set()) for r in range(P)}
def union(*ms):
    return {r: set().union(*(m[r] for m in ms)) - {r} for r in range(P)}
exp = {}
# CG: 8 x 8 (setparams: cols = rows = 2^3); reduce_exch_proc = the ranks
# whose column differs in one bit (distances 4, 2, 1 within the row block),
# exch_proc = the transposed position.
exp["CG"] = {me: ({(me // 8) * 8 + (me % 8 ^ b) for b in (1, 2, 4)} | {(me % 8) * 8 + me // 8}) - {me}
             for me in range(P)}
# LU: 8 x 8, non-periodic north/south = id -+ 1 within a column of 8, west/east = id -+ 8.
exp["LU"] = {i: {j for j in (i - 1, i + 1) if 0 <= j < P and j // 8 == i // 8} |
                {j for j in (i - 8, i + 8) if 0 <= j < P} for i in range(P)}
# SP, BT: 8 cells; cell (i, j) of node = i + 8 j talks to its six diagonal-wrapped
# neighbours (i+-1, j), (i, j+-1), (i+1, j-1), (i-1, j+1) mod 8.
def mp(n):
    i, j = n % 8, n // 8
    return {(a % 8) + 8 * (b % 8) for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1), (i + 1, j - 1), (i - 1, j + 1))}
exp["SP"] = exp["BT"] = {n: mp(n) for n in range(P)}
# MG: 4 x 4 x 4 torus (log2 64 = 6 split 2/2/2); every process swaps faces with
# its 6 neighbours; at the coarsest level (2^3 points) only processes with odd
# coordinates in all three axes hold points, and they swap with the
# processes two steps away (also odd): 3 more partners for those 8.
def mg(n):
    c = [n % 4, n // 4 % 4, n // 16]
    out = set()
    for ax in range(3):
        dists = (1, 2) if all(x % 2 for x in c) else (1,)
        for d in dists:
            for s in (d, -d):
                cc = list(c); cc[ax] = (cc[ax] + s) % 4
                out.add(cc[0] + 4 * cc[1] + 16 * cc[2])
    return out
exp["MG"] = {n: mg(n) for n in range(P)}
exp["IS"] = {r: set() for r in range(P)}
bad = 0
for coll in ("none", "rd", "binomial"):
    js = json.load(open(f"{S}/{coll}.json"))
    rows = {r["application"]: r for r in js["table7_3"]}
    for app in ("MG", "CG", "IS", "LU", "SP", "BT"):
        ar = rd() if coll == "rd" else binom()
        want = exp[app] if coll == "none" else union(exp[app], ar if app in ("MG", "LU", "IS") else {r: set() for r in range(P)})
        if app == "IS" and coll != "none":
            want = {r: set(range(P)) - {r} for r in range(P)}  # Alltoall: everybody
        got = senders(f"{S}/out-{coll}/e8-{app}.trace")
        if got != want:
            bad += 1
            r = next(r for r in range(P) if got[r] != want[r])
            print(f"coll={coll} {app}: rank {r} senders {sorted(got[r])}, expected {sorted(want[r])}")
        pmax = max(len(v) for v in want.values())
        if rows[app]["partners"] != pmax or abs(rows[app]["ratio"] - (pmax + 1) / 64) > 1e-6:
            bad += 1
            print(f"coll={coll} {app}: P {rows[app]['partners']}, expected {pmax}")
sys.exit(1 if bad else 0)
EOF

# A dumped built-in trace read back gives the same P.
mkdir -p "$S/back"
cp "$S"/out-rd/e8-*.trace "$S/back/"
expect_status "dumped traces read back" 0 "$DSH" --json -c "bench E8 traces=$S/back"
expect_eq "same P" "$(jq -c '[.table7_3[] | ["e8-" + .application, .partners]] | sort' "$S/rd.json")" \
	"$(jq -c 'select(.cmd == "bench") | [.result.table7_3[] | [.application, .partners]] | sort' "$T_TMP/out")"
# Other process counts: the generators follow the NPB grids.
expect_status "ranks=16" 0 "$DSH" --json -c "bench E8 ranks=16 coll=none"
expect_eq "16 ranks: CG 4x4 has 2 row partners + transpose; SP/BT 4 cells: 6" '[3,6,6]' \
	"$(jq -c 'select(.cmd == "bench") | [.result.table7_3[] | select(.application == ("CG", "SP", "BT")) | .partners]' "$T_TMP/out")"
finish
