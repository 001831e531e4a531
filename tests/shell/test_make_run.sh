#!/usr/bin/env bash
# `make run` as a user who is not root, with every package present, in a
# copy of the tree: it builds dsh and starts it (dsh reads `quit` and ends),
# exits 0, never calls apt-get or sudo, and prints no make chatter
# ("make[1]: ... is up to date") above dsh.  Also: install-deps.sh refuses
# a set it does not know, naming it.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v dpkg-query >/dev/null || { skip "dpkg-query not installed: not a Debian system"; finish; exit; }
cd "$ROOT"
out=$(scripts/install-deps.sh bogus 2>&1); rc=$?
expect_eq "install-deps.sh bogus: exit" 2 "$rc"
expect_match "install-deps.sh bogus: names the set and the known ones" "unknown set 'bogus' \(known: run, test\)" "$out"

# make run's packages must all be here (this test installs nothing).
for p in gcc make pkg-config libreadline-dev libcjson-dev libpci-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		{ skip "make run as a user: package $p is not installed"; finish; exit; }
done

# The user: this one if not root; as root a system user made for the test.
user=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
	user=dnet-run-test
	if ! id "$user" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /bin/sh "$user" >/dev/null 2>&1 ||
			{ skip "make run as a user: root, and useradd $user failed"; finish; exit; }
		made_user=1 # removed at the end
	fi
	command -v setpriv >/dev/null || { skip "make run as a user: no setpriv (util-linux)"; finish; exit; }
fi
# A directory the user owns (T_TMP is private to root): the copy of the
# tree (sources and the plain build's objects, with their times), a home,
# and stand-ins for apt-get and sudo that log a call and fail.
work=$(mktemp -d "${TMPDIR:-/tmp}/dsh-make-run.XXXXXX")
T_DIRS+=("$work")
chmod 755 "$work"
mkdir -p "$work/tree" "$work/home" "$work/fake"
tar -C "$ROOT" --exclude=./build-san --exclude=./build-clang --exclude='./build-*' --exclude=./build/tests \
	--exclude=./.git -cf - . | tar -C "$work/tree" -xf -
for c in apt-get apt sudo; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\nexit 1\n' "$c" "$work" >"$work/fake/$c"
	chmod 755 "$work/fake/$c"
done
: >"$work/calls"
chmod 666 "$work/calls"
[ "$(id -u)" -ne 0 ] || chown -R "$user" "$work/tree" "$work/home"
# No kernel cache (a fresh machine): make run must not reach for one.
run_as() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups -- "$@"
	else
		"$@"
	fi
}
out=$(printf 'quit\n' | run_as env -i PATH="$work/fake:/usr/local/bin:/usr/bin:/bin" HOME="$work/home" \
	DSH_VM_CACHE="$work/no-kernel-cache" TERM=dumb make -C "$work/tree" --no-print-directory run 2>&1)
rc=$?
expect_eq "make run as $user: exit" 0 "$rc"
expect_eq "make run as $user: apt-get/sudo called" "" "$(cat "$work/calls")"
expect_eq "make run as $user: make's own lines" "" "$(grep -E '^make(\[[0-9]+\])?: ' <<<"$out")"
if [ -x "$work/tree/bin/dsh" ]; then pass; else fail "make run as $user: no bin/dsh built"; fi
[ "$rc" -eq 0 ] || echo "$out" | tail -n 15 >&2

# make test's packages: with all of them present and no kernel cached, as
# the user without sudo, the kernel cache (best effort) warns and the
# script still succeeds.
test_pkgs=$(sed -n 's/^TEST_PKGS="\(\$TEST_PKGS \)\{0,1\}\([^"]*\)"/\2/p' "$ROOT/scripts/install-deps.sh" | tr '\n' ' ')
absent=""
for p in $test_pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || absent="$absent $p"
done
if [ -z "$test_pkgs" ]; then
	fail "no TEST_PKGS found in scripts/install-deps.sh"
elif [ -n "$absent" ]; then
	skip "install-deps.sh test as a user: not installed:$absent"
else
	mkdir -p "$work/nosudo" && cp "$work/fake/apt-get" "$work/nosudo/" && : >"$work/calls"
	out=$(run_as env -i PATH="$work/nosudo:/usr/bin:/bin" HOME="$work/home" DSH_VM_CACHE="$work/no-kernel-cache" \
		sh "$work/tree/scripts/install-deps.sh" test 2>&1)
	rc=$?
	expect_eq "install-deps.sh test as $user, no kernel, no sudo: exit" 0 "$rc"
	expect_match "install-deps.sh test: the kernel cache warns" "warning: no kernel cached in $work/no-kernel-cache" "$out"
	expect_eq "install-deps.sh test as $user: apt-get called" "" "$(cat "$work/calls")"
fi
[ -z "${made_user:-}" ] || userdel "$user" >/dev/null 2>&1 || echo "note: userdel $user failed" >&2
finish
