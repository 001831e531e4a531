#!/usr/bin/env bash
# The bash completion (scripts/service/dsh.bash-completion), sourced in bash
# and driven as bash drives it (COMP_WORDS, COMP_CWORD): for dsh, dsh-run and
# dnetd every option it offers is the program's --list-options and is
# accepted by the program (no "unknown option"), every option of the man
# page's OPTIONS is offered; -b offers the backends, dsh -c the commands,
# dsh-run -l the launchers, a file option files.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COMPL=$ROOT/scripts/service/dsh.bash-completion
# shellcheck source=../../scripts/service/dsh.bash-completion
. "$COMPL"

# offered FUNC WORD...: what FUNC offers for the last WORD, one a line.
offered() {
	local f=$1
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	"$f" 2>/dev/null
	[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
}

# manopts PAGE: the options of the OPTIONS section (the tags of its .TP
# paragraphs), one a line.
manopts() {
	awk '/^\.SH OPTIONS/{f=1;next} /^\.SH/{f=0} f && p {print} {p = f && /^\.TP/}' "$1" |
		grep -oE '\\-(\\-)?[A-Za-z]([A-Za-z0-9]|\\-)*' | sed 's/\\-/-/g' | sort -u
}

for spec in "dsh _dsh man/dsh.1" "dsh-run _dsh_run man/dsh-run.1" "dnetd _dnetd man/dnetd.8"; do
	read -r prog func page <<<"$spec"
	opts=$(offered "$func" "$BIN/$prog" -)
	expect_eq "$prog: offers its --list-options" "$("$BIN/$prog" --list-options | sort)" "$opts"
	expect_match "$prog: --list-options is one of them" "^--list-options$" "$opts"
	[ "$(wc -l <<<"$opts")" -gt 10 ] && pass || fail "$prog: only $(wc -l <<<"$opts") options offered"
	# every option offered is one the program takes (with an argument, for
	# those that need one; --help then ends it before anything runs)
	for o in $opts; do
		err=$(timeout 30 "$BIN/$prog" "$o" x --help </dev/null 2>&1 >/dev/null)
		if grep -qiE 'unknown option|unrecognized option|invalid option' <<<"$err"; then
			fail "$prog: offered $o, which $prog refuses: $err"
		else
			pass
		fi
	done
	# every option of the man page is offered
	for o in $(manopts "$ROOT/$page"); do
		if grep -qxF -- "$o" <<<"$opts"; then pass; else fail "$prog: $page's option $o not offered"; fi
	done
	expect_match "$prog: --list-options in $page" "^--list-options$" "$(manopts "$ROOT/$page")"
	expect_match "$prog: --list-options in --help" "--list-options" "$("$BIN/$prog" --help 2>&1)"
	expect_eq "$prog: -b offers the backends" "sim
sim:" "$(offered "$func" "$BIN/$prog" -b si)"
	expect_eq "$prog: a prefix narrows the options" \
		"$("$BIN/$prog" --list-options | grep '^--ba' | sort)" "$(offered "$func" "$BIN/$prog" --ba)"
done

# the programs' other arguments
expect_eq "dsh -c: the commands" "peek" "$(offered _dsh "$BIN/dsh" -c pe)"
expect_eq "dsh --backend: the backends" "remote
remote:" "$(offered _dsh "$BIN/dsh" --backend re)"
expect_eq "dsh --list-backends" "sim remote devmem pci" "$("$BIN/dsh" --list-backends | paste -sd' ')"
expect_eq "dsh-run -l: the launchers" "mpirun" "$(offered _dsh_run "$BIN/dsh-run" -l mp)"
mkdir -p "$T_TMP/d" && touch "$T_TMP/d/script.dsh"
expect_eq "dsh: the subcommands" "probe" "$(cd "$T_TMP/d" && offered _dsh "$BIN/dsh" pr)"
expect_eq "dsh: the subcommands and files" "probe
replay
script.dsh" "$(cd "$T_TMP/d" && offered _dsh "$BIN/dsh" '')"
expect_eq "dsh replay: its file" "script.dsh" "$(cd "$T_TMP/d" && offered _dsh "$BIN/dsh" replay s)"
expect_eq "dsh -f: files" "$T_TMP/d/script.dsh" "$(offered _dsh "$BIN/dsh" -f "$T_TMP/d/scr")"
expect_eq "dsh-run: a script argument is a file" "$T_TMP/d/script.dsh" "$(offered _dsh_run "$BIN/dsh-run" -n 2 "$T_TMP/d/s")"
expect_eq "dnetd --pidfile: files" "$T_TMP/d/script.dsh" "$(offered _dnetd "$BIN/dnetd" --pidfile "$T_TMP/d/s")"
# the completion reads no --help prose
if grep -q -- '--help' "$COMPL"; then fail "the completion still reads --help"; else pass; fi
finish
