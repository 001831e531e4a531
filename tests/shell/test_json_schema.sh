#!/usr/bin/env bash
# tests/schemas/dsh-json.schema.json, the schema lib.sh validates every
# --json output against: it names what docs/json-schema.md names, it accepts
# a good object and the fields announced for later, and it rejects
# hand-broken objects (a schema that accepts anything would pass the suite).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$T_SHELL/../.." && pwd)
SCHEMA=$ROOT/tests/schemas/dsh-json.schema.json
DOC=$ROOT/docs/json-schema.md
# check NAME WANT LINE: WANT "valid" or "invalid" (json_validate.py on stdin)
check() {
	local out
	out=$("$PY" "$T_SHELL/json_validate.py" "$SCHEMA" - <<<"$3" 2>&1)
	case $2:$out in
	valid:"checked 1" | invalid:"line 1: "*) pass ;;
	*) fail "$1: want $2, got: $out" ;;
	esac
}
# the same keys in the docs' tables and in the schema
keys() { jq -r "$1 | keys[]" "$SCHEMA" | sort; }
doc_cmd=$(sed -n '/^## Command object/,/^## /p' "$DOC" | grep -E '^\| `' | cut -d'|' -f2 | grep -oE '`[a-z_]+`' | tr -d '`' | sort -u)
expect_eq "command object keys: docs = schema" "$doc_cmd" "$(keys '."$defs".command.properties')"
doc_sum=$(sed -n '/^## Summary object/,$p' "$DOC" | grep -oE '`[a-z_]+`|"[a-z_]+":' | tr -d '`":' | sort -u)
for f in $(keys '."$defs".summary.properties.summary.properties'); do
	if grep -qx -- "$f" <<<"$doc_sum"; then pass; else fail "summary field '$f' in the schema, not in $DOC"; fi
done

C='{"schema":"dsh/1","cmd":"llcm_read","args":["0","8"],"line":"llcm_read 0 8","file":"-c","lineno":1,"node":1,"wid":0,"ok":true,"error":null,"result":{"region":"llcm","wid":0,"offset":"0x0","device_offset":"0x20000","address":"0x42020000","length":8,"words":["0x0000000000000000"],"bytes":"0000000000000000"}}'
S='{"schema":"dsh/1","summary":{"passed":1,"failed":0,"skipped":0,"commands":2,"failed_commands":0,"errors":0,"exit_status":0,"ok":true}}'
P='{"schema":"dsh/1","cmd":"prim","args":["RVS","dl=2","wait"],"line":"prim RVS dl=2 wait","file":"-c","lineno":1,"node":1,"wid":0,"ok":false,"error":"rc_overrun rose","result":{"prim":"RVS","otype":20,"command":0,"upper":"0x0","lower":"0x1","ex":null,"encoding":"0x00000000000000000000000000000001","text":"cmd:0_1","wait":{"completed":true,"elapsed_ns":5,"ctl_status":"0x832","prim_counter":"0x1","family":"RVS","count":1,"errors":[{"node":2,"flag":"rc_overrun","allowed":false}]}}}'
# edit BASE JQ: BASE changed by a jq filter, one line
edit() { jq -c "$2" <<<"$1"; }

# ---- accepted ----
check "a command object" valid "$C"
check "a summary object" valid "$S"
check "prim ... wait with an error flag" valid "$P"
check "interactive: no file, no lineno" valid "$(edit "$C" 'del(.file, .lineno)')"
check "a failure that is not one typed command (max-time)" valid \
	'{"schema":"dsh/1","cmd":"max-time","args":[],"line":"max-time","node":1,"wid":0,"ok":false,"error":"the run reached its --max-time","result":{"late":true}}'
check "a late failure of a primitive" valid \
	'{"schema":"dsh/1","cmd":"prim","args":[],"line":"prim RVS dl=3","file":"-c","lineno":1,"node":1,"wid":0,"ok":false,"error":"device error flag raised by prim at -c:1: node 1 unroutable","result":{"late":true}}'
check "summary: exit asked for" valid \
	"$(edit "$S" '.summary += {skipped: 2, exit_status: 1, exit_requested: 0, exit_at: "-c:1", ok: false}')"
check "summary after a signal" valid "$(edit "$S" '.summary += {signal: 15, exit_status: 143, ok: false}')"
check "dry run: assertion not run" valid \
	'{"schema":"dsh/1","cmd":"assert","args":["llcm","0","==","0"],"line":"assert llcm 0 == 0","file":"-c","lineno":1,"node":1,"wid":0,"ok":true,"error":null,"result":{"passed":null,"skipped":true,"condition":"llcm 0x0 == 0x0","op":"=="}}'
check "wait error: already_set, cause" valid \
	"$(edit "$P" '.result.wait.errors[0] += {already_set: true, cause: "raised before the primitive", meaning: "overrun"}')"
check "warnings" valid "$(edit "$C" '.result.warnings = ["CLID 9 is not a node"]')"

# ---- rejected ----
check "hex promised, decimal given" invalid "$(edit "$C" '.result.device_offset = "131072"')"
check "hex in capitals" invalid "$(edit "$C" '.result.address = "0x4202000A"')"
check "ok as a string" invalid "$(edit "$C" '.ok = "true"')"
check "node missing" invalid "$(edit "$C" 'del(.node)')"
check "node null" invalid "$(edit "$C" '.node = null')"
check "unknown top-level key" invalid "$(edit "$C" '.extra = 1')"
check "another schema" invalid "$(edit "$C" '.schema = "dsh/2"')"
check "failed without a message" invalid "$(edit "$C" '.ok = false')"
check "good with a message" invalid "$(edit "$C" '.error = "x"')"
check "result not an object" invalid "$(edit "$C" '.result = null')"
check "lineno without file" invalid "$(edit "$C" 'del(.file)')"
check "a read without its words" invalid "$(edit "$C" 'del(.result.words)')"
check "warnings not strings" invalid "$(edit "$C" '.result.warnings = "careful"')"
check "an assertion that did not hold, ok" invalid \
	'{"schema":"dsh/1","cmd":"expect","args":[],"line":"expect llcm 0 == 1","file":"-c","lineno":1,"node":1,"wid":0,"ok":true,"error":null,"result":{"passed":false,"condition":"llcm 0x0 == 0x1","actual":"0x0","expected":"0x1","op":"=="}}'
check "encoding not 128 bits" invalid "$(edit "$P" '.result.encoding = "0x1"')"
check "wait error: allowed missing" invalid "$(edit "$P" 'del(.result.wait.errors[0].allowed)')"
check "wait error: unknown key" invalid "$(edit "$P" '.result.wait.errors[0].why = "?"')"
check "summary: ok missing" invalid "$(edit "$S" 'del(.summary.ok)')"
check "summary: unknown key" invalid "$(edit "$S" '.summary.bogus = 1')"
check "summary: negative count" invalid "$(edit "$S" '.summary.passed = -1')"
check "summary: ok with a failure" invalid "$(edit "$S" '.summary.failed_commands = 1')"
check "summary: exit_status 256" invalid "$(edit "$S" '.summary.exit_status = 256')"
check "summary: ok with a non-zero exit status" invalid "$(edit "$S" '.summary.exit_status = 1')"
check "summary: exit_status missing" invalid "$(edit "$S" 'del(.summary.exit_status)')"
check "summary: exit asked for, without where" invalid "$(edit "$S" '.summary += {exit_requested: 1, ok: false, exit_status: 1}')"
check "a late object that passed" invalid \
	'{"schema":"dsh/1","cmd":"prim","args":[],"line":"prim","node":1,"wid":0,"ok":true,"error":null,"result":{"late":true}}'
check "not JSON" invalid '{"schema":"dsh/1",'
check "NaN is not JSON" invalid "$(edit "$C" '.wid = 7' | sed 's/"wid":7/"wid":NaN/')"
check "a key twice" invalid "$(sed 's/"wid":0,/"wid":0,"wid":0,/' <<<"$C")"

# ---- per output (a directory as lib.sh collects it) ----
mkdir "$T_TMP/d"
printf '%s\n%s\n' "$S" "$C" >"$T_TMP/d/a.json"
printf '%s\n' "$(edit "$C" '.ok = false | .error = "x"')" >"$T_TMP/d/b.json"
out=$("$PY" "$T_SHELL/json_validate.py" "$SCHEMA" "$T_TMP/d" 2>&1)
expect_match "an object after the summary" "a.json: line 2: an object after the summary" "$out"
expect_match "a failure without a summary" "b.json: no summary object" "$out"
finish
