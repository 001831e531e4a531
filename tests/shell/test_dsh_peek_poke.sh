#!/usr/bin/env bash
# peek and poke take the width as width=BITS, never by position
# (D-RAW-WIDTH, issue 32): devmem's order (ADDRESS WIDTH VALUE) and dsh's
# old one (OFFSET VALUE WIDTH) both read 'poke llcm 0 64 32', so a width by
# position is refused and writes nothing.  Every accepted form is read back
# with llcm_read (not peek's code) to show the value and the width written;
# every refused form leaves the memory as it was.
. "$(dirname "$0")/lib.sh"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
tmo() { timeout 60 "$@"; }
FILL='llcm_write from=0 it=2 val=0xffffffff' # LLCM 0x0-0x7 all ones, without poke
# word BACKEND-ARGS... : the 64-bit LLCM word at 0 as llcm_read prints it
word_of() { sed -n 's/^#[0-9a-f]*: \([0-9a-f]\{16\}\)$/\1/p' "$1" | tail -n 1; }

start_dnetd "$T_TMP/d.sock" --sim
REMOTE="remote:unix:$T_TMP/d.sock"

# ---- accepted: COMMAND|the word at LLCM 0 after it (all ones before) ----
ACCEPT=(
	'poke llcm 0 0x40 width=8|ffffffffffffff40'
	'poke llcm 0 0x40 width=16|ffffffffffff0040'
	'poke llcm 0 0x40 width=32|ffffffff00000040'
	'poke llcm 0 0x40 width=64|0000000000000040'
	'poke llcm 0 0x40|0000000000000040'
	'poke llcm 4 0x40 width=32|00000040ffffffff'
	'poke llcm 2 0x4321 width=16|ffffffff4321ffff'
	'poke llcm 7 0xab width=8|abffffffffffffff'
	'poke llcm 0 64 width=32|ffffffff00000040'
	'poke llcm 0 32 width=64|0000000000000020'
	'poke llcm 0 0x40 width=32 force|ffffffff00000040'
	'poke llcm 0 0x40 force width=16|ffffffffffff0040'
	'set v 0x40; set w 32; poke llcm 0 $v width=$w|ffffffff00000040'
	'poke llcm 0 0xffffffff width=32; poke llcm 0 0 width=8|ffffffffffffff00'
)
for b in sim "$REMOTE"; do
	n=${b%%:*}
	for row in "${ACCEPT[@]}"; do
		cmd=${row%|*} want=${row##*|}
		expect_status "$n: '$cmd' accepted" 0 tmo "$DSH" -b "$b" -c "$FILL; $cmd; llcm_read 0 8"
		expect_eq "$n: '$cmd' wrote" "$want" "$(word_of "$T_TMP/out")"
	done
done

# ---- peek of each width, of a pattern llcm_write put there ----
PAT='llcm_write from=0 it=1 val=0x55667788; llcm_write from=4 it=1 val=0x11223344'
PEEK=(
	'peek llcm 0 width=8|llcm 0x0 = 0x88'
	'peek llcm 1 width=8|llcm 0x1 = 0x77'
	'peek llcm 0 width=16|llcm 0x0 = 0x7788'
	'peek llcm 6 width=16|llcm 0x6 = 0x1122'
	'peek llcm 0 width=32|llcm 0x0 = 0x55667788'
	'peek llcm 4 width=32|llcm 0x4 = 0x11223344'
	'peek llcm 0 width=64|llcm 0x0 = 0x1122334455667788'
	'peek llcm 0|llcm 0x0 = 0x1122334455667788'
)
for row in "${PEEK[@]}"; do
	cmd=${row%|*} want=${row##*|}
	expect_status "'$cmd' accepted" 0 tmo "$DSH" -c "$PAT; $cmd"
	expect_eq "'$cmd' read" "$want" "$(cat "$T_TMP/out")"
done
expect_eq "peek's width= sets last" "0x1122" "$(tmo "$DSH" -c "$PAT; peek llcm 6 width=16; echo \$_" | tail -n 1)"

USAGE_POKE='\(usage: poke REGION OFFSET VALUE \[width=8\|16\|32\|64\] \[force\]\)'
USAGE_PEEK='\(usage: peek REGION OFFSET \[width=8\|16\|32\|64\]\)'
# ---- refused by the whole-script check (exit 2): COMMAND|message ----
# Run against dnetd, whose memory outlives a session: filled before, read
# after, unchanged; the session's own earlier fill is not run either.
REFUSE_CHECK=(
	"poke llcm 0 64 32|check: poke: argument 4 \('32'\): a width is given as width=BITS after VALUE, not by position $USAGE_POKE"
	"poke llcm 0 32 0x40|check: poke: argument 4 \('0x40'\): a width is given as width=BITS after VALUE"
	"poke llcm 0 0x40 32 force|check: poke: argument 4 \('32'\): a width is given as width=BITS"
	"poke llcm 0 0x40 force 32|check: poke: argument 5 \('32'\): a width is given as width=BITS"
	"poke llcm 0 0x40 width=32 64|check: poke: argument 5 \('64'\): a width is given as width=BITS"
	"poke llcm 0 0x40 8|check: poke: argument 4 \('8'\): a width is given as width=BITS"
	"@2 poke llcm 0 64 32|check: poke: argument 4 \('32'\): a width is given as width=BITS"
	"poke llcm 0 width=32 0x40|check: poke: missing VALUE before 'width=32' $USAGE_POKE"
	"poke llcm 0|check: poke: missing VALUE $USAGE_POKE"
	"poke llcm 0 0x40 junk|check: poke: argument 4: unexpected 'junk'"
	"peek llcm 0 32|check: peek: argument 3 \('32'\): a width is given as width=32, not by position $USAGE_PEEK"
	"peek llcm 0x40 0x40 width=32|check: peek: argument 3 \('0x40'\): a width is given as width=64, not by position"
	"peek llcm 0 12|check: peek: argument 3 \('12'\): a width is given as width=BITS after OFFSET, not by position $USAGE_PEEK"
)
for row in "${REFUSE_CHECK[@]}"; do
	cmd=${row%%|*} re=${row#*|}
	tmo "$DSH" -b "$REMOTE" -c "$FILL" >/dev/null 2>&1
	expect_status "'$cmd' refused" 2 tmo "$DSH" -b "$REMOTE" -c "poke llcm 0 0 width=8; $cmd; llcm_read 0 8"
	expect_match "'$cmd' message" "^dsh: -c:1: $re" "$(head -n 1 "$T_TMP/err")"
	expect_eq "'$cmd': nothing ran" "" "$(cat "$T_TMP/out")"
	tmo "$DSH" -b "$REMOTE" -c 'llcm_read 0 8' >"$T_TMP/after" 2>&1
	expect_eq "'$cmd' wrote nothing" "ffffffffffffffff" "$(word_of "$T_TMP/after")"
done
# In a script: FILE:LINE, and the lines before it do not run.
printf '%s\n' 'poke llcm 0 0 width=8' '# the old order' 'poke llcm 0 0x40 32' >"$T_TMP/old.dsh"
tmo "$DSH" -b "$REMOTE" -c "$FILL" >/dev/null 2>&1
expect_status "script with the old order" 2 tmo "$DSH" -b "$REMOTE" "$T_TMP/old.dsh"
expect_match "script: FILE:LINE" "^dsh: $T_TMP/old.dsh:3: check: poke: argument 4 \('32'\): a width is given as width=BITS" \
	"$(cat "$T_TMP/err")"
tmo "$DSH" -b "$REMOTE" -c 'llcm_read 0 8' >"$T_TMP/after" 2>&1
expect_eq "script: line 1 not run" "ffffffffffffffff" "$(word_of "$T_TMP/after")"
# dsh -n says the same without a device.
expect_status "-n: old order" 2 tmo "$DSH" -n "$T_TMP/old.dsh"
expect_match "-n: message" "old.dsh:3: check: poke: argument 4" "$(cat "$T_TMP/err")"

# ---- refused when it runs (a word known only then, a bad width=): exit 1 ----
REFUSE_RUN=(
	"set w 32; poke llcm 0 64 \$w|poke: argument 4 \('32'\): a width is given as width=BITS after VALUE, not by position $USAGE_POKE"
	"set w 32; peek llcm 0 \$w|peek: argument 3 \('32'\): a width is given as width=32"
	"poke llcm 0 0x40 width=12|poke: argument 4: width=12 is not 8, 16, 32 or 64 bits"
	"poke llcm 0 0x40 force width=128|poke: argument 4: width=128 is not 8, 16, 32 or 64 bits"
	"poke llcm 0 0x40 width=32 width=32|poke: argument 5: key 'width' given twice"
	"poke llcm 0 0x40 size=32|poke: argument 4: unknown key 'size' \(known: width\)"
	"poke llcm 0 0x40 width=|poke: argument 4: key 'width' has no value"
	"poke llcm 0 0x1ff width=8|poke: argument 3: value '0x1ff' out of range \(max 0xff"
	"poke llcm 2 0x40 width=32|poke: argument 2: offset 0x2 is misaligned for a 32-bit access"
	"peek llcm 0 width=12|peek: argument 3: width=12 is not 8, 16, 32 or 64 bits"
)
for b in sim "$REMOTE"; do
	n=${b%%:*}
	for row in "${REFUSE_RUN[@]}"; do
		cmd=${row%%|*} re=${row#*|}
		expect_status "$n: '$cmd' refused" 1 tmo "$DSH" -b "$b" -c "$FILL; $cmd; llcm_read 0 8"
		expect_match "$n: '$cmd' message" "^dsh: -c:1: $re" "$(head -n 1 "$T_TMP/err")"
		expect_eq "$n: '$cmd' wrote nothing" "ffffffffffffffff" "$(word_of "$T_TMP/out")"
	done
done

# ---- help and the man page say the one grammar ----
for c in peek poke; do
	u=$("$DSH" -c "help $c" | sed -n 's/^usage: //p')
	expect_match "help $c: width=" "width=8\|16\|32\|64" "$u"
	if grep -qxF -- "$u" "$ROOT/man/dsh.1"; then pass; else fail "man/dsh.1 lacks the usage '$u'"; fi
	ex=$("$DSH" -c "help $c" | sed -n 's/^example: //p')
	expect_status "help $c: the example runs" 0 tmo "$DSH" -c "$ex"
	s=$("$DSH" -c help | grep -E "^$c +: ")
	if grep -q 'like devmem' <<<"$s"; then fail "help says '$c' is like devmem: $s"; else pass; fi
done
finish
