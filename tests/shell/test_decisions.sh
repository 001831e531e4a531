#!/usr/bin/env bash
# docs/decisions.md stays true: one section per decision ("### D-ID:
# title", then Question, Decision, Source, Where, Test, in that order, none
# empty), every decision cited anywhere in the tree is a section, every file
# and every `symbol` a Where names exists (a symbol in the files that Where
# names, or in the tree when it names none), and a decision and the tests
# that pin it name each other: each file a Test lists exists and cites the
# ID, each test file citing an ID is listed by that decision's Test (or the
# Test says "none: REASON").
# DECISIONS=FILE checks another copy (this suite's own fault runs use it).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	skip "not a git checkout: the tracked files cannot be listed"
	finish
	exit
fi

# check FILE: one line per fault found, "KIND: ID: what".
check() {
	DECISIONS=$1 python3 - <<'PY'
import fnmatch, os, re, subprocess, sys
path = os.environ['DECISIONS']
files = subprocess.run(['git', 'ls-files'], capture_output=True, text=True).stdout.split()
# Tracked files plus the ones not yet committed, so a new test is seen.
files += subprocess.run(['git', 'ls-files', '--others', '--exclude-standard'],
                        capture_output=True, text=True).stdout.split()
files = [f for f in files if os.path.isfile(f)]
base = {}
for f in files:
    base.setdefault(os.path.basename(f), []).append(f)
text = {}
def read(f):
    if f not in text:
        try:
            text[f] = open(f, errors='ignore').read()
        except OSError:
            text[f] = ''
    return text[f]
ID = r'D-[A-Z0-9]+(?:-[A-Z0-9]+)*'
def cites(t, i):
    return re.search(r'(?<![A-Za-z0-9_-])' + re.escape(i) + r'(?![A-Za-z0-9_-])', t) is not None

doc = open(path).read()
secs = {}
order = []
for m in re.finditer(r'^### (' + ID + r'): ?(.*)\n((?:(?!^#{1,3} ).*\n?)*)', doc, re.M):
    i, title, body = m.group(1), m.group(2).strip(), m.group(3)
    if i in secs:
        print('duplicate: %s: two sections' % i)
    secs[i] = (title, body)
    order.append(i)
for l in doc.split('\n'):
    if l.startswith('### ') and not re.match(r'### ' + ID + r': \S', l):
        print('heading: %s: not "### D-ID: title"' % l[4:40])

FIELDS = ['Question', 'Decision', 'Source', 'Where', 'Test']
def resolve(name):
    """The files a name in a Where stands for: a path (or a glob of paths)
    as it is, or as an include names it (dnet/regs.h); a bare name ("wc.c",
    beside a path of its folder) wherever a file of that name is."""
    if '/' in name:
        return [f for f in files if fnmatch.fnmatch(f, name) or fnmatch.fnmatch(f, '*/' + name)]
    return [f for f in files if fnmatch.fnmatch(os.path.basename(f), name)]

src_files = [f for f in files if f.endswith(('.c', '.h', '.sh', '.py', '.ver')) or os.path.basename(f) == 'Makefile']
for i in order:
    title, body = secs[i]
    got = re.findall(r'^- \*\*(\w+):\*\* ?(.*)$', body, re.M)
    names = [g[0] for g in got]
    if names != FIELDS:
        print('fields: %s: has %s, wants %s' % (i, ' '.join(names) or 'none', ' '.join(FIELDS)))
    val = dict(got)
    for k in FIELDS:
        if k in val and not val[k].strip():
            print('fields: %s: %s is empty' % (i, k))
        elif 'TODO' in val.get(k, ''):
            print('fields: %s: %s still says TODO' % (i, k))
    # Where: each file, then each `symbol` in the files named (the tree if none).
    where = val.get('Where', '')
    named = []
    for f in re.findall(r'(?<![A-Za-z0-9_.])[A-Za-z0-9_./*-]+\.(?:c|h|sh|py|md|ver|[1358])\b|\bMakefile\b', where):
        r = resolve(f)
        if not r:
            print('where: %s: no file %s' % (i, f))
        named += r
    for n in re.findall(r'`([A-Za-z_][A-Za-z0-9_]*\*?)(?:\(\))?`', where):
        if resolve(n):
            continue
        pat = r'\b' + re.escape(n.rstrip('*')) + (r'\w*' if n.endswith('*') else r'\b')
        pool = [f for f in named if f.endswith(('.c', '.h', '.ver')) or os.path.basename(f) == 'Makefile'] or src_files
        if not any(re.search(pat, read(f)) for f in pool):
            print('where: %s: no symbol %s in %s' % (i, n, 'the tree' if pool is src_files else ' '.join(sorted(set(pool)))))
    # Test: "none: REASON" or test files that cite the ID.
    test = val.get('Test', '').strip()
    if test.startswith('none'):
        if not re.match(r'none: \S', test):
            print('test: %s: "none" without a reason ("none: REASON")' % i)
        listed = []
    else:
        listed = re.findall(r'`([^`]+)`', test)
        if not listed:
            print('test: %s: names no file (`tests/...`) and is not "none: REASON"' % i)
    for f in listed:
        if f not in files:
            print('test: %s: no file %s' % (i, f))
        elif not cites(read(f), i):
            print('test: %s: %s does not cite %s' % (i, f, i))
    secs[i] = (title, body, set(listed))

# Every ID cited in the tree is a section (an ID ending in -* names the
# sections it begins; "D-SIM-" at a line's end is an ID broken over lines).
for f in files:
    if f.startswith('docs/reviews/') or f == path or f == 'tests/shell/test_decisions.sh':
        continue
    t = read(f)
    for m in sorted(set(re.findall(r'(?<![A-Za-z0-9_-])(' + ID + r'-?\*?)', t))):
        if m.endswith('-'):
            continue
        if m.endswith('*'):
            if not any(s.startswith(m[:-1]) for s in secs):
                print('cited: %s: %s cites it, no section begins so' % (m, f))
        elif m not in secs:
            print('cited: %s: %s cites it, no section' % (m, f))
        elif re.search(r'^tests/(.*/)?test_[^/]*\.(c|h|sh)$', f) and f not in secs[m][2]:
            print('test: %s: %s cites it, its Test does not list it' % (m, f))
PY
}

out=$(check docs/decisions.md 2>&1)
expect_eq "docs/decisions.md: sections, fields, Where, Test and citations agree with the tree" "" "$out"
n=$(grep -c '^### D-' docs/decisions.md)
if [ "$n" -ge 100 ]; then pass; else fail "docs/decisions.md has $n sections (### D-ID: title), expected the 100+ decisions"; fi

# Each kind of fault is seen: a copy with one planted must be reported.
plant() { # NAME EXPECTED-REGEX SED-SCRIPT
	sed -E "$3" docs/decisions.md >"$T_TMP/d.md"
	expect_match "planted fault is reported: $1" "$2" "$(check "$T_TMP/d.md" 2>&1)"
}
plant "a cited ID has no section" '^cited: D-MAP-SCALE: ' '/^### D-MAP-SCALE:/s/D-MAP-SCALE/D-MAP-SCALX/'
plant "a field is missing" '^fields: D-MTU-1024: ' '/^### D-MTU-1024:/,/^- \*\*Test/{/^- \*\*Source/d}'
plant "a Where file is gone" '^where: D-MTU-1024: no file libdnet/src/nocodes\.c' '/^### D-MTU-1024:/,/^- \*\*Test/s#^(- \*\*Where:\*\* ).*#\1`libdnet/src/nocodes.c`#'
plant "a Where path names a file of that name elsewhere" '^where: D-MTU-1024: no file dsh/codes\.c' '/^### D-MTU-1024:/,/^- \*\*Test/s#libdnet/src/codes\.c#dsh/codes.c#'
plant "a Where symbol is gone" '^where: D-HDR-LINES: no symbol dnet_hdr_nolines' '/^### D-HDR-LINES:/,/^- \*\*Test/s/dnet_hdr_lines/dnet_hdr_nolines/'
plant "a Test file is gone" '^test: D-MAP-SCALE: no file tests/unit/test_nomap\.c' '/^### D-MAP-SCALE:/,/^- \*\*Test/s#^(- \*\*Test:\*\* ).*#\1`tests/unit/test_nomap.c`#'
plant "a Test file does not cite the ID" '^test: D-MTU-1024: tests/unit/test_parse\.c does not cite' '/^### D-MTU-1024:/,/^- \*\*Test/s#^(- \*\*Test:\*\* ).*#\1`tests/unit/test_parse.c`#'
plant "a test citing the ID is not listed" '^test: D-MAP-SCALE: tests/unit/test_regs\.c cites it' '/^### D-MAP-SCALE:/,/^- \*\*Test/s#^(- \*\*Test:\*\* ).*#\1none: planted#'
plant "none without a reason" '^test: D-SIM-SLID: "none" without' '/^### D-SIM-SLID:/,/^- \*\*Test/s#^(- \*\*Test:\*\* ).*#\1none#'
plant "a field left TODO" '^fields: D-SIM-SLID: Test still says TODO' '/^### D-SIM-SLID:/,/^- \*\*Test/s#^(- \*\*Test:\*\* ).*#\1none: TODO-LEAD#'
plant "a heading out of shape" '^heading: ' 's/^### D-MTU-1024:/### D-MTU-1024/'
finish
