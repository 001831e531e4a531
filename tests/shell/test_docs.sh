#!/bin/bash
# The repository's documents are its own: no tracked file cites a path
# outside the repository (the spec notes a user of the repository does not
# have), every docs/X.md a file cites and every relative link of a docs/*.md
# or README.md exists, every installed header starts with its SPDX line, the
# LICENSE the README states exists, and docs/device.md's register tables
# are those of libdnet's register database (dnet/regs.h, as dsh lists it).
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

# 2b. Every "docs/device.md N.N" cited names a section device.md has.
missing=""
for n in $(printf '%s\n' $files | xargs -d '\n' grep -o -h -I -E 'docs/device\.md,? (section )?[0-9]+(\.[0-9]+)*' 2>/dev/null |
	grep -o -E '[0-9]+(\.[0-9]+)*$' | sort -u); do
	grep -Eq "^#+ ($n[ .-]|[0-9.]+-$n )" docs/device.md 2>/dev/null || missing="$missing $n"
done
expect_eq "every cited section of docs/device.md exists" "" "$missing"

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
if grep -Eq 'MIT.*LICENSE|LICENSE.*MIT' README.md; then pass; else
	fail "README.md does not state the licence (MIT, LICENSE)"; fi

# 5. Every variable dsh sets itself is listed in dsh-script(5)'s BUILT-IN
# VARIABLES (as .B $NAME or .BR $NAME ...).
vars=$(grep -h -o -E 'dsh_var_set\(d, "[a-z_]+"' dsh/*.c | sed -E 's/.*"(.*)"/\1/' | sort -u)
section=$(sed -n '/^\.SH BUILT-IN VARIABLES/,/^\.SH /p' man/dsh-script.5)
missing=""
for v in $vars; do
	printf '%s\n' "$section" | grep -Eq "^\.BR? .*[$]$v( |\"|,|$)" || missing="$missing \$$v"
done
if [ -z "$vars" ]; then fail "no dsh_var_set(d, \"NAME\", ...) found in dsh/*.c"; else
	expect_eq "dsh-script(5) lists every built-in variable" "" "$missing"; fi

# The shipped scripts take their ring neighbours from those variables
# instead of computing them (they once spent 25 lines on it each).
own=$(grep -n -E '^[[:space:]]*(set|repeat [^ ]+) (prev|next|pclid|nclid|clid|rank|size)( |;|$)' scripts/tests/*.dsh | head -5)
expect_eq "scripts/tests/*.dsh use the built-in neighbour variables" "" "$own"

# 6. docs/decisions.md (each decision cited is a section, its Where and
# Test exist): tests/shell/test_decisions.sh.
# 6b. The request's and the header's bit positions in docs/device.md (4.2,
# 6.2) are those of dnet/request.h and dnet/packet.h: each field's low bit is
# its DNET_LO_*/DNET_H1_* shift.
shift_of() { sed -n -E "s/^#define $1 +([0-9]+).*/\1/p" "$2"; }
low_bit() { # TABLE-PREFIX NAME: the low bit of "| PREFIX[a:b] | NAME |"
	grep -E "^\| $1\[[0-9:]+\] \| $2 \|" docs/device.md | head -1 | sed -E 's/^[^[]*\[([0-9]+:)?([0-9]+)\].*/\2/'
}
bad=""
for f in OTYPE:OTYPE DTYPE:DTYPE Iteration:ITER DWID:DWID DCLID:DCLID eflag:EFLAG "Size / List / Stride:SIZE"; do
	n=${f%:*} m=DNET_LO_${f##*:}_SHIFT
	want=$(shift_of "$m" libdnet/include/dnet/request.h)
	got=$(low_bit 'Lower \| ' "$n")
	[ -n "$want" ] && [ "$want" = "$got" ] || bad="$bad $n($m=$want,doc=$got)"
done
for f in "Packet Size:SIZE" TYPE:TYPE PGID:PGID DWID:DWID SWID:SWID DLID:DLID DTYPE:DTYPE Iteration:ITER rflag:RFLAG eflag:EFLAG hflag:HFLAG lflag:LFLAG; do
	n=${f%:*} m=DNET_H1_${f##*:}_SHIFT
	want=$(shift_of "$m" libdnet/include/dnet/packet.h)
	got=$(low_bit '' "$n")
	[ -n "$want" ] && [ "$want" = "$got" ] || bad="$bad $n($m=$want,doc=$got)"
done
expect_eq "docs/device.md's request and header bits are the headers'" "" "$bad"

# 6c. docs/architecture.md's claim about the unit tests: every
# tests/unit/test_X.c names, in its first comment, the source files it
# tests (a path, beside one a bare name of the same folder, or a folder:
# backends/remote/dnetd/), and each exists.
bad=$(python3 - <<'PY'
import glob, os, re, subprocess
files = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard'],
                       capture_output=True, text=True).stdout.split()
for t in sorted(glob.glob('tests/unit/test_*.c')):
    s = open(t, errors='ignore').read()
    m = re.match(r'\s*/\*(.*?)\*/', s, re.S)
    text = m.group(1) if m else ''
    names = re.findall(r'[A-Za-z0-9_./*-]+\.[ch]\b', text)
    # a folder (backends/remote/dnetd/) stands for its files
    names += re.findall(r'(?<![A-Za-z0-9_./-])((?:libdnet|backends|dsh|common)/[A-Za-z0-9_/-]*/)', text)
    srcs = [n for n in names if not os.path.basename(n).startswith(('test_', 'remote_e2e_util', 'harness'))]
    if not srcs:
        print(t + ': its first comment names no source file it tests')
    for n in srcs:
        if n.endswith('/'):
            if not any(f.startswith(n) and f.endswith(('.c', '.h')) for f in files):
                print(t + ': names the folder ' + n + ', which holds no source file')
            continue
        # a path as it is (or as an include names it: dnet/sync.h), a bare
        # name ("wc.c", beside a path of its folder) anywhere
        pat = re.escape(n).replace(r'\*', '[^/]*')
        ok = any(re.fullmatch('(.*/)?' + pat, f) for f in files) if '/' in n else \
            any(re.fullmatch(pat, os.path.basename(f)) for f in files)
        if not ok:
            print(t + ': names ' + n + ', which does not exist')
PY
)
expect_eq "every unit test names the source files it tests, and they exist" "" "$bad"
# ... and links them: no test includes a .c whole (the Makefile's test_X_OBJ).
hits=$(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.c"' tests/unit/*.[ch] tests/fuzz/*.[ch] 2>/dev/null)
expect_eq "no unit test includes a .c file" "" "$hits"

# 7. docs/device.md's register tables are scripts/device-tables.sh's output
# (libdnet's register database as dsh lists it), byte for byte.
if [ ! -x "$BIN/dsh" ]; then
	skip "no $BIN/dsh: device.md's registers cannot be compared"
else
	want=$(scripts/device-tables.sh "$BIN/dsh" 2>&1)
	have=$(sed -n '/^<!-- regs:begin -->$/,/^<!-- regs:end -->$/p' docs/device.md 2>/dev/null | sed '1d;$d')
	if [ -z "$have" ]; then
		fail "docs/device.md has no register tables between <!-- regs:begin --> and <!-- regs:end -->"
	elif [ "$want" != "$have" ]; then
		fail "docs/device.md's register tables differ from libdnet's (scripts/device-tables.sh): $(diff <(printf '%s\n' "$have") <(printf '%s\n' "$want") | head -8)"
	else
		pass
	fi
	expect_match "the register tables name every register" "\| \`amt\` \| sreg \| 0xb00 \|" "$want"
fi
finish
