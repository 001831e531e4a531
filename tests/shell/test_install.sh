#!/usr/bin/env bash
# `make install` into a staging directory gives a usable library: a driver
# writer's program compiles against the installed headers, links with
# pkg-config's flags, and drives the emulator.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
stage="$T_TMP/stage"
if make -s install DESTDIR="$stage" PREFIX=/opt/dnet >"$T_TMP/log" 2>&1; then pass; else
	fail "make install: $(tail -3 "$T_TMP/log")"; finish; exit; fi
for f in bin/dsh bin/dnetd lib/libdnet.a lib/libdnet.so lib/libdnet.so.0 include/dnet/dnet.h \
	 lib/pkgconfig/libdnet.pc share/man/man1/dsh.1 share/man/man3/libdnet.3 \
	 share/man/man5/dsh-script.5 share/man/man8/dnetd.8 share/man/man1/dsh-run.1 bin/dsh-run \
	 share/doc/dimmnet/json-schema.md share/doc/dimmnet/decisions.md share/doc/dimmnet/reports.md \
	 share/doc/dimmnet/schemas/dsh-run-ctrf.schema.json share/bash-completion/completions/dsh \
	 lib/systemd/system/dnetd.service lib/systemd/system/dnetd.socket; do
	if [ -e "$stage/opt/dnet/$f" ]; then pass; else fail "not installed: $f"; fi
done
# The headers installed are the public ones, all of them and no other (the
# private libdnet/internal, backend.h with struct dnet_dev, stay behind).
expect_eq "installed headers = libdnet/include/dnet" "$(cd libdnet/include/dnet && ls)" \
	"$(cd "$stage/opt/dnet/include/dnet" && ls)"
expect_eq "backend.h not installed" "" "$(ls "$stage/opt/dnet/include/dnet" | grep -x 'backend.h')"
# libdnet.pc is libdnet/libdnet.pc.in with every placeholder filled: the
# paths under ${prefix}, the version dnet.h says (pkg-config reads it).
pc="$stage/opt/dnet/lib/pkgconfig/libdnet.pc"
ver=$(sed -n 's/.*DNET_VERSION_STRING "\(.*\)"/\1/p' libdnet/include/dnet/dnet.h)
expect_eq "libdnet.pc from libdnet.pc.in" \
	"$(sed -e 's|@prefix@|/opt/dnet|' -e 's|@libdir@|${prefix}/lib|' -e 's|@includedir@|${prefix}/include|' \
		-e "s|@version@|$ver|" libdnet/libdnet.pc.in)" "$(cat "$pc")"
expect_eq "libdnet.pc: no placeholder left" "" "$(grep -n '@' "$pc")"
expect_eq "pkg-config --modversion libdnet" "$ver" "$(PKG_CONFIG_PATH="${pc%/*}" pkg-config --modversion libdnet 2>&1)"
expect_eq "pkg-config --variable=includedir libdnet" "/opt/dnet/include" \
	"$(PKG_CONFIG_PATH="${pc%/*}" pkg-config --variable=includedir libdnet 2>&1)"
cat >"$T_TMP/prog.c" <<'C'
#include <stdio.h>
#include <dnet/dnet.h>
int main(void)
{
	struct dnet_err e;
	struct dnet_dev *d;
	if (dnet_open("sim:nodes=2", &d, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
	const struct dnet_reg *r;
	const struct dnet_field *f;
	uint64_t v;
	if (dnet_reg_parse("ctl_status.sdimm_init_done", &r, &f, &e) ||
	    dnet_reg_read(d, 0, r, &v, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
	printf("%s %s=%llu nodes=%u\n", dnet_version(), f->name,
	       (unsigned long long)dnet_field_get(f, v), dnet_node_count(d));
	dnet_close(d);
	return 0;
}
C
export PKG_CONFIG_PATH="$stage/opt/dnet/lib/pkgconfig"
sed -i "s|^prefix=.*|prefix=$stage/opt/dnet|" "$stage/opt/dnet/lib/pkgconfig/libdnet.pc"
if cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags libdnet) "$T_TMP/prog.c" -o "$T_TMP/prog" \
	"$stage/opt/dnet/lib/libdnet.a" $(pkg-config --libs-only-l --static libdnet | sed 's/-ldnet//') \
	2>"$T_TMP/cc.log"; then pass; else fail "compile against installed headers: $(head -5 "$T_TMP/cc.log")"; fi
# The unit names the installed dnetd; the completion file loads in bash and completes.
expect_match "systemd unit ExecStart" "^ExecStart=/opt/dnet/bin/dnetd " "$(grep '^ExecStart' "$stage/opt/dnet/lib/systemd/system/dnetd.service")"
comp=$(PATH="$stage/opt/dnet/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(dsh --ver); COMP_CWORD=1; _dsh; echo "${COMPREPLY[*]}"' _ \
	"$stage/opt/dnet/share/bash-completion/completions/dsh")
expect_eq "bash completion of dsh --ver" "--version" "$(tr ' ' '\n' <<<"$comp" | grep -- '--ver' | sort | tr '\n' ' ' | sed 's/ $//')"
comp=$(PATH="$stage/opt/dnet/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(dsh-run -l m); COMP_CWORD=2; _dsh_run; echo "${COMPREPLY[*]}"' _ \
	"$stage/opt/dnet/share/bash-completion/completions/dsh")
expect_eq "bash completion of dsh-run -l" "mpirun" "$comp"
out=$("$T_TMP/prog" 2>&1)
expect_eq "program on the installed library" "0.1.0 sdimm_init_done=1 nodes=2" "$out"

# libdnet(3)'s EXAMPLE, taken from the page (between its example markers),
# built with the page's own command against the staged copy (pkg-config
# with the stage as sysroot) and run dynamically; it prints what the page
# says it prints.
page="$stage/opt/dnet/share/man/man3/libdnet.3"
# man_block NAME: the lines between .\" NAME-begin and .\" NAME-end, roff
# requests dropped and the escapes of a code block (\e \- \&) undone.
man_block() {
	sed -n '/^\.\\" '"$1"'-begin/,/^\.\\" '"$1"'-end/p' "$page" |
		sed '/^\./d; s/\\e/\\/g; s/\\-/-/g; s/^\\&//'
}
ex="$T_TMP/example"
mkdir -p "$ex"
man_block example >"$ex/libdnet-example.c"
man_block example-command >"$ex/build.sh"
man_block example-output >"$ex/expected"
if grep -q 'int main' "$ex/libdnet-example.c" && [ -s "$ex/build.sh" ] && [ -s "$ex/expected" ]; then pass; else
	fail "libdnet(3) has no EXAMPLE program, command and output between its markers"; fi
pcenv=(PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_PATH="$stage/opt/dnet/lib/pkgconfig"
	LD_LIBRARY_PATH="$stage/opt/dnet/lib")
# the staged .pc as installed (the sed above relocated it for the static link)
sed -i "s|^prefix=.*|prefix=/opt/dnet|" "$stage/opt/dnet/lib/pkgconfig/libdnet.pc"
if (cd "$ex" && env "${pcenv[@]}" sh -e build.sh >"$ex/out" 2>"$ex/err"); then
	expect_eq "libdnet(3) EXAMPLE's output (staged install)" "$(cat "$ex/expected")" "$(cat "$ex/out")"
else
	fail "libdnet(3) EXAMPLE as the page builds and runs it: $(head -5 "$ex/err")"
fi
# dynamic: the program needs libdnet.so.0 (found in the stage through
# LD_LIBRARY_PATH; the system install below needs none)
expect_match "EXAMPLE linked against libdnet.so" "NEEDED.*libdnet\.so\.0" \
	"$(readelf -d "$ex/example" 2>/dev/null | grep NEEDED | tr '\n' ' ')"
# The Python package (D-PY-CTYPES): staged, it imports with the stage on
# PYTHONPATH and drives the emulator through the staged libdnet.so; its
# dist-info registers dnet.pytest as a pytest11 entry point (pytest's
# plugin autoload); the LIBDIR it was told is the install's.
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
pyver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
spy="$stage/opt/dnet/lib/python$pyver/dist-packages"
# py_example: what the installed package prints for a 2-node emulator (the
# node, a field decoded by dnet_field_read, an LLCM word written and read)
py_example='import dnet
with dnet.open("sim:nodes=2") as d:
    d.write64(dnet.LLCM_BASE + 8, 0x1234)
    print(dnet.version(), d.node_count, d.reg["ctl_status"].sdimm_init_done, hex(d.read64(dnet.LLCM_BASE + 8)))
    print(dnet.__file__.rsplit("/", 2)[0], dnet.library_path)'
for f in dnet/__init__.py dnet/_lib.py dnet/pytest.py dnet/_install.py; do
	if [ -e "$spy/$f" ]; then pass; else fail "not installed: lib/python$pyver/dist-packages/$f"; fi
done
expect_eq "staged dnet/_install.py: the LIBDIR" 'LIBDIR = "/opt/dnet/lib"' "$(sed 's/  #.*//' "$spy/dnet/_install.py")"
expect_eq "python3 -c 'import dnet' (staged)" "0.1.0 2 1 0x1234
$spy $stage/opt/dnet/lib/libdnet.so.0" \
	"$(cd "$T_TMP" && PYTHONPATH="$spy" DNET_LIBRARY="$stage/opt/dnet/lib/libdnet.so.0" "$PY" -c "$py_example" 2>&1)"
expect_eq "dist-info: the pytest11 entry point" "dnet.pytest=dnet.pytest" \
	"$(cd "$T_TMP" && PYTHONPATH="$spy" "$PY" -c 'from importlib.metadata import entry_points
print(*[e.name + "=" + e.value for e in entry_points(group="pytest11") if e.value.startswith("dnet")])' 2>&1)"

# A real system install (PREFIX=/usr/local, no DESTDIR) refreshes the
# loader's cache: the EXAMPLE built with pkg-config runs without
# LD_LIBRARY_PATH; make uninstall takes it all away again.
sys_prefix=/usr/local
# one system install at a time (tests/run.sh runs the builds' suites side by side)
exec 9>"${TMPDIR:-/tmp}/dsh-test-system-install.lock"
flock 9
if [ "$(id -u)" -ne 0 ]; then
	skip "system install: not root (make install PREFIX=$sys_prefix writes outside the tree)"
elif [ -e "$sys_prefix/lib/libdnet.so.0" ] || [ -e "$sys_prefix/bin/dsh" ] || [ -e "$sys_prefix/include/dnet" ]; then
	skip "system install: a libdnet is already installed in $sys_prefix (not touched)"
elif ! make -s install PREFIX="$sys_prefix" >"$T_TMP/sys.log" 2>&1; then
	fail "make install PREFIX=$sys_prefix: $(tail -3 "$T_TMP/sys.log")"
	make -s uninstall PREFIX="$sys_prefix" >/dev/null 2>&1
else
	rm -f "$ex/example" "$ex/out"
	if (cd "$ex" && env -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR sh -e build.sh \
		>"$ex/out" 2>"$ex/err"); then
		expect_eq "libdnet(3) EXAMPLE on the system install, no LD_LIBRARY_PATH" "$(cat "$ex/expected")" "$(cat "$ex/out")"
	else
		fail "libdnet(3) EXAMPLE on the system install, no LD_LIBRARY_PATH: $(head -5 "$ex/err")"
	fi
	# Debian's python3 finds the package and the library with no
	# PYTHONPATH, DNET_LIBRARY or LD_LIBRARY_PATH; pytest loads the plugin
	# itself (entry point) and runs a .dsh file with the installed dsh.
	expect_eq "python3 -c 'import dnet' (system install)" "0.1.0 2 1 0x1234
$sys_prefix/lib/python$pyver/dist-packages $sys_prefix/lib/libdnet.so.0" \
		"$(cd "$T_TMP" && env -u PYTHONPATH -u DNET_LIBRARY -u LD_LIBRARY_PATH "$PY" -c "$py_example" 2>&1)"
	if "$PY" -c 'import pytest' 2>/dev/null; then
		mkdir -p "$T_TMP/pyt"
		printf 'expect llcm 0 == 1\n' >"$T_TMP/pyt/fails.dsh"
		(cd "$T_TMP/pyt" && env -u PYTHONPATH -u DNET_LIBRARY -u LD_LIBRARY_PATH "$PY" -m pytest -p no:cacheprovider \
			--junitxml=j.xml . >out 2>&1)
		expect_eq "pytest on the system install: a failing .dsh (plugin autoloaded)" 1 "$?"
		expect_match "pytest on the system install: its file:line" "$T_TMP/pyt/fails.dsh:1: expect llcm 0 == 1" \
			"$(cat "$T_TMP/pyt/j.xml" 2>&1)"
		expect_match "pytest on the system install: the installed dsh" "$sys_prefix/bin/dsh --json" \
			"$(cat "$T_TMP/pyt/out")"
		# -p dnet.pytest as well (the build tree's way) is the same plugin, not a second one
		(cd "$T_TMP/pyt" && env -u PYTHONPATH -u DNET_LIBRARY -u LD_LIBRARY_PATH "$PY" -m pytest -p dnet.pytest \
			-p no:cacheprovider . >out2 2>&1)
		expect_eq "pytest -p dnet.pytest on the system install: the script's failure, no plugin error" \
			"1 1 failed" "$? $(tail -1 "$T_TMP/pyt/out2" | grep -o '1 failed')"
	else
		skip "python3-pytest not installed: the installed plugin not tried"
	fi
	if make -s uninstall PREFIX="$sys_prefix" >"$T_TMP/unsys.log" 2>&1; then pass; else
		fail "make uninstall PREFIX=$sys_prefix: $(tail -3 "$T_TMP/unsys.log")"; fi
	left=""
	for f in bin/dsh bin/dnetd bin/dsh-run lib/libdnet.so.0 lib/libdnet.so lib/libdnet.a include/dnet/dnet.h \
		lib/pkgconfig/libdnet.pc share/man/man3/libdnet.3 share/doc/dimmnet lib/systemd/system/dnetd.service \
		share/bash-completion/completions/dsh-run lib/python$pyver/dist-packages/dnet \
		lib/python$pyver/dist-packages/dnet-0.1.0.dist-info; do
		[ -e "$sys_prefix/$f" ] || [ -L "$sys_prefix/$f" ] && left="$left $f"
	done
	expect_eq "left after make uninstall" "" "$left"
	expect_eq "loader's cache after make uninstall" "" "$(ldconfig -p | grep "libdnet\.so\.0 .*$sys_prefix/lib")"
fi
flock -u 9
finish
