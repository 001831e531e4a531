#!/usr/bin/env bash
# --json: one object per command (schema dsh/1), parsed and checked with jq.
. "$(dirname "$0")/lib.sh"
J() { "$DSH" --json "$@"; }
out=$(J -c 'prim VS dt=0 it=0 dw=0 dl=0 ef=0 size=0x200 src=0x400 dst=0x600')
expect_eq "schema" '"dsh/1"' "$(jq '.schema' <<<"$out")"
expect_eq "prim text" '"cmd:60000000400_20000000008"' "$(jq '.result.text' <<<"$out")"
expect_eq "prim encoding" '"0x00000600000004000000020000000008"' "$(jq '.result.encoding' <<<"$out")"
expect_eq "prim fields" '512 1024 1536' "$(jq -r '.result.fields | "\(.size) \(.src) \(.dst)"' <<<"$out")"
expect_eq "ok/node" 'true 1 null' "$(jq -r '"\(.ok) \(.node) \(.error)"' <<<"$out")"
out=$(J -c 'llcm_write from=0 it=10 val=0xaaaa0000 inc=1; llcm_read 0 64')
expect_eq "lines" 2 "$(wc -l <<<"$out")"
expect_eq "dump word" '"0xaaaa0001aaaa0000"' "$(jq -s '.[1].result.words[0]' <<<"$out")"
expect_eq "dump bytes" '"0000aaaa"' "$(jq -s '.[1].result.bytes[0:8]' <<<"$out")"
expect_eq "dump address" '"0x4215c000"' "$(jq -s '.[1].result.address' <<<"$out")"
out=$(J -c 'prim VS size=0x200 src=0 dst=0; prim VS size=0x200 src=0x400 dst=0x600; ureg_read ctl_status')
expect_eq "ctl_status value" '"0x832"' "$(jq -s '.[2].result.value' <<<"$out")"
expect_eq "ctl_status fields" '1 1 1 1' "$(jq -rs '.[2].result.fields | "\(.sdimm_init_done) \(.status_empty) \(.ww0_done) \(.ww2_done)"' <<<"$out")"
out=$(J -c 'ureg_read module_state')
expect_eq "module states" '"P_BOTF_WAIT"' "$(jq '.result.states | to_entries | .[1].value' <<<"$out")"
out=$(J -c 'rllcm_write 2 0 1; prim VS size=0x200 src=0x400 dst=0x600; ureg_read prim_counter')
expect_eq "counters" '1 1 "0x100001"' "$(jq -rs '.[2].result | "\(.counters.BOTF) \(.counters.VS) \"\(.value)\""' <<<"$out")"
out=$(J -c 'ww_write ww=0 from=0 it=8 val=1; prim VS size=32 src=0 dst=0 wait')
expect_eq "wait completed" 'true "VS" 1 []' "$(jq -rs '.[1].result.wait | "\(.completed) \"\(.family)\" \(.count) \(.errors)"' <<<"$out")"
out=$(J -c 'reg ctl_status.status_empty')
expect_eq "reg field" '1' "$(jq '.result.field_value' <<<"$out")"
out=$(J -c 'llcm_read 55ff' 2>/dev/null)
expect_eq "error object" 'false' "$(jq -s '.[0].ok' <<<"$out")"
expect_match "error text" "55ff" "$(jq -r '.error' <<<"$out")"
out=$(J -c 'assert llcm 0 == 0; expect llcm 0 == 1; v' 2>/dev/null)
expect_eq "objects + summary" 4 "$(wc -l <<<"$out")"
expect_eq "summary" '1 1 false' "$(jq -rs '.[3].summary | "\(.passed) \(.failed) \(.ok)"' <<<"$out")"
expect_eq "expect ok=false" 'false' "$(jq -s '.[1].ok' <<<"$out")"
out=$(J -c 'botf type=RVS dl=2 dst=0x40 lf=1 data=0x1234')
expect_eq "botf header" '"RVS" 1 2' "$(jq -r '.result.header | "\"\(.type_name)\" \(.lflag) \(.hflag + 2)"' <<<"$out")"
# Every line is valid JSON for a whole script.
printf 'v\nllcm_read 0 16\nreg ctl_status\nhelp\ninfo\ndump ureg\nsnapshot a\ndiff a\n' >"$T_TMP/s.dsh"
J -f "$T_TMP/s.dsh" >"$T_TMP/s.json"
expect_eq "all valid" 8 "$(jq -s 'length' <"$T_TMP/s.json")"
expect_eq "all ok" 'true' "$(jq -s 'all(.ok)' <"$T_TMP/s.json")"
finish
