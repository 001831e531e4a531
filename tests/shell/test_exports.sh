#!/usr/bin/env bash
# libdnet's boundary (decision D-LIB-BOUNDARY): three lists are one set --
# what libdnet.so exports (nm -D), what libdnet/libdnet.ver names, and the
# functions and variables the public headers (libdnet/include/dnet/*.h)
# declare -- each compared with the others both ways.  Nothing else is
# exported (no emulator internal, no server: the daemon's server is not in
# the library at all); every export is used by a program of the tree or is
# API man/libdnet.3 documents (not exported for the tests: they link
# libdnet.a); no installed header defines struct dnet_dev.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SO="$BIN/../lib/libdnet.so"
[ -e "$SO" ] || { skip "$SO not built"; finish; exit; }
command -v nm >/dev/null || { skip "nm (binutils) not installed"; finish; exit; }

# Exported: defined dynamic symbols, without version tags and the version node.
nm -D --defined-only "$SO" | awk '{print $3}' | sed 's/@.*//' | grep -v '^LIBDNET_' | sort -u >"$T_TMP/exported"

# Declared: gcc -aux-info lists every function declared in a translation
# unit with the file it came from; the public headers' non-static ones are
# the API.  Extern variables (the backend tables) come from the headers' text.
printf '#include "dnet/%s"\n' $(cd "$ROOT/libdnet/include/dnet" && ls *.h) >"$T_TMP/all.c"
# -aux-info is gcc's (make CC=clang exports CC): the headers also compile
# on their own with the build's compiler, below.
command -v gcc >/dev/null || { skip "gcc not installed: its -aux-info lists the declarations"; finish; exit; }
if [ "${CC:-cc}" != gcc ] && [ "${CC:-cc}" != cc ]; then
	if ${CC} -std=c11 -D_GNU_SOURCE -I"$ROOT/libdnet/include" -c "$T_TMP/all.c" -o "$T_TMP/all-cc.o" 2>"$T_TMP/err"; then pass
	else fail "the public headers do not compile on their own with ${CC}: $(head -3 "$T_TMP/err")"; fi
fi
if ! gcc -std=c11 -D_GNU_SOURCE -I"$ROOT/libdnet/include" -aux-info "$T_TMP/aux" -c "$T_TMP/all.c" \
	-o "$T_TMP/all.o" 2>"$T_TMP/err"; then
	fail "the public headers do not compile on their own: $(head -3 "$T_TMP/err")"; finish; exit
fi
{
	grep -F "libdnet/include/dnet/" "$T_TMP/aux" | grep -v '\*/ static ' |
		sed -n 's/.*[ *]\([A-Za-z_][A-Za-z0-9_]*\) *(.*/\1/p'
	cat "$ROOT"/libdnet/include/dnet/*.h | sed -n 's/^extern [^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p'
} | sort -u >"$T_TMP/declared"

n=$(wc -l <"$T_TMP/declared")
if [ "$n" -gt 100 ]; then pass; else fail "only $n declarations found in the public headers"; fi
extra=$(comm -23 "$T_TMP/exported" "$T_TMP/declared" | tr '\n' ' ')
expect_eq "exported but not in a public header" "" "$extra"
missing=$(comm -13 "$T_TMP/exported" "$T_TMP/declared" | tr '\n' ' ')
expect_eq "in a public header but not exported" "" "$missing"
expect_eq "every export is dnet_*" "" "$(grep -v '^dnet_' "$T_TMP/exported" | tr '\n' ' ')"

# libdnet.ver names every export, in its one version node's global: list
# (no wildcard), and nothing more.
VER="$ROOT/libdnet/libdnet.ver"
sed -e 's|/\*.*\*/||' -e '/\/\*/,/\*\//d' "$VER" | tr -d ' \t' |
	sed -n '/^global:$/,/^local:$/p' | grep -v ':$' | sed 's/;$//' | grep . | sort -u >"$T_TMP/ver"
expect_eq "libdnet.ver has no wildcard in global:" "" "$(grep '[*?]' "$T_TMP/ver" | tr '\n' ' ')"
expect_eq "libdnet.ver's local: is *" "1" "$(tr -d ' \t\n' <"$VER" | grep -c 'local:\*;}')"
expect_eq "exported but not named in libdnet.ver" "" "$(comm -23 "$T_TMP/exported" "$T_TMP/ver" | tr '\n' ' ')"
expect_eq "named in libdnet.ver but not exported" "" "$(comm -13 "$T_TMP/exported" "$T_TMP/ver" | tr '\n' ' ')"
expect_eq "named in libdnet.ver but in no public header" "" "$(comm -23 "$T_TMP/ver" "$T_TMP/declared" | tr '\n' ' ')"
expect_eq "in a public header but not named in libdnet.ver" "" "$(comm -13 "$T_TMP/ver" "$T_TMP/declared" | tr '\n' ' ')"

# Nothing exported only for the tests: each export is used by a program
# (dsh, dsh-run, dnetd and its server) or documented API of man/libdnet.3.
mapfile -t progsrc < <(cd "$ROOT" && { find dsh common -name '*.[ch]'
	find backends/remote \( -path '*/dnetd/*' -o -name 'server*' -o -name 'srv_*' -o -name 'grants*' \) -name '*.[ch]'; })
n=${#progsrc[@]}
if [ "$n" -gt 50 ]; then pass; else fail "only $n program sources found"; fi
grep -ohw 'dnet_[A-Za-z0-9_]*' "${progsrc[@]/#/$ROOT/}" | sort -u >"$T_TMP/used"
grep -ow 'dnet_[A-Za-z0-9_]*' "$ROOT/man/libdnet.3" | sort -u >"$T_TMP/documented"
expect_eq "exported, used by no program and not in man/libdnet.3 (a test's only: a private header)" "" \
	"$(sort -u "$T_TMP/used" "$T_TMP/documented" | comm -23 "$T_TMP/exported" - | tr '\n' ' ')"

# The server is dnetd's, not the library's; the emulator's internals stay inside.
expect_eq "no server in libdnet.so" "" "$(grep -E '^(dnet_)?(srv|grants)_' "$T_TMP/exported" | tr '\n' ' ')"
expect_eq "no emulator internal exported" "" "$(grep -E '^(sim_|evq_|ring_|pkt_|sd_|rc_|wc_)' "$T_TMP/exported")"
# The layers' private prefixes (rename_private.sh, issue 33): none exported.
expect_eq "no layer-private name exported" "" \
	"$(grep -E '^(core|devmem|dpci|mmio|rmt|wire|srv)_' "$T_TMP/exported" | tr '\n' ' ')"
lib_a="$BIN/../lib/libdnet.a"
if [ -e "$lib_a" ]; then
	expect_eq "no server object in libdnet.a" "" "$(ar t "$lib_a" | grep -E '^(server|srv_|grants)' | tr '\n' ' ')"
	# The public prefix is the API's: a function or variable of the library
	# (libdnet.a holds them all, hidden ones too) named dnet_* is exported;
	# a private one carries its layer's prefix (issue 33).
	nm --defined-only "$lib_a" 2>/dev/null | awk '$2 ~ /^[TDBR]$/ {print $3}' | grep '^dnet_' | sort -u >"$T_TMP/lib_dnet"
	expect_eq "every dnet_ function or variable of libdnet.a is exported (private ones: a layer prefix)" "" \
		"$(comm -23 "$T_TMP/lib_dnet" "$T_TMP/exported" | tr '\n' ' ')"
fi
# Nor do the programs (each links libdnet.a whole, its own files, common/):
# a dnet_ name in dsh, dsh-run or dnetd is libdnet's API.
for p in dsh dsh-run dnetd; do
	[ -e "$BIN/$p" ] || continue
	nm --defined-only "$BIN/$p" 2>/dev/null | awk '$2 ~ /^[TDBR]$/ {print $3}' | grep '^dnet_' | sort -u >"$T_TMP/prog_dnet"
	expect_eq "$p defines no dnet_ name that libdnet.so does not export" "" \
		"$(comm -23 "$T_TMP/prog_dnet" "$T_TMP/exported" | tr '\n' ' ')"
done
# Only the public headers are installed (backends/ and libdnet/internal
# stay private), and the programs' flags do not reach the private ones.
expect_eq "installed headers are libdnet/include's" "" \
	"$(grep -nE 'install .*(backends|internal)/.*\.h|^HEADERS.*(backends|internal)' "$ROOT/Makefile")"
expect_eq "HEADERS (installed) is libdnet/include's" "1" \
	"$(grep -c '^HEADERS *:= *$(wildcard libdnet/include/dnet/\*\.h)$' "$ROOT/Makefile")"
expect_eq "PUB_CFLAGS (the programs') see no private header" "" \
	"$(grep '^PUB_CFLAGS' "$ROOT/Makefile" | grep -E 'internal|backends')"
# No installed header defines struct dnet_dev: a program holds an opaque
# handle.  By text, and by the compiler: its size is unknown to a program.
expect_eq "no public header defines struct dnet_dev" "" \
	"$(grep -nE 'struct[[:space:]]+dnet_dev[[:space:]]*\{' "$ROOT"/libdnet/include/dnet/*.h)"
printf '%s\nunsigned long n = sizeof(struct dnet_dev);\n' "$(cat "$T_TMP/all.c")" >"$T_TMP/opaque.c"
if gcc -std=c11 -D_GNU_SOURCE -I"$ROOT/libdnet/include" -c "$T_TMP/opaque.c" -o "$T_TMP/opaque.o" 2>/dev/null; then
	fail "struct dnet_dev is complete with the public headers only"
else pass; fi
finish
