#!/bin/bash
# The repository's documents are its own: no tracked file cites a path
# outside the repository (the spec notes a user of the repository does not
# have), every docs/X.md a file cites and every relative link of a docs/*.md
# or README.md exists, every installed header starts with its SPDX line, the
# LICENSE the README states exists, and docs/device.md's register tables
# match libdnet's register database (dnet/regs.h, as `dsh regs` prints it).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1

if ! git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	skip "not a git checkout: the tracked files cannot be listed"
	finish
	exit
fi
files=$(git ls-files | grep -v '^tests/shell/test_docs.sh$')

# 1. Citations outside the repository.  The names are those of the notes the
# project was written from; a file of this repository never has them.
outside='\.\./shared|/work/(shared|main|wt)|spec/(hardware|messaging|evaluation|dsh-manual|related-papers)\.md|(^|[^A-Za-z0-9_/-])(hardware|messaging|evaluation|dsh-manual|related-papers|design)\.md'
hits=$(printf '%s\n' $files | xargs -d '\n' grep -n -I -E "$outside" 2>/dev/null | head -20)
expect_eq "no tracked file cites a path outside the repository" "" "$hits"

# 2. Every docs/X.md cited anywhere exists.
missing=""
for p in $(printf '%s\n' $files | xargs -d '\n' grep -o -h -I -E 'docs/[A-Za-z0-9_./-]+\.md' 2>/dev/null | sort -u); do
	[ -f "$p" ] || missing="$missing $p"
done
expect_eq "every cited docs/*.md exists" "" "$missing"

# 3. Every relative link of docs/*.md and README.md exists (anchors dropped).
missing=""
for md in README.md docs/*.md docs/*/*.md; do
	[ -f "$md" ] || continue
	dir=$(dirname "$md")
	for l in $(grep -o -E '\]\([^)#[:space:]]+' "$md" | sed 's/^](//'); do
		case $l in http://* | https://* | mailto:*) continue ;; esac
		[ -e "$dir/$l" ] || missing="$missing $md:$l"
	done
done
expect_eq "every relative link of the markdown files exists" "" "$missing"

# 4. SPDX line first in every installed header; the LICENSE is MIT and named
# by the README.
bad=""
for h in libdnet/include/dnet/*.h; do
	[ "$(head -1 "$h")" = "/* SPDX-License-Identifier: MIT */" ] || bad="$bad $h"
done
expect_eq "every installed header starts with its SPDX line" "" "$bad"
expect_match "LICENSE is the MIT licence of the toolkit's authors" \
	"MIT License.*Copyright \(c\) 2026 the DIMMnet-2 toolkit authors" "$(head -3 LICENSE 2>/dev/null | tr '\n' ' ')"
expect_match "README states the licence" "MIT.*LICENSE|LICENSE.*MIT" "$(cat README.md)"

# 5. docs/device.md's register rows against the register database.  A row
# of device.md's register tables is "| `NAME` | 0xOFF | ..."; `dsh regs`
# prints "NAME 0xOFF ..." for every register libdnet knows.
if [ ! -x "$BIN/dsh" ]; then
	skip "no $BIN/dsh: device.md's registers cannot be compared"
else
	want=$("$BIN/dsh" -b sim -c 'regs' 2>/dev/null | awk '$2 ~ /^0x/ {print $1, $2}' | sort)
	have=$(grep -E '^\| `[a-z0-9_]+` \| 0x[0-9a-f]+ \|' docs/device.md 2>/dev/null |
		sed -E 's/^\| `([a-z0-9_]+)` \| (0x[0-9a-f]+) \|.*/\1 \2/' | sort -u)
	if [ -z "$want" ]; then
		fail "dsh regs printed no register"
	else
		expect_eq "docs/device.md lists every register of dsh regs, at its offset" "$want" "$have"
	fi
fi
finish
