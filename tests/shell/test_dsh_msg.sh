#!/usr/bin/env bash
# dsh send/recv: messages through the LH Buffer with libdnet's messaging
# layer -- every transport in one process, JSON, refusals, and a two-rank
# dsh-run exchange over LHSv1 and LHSv2 (each rank its own process).
. "$(dirname "$0")/lib.sh"
RUN=$DSH_RUN
S=$T_TMP
tmo() { timeout 120 "$@"; }

# ---- one process, three nodes: every transport, patterns checked ----------
expect_status "send/recv every transport" 0 tmo "$DSH" -N 3 -c '
send 1 5 size=1000 val=7 via=lhsv2
send 1 6 size=48 val=1 via=lhsv1
send 1 7 size=488 val=2 via=botf
send 1 8 size=0
send 1 9 size=100000 val=5
send 1 10 size=600 val=9 via=rndv
node 2
recv 0 6 check=1
recv 0 5 check=7
recv any any check=2
recv 0 8
recv 0 9 check=5
recv 0 10 check=9
'
expect_eq "outputs" "sent 1000 bytes to rank 1 tag 5 via lhsv2
sent 48 bytes to rank 1 tag 6 via lhsv1
sent 488 bytes to rank 1 tag 7 via botf
sent 0 bytes to rank 1 tag 8 via botf
sent 100000 bytes to rank 1 tag 9 via rndv
sent 600 bytes to rank 1 tag 10 via rndv
received 48 bytes from rank 0 tag 6 via lhsv1
received 1000 bytes from rank 0 tag 5 via lhsv2
received 488 bytes from rank 0 tag 7 via botf
received 0 bytes from rank 0 tag 8 via botf
received 100000 bytes from rank 0 tag 9 via rndv
received 600 bytes from rank 0 tag 10 via rndv" "$(cat "$S/out")"

# The received bytes are the pattern, computed here: 16 bytes shown.
expect_status "payload shown" 0 tmo "$DSH" -N 2 -c 'send 1 3 size=20 val=250; node 2; recv 0 3'
expect_eq "first 16 bytes" "  fa fb fc fd fe ff 00 01 02 03 04 05 06 07 08 09 ..." "$(sed -n 3p "$S/out")"

# JSON result of recv.
expect_status "json" 0 tmo "$DSH" -N 2 --json -c 'send 1 4 size=100 via=lhsv1; node 2; recv 0 4 check=0'
expect_eq "json recv" "0 1 4 100 lhsv1 false" \
	"$(jq -rs '.[-1].result | "\(.from) \(.to) \(.tag) \(.size) \(.via) \(.truncated)"' "$S/out" 2>&1)"

# ---- failures fail the command, with the reason ------------------------------
expect_status "check mismatch fails" 1 tmo "$DSH" -N 2 -c 'send 1 1 size=64 val=3; node 2; recv 0 1 check=4'
expect_match "check names the byte" "check=4: byte 0 is 0x03, expected 0x04" "$(cat "$S/err")"
expect_status "truncation fails" 1 tmo "$DSH" -N 2 -c 'send 1 1 size=64; node 2; recv 0 1 size=10'
expect_match "truncation named" "64 bytes truncated to size=10" "$(cat "$S/err")"
expect_status "botf too large" 1 tmo "$DSH" -N 2 -c 'send 1 1 size=489 via=botf'
expect_match "botf limit named" "do not fit one BOTF" "$(cat "$S/err")"
expect_status "unknown transport" 1 tmo "$DSH" -N 2 -c 'send 1 1 via=rdma'
expect_match "transport named" "via=rdma: not a transport" "$(cat "$S/err")"
expect_status "rank outside the job" 1 tmo "$DSH" -N 2 -c 'send 2 1'
expect_match "rank named" "rank 2 is not in the job \(ranks 0-1\)" "$(cat "$S/err")"
expect_status "bad tag" 1 tmo "$DSH" -N 2 -c 'send 1 0x1ff'"ffffffff"
expect_status "nothing to receive times out" 1 tmo "$DSH" -N 2 -c 'set timeout 1ms; recv any'
expect_match "timeout names the rank" "rank 0: no matching message" "$(cat "$S/err")"

# ---- amt: the Address Table and an entry, moved by a plain IPUSH ----------------
expect_status "amt map, set, IPUSH advances Tail" 0 tmo "$DSH" -N 2 -c '
node 2
amt map 1 0 200
reg ivs_area_size = 16
amt 200 head=0x100000 tail=0x100000
node 1
prim IPUSH dl=2 ef=0 size=100 src=0 dst=0 wait
node 2
amt 200
amt
'
# 100 bytes take 104 in the ring (8-byte units); a 16 x 4 KB ring at 1 MB.
expect_match "Tail advanced by 104" "amt\[200\] LLCM 0x640: Head 0x00100000 Tail 0x00100068 \(ring 0x00100000-0x0010ffff, 104 of 65536 bytes used\)" "$(cat "$S/out")"
expect_match "mapping listed" "^sender CLID 1 WID 0 -> entry 200 \(LLCM 0x640\)$" "$(tail -1 "$S/out")"
expect_eq "AMT word computed here" "0x40c8" "$(printf '0x%x' $(( 200 | 0 << 12 | 1 << 14 )))"
expect_match "AMT word printed" "word 0x40c8" "$(cat "$S/out")"
expect_status "amt in the flag area refused (after a barrier)" 1 tmo "$DSH" -c 'barrier
amt 3700 head=1'
expect_match "flag area named" "synchronisation area" "$(cat "$S/err")"
expect_status "amt multicast sender refused" 1 tmo "$DSH" -c 'amt map 0xc00 0 1'
expect_status "amt bad index" 1 tmo "$DSH" -c 'amt 4096'

# ---- two ranks, two processes (dsh-run): LHSv1 and LHSv2 both ways -------------
cat >"$S/exchange.dsh" <<'EOF'
# every rank sends to every rank (itself included) over LHSv1 and LHSv2,
# 20 rounds, and checks each message's pattern (seed = sender's rank);
# then every size class of chapter 7's tests both ways
repeat 20
send 0 11 size=3000 val=$rank via=lhsv1
send 1 11 size=5000 val=$rank via=lhsv2
recv 0 11 check=0
recv 1 11 check=1
end
repeat 2
send 0 20 size=0 val=$rank via=lhsv1
send 0 21 size=1 val=$rank via=lhsv2
send 0 22 size=47 val=$rank via=lhsv1
send 0 23 size=48 val=$rank via=lhsv2
send 0 24 size=49 val=$rank via=lhsv1
send 0 25 size=64 val=$rank via=lhsv2
send 0 26 size=512 val=$rank via=lhsv1
send 0 27 size=4096 val=$rank via=lhsv2
send 0 28 size=65536 val=$rank via=lhsv1
send 1 20 size=0 val=$rank via=lhsv2
send 1 21 size=1 val=$rank via=lhsv1
send 1 22 size=47 val=$rank via=lhsv2
send 1 23 size=48 val=$rank via=lhsv1
send 1 24 size=49 val=$rank via=lhsv2
send 1 25 size=64 val=$rank via=lhsv1
send 1 26 size=512 val=$rank via=lhsv2
send 1 27 size=4096 val=$rank via=lhsv1
send 1 28 size=65536 val=$rank via=lhsv2
recv 0 28 check=0
recv 0 27 check=0
recv 0 26 check=0
recv 0 25 check=0
recv 0 24 check=0
recv 0 23 check=0
recv 0 22 check=0
recv 0 21 check=0
recv 0 20 check=0
recv 1 20 check=1
recv 1 21 check=1
recv 1 22 check=1
recv 1 23 check=1
recv 1 24 check=1
recv 1 25 check=1
recv 1 26 check=1
recv 1 27 check=1
recv 1 28 check=1
end
barrier
EOF
expect_status "two-rank exchange over LHSv1/LHSv2" 0 tmo "$RUN" --lockstep -n 2 "$S/exchange.dsh" --report "$S/r.json"
expect_eq "both ranks passed" "2 2 0" "$(jq -r '.results.summary | "\(.tests) \(.passed) \(.failed)"' "$S/r.json")"
# The first send/recv of a run sets the job up collectively (a barrier
# inside), but its JSON result is its own: no barrier fields (issue 24).
printf 'send $rank 1 size=8\nrecv any any\n' >"$S/first.dsh"
expect_status "first send/recv under dsh-run" 0 tmo "$RUN" -n 2 --keep "$S/first.dsh"
K=$(sed -n 's/^dsh-run: outputs kept in //p' "$S/err" | tail -1)
if [ -n "$K" ] && [ -f "$K/s0.rank0.json" ]; then
	expect_eq "first send's result keys" "from size tag to via" \
		"$(jq -r 'select(.cmd == "send") | .result | keys | join(" ")' "$K/s0.rank0.json")"
	expect_eq "rank 1's first send too" "from size tag to via" \
		"$(jq -r 'select(.cmd == "send") | .result | keys | join(" ")' "$K/s0.rank1.json")"
	expect_eq "recv's result keys" "from size tag to truncated via" \
		"$(jq -r 'select(.cmd == "recv") | .result | keys | join(" ")' "$K/s0.rank0.json")"
	rm -rf "$K"
else
	fail "dsh-run --keep named no outputs directory: $(cat "$S/err")"
fi
finish
