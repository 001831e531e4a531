# DIMMnet-2 toolkit: libdnet, the backends, dsh and dnetd.
#
# `make help` lists the targets and the variables (the text is at the end).

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/dimmnet
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
# The Python package (libdnet/python/dnet): where Debian's python3 looks
# under PREFIX (its site.py: PREFIX/lib/python3.X/dist-packages for
# /usr/local; D-PY-CTYPES).
PYTHON  ?= $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
PYVER   := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)
PYDIR   ?= $(PREFIX)/lib/python$(PYVER)/dist-packages
CC      ?= cc
PKGS    := libcjson libpci
# Fallback when pkg-config is not installed yet (make deps installs it).
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lcjson -lpci)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wno-format-nonliteral
# The shell (dsh, dsh-run) and most tests see libdnet's public headers only;
# the library, dnetd and the tests of emulator or daemon internals
# (INTERNAL_TESTS) also see backends/ (private headers).
PUB_CFLAGS  := -std=c11 -D_GNU_SOURCE $(WARN) -Ilibdnet/include $(PKG_CFLAGS)
BASE_CFLAGS := $(PUB_CFLAGS) -Ilibdnet/internal -Ibackends
CFLAGS  ?= -O2 -g
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Quiet by default: one short line per step; V=1 prints the full commands.
ifeq ($(V),1)
  Q :=
  say = @true
else
  Q := @
  say = @printf '  %-6s %s\n' $(1) $(2)
endif

# Build variant: plain (build/) or sanitized (build-san/, make SAN=1).  A
# compiler other than the default builds in its own directory
# (build-clang/, build-san-clang/ for CC=clang), programs and libraries
# under it, so objects of two compilers never mix; BUILD=DIR chooses the
# directory outright.
CC_TAG := $(if $(findstring clang,$(notdir $(firstword $(CC)))),-clang,)
ifeq ($(SAN),1)
  B := build-san$(CC_TAG)
  VCFLAGS := $(SAN_FLAGS)
  VLDFLAGS := -fsanitize=address,undefined
else
  B := build$(CC_TAG)
  VCFLAGS := $(CFLAGS)
  VLDFLAGS :=
endif
ifneq ($(BUILD),)
  B := $(BUILD)
endif
# The compiler writes each object's header dependencies next to it (.d);
# a change to one header rebuilds only what includes it.  clang writes the
# .d after the object: it goes to a temporary name, then the target is
# touched after it, so it is never older than its .d.
DEPFLAGS = -MMD -MP -MF $@.d.tmp
DEPDONE = mv -f $@.d.tmp $@.d && touch $@

# The daemon's room, backends/remote/dnetd/: the server (its loop and rooms,
# grants) is every file there but the program's main (dnetd.c); linked into
# dnetd and the tests that drive the server, never into libdnet.
DNETD_DIR := backends/remote/dnetd
SERVER_SRC := $(filter-out $(DNETD_DIR)/dnetd.c,$(wildcard $(DNETD_DIR)/*.c))
# The wire codec, backends/remote/wire/ (frames, message types, socket
# addresses): what the client and the server share.  One internal archive,
# libdnetwire.a, linked into libdnet (the remote backend) and into dnetd;
# never installed.
WIRE_SRC := $(wildcard backends/remote/wire/*.c)
# (backends/*/*.c: each backend's folder, not the folders below it.)
LIB_SRC  := $(wildcard libdnet/src/*.c) $(wildcard backends/*/*.c)
# common/: what the programs share without libdnet (compiled into each).
COMMON_SRC := $(wildcard common/*.c)
DSH_SRC  := $(wildcard dsh/*.c dsh/bench/*.c) $(COMMON_SRC)
DNETD_SRC := $(DNETD_DIR)/dnetd.c $(COMMON_SRC)
RUN_SRC  := $(wildcard dsh/run/*.c) $(COMMON_SRC)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)

# libdnet's objects are compiled once, position independent, for both
# libdnet.a and libdnet.so.
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/obj/%.o)
DSH_OBJ  := $(DSH_SRC:%.c=$(B)/obj/%.o)
DNETD_OBJ := $(DNETD_SRC:%.c=$(B)/obj/%.o)
SERVER_OBJ := $(SERVER_SRC:%.c=$(B)/obj/%.o)
WIRE_OBJ := $(WIRE_SRC:%.c=$(B)/obj/%.o)
RUN_OBJ  := $(RUN_SRC:%.c=$(B)/obj/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
# Each program's objects: what it links, and what `make print-objs PROG=P`
# lists (test_dsh_cycles.sh checks them for call cycles).
PROG_OBJ_dsh := $(DSH_OBJ)
PROG_OBJ_dnetd := $(DNETD_OBJ) $(SERVER_OBJ)
PROG_OBJ_dsh-run := $(RUN_OBJ)
# Fuzz targets with the standalone driver: a bounded run is a test.
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=$(B)/tests/test_fuzz_%)

ifeq ($(B),build)
  OUT_LIB := lib
  OUT_BIN := bin
else
  OUT_LIB := $(B)/lib
  OUT_BIN := $(B)/bin
endif

LIBA  := $(OUT_LIB)/libdnet.a
LIBSO := $(OUT_LIB)/libdnet.so
LIBWIRE := $(B)/libdnetwire.a
PROGS := $(OUT_BIN)/dsh $(OUT_BIN)/dnetd $(OUT_BIN)/dsh-run

.PHONY: all lib progs tests python deps deps-run deps-test run test test-plain test-list unit bench install uninstall \
	clean fuzz stress help print-objs
all: lib progs tests python
lib: $(LIBA) $(LIBSO)
progs: $(PROGS)
tests: $(UNIT_BIN) $(FUZZ_BIN)
# TESTS=GLOB: only the suites whose name matches (make test, test-plain,
# test-list, unit; tests/run.sh reads it).  Passed on explicitly, so that
# `make test TESTS=test_dsh_*` runs those suites after the whole build.
TESTS ?=
# The unit tests alone, built and run (make CC=clang unit: the .ci check).
unit: $(UNIT_BIN)
	@fail=0; ran=0; for t in $(UNIT_BIN); do case $${t##*/} in $(or $(TESTS),*)) ;; *) continue ;; esac; ran=1; \
	  out=$$($$t 2>&1) || { fail=1; echo "FAIL $$t"; printf '%s\n' "$$out" | tail -n 20; }; \
	  printf '%s\n' "$$out" | tail -n 1 | sed 's/^/  /'; done; \
	  [ $$ran = 1 ] || { echo "make unit: TESTS='$(TESTS)' names no unit test" >&2; exit 2; }; exit $$fail

# libdnet's boundary: its objects hide every symbol but those the public
# headers declare (they say so with a visibility pragma), and the version
# script (libdnet/libdnet.ver) exports only dnet_* from libdnet.so.
OBJ_CFLAGS = $(BASE_CFLAGS)
$(DSH_OBJ) $(RUN_OBJ): OBJ_CFLAGS = $(PUB_CFLAGS)
$(LIB_OBJ) $(WIRE_OBJ): OBJ_CFLAGS = $(BASE_CFLAGS) -fvisibility=hidden -fPIC
LIBVER := libdnet/libdnet.ver

# An object without its .d (a build from before -MMD) is rebuilt once.
$(B)/obj/%.o: %.c $(B)/obj/%.o.d
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(OBJ_CFLAGS) $(VCFLAGS) $(DEPFLAGS) -c $< -o $@ && $(DEPDONE)

# The wire archive whole into each of libdnet and dnetd: libdnet.a holds its
# objects (an installed libdnet.a stands alone), libdnet.so links it, and
# dnetd takes the codec from it, not from libdnet.a.
WHOLE_WIRE := -Wl,--whole-archive $(LIBWIRE) -Wl,--no-whole-archive
$(LIBWIRE): $(WIRE_OBJ)
	@mkdir -p $(dir $@)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBA): $(LIB_OBJ) $(LIBWIRE)
	@mkdir -p $(dir $@)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $(LIB_OBJ) $(WIRE_OBJ)
$(LIBSO): $(LIB_OBJ) $(LIBWIRE) $(LIBVER)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libdnet.so.0 -Wl,--version-script=$(LIBVER) $(VLDFLAGS) -o $@ \
	  $(LIB_OBJ) $(WHOLE_WIRE) $(PKG_LIBS) -lm

$(OUT_BIN)/dsh: $(PROG_OBJ_dsh) $(LIBA)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) $(VLDFLAGS) -o $@ $(PROG_OBJ_dsh) $(LIBA) -lreadline $(PKG_LIBS) -lm
$(OUT_BIN)/dnetd: $(PROG_OBJ_dnetd) $(LIBWIRE) $(LIBA)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) $(VLDFLAGS) -o $@ $(PROG_OBJ_dnetd) $(WHOLE_WIRE) $(LIBA) $(PKG_LIBS) -lm
$(OUT_BIN)/dsh-run: $(PROG_OBJ_dsh-run) $(LIBA)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) $(VLDFLAGS) -o $@ $(PROG_OBJ_dsh-run) $(LIBA) $(PKG_LIBS) -lm

# The object files of program PROG (dsh, dnetd, dsh-run), one a line, as the
# build variant names them (SAN=1, BUILD=DIR); nothing is built.
print-objs:
	@$(if $(filter $(PROG),$(PROG_NAMES)),printf '%s\n' $(PROG_OBJ_$(PROG)),echo "print-objs: PROG=dsh, dnetd or dsh-run (not '$(PROG)')" >&2; exit 2)

# Unit tests see the public headers; those of emulator or daemon internals,
# or of library functions libdnet.so does not export (libdnet.a has them:
# hidden visibility binds only the shared object), also libdnet/internal and
# backends/; those that drive the server link its objects.
INTERNAL_TESTS := test_dnetd_grants test_remote_e2e test_remote_wire test_remote_proto test_mmio \
	test_access_rules test_packet test_parse test_regs test_request
SERVER_TESTS := test_dnetd_grants test_remote_e2e test_remote_wire
TEST_CFLAGS = $(PUB_CFLAGS)
TEST_EXTRA =
$(INTERNAL_TESTS:%=$(B)/tests/%): TEST_CFLAGS = $(BASE_CFLAGS)
$(SERVER_TESTS:%=$(B)/tests/%): $(SERVER_OBJ) $(LIBWIRE)
$(SERVER_TESTS:%=$(B)/tests/%): TEST_EXTRA = $(SERVER_OBJ) $(WHOLE_WIRE)
$(B)/tests/%: tests/unit/%.c $(LIBA) $(B)/tests/%.d
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(TEST_CFLAGS) $(VCFLAGS) -Itests/unit $(DEPFLAGS) -o $@ $< $(TEST_EXTRA) $(LIBA) \
	  $(VLDFLAGS) $(PKG_LIBS) -lm && $(DEPDONE)

# A test of a program's files links their objects (never includes a .c) and
# sees the program's headers: test_X_OBJ names them.
test_run_hosts_OBJ := $(B)/obj/dsh/run/hosts.o
test_run_report_OBJ := $(B)/obj/dsh/run/report.o
test_journal_format_OBJ := $(B)/obj/dsh/journal.o $(B)/obj/common/outfile.o
test_bench_cache_OBJ := $(B)/obj/dsh/bench/bench_cache.o
PROG_TESTS := $(patsubst %_OBJ,%,$(filter test_%_OBJ,$(.VARIABLES)))
$(foreach t,$(PROG_TESTS),$(eval $(B)/tests/$(t): $($(t)_OBJ)))
$(foreach t,$(PROG_TESTS),$(eval $(B)/tests/$(t): TEST_EXTRA = $($(t)_OBJ)))
$(PROG_TESTS:%=$(B)/tests/%): TEST_CFLAGS = $(PUB_CFLAGS) -Idsh

# test_dsh_complete links dsh's objects but main.o (completion reads the command table).
$(B)/tests/test_dsh_complete: $(filter-out $(B)/obj/dsh/main.o,$(DSH_OBJ))
$(B)/tests/test_dsh_complete: TEST_CFLAGS = $(PUB_CFLAGS) -Idsh
$(B)/tests/test_dsh_complete: TEST_EXTRA = $(filter-out $(B)/obj/dsh/main.o,$(DSH_OBJ)) -lreadline

# The driver replays tests/fuzz/regress/NAME and tests/fuzz/corpus/NAME first.
# fuzz_dsh also links dsh's objects but main.o, and stubs (--wrap) the
# commands that read or write files, fork or probe the machine (FUZZ_DSH_WRAP).
FUZZ_DSH_OBJ := $(filter-out $(B)/obj/dsh/main.o,$(DSH_OBJ))
FUZZ_DSH_WRAP := $(foreach f,cmd_bench cmd_replay cmd_source cmd_probe,-Wl,--wrap=$(f))
$(B)/tests/test_fuzz_dsh: $(FUZZ_DSH_OBJ)
$(B)/tests/test_fuzz_dsh: FUZZ_EXTRA = $(FUZZ_DSH_OBJ) $(FUZZ_DSH_WRAP) -lreadline
$(B)/tests/test_fuzz_dsh: FUZZ_CFLAGS = $(PUB_CFLAGS)
$(B)/tests/test_fuzz_server: $(SERVER_OBJ) $(LIBWIRE)
$(B)/tests/test_fuzz_server: FUZZ_EXTRA = $(SERVER_OBJ) $(WHOLE_WIRE)
FUZZ_CFLAGS = $(BASE_CFLAGS)
$(B)/tests/test_fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(LIBA) $(B)/tests/test_fuzz_%.d
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(FUZZ_CFLAGS) $(VCFLAGS) -Itests/fuzz -Idsh -DFUZZ_SRCDIR='"$(CURDIR)/tests/fuzz"' \
	  $(DEPFLAGS) -o $@ $< tests/fuzz/driver.c $(FUZZ_EXTRA) $(LIBA) $(VLDFLAGS) $(PKG_LIBS) -lm -lpthread && $(DEPDONE)

DEPS := $(addsuffix .d,$(sort $(LIB_OBJ) $(WIRE_OBJ) $(DSH_OBJ) $(DNETD_OBJ) $(SERVER_OBJ) $(RUN_OBJ)) $(UNIT_BIN) $(FUZZ_BIN))
# Named as targets (not a pattern, whose files make would take as
# intermediate), so a missing one makes its object out of date.
$(DEPS):
-include $(wildcard $(DEPS))

# Long runs, outside make test: fuzzing (libFuzzer with clang, else the
# standalone driver under ASan+UBSan) and stress.
FUZZ_TIME ?= 120
fuzz: deps
	@$(MAKE) --no-print-directory SAN=1 all
	@scripts/fuzz.sh $(FUZZ_TIME)
stress: deps
	@$(MAKE) --no-print-directory all SAN=1
	@$(MAKE) --no-print-directory all
	@scripts/stress.sh

# Packages: `make run` needs only the shell's (install-deps.sh run), `make
# test` the rest too (install-deps.sh test: the launchers, the VM test's).
deps-run:
	@scripts/install-deps.sh run
deps deps-test:
	@scripts/install-deps.sh test

run: deps-run
	@$(MAKE) -s --no-print-directory $(OUT_BIN)/dsh
	@$(OUT_BIN)/dsh

# Plain build first, then the same suite under AddressSanitizer + UBSan
# (the directories of this compiler: build-clang/ and build-san-clang/ for
# CC=clang).
PLAIN_B := build$(CC_TAG)
PLAIN_BIN := $(if $(CC_TAG),$(PLAIN_B)/bin,bin)
SAN_B := build-san$(CC_TAG)
test: deps-test
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory SAN=1 all
	@TESTS='$(TESTS)' tests/run.sh --variant $(PLAIN_B):$(PLAIN_BIN) --variant $(SAN_B):$(SAN_B)/bin

test-plain: all
	@TESTS='$(TESTS)' tests/run.sh --variant $(B):$(OUT_BIN)

# What make test would run (after TESTS), without building or running.
test-list:
	@TESTS='$(TESTS)' tests/run.sh --list --variant $(PLAIN_B):$(PLAIN_BIN) --variant $(SAN_B):$(SAN_B)/bin

bench: all
	@scripts/bench.sh

# The Python package: every module byte-compiled into the build (a syntax
# error fails the build); the tree's copy is the one imported
# (PYTHONPATH=libdnet/python finds lib/libdnet.so beside it).  Without python3
# (make run installs none) it is left out, saying so.
PY_SRC := $(wildcard libdnet/python/dnet/*.py)
python: $(B)/python/dnet.stamp
$(B)/python/dnet.stamp: $(PY_SRC)
	@mkdir -p $(dir $@)
	$(call say,PY,libdnet/python/dnet)
	$(Q)if ! command -v $(PYTHON) >/dev/null 2>&1; then \
	  echo "make: note: no $(PYTHON): the Python package is not byte-compiled (make run needs none)" >&2; \
	else $(PYTHON) -c 'import py_compile, sys; [py_compile.compile(f, cfile=sys.argv[1] + "/" + f.rsplit("/", 1)[1] + "c", doraise=True) for f in sys.argv[2:]]' \
	  $(B)/python $(PY_SRC) && touch $@; fi

# Installed files, relative to DESTDIR (uninstall removes these).
MAN_PAGES := $(wildcard man/*.[1358])
DOC_FILES := $(wildcard docs/*.md) LICENSE
SCHEMAS   := $(wildcard tests/schemas/*)
HEADERS   := $(wildcard libdnet/include/dnet/*.h)
PROG_NAMES := dsh dnetd dsh-run
INSTALLED := $(PROG_NAMES:%=$(BINDIR)/%) $(LIBDIR)/libdnet.a $(LIBDIR)/libdnet.so.0 $(LIBDIR)/libdnet.so \
	$(addprefix $(INCLUDEDIR)/dnet/,$(notdir $(HEADERS))) $(PKGCONFIGDIR)/libdnet.pc \
	$(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
	$(addprefix $(DOCDIR)/,$(notdir $(DOC_FILES))) $(SCHEMAS:tests/%=$(DOCDIR)/%) \
	$(BASHCOMPDIR)/dsh $(BASHCOMPDIR)/dsh-run $(BASHCOMPDIR)/dnetd \
	$(UNITDIR)/dnetd.service $(UNITDIR)/dnetd.socket
# The package's directories, removed whole (python3 leaves __pycache__ there).
# Its entry point is named as its module, so that -p dnet.pytest besides
# the autoload is one plugin, not two.
DNET_VERSION = $(shell sed -n 's/.*DNET_VERSION_STRING "\(.*\)"/\1/p' libdnet/include/dnet/dnet.h)
PY_INSTALLED = $(PYDIR)/dnet $(PYDIR)/dnet-$(DNET_VERSION).dist-info
# The .pc file: libdnet/libdnet.pc.in with its @name@ placeholders filled
# by install (the paths under ${prefix} when they are).
PC_IN := libdnet/libdnet.pc.in
pc_path = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
# Installing to the system (no DESTDIR) refreshes the loader's cache, so a
# program linked with -ldnet runs without LD_LIBRARY_PATH; a LIBDIR the
# loader does not search is named.
define ldconfig_step
	@if [ -z "$(DESTDIR)" ]; then \
	  if [ "$$(id -u)" -eq 0 ] && command -v ldconfig >/dev/null 2>&1; then ldconfig; \
	  else echo "make: note: not root (or no ldconfig): the loader's cache is not refreshed" >&2; fi; \
	  if [ "$(1)" = install ] && ! ldconfig -p 2>/dev/null | grep -q " => $(LIBDIR)/libdnet.so.0$$"; then \
	    echo "make: note: $(LIBDIR) is not in the loader's path: add it to /etc/ld.so.conf.d/ (then ldconfig) or link with -Wl,-rpath,$(LIBDIR)" >&2; fi; \
	fi
endef

# The library and the programs only: the tests need not compile to install.
install: lib progs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/dnet $(DESTDIR)$(PKGCONFIGDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
	  $(DESTDIR)$(DOCDIR)/schemas $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(UNITDIR)
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)/
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/libdnet.so.0
	ln -sf libdnet.so.0 $(DESTDIR)$(LIBDIR)/libdnet.so
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/dnet/
	sed -e 's|@prefix@|$(PREFIX)|' -e 's|@libdir@|$(call pc_path,$(LIBDIR))|' \
	  -e 's|@includedir@|$(call pc_path,$(INCLUDEDIR))|' \
	  -e "s|@version@|$$(sed -n 's/.*DNET_VERSION_STRING "\(.*\)"/\1/p' libdnet/include/dnet/dnet.h)|" \
	  $(PC_IN) > $(DESTDIR)$(PKGCONFIGDIR)/libdnet.pc
	@! grep -n '@[a-z]*@' $(DESTDIR)$(PKGCONFIGDIR)/libdnet.pc || { echo "make: $(PC_IN): a placeholder install does not fill" >&2; exit 1; }
	for m in $(MAN_PAGES); do s=$${m##*.}; install -m 644 "$$m" $(DESTDIR)$(MANDIR)/man$$s/; done
	install -m 644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	install -m 644 $(SCHEMAS) $(DESTDIR)$(DOCDIR)/schemas/
	install -m 644 scripts/service/dsh.bash-completion $(DESTDIR)$(BASHCOMPDIR)/dsh
	ln -sf dsh $(DESTDIR)$(BASHCOMPDIR)/dsh-run
	ln -sf dsh $(DESTDIR)$(BASHCOMPDIR)/dnetd
	sed 's|@BINDIR@|$(BINDIR)|' scripts/service/dnetd.service > $(DESTDIR)$(UNITDIR)/dnetd.service
	install -m 644 scripts/service/dnetd.socket $(DESTDIR)$(UNITDIR)/dnetd.socket
	install -d $(DESTDIR)$(PYDIR)/dnet $(DESTDIR)$(PYDIR)/dnet-$(DNET_VERSION).dist-info
	install -m 644 $(PY_SRC) $(DESTDIR)$(PYDIR)/dnet/
	echo 'LIBDIR = "$(LIBDIR)"  # written by make install: where libdnet.so.0 is' > $(DESTDIR)$(PYDIR)/dnet/_install.py
	printf 'Metadata-Version: 2.1\nName: dnet\nVersion: %s\nSummary: libdnet (DIMMnet-2) from Python, and the pytest plugin dnet.pytest\n' \
	  '$(DNET_VERSION)' > $(DESTDIR)$(PYDIR)/dnet-$(DNET_VERSION).dist-info/METADATA
	printf '[pytest11]\ndnet.pytest = dnet.pytest\n' > $(DESTDIR)$(PYDIR)/dnet-$(DNET_VERSION).dist-info/entry_points.txt
	printf 'dnet\n' > $(DESTDIR)$(PYDIR)/dnet-$(DNET_VERSION).dist-info/top_level.txt
	$(call ldconfig_step,install)

# Removes what install put there (same variables), then each directory
# install made that is left empty (deepest first; a non-empty one stays).
INSTALL_DIRS := $(DOCDIR)/schemas $(DOCDIR) $(INCLUDEDIR)/dnet $(PKGCONFIGDIR) $(MANDIR)/man1 $(MANDIR)/man3 \
	$(MANDIR)/man5 $(MANDIR)/man8 $(MANDIR) $(BASHCOMPDIR) $(patsubst %/,%,$(dir $(BASHCOMPDIR))) \
	$(UNITDIR) $(patsubst %/,%,$(dir $(UNITDIR))) $(PYDIR) $(patsubst %/,%,$(dir $(PYDIR))) \
	$(BINDIR) $(INCLUDEDIR) $(LIBDIR)
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -rf $(addprefix $(DESTDIR),$(PY_INSTALLED))
	@for d in $(addprefix $(DESTDIR),$(INSTALL_DIRS)); do [ ! -d "$$d" ] || rmdir "$$d" 2>/dev/null || true; done
	$(call ldconfig_step,uninstall)

# Every generated directory: the builds of each variant and compiler, and
# make fuzz's (its corpora and findings too).
clean:
	rm -rf build build-* bin lib

help:
	@printf '%s\n' \
	'Targets:' \
	'  all (default)  library, programs, unit and fuzz-driver tests, the Python package' \
	'  lib            lib/libdnet.a, lib/libdnet.so (only)' \
	'  progs          bin/dsh, bin/dnetd, bin/dsh-run (and the library)' \
	'  tests          the unit tests and the fuzz drivers' \
	'  python         byte-compile the Python package libdnet/python/dnet into the build' \
	'  unit           build and run the unit tests (e.g. make CC=clang unit)' \
	'  run            install the shell'"'"'s packages if missing, build dsh, start it on the emulator' \
	'  test           install every test package if missing, build plain and SAN=1, run every test' \
	'  test-plain     build and run every test, plain build only' \
	'  test-list      list the suites make test runs (after TESTS), build and run nothing' \
	'  deps-run       install the packages make run needs (scripts/install-deps.sh run)' \
	'  deps, deps-test  install the packages make test needs (scripts/install-deps.sh test)' \
	'  install        install under DESTDIR+PREFIX; without DESTDIR, as root, also ldconfig' \
	'  uninstall      remove what install installed (same variables)' \
	'  bench          benchmark figures (not pass/fail)' \
	'  print-objs     the object files of one program (PROG=dsh, dnetd or dsh-run), one a line' \
	'  fuzz           libFuzzer on each tests/fuzz target, FUZZ_TIME s each (FUZZ_TARGETS="proto dsh": some)' \
	'  stress         long runs: random messages, many-rank barriers, attacks' \
	'  clean          remove every generated directory (build*, bin, lib, build-fuzz)' \
	'  help           this list' \
	'Variables:' \
	'  CC=$(CC)  a compiler other than cc/gcc builds in its own directory (build-clang/ for clang)' \
	'  BUILD=DIR      build directory (default build/, build-san/ with SAN=1, -clang appended for clang)' \
	'  SAN=1          AddressSanitizer + UBSan build (build-san/)' \
	'  V=1            print the full commands' \
	'  TESTS=GLOB     make test, test-plain, test-list, unit: only the suites named so' \
	'                 (TESTS='"'"'test_dsh_run*'"'"', TESTS=test_durations.sh; the build stays whole)' \
	'  CFLAGS=$(CFLAGS)' \
	'  PREFIX=$(PREFIX)  DESTDIR=$(DESTDIR)' \
	'  BINDIR=$(BINDIR)  LIBDIR=$(LIBDIR)  INCLUDEDIR=$(INCLUDEDIR)' \
	'  PKGCONFIGDIR=$(PKGCONFIGDIR)  MANDIR=$(MANDIR)' \
	'  DOCDIR=$(DOCDIR)  BASHCOMPDIR=$(BASHCOMPDIR)' \
	'  UNITDIR=$(UNITDIR)  (systemd units)' \
	'  PYTHON=$(PYTHON)  PYDIR=$(PYDIR)  (the Python package dnet)' \
	'  FUZZ_TIME=$(FUZZ_TIME)  FUZZ_TARGETS  (make fuzz)'
