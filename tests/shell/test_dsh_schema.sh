#!/usr/bin/env bash
# docs/json-schema.md matches what --json emits: for every row of the
# "Results by command" table, a representative script is run and each field
# the row names (in backquotes) must appear in the result of the row's
# commands, and each top-level result key emitted must be named in the row.
# The command object's keys are checked the same way.  A row without a
# representative script here fails, so that the table and this test move together.
. "$(dirname "$0")/lib.sh"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DOC="$ROOT/docs/json-schema.md"
declare -A RUN CMDRE ENVR
# row key (first backquoted word of the first column) -> script ; command names
r() { RUN[$1]=$2; CMDRE[$1]=$3; }
r llcm_read 'llcm_read 0 16; evpbuf_read 0 8; pw_read 0 8; dump ww 0 8; dump sodimm 0 8; sodimm read 0 8' 'llcm_read|evpbuf_read|pw_read|dump|sodimm'
r 'dump ureg/sreg' 'dump ureg; dump sreg' 'dump'
r 'dump REGION OFF SIZE' 'dump llcm 4 8; dump ww 4 12' 'dump'
r ureg_read 'ureg_read module_state; ureg_read prim_counter; sreg_read sma_lid' 'ureg_read|sreg_read'
r ureg_write 'ureg_write prim_counter_reset; sreg_write mtu 8' 'ureg_write|sreg_write'
r 'sreg_write amt' 'sreg_write amt addr=1 wid=0 lid=2' 'sreg_write'
r 'reg NAME[.FIELD]' 'reg ctl_status; reg ctl_status.rc_state; ureg_write status_area_size 1; reg status_area_size' 'reg'
r 'reg NAME[.FIELD] = V' 'reg status_area_size.code = 1; reg status_area_size.code = 2; reg sma_lid.lid = 1' 'reg'
r reg 'reg' 'reg'
r 'prim BOTF' 'botf type=RVS dl=2 dst=0x100 lf=1 data=0x1234; prim BOTF ww=0 size=24' 'prim'
r prim 'ww_write ww=0 it=16 val=1; prim RVS dl=2 ef=1 size=64 src=0 dst=0x100 xot=0x14 xsize=8 wait; prim VS size=64 src=0 dst=0; prim VS size=0x300 src=0x100 dst=0 allow=ww0_src_overrun wait' 'prim'
r botf 'botf type=RVS dl=2 dst=0x100 lf=1 data=0x1234; rllcm_write 2 0 1' 'botf|rllcm_write'
r wait 'wait; wait all; wait ctl_status.status_empty == 1' 'wait'
r assert 'assert llcm 0 == 0; expect llcm 0 == 1' 'assert|expect'
r status 'status ring; status 0; lh ring; lh 0; decode status 1 2; decode lh 1 2 3 4 5 6 7 8' 'status|lh|decode'
r 'decode req/hdr/REG' 'decode req 0x20000000008 0x60000000400 0x14; decode req 0x1000000001; decode hdr 0x14020 0 0; decode module_state 0; decode prim_counter 0' 'decode'
r snapshot 'snapshot a' 'snapshot'
r diff 'snapshot a; prim VS size=64 src=0 dst=0; diff a' 'diff'
r watch 'watch ctl_status 1us 2' 'watch'
r node 'node' 'node'
r info 'info' 'info'
r stat 'stat' 'stat'
r version 'v' 'version|v'
r help 'help; help quit' 'help'
r echo 'echo hi' 'echo'
r sleep 'sleep 1us' 'sleep'
r set 'set x 1; set' 'set'
r source "source $T_TMP/empty.dsh" 'source'
r 'sodimm write' 'sodimm write 0 1 2' 'sodimm'
r fault 'fault drop 5% from 1 to 2; prim RVS dl=2 size=4096 src=0 dst=0 wait; fault; fault clear' 'fault'
r bench 'bench E1 quick; bench E8 quick' 'bench'
r 'reg PATTERN' 'reg ctl*' 'reg'
r 'reg NAME confirm' 'reg ctl_reset confirm' 'reg'
r llcm_write 'llcm_write from=0 it=2 val=1; ww_write ww=1 it=1 val=2' 'llcm_write|ww_write'
r peek 'peek llcm 0 width=64; poke llcm 0 5 width=32; peek ureg 0x200 width=64' 'peek|poke'
r send 'send 0 5 size=16 val=1; recv 0 5 check=1' 'send|recv'
r barrier 'barrier' 'barrier'
r signal 'signal 1' 'signal|waitfor'
# a second rank to signal, started by hand on a dnetd: rank 0's first signal waits until
# rank 1 has joined the run (D-SYNC-RUN)
start_dnetd "$T_TMP/d.sock" --sim -N 2
ENVR[signal]="DSH_RANK=0 DSH_SIZE=2 DSH_BACKEND=remote:unix:$T_TMP/d.sock"
spawn env DSH_RANK=1 DSH_SIZE=2 "$BIN/dsh" -b "remote:unix:$T_TMP/d.sock" -c 'waitfor 0 timeout=120s' >/dev/null 2>&1
r probe "probe dump=$ROOT/tests/fixtures/pci/i875p.dump" 'probe'
r replay "replay $T_TMP/ok.journal; replay $T_TMP/bad.journal; replay $T_TMP/failed.journal" 'replay'
"$DSH" --journal "$T_TMP/ok.journal" -c 'llcm_read 0 8' >/dev/null 2>&1
"$DSH" --journal "$T_TMP/failed.journal" -c 'llcm_read 0 8; exit 4' >/dev/null 2>&1 # recorded_exit_status
sed 's/data=../data=ff/' "$T_TMP/ok.journal" >"$T_TMP/bad.journal"
: >"$T_TMP/empty.dsh"
# keys of objects whose names are data (not schema): not checked in reverse
DYNAMIC='^(stat)$'
# documented fields no representative command can produce on the emulator (reason in the doc)
UNREACHABLE='^(readback)$'

rows=$(grep -E '^\| `' "$DOC" | sed -n '/^| `llcm_read`/,$p')
[ -n "$rows" ] || fail "no 'Results by command' table in $DOC"
while IFS= read -r row; do
	col1=$(cut -d'|' -f2 <<<"$row")
	col2=$(cut -d'|' -f3- <<<"$row")
	key=$(sed -E 's/^[^`]*`([^`]*)`.*/\1/' <<<"$col1")
	if [ -z "${RUN[$key]:-}" ]; then fail "row '$key': no representative script in this test"; continue; fi
	env ${ENVR[$key]:-} "$DSH" --json -c "${RUN[$key]}" >"$T_TMP/o.json" 2>/dev/null
	sel=".[] | select(.summary == null) | select(.cmd | test(\"^(${CMDRE[$key]})\$\"))"
	# every key at any depth of the results of the row's commands
	have=$(jq -rs "[$sel | .result | .. | objects | keys[]] | unique | .[]" <"$T_TMP/o.json")
	top=$(jq -rs "[$sel | .result | keys[]] | unique | .[]" <"$T_TMP/o.json")
	[ -n "$top$have" ] || { fail "row '$key': no result from '${RUN[$key]}'"; continue; }
	documented=$(grep -oE '`[a-z_0-9]+`' <<<"$col2" | tr -d '`' | sort -u)
	for f in $documented; do
		[[ $f =~ $UNREACHABLE ]] && continue
		if grep -qx -- "$f" <<<"$have"; then pass; else
			fail "row '$key': documented field '$f' not emitted by '${RUN[$key]}'"; fi
	done
	if ! [[ $key =~ $DYNAMIC ]]; then
		for f in $top; do
			if grep -qx -- "$f" <<<"$documented"; then pass; else
				fail "row '$key': result field '$f' emitted but not documented"; fi
		done
	fi
done <<<"$rows"

# The command object: every key documented, every documented key present.
obj_doc=$(sed -n '/^## Command object/,/^## /p' "$DOC" | grep -E '^\| `' | cut -d'|' -f2 | grep -oE '`[a-z_]+`' | tr -d '`' | sort -u)
printf 'v\nllcm_read 55ff\n' >"$T_TMP/s.dsh"
"$DSH" --json -f "$T_TMP/s.dsh" >"$T_TMP/o.json" 2>/dev/null
emitted=$(jq -rs '[.[] | select(.summary == null) | keys[]] | unique | .[]' <"$T_TMP/o.json")
for f in $obj_doc; do
	if grep -qx -- "$f" <<<"$emitted"; then pass; else fail "command object: documented '$f' not emitted"; fi
done
for f in $emitted; do
	if grep -qx -- "$f" <<<"$obj_doc"; then pass; else fail "command object: '$f' emitted but not documented"; fi
done
# The summary object.
"$DSH" --json -c 'assert llcm 0 == 0' >"$T_TMP/o.json"
for f in passed failed commands failed_commands ok; do
	if grep -q "\"$f\"" <(sed -n '/^## Summary object/,$p' "$DOC") &&
		[ "$(jq -s "last | .summary | has(\"$f\")" <"$T_TMP/o.json")" = true ]; then pass; else
		fail "summary field $f"; fi
done
finish
