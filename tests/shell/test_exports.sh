#!/usr/bin/env bash
# libdnet's boundary: libdnet.so exports exactly what the public headers
# (libdnet/include/dnet/*.h) declare -- every function and backend table
# there, and nothing else (no emulator internal, no server); the daemon's
# server is not in the library at all.
# Decisions pinned here (docs/decisions.md): D-LIB-BOUNDARY.
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

# The server is dnetd's, not the library's; the emulator's internals stay inside.
expect_eq "no server in libdnet.so" "" "$(grep -E '^dnet_(srv|grants)_' "$T_TMP/exported" | tr '\n' ' ')"
expect_eq "no emulator internal exported" "" "$(grep -E '^(sim_|evq_|ring_|pkt_|sd_|rc_|wc_)' "$T_TMP/exported")"
lib_a="$BIN/../lib/libdnet.a"
if [ -e "$lib_a" ]; then
	expect_eq "no server object in libdnet.a" "" "$(ar t "$lib_a" | grep -E '^(server|srv_|grants)' | tr '\n' ' ')"
fi
# Only the public headers are installed (backends/ stays private).
expect_eq "installed headers are libdnet/include's" "" \
	"$(grep -n 'install .*backends/.*\.h' "$ROOT/Makefile")"
finish
