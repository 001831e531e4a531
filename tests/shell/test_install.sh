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
	 include/dnet/backend.h lib/pkgconfig/libdnet.pc share/man/man1/dsh.1 share/man/man3/libdnet.3 \
	 share/man/man5/dsh-script.5 share/man/man8/dnetd.8 share/man/man1/dsh-run.1 bin/dsh-run \
	 share/doc/dimmnet/json-schema.md share/doc/dimmnet/decisions.md share/doc/dimmnet/reports.md \
	 share/doc/dimmnet/schemas/dsh-run-ctrf.schema.json share/bash-completion/completions/dsh \
	 lib/systemd/system/dnetd.service lib/systemd/system/dnetd.socket; do
	if [ -e "$stage/opt/dnet/$f" ]; then pass; else fail "not installed: $f"; fi
done
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
finish
