#!/bin/bash
# Print docs/device.md's register tables from libdnet's register database,
# as dsh lists it (`reg` for the registers, `decode NAME 0` for each one's
# bit fields).  docs/device.md holds this output between the markers
# "<!-- regs:begin -->" and "<!-- regs:end -->"; tests/shell/test_docs.sh
# fails when the two differ.  Regenerate with
#   scripts/device-tables.sh [DSH] > /tmp/t && (edit docs/device.md)
set -eu
DSH=${1:-$(cd "$(dirname "$0")/.." && pwd)/bin/dsh}
list=$("$DSH" -b sim -c reg)
echo "| Name | Bank | Offset | Host | Register |"
echo "|---|---|---|---|---|"
printf '%s\n' "$list" | while read -r name bank off acc rest; do
	title=$(printf '%s\n' "$rest" | sed -E 's/  +.*//')
	printf '| `%s` | %s | %s | %s | %s |\n' "$name" "$bank" "${off#+}" "$acc" "$title"
done
echo
echo "| Register.field | Bits | Meaning |"
echo "|---|---|---|"
printf '%s\n' "$list" | while read -r name _; do
	"$DSH" -b sim -c "decode $name 0" | tail -n +2 |
		sed -nE 's/^  ([a-z0-9_]+) +(\[[0-9:]+\]) += 0x[0-9a-f]+ +(.*)$/\1 \2 \3/p' |
		while read -r field bits meaning; do
			meaning=$(printf '%s' "$meaning" | sed -E 's/ \[[^]]*\]$//; s/\|/\\|/g')
			printf '| `%s.%s` | %s | %s |\n' "$name" "$field" "$bits" "$meaning"
		done
done
