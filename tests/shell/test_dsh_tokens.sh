#!/usr/bin/env bash
# One tokenizer: random lines of words, quotes, escapes, ';' and '#' are split
# and tokenized by dsh exactly as a reference splitter written here (in
# Python) says -- each command's words as they appear in the JSON "args";
# lines with an unterminated quote or a non-command word run nothing (exit 2).
# Also: through a pipe, an error follows the output of the commands before it.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
N=${DSH_TOKEN_CASES:-3000}

"$PY" - "$T_TMP" "$N" "${DSH_TOKEN_SEED:-11}" <<'EOF'
import json, random, sys
tmp, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)

def split(line):
    """Commands of a line: ';' outside quotes ends one, '#' at a word start
    outside quotes ends the line; in "..." a backslash escapes " and \\."""
    cmds, start, q, i = [], 0, None, 0
    while i < len(line):
        c = line[i]
        if q == '"' and c == '\\' and i + 1 < len(line) and line[i + 1] in '"\\':
            i += 2
            continue
        if q:
            if c == q:
                q = None
            i += 1
            continue
        if c in '\'"':
            q = c
        elif c == '#' and (i == 0 or line[i - 1] in ' \t;'):
            cmds.append(line[start:i])
            return cmds, None
        elif c == ';':
            cmds.append(line[start:i])
            start = i + 1
        i += 1
    cmds.append(line[start:])
    return cmds, q

def tokens(cmd):
    out, i = [], 0
    while True:
        while i < len(cmd) and cmd[i] in ' \t':
            i += 1
        if i >= len(cmd) or cmd[i] == '#':
            return out
        w = ''
        while i < len(cmd) and cmd[i] not in ' \t':
            c = cmd[i]
            if c == "'":
                j = cmd.find("'", i + 1)
                if j < 0:
                    return None
                w += cmd[i + 1:j]
                i = j + 1
            elif c == '"':
                i += 1
                while i < len(cmd) and cmd[i] != '"':
                    if cmd[i] == '\\' and i + 1 < len(cmd) and cmd[i + 1] in '"\\':
                        i += 1
                    w += cmd[i]
                    i += 1
                if i >= len(cmd):
                    return None
                i += 1
            else:
                w += c
                i += 1
        out.append(w)

def piece():
    return rnd.choice(['a', 'b', 'x1', ' ', ' ', ';', '#', "'", '"', '\\', '\\"', '"q r"',
                       "'s;t'", '"u#v"', 'echo', ' echo ', '; echo ', '"\\\\"', '"a\\"b"'])

good, bad = [], []
for k in range(n):
    line = 'echo ' + ''.join(piece() for _ in range(rnd.randint(1, 9)))
    cmds, open_q = split(line)
    toks = [tokens(c) for c in cmds]
    ok = open_q is None and all(t is not None for t in toks)
    words = [t for t in toks if t] if ok else None
    if ok and all(w[0] == 'echo' for w in words):
        good.append((line, words))
    else:
        bad.append(line)
with open(tmp + '/good.dsh', 'w') as f:
    for line, _ in good:
        f.write(line + '\n')
with open(tmp + '/good.want', 'w') as f:
    for i, (_, words) in enumerate(good):
        for w in words:
            f.write(json.dumps([i + 1, w[1:]], separators=(',', ':')) + '\n')
with open(tmp + '/bad.lines', 'w') as f:
    for line in bad[:60]:
        f.write(json.dumps(line) + '\n')
print(len(good), len(bad), file=sys.stderr)
EOF
# Every line of good.dsh as one script: the args of each echo object, with its line.
"$DSH" --json --gap 0 -f "$T_TMP/good.dsh" 2>"$T_TMP/good.err" |
	jq -c 'select(.summary == null) | [.lineno, .args]' >"$T_TMP/good.got"
ngood=$(wc -l <"$T_TMP/good.dsh")
if [ "$ngood" -gt 500 ]; then pass; else fail "only $ngood valid random lines generated"; fi
if cmp -s "$T_TMP/good.want" "$T_TMP/good.got"; then pass; else
	fail "split/tokenize differs from the reference: $(diff "$T_TMP/good.want" "$T_TMP/good.got" | head -n 6)"
fi
# Lines the reference rejects run nothing and exit 2.
while IFS= read -r js; do
	line=$(jq -r . <<<"$js")
	"$DSH" -c "$line" >"$T_TMP/o" 2>"$T_TMP/e"; rc=$?
	if [ "$rc" -eq 2 ] && [ ! -s "$T_TMP/o" ]; then pass; else
		fail "rejected line [$line]: exit $rc, output [$(head -c 100 "$T_TMP/o")]"; fi
done <"$T_TMP/bad.lines"
# The cases of the issue.
expect_eq 'echo "a\"; b"' 'a"; b' "$("$DSH" -c 'echo "a\"; b"')"
expect_eq 'echo "a\" # b"' 'a" # b' "$("$DSH" -c 'echo "a\" # b"')"
printf 'repeat 2\necho "x\\"; y"\nend\n' >"$T_TMP/rep.dsh"
expect_eq "repeat body uses the same rules" 'x"; y
x"; y' "$("$DSH" -f "$T_TMP/rep.dsh")"
printf 'echo "s\\"; t" # c\n' >"$T_TMP/src.dsh"
expect_eq "sourced file uses the same rules" 's"; t' "$("$DSH" -c "source $T_TMP/src.dsh")"

# ---- transcripts in order through a pipe (2>&1 | cat, as CI logs it) --------------
out=$("$DSH" -x -c 'echo one; llcm_read 55ff; echo two; assert ctl_status == 0x13; echo three' 2>&1 | cat)
want='dsh > echo one
one
dsh > llcm_read 55ff
dsh: -c:1: llcm_read: argument 1: offset .55ff.: invalid character .f. for a base-10 number \(hexadecimal needs the 0x prefix\)
dsh > echo two
two
dsh > assert ctl_status == 0x13
dsh: -c:1: assert: assertion failed: ctl_status == 0x13 \(got 0x12\)
dsh > echo three
three'
expect_match "errors follow their command line through a pipe" "^$want" "$out"
finish
