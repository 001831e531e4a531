# DIMMnet-2 toolkit: libdnet, the backends, dsh and dnetd.
#
#   make            build lib/libdnet.{a,so} and bin/{dsh,dnetd}
#   make run        install missing packages, build, start dsh on the embedded emulator
#   make test       install missing packages, build, run every test (plain and ASan+UBSan)
#   make install    PREFIX=/usr/local (DESTDIR honoured)
#   make bench      benchmarks (figures, not pass/fail)
#   make fuzz       libFuzzer on each tests/fuzz target, FUZZ_TIME s each (FUZZ_TARGETS="proto dsh": some)
#   make stress     long runs: 100k random messages, many-rank barriers and messages
#   make clean

PREFIX  ?= /usr/local
DESTDIR ?=
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
BASE_CFLAGS := $(PUB_CFLAGS) -Ibackends
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

# Build variant: plain (build/) or sanitized (build-san/, make SAN=1).
ifeq ($(SAN),1)
  B := build-san
  VCFLAGS := $(SAN_FLAGS)
  VLDFLAGS := -fsanitize=address,undefined
else
  B := build
  VCFLAGS := $(CFLAGS)
  VLDFLAGS :=
endif

# The daemon's own files (the server loop and its rooms, grants): linked into
# dnetd and the tests that drive the server, never into libdnet.  Every file
# that is the daemon's goes here.
SERVER_SRC := $(wildcard backends/remote/server*.c backends/remote/srv_*.c) backends/remote/grants.c
LIB_SRC  := $(filter-out $(SERVER_SRC),$(wildcard libdnet/src/*.c) $(wildcard backends/*/*.c))
# common/: what the programs share without libdnet (compiled into each).
COMMON_SRC := $(wildcard common/*.c)
DSH_SRC  := $(wildcard dsh/*.c) $(COMMON_SRC)
DNETD_SRC := $(wildcard backends/remote/dnetd/*.c) $(COMMON_SRC)
RUN_SRC  := $(wildcard dsh/run/*.c) $(COMMON_SRC)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
HDRS     := $(wildcard libdnet/include/dnet/*.h backends/*/*.h dsh/*.h dsh/run/*.h backends/remote/dnetd/*.h common/*.h tests/unit/*.h)

LIB_OBJ  := $(LIB_SRC:%.c=$(B)/obj/%.o)
LIB_PIC  := $(LIB_SRC:%.c=$(B)/pic/%.o)
DSH_OBJ  := $(DSH_SRC:%.c=$(B)/obj/%.o)
DNETD_OBJ := $(DNETD_SRC:%.c=$(B)/obj/%.o)
SERVER_OBJ := $(SERVER_SRC:%.c=$(B)/obj/%.o)
RUN_OBJ  := $(RUN_SRC:%.c=$(B)/obj/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
# Fuzz targets with the standalone driver: a bounded run is a test.
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=$(B)/tests/test_fuzz_%)

ifeq ($(SAN),1)
  OUT_LIB := $(B)/lib
  OUT_BIN := $(B)/bin
else
  OUT_LIB := lib
  OUT_BIN := bin
endif

LIBA  := $(OUT_LIB)/libdnet.a
LIBSO := $(OUT_LIB)/libdnet.so
PROGS := $(OUT_BIN)/dsh $(OUT_BIN)/dnetd $(OUT_BIN)/dsh-run

.PHONY: all deps run test test-plain test-san unit bench install clean fuzz stress
all: $(LIBA) $(LIBSO) $(PROGS) $(UNIT_BIN) $(FUZZ_BIN)

# libdnet's boundary: its objects hide every symbol but those the public
# headers declare (they say so with a visibility pragma), and the version
# script (libdnet/libdnet.ver) exports only dnet_* from libdnet.so.
OBJ_CFLAGS = $(BASE_CFLAGS)
$(DSH_OBJ) $(RUN_OBJ): OBJ_CFLAGS = $(PUB_CFLAGS)
$(LIB_OBJ): OBJ_CFLAGS = $(BASE_CFLAGS) -fvisibility=hidden
LIBVER := libdnet/libdnet.ver

$(B)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(OBJ_CFLAGS) $(VCFLAGS) -c $< -o $@
$(B)/pic/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$< [pic])
	$(Q)$(CC) $(BASE_CFLAGS) -fvisibility=hidden $(VCFLAGS) -fPIC -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBSO): $(LIB_PIC) $(LIBVER)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libdnet.so.0 -Wl,--version-script=$(LIBVER) $(VLDFLAGS) -o $@ \
	  $(LIB_PIC) $(PKG_LIBS) -lm

$(OUT_BIN)/dsh: $(DSH_OBJ) $(LIBA)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) $(VLDFLAGS) -o $@ $(DSH_OBJ) $(LIBA) -lreadline $(PKG_LIBS) -lm
$(OUT_BIN)/dnetd: $(DNETD_OBJ) $(SERVER_OBJ) $(LIBA)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) $(VLDFLAGS) -o $@ $(DNETD_OBJ) $(SERVER_OBJ) $(LIBA) $(PKG_LIBS) -lm
$(OUT_BIN)/dsh-run: $(RUN_OBJ) $(LIBA)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) $(VLDFLAGS) -o $@ $(RUN_OBJ) $(LIBA) $(PKG_LIBS) -lm

# Unit tests see the public headers; those of emulator or daemon internals
# also backends/, and those that drive the server link its objects.
INTERNAL_TESTS := test_dnetd_grants test_remote_e2e test_remote_wire test_remote_proto test_mmio
SERVER_TESTS := test_dnetd_grants test_remote_e2e test_remote_wire
TEST_CFLAGS = $(PUB_CFLAGS)
TEST_EXTRA =
$(INTERNAL_TESTS:%=$(B)/tests/%): TEST_CFLAGS = $(BASE_CFLAGS)
$(SERVER_TESTS:%=$(B)/tests/%): $(SERVER_OBJ)
$(SERVER_TESTS:%=$(B)/tests/%): TEST_EXTRA = $(SERVER_OBJ)
$(B)/tests/%: tests/unit/%.c $(LIBA) $(HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(TEST_CFLAGS) $(VCFLAGS) -Itests/unit -o $@ $< $(TEST_EXTRA) $(LIBA) $(VLDFLAGS) $(PKG_LIBS) -lm

# test_run_report includes dsh/run/report.c whole (its static helpers).
$(B)/tests/test_run_report: dsh/run/report.c
# test_journal_format includes dsh/journal.c whole (its tap).
$(B)/tests/test_journal_format: dsh/journal.c dsh/journal.h common/outfile.c common/outfile.h
# test_bench_cache includes dsh/bench_cache.c whole (the bench's host cache model).
$(B)/tests/test_bench_cache: dsh/bench_cache.c

# The driver replays tests/fuzz/regress/NAME and tests/fuzz/corpus/NAME first.
# fuzz_dsh also links dsh's objects but main.o, and stubs (--wrap) the
# commands that read or write files, fork or probe the machine (FUZZ_DSH_WRAP).
FUZZ_DSH_OBJ := $(filter-out $(B)/obj/dsh/main.o,$(DSH_OBJ))
FUZZ_DSH_WRAP := $(foreach f,cmd_bench cmd_replay cmd_source cmd_probe,-Wl,--wrap=$(f))
$(B)/tests/test_fuzz_dsh: $(FUZZ_DSH_OBJ)
$(B)/tests/test_fuzz_dsh: FUZZ_EXTRA = $(FUZZ_DSH_OBJ) $(FUZZ_DSH_WRAP) -lreadline
$(B)/tests/test_fuzz_dsh: FUZZ_CFLAGS = $(PUB_CFLAGS)
$(B)/tests/test_fuzz_server: $(SERVER_OBJ)
$(B)/tests/test_fuzz_server: FUZZ_EXTRA = $(SERVER_OBJ)
FUZZ_CFLAGS = $(BASE_CFLAGS)
$(B)/tests/test_fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c tests/fuzz/fuzz.h $(LIBA) $(HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(FUZZ_CFLAGS) $(VCFLAGS) -Itests/fuzz -Idsh -DFUZZ_SRCDIR='"$(CURDIR)/tests/fuzz"' -o $@ $< \
	  tests/fuzz/driver.c $(FUZZ_EXTRA) $(LIBA) $(VLDFLAGS) $(PKG_LIBS) -lm -lpthread

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

deps:
	@scripts/install-deps.sh

run: deps
	@$(MAKE) --no-print-directory $(OUT_BIN)/dsh
	@./bin/dsh

# Plain build first, then the same suite under AddressSanitizer + UBSan.
test: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory SAN=1 all
	@tests/run.sh

test-plain: all
	@tests/run.sh --plain

bench: all
	@scripts/bench.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/dnet \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3 \
	  $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 755 bin/dsh bin/dnetd bin/dsh-run $(DESTDIR)$(PREFIX)/bin/
	install -m 644 lib/libdnet.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 lib/libdnet.so $(DESTDIR)$(PREFIX)/lib/libdnet.so.0
	ln -sf libdnet.so.0 $(DESTDIR)$(PREFIX)/lib/libdnet.so
	install -m 644 libdnet/include/dnet/*.h $(DESTDIR)$(PREFIX)/include/dnet/
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: libdnet\nDescription: DIMMnet-2 host library\nVersion: %s\nRequires.private: libcjson libpci\nLibs: -L$${libdir} -ldnet\nLibs.private: -lm\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' "$$(sed -n 's/.*DNET_VERSION_STRING "\(.*\)"/\1/p' libdnet/include/dnet/dnet.h)" > $(DESTDIR)$(PREFIX)/lib/pkgconfig/libdnet.pc
	for s in 1 3 5 8; do for f in man/*.$$s; do [ -e "$$f" ] && install -m 644 "$$f" $(DESTDIR)$(PREFIX)/share/man/man$$s/; done; done; true
	install -d $(DESTDIR)$(PREFIX)/share/doc/dimmnet $(DESTDIR)$(PREFIX)/share/doc/dimmnet/schemas \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/lib/systemd/system
	install -m 644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/dimmnet/
	install -m 644 tests/schemas/* $(DESTDIR)$(PREFIX)/share/doc/dimmnet/schemas/
	install -m 644 scripts/service/dsh.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dsh
	ln -sf dsh $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dsh-run
	ln -sf dsh $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dnetd
	sed 's|@BINDIR@|$(PREFIX)/bin|' scripts/service/dnetd.service > $(DESTDIR)$(PREFIX)/lib/systemd/system/dnetd.service
	install -m 644 scripts/service/dnetd.socket $(DESTDIR)$(PREFIX)/lib/systemd/system/dnetd.socket

clean:
	rm -rf build build-san bin lib
