#!/usr/bin/env bash
# libdnet(3) documents the public headers: every error code, every memory
# map constant and region, and every member of every struct the installed
# headers (libdnet/include/dnet/*.h) define is named in the page.  (The
# EXAMPLE itself is built and run by test_install.sh.)
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
page="$ROOT/man/libdnet.3"
inc="$ROOT/libdnet/include/dnet"
named() { grep -qE "(^|[^A-Za-z0-9_])$1([^A-Za-z0-9_]|$)" "$page"; }
missing() { # what... : those the page does not name
	local w out=""
	for w in "$@"; do named "$w" || out="$out $w"; done
	echo "${out# }"
}
codes=$(sed -n 's/^[[:space:]]*\(DNET_E[A-Z]*\|DNET_OK\) = .*/\1/p' "$inc/error.h")
[ -n "$codes" ] && pass || fail "no error code found in error.h"
expect_eq "error codes not in libdnet(3)" "" "$(missing $codes)"
consts=$(sed -n 's/^#define \(DNET_[A-Z_0-9]*\).*/\1/p' "$inc/map.h" "$inc/error.h" | grep -v '_H$')
regions=$(sed -n 's/^[[:space:]]*\(DNET_\(REG\|ATTR\)_[A-Z]*\|DNET_REGION_COUNT\)\b.*/\1/p' "$inc/map.h")
[ "$(wc -w <<<"$regions")" -ge 9 ] && pass || fail "regions of map.h not found: $regions"
expect_eq "map.h and error.h constants not in libdnet(3)" "" "$(missing $consts $regions)"
# Members: each struct's body with its comments taken out, one declaration
# a line; the member is the last name before [ : ; or , (a function
# pointer's is the name in (*name)).
members() {
	sed 's|/\*.*\*/||g' "$1" | awk '
		/\/\*/ { c=1 } c { if (/\*\//) c=0; next }
		/^struct [a-z_0-9]+ \{/ { s=$2; inside=1; next }
		inside && /^\};/ { inside=0; next }
		inside {
			l=$0
			if (l ~ /\(\*/) { sub(/.*\(\*+[ ]*/, "", l); sub(/\).*/, "", l); print s, l; next }
			gsub(/\[[^]]*\]/, "", l); sub(/;.*/, "", l)
			n=split(l, d, ",")
			for (i=1;i<=n;i++) { k=split(d[i], w, /[ \t*]+/); while (k>0 && w[k]=="") k--
				if (k>0 && w[k] ~ /^[a-z_][a-z_0-9]*$/) print s, w[k] }
		}'
}
out=""; total=0
for h in "$inc"/*.h; do
	while read -r s m; do
		total=$((total + 1))
		named "$s" || { [[ " $out " == *" struct-$s "* ]] || out="$out struct-$s"; continue; }
		named "$m" || out="$out $s.$m"
	done < <(members "$h")
done
[ "$total" -gt 150 ] && pass || fail "only $total struct members found in the headers" # 199 in 18 headers
expect_eq "struct members not in libdnet(3)" "" "${out# }"
finish
