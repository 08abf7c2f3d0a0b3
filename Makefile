# nvmf-rdma: user-space NVMe over Fabrics target and initiator on RDMA.
#   make            build everything under build/
#   make unit       build and run the CUnit unit tests
#   make check-test-mirror  every source has its unit test file (part of make check)
#   make check      install missing dependencies, build, unit tests (plain and under
#                   AddressSanitizer + UBSan), path trace check, fuzz smoke, static
#                   analysis, install check, VM integration tests
#   make analyze    static analysis of all the C code (clang's scan-build, cppcheck) in
#                   build/analyze: fails on any finding
#   make asan       the same build with AddressSanitizer + UBSan (or SANITIZE=1 make ...)
#   make deps       install missing packages (apt-get) and the guest kernel
#   make local-check  NVMe/TCP end to end on 127.0.0.1 (nvmf-target and the nvmf tool, fio through
#                   the fio engine build/libnvmf-fio.so), no VM;
#                   the one-node Ceph cluster of tests/ceph/cluster (root) and Ceph RBD
#                   namespaces on it (rbd_test.sh)
#   make vm-check   only the VM integration tests (and their sanitizer pass)
#   make vm-passthru  passthru_test.sh alone in the 6.12 guest with its emulated drive
#                   (PT_TARGET=kernel: the same checks on nvmet's passthru, the reference)
#   make vm-host-target  two nvmf-target processes on the host's 127.0.0.1, the guest's stock
#                   NVMe/TCP host connected over QEMU user networking: ANA multipath, failover
#                   when the optimized one is killed under fio verify (1.5-3 minutes)
#   make vm-ceph    the same with two Ceph gateways (a gateway group) on one RBD image, and
#                   the failback when the killed gateway returns
#   make soak       the hardening VM tests at full length (1000 cycles, 50 restarts)
#   make bench      our target vs kernel nvmet-rdma (BENCH_TRANSPORT=tcp: nvmet-tcp) in the VM: build/bench/results.{md,json,png};
#                   then make bench-local (native, build/bench-local/results.md)
#                   BENCH_BASELINE=DIR adds DIR/build/nvmf-target (another checkout, built) as a third system
#   make bench-regress  make bench with BENCH_BASELINE = a build of BENCH_BASELINE_REF (default: where this
#                   branch left main; on main, HEAD~1, or HEAD with uncommitted changes): is this slower?
#   make bench-passthru  our passthru subsystem vs an "nvme" namespace on one emulated drive
#                   (6.12 guest, fio over TCP): build/bench-passthru/results.md
#   make bench-ceph the gateway (nvmf perf through an rbd namespace) vs fio's librbd on one
#                   image of the test cluster, natively (root): build/bench-ceph/results.md
#   make bench-local  our NVMe/TCP target natively on 127.0.0.1 (nvmf perf as the host, no VM) beside
#                   this machine's loopback TCP and memcpy limits measured in the same run
#                   (build/tcp-limit), and its idle CPU: build/bench-local/results.md (also run by make bench)
#   make bench-report-test  bench/report, bench/run's and bench/guest.sh's checks on canned results (no VM),
#                   and build/tcp-limit's argument errors and a short run of each mode
#   make bench-churn  fio's IOPS while namespaces are added and removed live, and without
#   make path-trace the functions six 4 KiB commands (RDMA, NVMe/TCP) pass through, by layer
#   make path-trace-check  fails when docs/architecture.md's measured paths differ from
#                   the trace (part of make check); make path-trace-doc rewrites them
#   make install    libnvmf (static, shared, header, pkg-config), the programs, their man pages and
#                   the systemd unit under PREFIX
#   make check-man  the man pages (docs/man) against the programs' --help, and the check's own test
#   make fuzz       the libFuzzer harnesses (tests/fuzz/), FUZZ_SECS (60) seconds each
#   make fuzz-smoke each harness over its seed corpus plus 5 seconds (part of make check)
#   make format-check  every C file as .clang-format says (part of make check); make format applies it
#   make compile_commands.json  the compile commands of every C file, for clangd/clang-tidy/editors

CC      ?= gcc
# libcrypto: OpenSSL 3 for DH-HMAC-CHAP (nvme/dhchap.c); libssl: its TLS 1.3 for NVMe/TCP (tls/). libisal: CRC32C for NVMe/TCP digests (nvme/tcp.c).
PKGS    := libibverbs librdmacm libnvme liburing jansson numa libcrypto libssl libisal
# Generic x86-64 code: the test guest's CPU model has no host-specific extensions.
ifeq ($(FUZZ),1)
CFLAGS  ?= -O1 -g
endif
CFLAGS  ?= -O2 -g
# -fPIC everywhere: the same objects go into libnvmf.so.
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes -Wshadow \
	   -I. -pthread -fPIC
LDFLAGS += -pthread

BUILD   := build
# make path-trace: every function entry recorded (-finstrument-functions), fixed addresses.
ifeq ($(TRACE),1)
BUILD   := build/trace
CFLAGS  += -finstrument-functions -fno-pie -O0
LDFLAGS += -no-pie
endif
ifeq ($(SANITIZE),1)
ifneq ($(filter bench-local,$(MAKECMDGOALS)),)
$(error bench-local measures the optimized build (build/); SANITIZE=1 builds build/asan, which it would not measure: run make bench-local without SANITIZE)
endif
BUILD   := build/asan
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
# make fuzz / fuzz-smoke: every object built by clang with libFuzzer's coverage and
# AddressSanitizer + UBSan, apart from the gcc build (docs/fuzzing.md).
FUZZ_CC ?= clang
ifeq ($(FUZZ),1)
BUILD   := build/fuzz
CC      := $(FUZZ_CC)
CFLAGS  += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=fuzzer,address,undefined
endif

# pkg-config is asked only when building, so `make deps` works on a bare machine.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) || echo PKG-CONFIG-FAILED-run-make-deps)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) || echo PKG-CONFIG-FAILED-run-make-deps)
# libsystemd: the daemon's sd_notify (app/nvmf-target/main.c), linked into the programs
# built from it only; no library of ours needs it (install-check checks).
SYSTEMD_LIBS = $(shell pkg-config --libs libsystemd || echo PKG-CONFIG-FAILED-run-make-deps)
# librbd and librados (Debian ships no .pc for them): the rbd backend
# (subsystem/backend-rbd.c), linked into the programs built on the target's code
# (libcore.a) only, never into libnvmf (install-check checks).
RBD_LIBS = -lrbd -lrados

# Library code of each layer. Programs live in app/ (app/nvmf-target, app/nvmf-targetctl,
# app/nvmf), outside every library.
LIB_DIRS := util nvme tls rdma rdma/host rdma/target tcp/host tcp/target loop/host loop/target subsystem target \
	    control initiator
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)

# libnvmf: the host library = initiator core + RDMA and TCP host transports + shared
# protocol code + the TLS channel (tls/) + the pure helpers of util/ (in libcore.a too).
NVMF_SRCS := $(wildcard initiator/*.c) $(wildcard rdma/host/*.c) rdma/device.c \
             $(wildcard tcp/host/*.c) $(wildcard nvme/*.c) $(wildcard tls/*.c) $(wildcard util/*.c)
NVMF_OBJS := $(NVMF_SRCS:%.c=$(BUILD)/obj/%.o)
# The nvmf tool: app/nvmf/main.c plus the rest of app/nvmf (also unit tested).
CLI_SRCS  := $(filter-out app/nvmf/main.c,$(wildcard app/nvmf/*.c))
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
# nvmf-targetctl, the target's control CLI: app/nvmf-targetctl/main.c plus the rest of
# app/nvmf-targetctl (also unit tested).
TARGETCTL_SRCS := $(filter-out app/nvmf-targetctl/main.c,$(wildcard app/nvmf-targetctl/*.c))
TARGETCTL_OBJS := $(TARGETCTL_SRCS:%.c=$(BUILD)/obj/%.o)
# What it shares with the target, and nothing else of it (install-check checks): the
# socket path and framing (control/proto.c), the methods' descriptions
# (control/schema.c) and the name tables of their choice lists (nvme/ana-state.c,
# nvme/dhchap-names.c, util/log-names.c), the UUID/NGUID parsers (nvme/identify.c),
# status texts (nvme/errmsg.c), jansson's wiping free (subsystem/json-wipe.c) and the
# pure helpers (util/). libc and jansson only.
TARGETCTL_SHARED := control/proto.c control/schema.c nvme/ana-state.c nvme/dhchap-names.c \
		    nvme/identify.c nvme/errmsg.c $(wildcard util/*.c) subsystem/json-wipe.c
TARGETCTL_SHARED_OBJS := $(TARGETCTL_SHARED:%.c=$(BUILD)/obj/%.o)

# The gateway group's coordination (gateway/, docs/gateway.md): librados, which has no
# pkg-config file in Debian. Linked into the daemon and the unit tests only: never into
# libcore.a (so neither into libnvmf nor the fuzzers) nor nvmf-targetctl.
GATEWAY_SRCS := $(wildcard gateway/*.c)
GATEWAY_OBJS := $(GATEWAY_SRCS:%.c=$(BUILD)/obj/%.o)
GATEWAY_LIBS := -lrados

UNIT_SRCS := $(wildcard tests/unit/*.c tests/unit/*/*.c tests/unit/*/*/*.c)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o)

# Fault injection (tests/fault/fault.h), for test binaries only: a backend wrapper and
# shims of the io_uring calls, hooked in with the linker's --wrap. Linked into the unit
# tests and build/tests/nvmf-target-fault (app/nvmf-target/main.c + NVMF_FAULT, tests/fault/env.c),
# never into build/nvmf-target or libnvmf.
FAULT_SRCS := $(filter-out tests/fault/env.c,$(wildcard tests/fault/*.c))
FAULT_OBJS := $(FAULT_SRCS:%.c=$(BUILD)/obj/%.o)
FAULT_WRAP := $(foreach f,nvmf_bdev_open nvmf_aio_init nvmf_aio_read nvmf_aio_write nvmf_aio_fsync \
		nvmf_aio_fallocate io_uring_submit pread pwrite,-Wl,--wrap=$(f))
# The unit tests also script the CM events of the RDMA host's queues
# (tests/unit/rdma/host/io_test.c): a channel of theirs gets the test's events, any other
# goes to librdmacm.
UNIT_WRAP := -Wl,--wrap=rdma_get_cm_event -Wl,--wrap=rdma_ack_cm_event

# libFuzzer harnesses: tests/fuzz/fuzz_NAME.c is build/fuzz/fuzz_NAME (FUZZ=1 only); the
# whole-stack target fixture of the unit tests is linked in for the target harnesses, the
# tcp host tests' fake controller (its thread-free th_attach seam) for fuzz_tcp_host.
FUZZ_SRCS  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)
FUZZ_OBJS  := $(FUZZ_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/tests/unit/target/fixture.o \
	      $(BUILD)/obj/tests/unit/tcp/host/fake_ctrl.o
FUZZ_BINS  := $(FUZZ_NAMES:%=$(BUILD)/fuzz_%)
FUZZ_SECS  ?= 60

TARGET_BIN := $(BUILD)/nvmf-target
UNIT_BIN   := $(BUILD)/unit-tests
# Known answers of the DH-HMAC-CHAP unit tests, computed by independent code (Python's
# standard library, RFC 7919's primes) from the fixed inputs in tests/auth/dhchap_kat.py.
DHCHAP_KAT := $(BUILD)/gen/dhchap_kat.txt
# The same for the NVMe/TCP TLS PSKs (nvme/tls-psk.c): tests/auth/tls_psk_kat.py.
TLS_PSK_KAT := $(BUILD)/gen/tls_psk_kat.txt
NVMF_BIN   := $(BUILD)/nvmf
TARGETCTL_BIN := $(BUILD)/nvmf-targetctl
FAULT_TARGET_BIN := $(BUILD)/tests/nvmf-target-fault
TLS_PEER_BIN := $(BUILD)/tests/tls-peer
# Write Zeroes, Deallocate, Flush and the Changed Namespace List from a host on libnvmf,
# for tests/local/rbd_test.sh.
NVMF_IO_BIN := $(BUILD)/tests/nvmf-io
# A real NVMe drive through the Linux drive, for tests/integration/nvme_drive_test.sh (in
# the VM, on QEMU's emulated drive).
DRIVE_CHECK_BIN := $(BUILD)/tests/nvme-drive-check
NVMF_A     := $(BUILD)/libnvmf.a
NVMF_SO    := $(BUILD)/libnvmf.so.0
# The version is util/version.h's (one place for the programs and libnvmf.pc).
NVMF_VERSION := $(shell sed -n 's/^#define NVMF_VERSION "\(.*\)"$$/\1/p' util/version.h)
PREFIX     ?= /usr/local

# The fio ioengine (fio/; docs/libnvmf.md "fio engine"): build/libnvmf-fio.so, loaded by
# `fio --ioengine=external:build/libnvmf-fio.so`. Compiled against the headers of the
# installed fio's own source (Debian's source package of that version, configured:
# scripts/fetch-fio-src, run by scripts/install-deps, into .cache/fio/src): the engine
# ABI (FIO_IOOPS_VERSION, struct thread_data, struct io_u) must be the binary's. libnvmf
# is linked in statically with its symbols hidden: the library exports `ioengine` only
# (fio/engine.map). Without those headers `make all` says so and builds the rest. Not in
# the sanitizer build: a sanitized library cannot be loaded into fio.
FIO_SRC    ?= .cache/fio/src
FIO_ENGINE := $(BUILD)/libnvmf-fio.so
FIO_ENGINE_OBJS := $(BUILD)/obj/fio/engine.o $(BUILD)/obj/fio/target.o
FIO_ENGINE_ALL := $(if $(filter 1,$(SANITIZE) $(FUZZ) $(TRACE)),,$(if $(wildcard \
	$(FIO_SRC)/config-host.h),$(FIO_ENGINE),fio-engine-skipped))

.PHONY: path-trace path-trace-check path-trace-doc all unit check check-includes check-test-mirror check-man check-docs analyze local-check vm-check vm-passthru vm-host-target vm-ceph bench-passthru bench-ceph bench-local \
	fio-engine-skipped soak demo bench bench-regress bench-report-test bench-churn asan deps clean install install-check fuzz fuzz-smoke fuzz-bins format \
	format-check compile_commands.json FORCE
all: $(TARGET_BIN) $(TARGETCTL_BIN) $(NVMF_A) $(NVMF_SO) $(if $(wildcard app/nvmf/main.c),$(NVMF_BIN)) $(UNIT_BIN) \
     $(FAULT_TARGET_BIN) $(TLS_PEER_BIN) $(NVMF_IO_BIN) $(DRIVE_CHECK_BIN) $(DHCHAP_KAT) $(TLS_PSK_KAT) \
     $(FIO_ENGINE_ALL)

# Objects are rebuilt when the compile flags change (e.g. SANITIZE, CFLAGS=...).
FLAGS_STAMP := $(BUILD)/.cflags
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(CFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS)' > $@
FORCE:

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libcore.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(TARGET_BIN): $(BUILD)/obj/app/nvmf-target/main.o $(GATEWAY_OBJS) $(BUILD)/libcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(RBD_LIBS) $(SYSTEMD_LIBS) $(GATEWAY_LIBS)

$(TARGETCTL_BIN): $(BUILD)/obj/app/nvmf-targetctl/main.o $(TARGETCTL_OBJS) $(TARGETCTL_SHARED_OBJS)
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(shell pkg-config --libs jansson)

# The daemon with fault injection, for the VM tests (tests/integration/fault_test.sh).
$(FAULT_TARGET_BIN): $(BUILD)/obj/app/nvmf-target/main.o $(BUILD)/obj/tests/fault/env.o $(FAULT_OBJS) \
		     $(GATEWAY_OBJS) $(BUILD)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(FAULT_WRAP) -o $@ $^ $(PKG_LIBS) $(RBD_LIBS) $(SYSTEMD_LIBS) $(GATEWAY_LIBS)

# Suite list: every "const struct unit_test ID_tests[]" in tests/unit, as
# UNIT_SUITE(ID, "NAME"), NAME the file's path below tests/unit without "_test.c": the
# source it tests (tests/unit/target/io-cmd_test.c is the suite target/io-cmd). A suite in
# a file not named *_test.c, or two in one file, fails the build.
$(BUILD)/gen/unit_suites.inc: $(UNIT_SRCS)
	@mkdir -p $(dir $@)
	@awk 'FNR == 1 { name = FILENAME; sub(/^tests\/unit\//, "", name); ok = sub(/_test\.c$$/, "", name) } \
	     /^const struct unit_test [a-z0-9_]+_tests\[\]/ { id = $$4; sub(/_tests\[\].*/, "", id); \
		if (!ok) { print FILENAME ": a suite outside a *_test.c file" > "/dev/stderr"; err = 1 } \
		if (seen[FILENAME]++) { print FILENAME ": more than one suite in the file" > "/dev/stderr"; err = 1 } \
		printf "UNIT_SUITE(%s, \"%s\")\n", id, name } \
	     END { exit err }' $(UNIT_SRCS) > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

# private: the stamp (a prerequisite) must not see the extra flag, or it flips between
# the two and every object is rebuilt whenever make unit and make all alternate.
$(BUILD)/obj/tests/unit/main.o: private CFLAGS += -I$(BUILD)/gen
$(BUILD)/obj/tests/unit/main.o: $(BUILD)/gen/unit_suites.inc

# The tests read the answers from that file (path compiled into their fixture, relative to
# the repository like the rest of the tests' data); private for the same reason as above.
$(BUILD)/obj/tests/unit/nvme/kat_fixture.o: private CFLAGS += -DDHCHAP_KAT_FILE='"$(DHCHAP_KAT)"' \
	-DTLS_PSK_KAT_FILE='"$(TLS_PSK_KAT)"'
$(DHCHAP_KAT): tests/auth/dhchap_kat.py
	@mkdir -p $(dir $@)
	python3 $< $@
$(TLS_PSK_KAT): tests/auth/tls_psk_kat.py
	@mkdir -p $(dir $@)
	python3 $< $@

$(UNIT_BIN): $(UNIT_OBJS) $(CLI_OBJS) $(TARGETCTL_OBJS) $(FAULT_OBJS) $(GATEWAY_OBJS) $(BUILD)/obj/fio/target.o \
	     $(BUILD)/libcore.a
	$(CC) $(LDFLAGS) $(FAULT_WRAP) $(UNIT_WRAP) -o $@ $^ $(PKG_LIBS) $(RBD_LIBS) -lcunit $(GATEWAY_LIBS)

$(BUILD)/tests/nvme-drive-check: $(BUILD)/obj/tests/local/nvme-drive-check.o $(BUILD)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(RBD_LIBS)

# The TLS channel's peer for tests/local/tls_interop_test.sh (against GnuTLS).
$(TLS_PEER_BIN): $(BUILD)/obj/tests/local/tls-peer.o $(BUILD)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(RBD_LIBS)

$(NVMF_IO_BIN): $(BUILD)/obj/tests/local/nvmf-io.o $(NVMF_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(NVMF_A): $(NVMF_OBJS)
	rm -f $@ && ar rcs $@ $^

# Only the functions declared in the public header are exported: the version script is
# generated from initiator/nvmf.h, so the two cannot drift apart.
$(BUILD)/libnvmf.map: initiator/nvmf.h
	@mkdir -p $(dir $@)
	{ echo 'LIBNVMF_0 { global:'; grep -oE '^[a-z][^(]*\bnvmf_[a-z_]+\(' $< | grep -oE 'nvmf_[a-z_]+' | sort -u | sed 's/$$/;/'; \
	  echo 'local: *; };'; } > $@

$(NVMF_SO): $(NVMF_OBJS) $(BUILD)/libnvmf.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libnvmf.so.0 -Wl,--version-script=$(BUILD)/libnvmf.map \
		-o $@ $(NVMF_OBJS) $(PKG_LIBS)
	ln -sf libnvmf.so.0 $(BUILD)/libnvmf.so

$(NVMF_BIN): $(BUILD)/obj/app/nvmf/main.o $(CLI_OBJS) $(NVMF_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# fio's headers need GNU C (typeof, statement expressions); their own warnings are not ours
# (-isystem), and config-host.h comes first as in fio's build.
$(BUILD)/obj/fio/engine.o: private CFLAGS += -std=gnu11 -isystem $(FIO_SRC) \
	-include $(FIO_SRC)/config-host.h -fvisibility=hidden -Wno-missing-prototypes
$(FIO_ENGINE): $(FIO_ENGINE_OBJS) $(NVMF_A) fio/engine.map
	$(CC) $(LDFLAGS) -shared -Wl,--exclude-libs,ALL -Wl,--version-script=fio/engine.map \
		-o $@ $(FIO_ENGINE_OBJS) $(NVMF_A) $(PKG_LIBS)
fio-engine-skipped:
	@echo "make: NOT building $(FIO_ENGINE) (the fio engine): fio's headers are not in" \
		"$(FIO_SRC) (scripts/fetch-fio-src, run by scripts/install-deps, puts them there)"

$(BUILD)/libnvmf.pc: initiator/libnvmf.pc.in
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(NVMF_VERSION)|' $< > $@

# Written each time: it names $(PREFIX), which may differ from one install to the next.
$(BUILD)/nvmf-target.service: configs/nvmf-target.service.in FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' $< > $@

install: all $(BUILD)/libnvmf.pc $(BUILD)/nvmf-target.service
	install -D -m 644 initiator/nvmf.h $(DESTDIR)$(PREFIX)/include/nvmf.h
	install -D -m 644 nvme/wire.h $(DESTDIR)$(PREFIX)/include/nvmf-wire.h
	install -D -m 644 $(NVMF_A) $(DESTDIR)$(PREFIX)/lib/libnvmf.a
	install -D -m 755 $(NVMF_SO) $(DESTDIR)$(PREFIX)/lib/libnvmf.so.0
	ln -sf libnvmf.so.0 $(DESTDIR)$(PREFIX)/lib/libnvmf.so
	install -D -m 644 $(BUILD)/libnvmf.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/libnvmf.pc
	$(if $(wildcard app/nvmf/main.c),install -D -m 755 $(NVMF_BIN) $(DESTDIR)$(PREFIX)/bin/nvmf)
	$(if $(wildcard app/nvmf-target/main.c),install -D -m 755 $(TARGET_BIN) $(DESTDIR)$(PREFIX)/bin/nvmf-target)
	install -D -m 755 $(TARGETCTL_BIN) $(DESTDIR)$(PREFIX)/bin/nvmf-targetctl
	install -D -m 644 $(BUILD)/nvmf-target.service $(DESTDIR)$(PREFIX)/lib/systemd/system/nvmf-target.service
	install -D -m 644 docs/man/nvmf-target.8 $(DESTDIR)$(PREFIX)/share/man/man8/nvmf-target.8
	install -D -m 644 docs/man/nvmf-targetctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/nvmf-targetctl.8
	$(if $(wildcard app/nvmf/main.c),install -D -m 644 docs/man/nvmf.1 $(DESTDIR)$(PREFIX)/share/man/man1/nvmf.1)
	@# What the unit's Documentation= names.
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/doc/nvmf-target docs/operating.md docs/configuration.md

unit: $(UNIT_BIN) $(DHCHAP_KAT) $(TLS_PSK_KAT)
	$(UNIT_BIN)

deps:
	@scripts/install-deps

# End to end over NVMe/TCP on this machine, without the VM or root: nvmf-target on a
# tcp-only port of 127.0.0.1, the nvmf tool with -t tcp (tests/local/tcp_test.sh), then
# the same against the sanitizer build of both (any ASan/UBSan report fails).
# Then the daemon's systemd notifications (tests/local/notify_test.py), both builds too,
# and the TLS channel against GnuTLS (tests/local/tls_interop_test.sh).
# The fio engine through the installed fio (tests/local/fio_engine_test.sh; plain build
# only: a sanitized engine cannot be loaded into fio).
# Then the one-node Ceph cluster the tests share (tests/ceph/cluster), up, used with the
# rados and rbd tools and down (tests/local/ceph_cluster_test.sh, about 25 s): it needs
# root and the Ceph packages of scripts/install-deps, and fails without them. Then RBD
# namespaces served from such a cluster (tests/local/rbd_test.sh, about 25 s), and two
# gateways of a gateway group against such a cluster (tests/local/gateway_test.sh, about
# 90 s), both builds; both need root and fail without it.
local-check: all $(TLS_PEER_BIN)
	tests/local/tcp_test.sh
	tests/local/discover_persistent_test.sh
	tests/local/fio_engine_test.sh
	tests/local/tls_test.sh
	tests/local/notify_test.py
	tests/local/tls_interop_test.sh
	tests/local/ceph_cluster_test.sh
	tests/local/rbd_test.sh
	tests/local/gateway_test.sh
	$(MAKE) SANITIZE=1 build/asan/nvmf-target build/asan/nvmf build/asan/nvmf-targetctl build/asan/tests/tls-peer \
		build/asan/tests/nvmf-io build/asan/unit-tests
	ASAN_OPTIONS=detect_leaks=1 BUILD=build/asan tests/local/tcp_test.sh
	ASAN_OPTIONS=detect_leaks=1 BUILD=build/asan tests/local/discover_persistent_test.sh
	ASAN_OPTIONS=detect_leaks=1 BUILD=build/asan tests/local/tls_test.sh
	ASAN_OPTIONS=detect_leaks=1 BUILD=build/asan tests/local/notify_test.py
	ASAN_OPTIONS=detect_leaks=1 BUILD=build/asan tests/local/tls_interop_test.sh
	ASAN_OPTIONS=detect_leaks=1 BUILD=build/asan tests/local/rbd_test.sh
	ASAN_OPTIONS=detect_leaks=1 BUILD=build/asan tests/local/gateway_test.sh

# Integration tests: one guest boot for the whole batch. The guest gets an emulated NVMe
# drive (QEMU -device nvme, serial nvmfdrive01) backed by a sparse image, for the raw
# NVMe backend tests.
VM_DRIVE := build/vm/drive.img
VM_ARGS  := -q "-drive file=$(VM_DRIVE),if=none,id=nvm0,format=raw -device nvme,serial=nvmfdrive01,drive=nvm0"
# Then, in the same boot, the sanitizer pass: the target and poll-group tests against
# build/asan/nvmf-target; any ASan/LSan/UBSan report fails (tests/integration/suite-asan).
# A second boot, of Debian's 6.12 (NVMe in-band authentication in the host), runs the
# tests that need it (tests/integration/suite-6.12). Both run; either failing fails.
vm-check: all
	$(MAKE) SANITIZE=1 build/asan/nvmf-target
	@mkdir -p build/vm && rm -f $(VM_DRIVE) && truncate -s 256M $(VM_DRIVE)
	rc=0; tests/vm/run -t 1500 $(VM_ARGS) tests/integration/suite || rc=1; \
	d=$$(mktemp -d) && NVMF_VM_KERNEL=6.12 tests/vm/run -t 1200 -q "$$(tests/vm/passthru-drive $$d)" \
	    tests/integration/suite-6.12 || rc=1; rm -rf "$$d"; exit $$rc

# passthru_test.sh alone in the 6.12 guest with the emulated drive (tests/vm/passthru-drive:
# its two namespace images in a temporary folder, removed after): PT_TARGET=ours (our
# target's passthru subsystem) or kernel (the same checks on nvmet's passthru, the reference).
PT_TARGET ?= ours
vm-passthru: all
	d=$$(mktemp -d) && { NVMF_VM_KERNEL=6.12 tests/vm/run -t 600 -q "$$(tests/vm/passthru-drive $$d)" \
	    tests/integration/suite-passthru $(PT_TARGET); rc=$$?; rm -rf "$$d"; exit $$rc; }

# Our target natively on the host and the guest's kernel host connecting to it through
# QEMU's user networking (tests/vm/host-target-test; NVMF_VM_NET=user of tests/vm/run).
# Not part of make check.
vm-host-target: all
	tests/vm/host-target-test -t 600

# The same with a Ceph gateway group (docs/ceph.md): the one-node cluster on the host, two
# gateways on one RBD image; the guest's multipath fails over when A is killed and back
# when it returns (tests/vm/host-target-test -s ceph).
vm-ceph: all
	tests/vm/host-target-test -t 600 -s ceph

# Soak: the hardening tests at full length (1000 connect/disconnect cycles, 50 restarts
# under fio crc32c writes); figures in the test log and docs/hardening.md.
SOAK_CYCLES   ?= 1000
SOAK_RESTARTS ?= 50
# The guest's limit grows with the lengths: a TCG guest takes 3-12 s per kernel-host cycle
# and up to 40 s per restart with reconnect.
soak: all
	tests/vm/run -t $$((900 + $(SOAK_CYCLES) * 10 + $(SOAK_RESTARTS) * 40)) \
	    tests/integration/suite-soak $(SOAK_CYCLES) $(SOAK_RESTARTS)

# The main job: our target in the VM, the stock kernel host connects, fio verifies.
demo: deps
	$(MAKE) all
	tests/vm/run -t 600 scripts/main-job-guest.sh $(CONFIG)

# Benchmark: our target vs the kernel's nvmet-rdma or nvmet-tcp (BENCH_TRANSPORT) in one guest run; report in build/bench/
# (BENCH_ROUNDS, BENCH_SECS, BENCH_ONLY, BENCH_TARGET_JSON, BENCH_BASELINE, BENCH_TLS: see bench/run).
# The report's own test runs first: a broken report is found in a second, not after the run.
# Then the native benchmark (bench-local), whose CPUs the guest no longer takes; not when
# BENCH_ONLY picks VM workloads (its names are not bench-local's: said, not silent).
bench: deps bench-report-test
	$(MAKE) all $(BUILD)/switch-cost
	bench/run
	@if [ -n "$$BENCH_ONLY" ]; then \
		echo "bench: BENCH_ONLY is set (VM workload names): make bench-local skipped; run it with its own BENCH_ONLY (bench/local-run)"; \
	else $(MAKE) bench-local; fi

# Regression check (docs/performance.md): the benchmark with a baseline build of
# BENCH_BASELINE_REF (bench/regress: exported and built under build/bench-baseline/).
bench-regress: deps bench-report-test
	$(MAKE) all $(BUILD)/switch-cost
	bench/regress

bench-report-test: $(BUILD)/tcp-limit
	tests/scripts/bench_report_test.sh
	tests/scripts/tcp_limit_test.sh $(BUILD)/tcp-limit

# Native NVMe/TCP on 127.0.0.1 (bench/local-run): nvmf-target on CPU 0, nvmf perf on CPU 1,
# beside tcp-limit's limits of the same CPUs, in alternating order per round
# (BENCH_ROUNDS, BENCH_SECS, BENCH_ONLY, BENCH_IDLE_HOSTS: see bench/local-run);
# build/bench-local/results.md and raw.tsv. Not part of make check: nothing timed is.
bench-local: all $(BUILD)/tcp-limit
	bench/local-run

# Our passthru subsystem against an "nvme" namespace on the same emulated drive (6.12 guest,
# fio over NVMe/TCP; BENCH_PT_KERNEL=1 adds nvmet's two): build/bench-passthru/results.md.
# The same as BENCH_PASSTHRU=1 make bench.
bench-passthru: deps
	$(MAKE) all
	bench/passthru-run

# What a system call, an address-space switch and a wake-up of another CPU cost in the
# guest (bench/switch-cost.c): recorded by every benchmark run beside its results.
$(BUILD)/switch-cost: bench/switch-cost.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -pthread -o $@ $<

# This machine's loopback TCP (stream, request/response) and memcpy limits on one core
# (bench/tcp-limit.c): make bench-local's reference rows.
$(BUILD)/tcp-limit: bench/tcp-limit.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -Wmissing-prototypes \
		-Wstrict-prototypes -Wshadow -pthread -o $@ $<

# fio's IOPS on one namespace while another of the same subsystem is added and removed
# 20 times through nvmf-targetctl, beside the same run without (docs/performance.md).
# Ceph: what the gateway adds in front of librbd, natively (bench/ceph-run; root):
# build/bench-ceph/results.md.
bench-ceph: all
	bench/ceph-run

bench-churn: deps
	$(MAKE) all
	tests/vm/run -t 1500 bench/churn-guest.sh $(or $(BENCH_ROUNDS),3) $(or $(CHURN_MODE),visible)

# Which folder may include which (scripts/check-includes; the table and its reasons in
# docs/architecture.md), then the check itself failing on planted bad includes.
check-includes:
	scripts/check-includes
	tests/scripts/check_includes_test.sh

# What the code and the docs say of each other (scripts/check-docs: every docs/ file the
# code names exists; README's fuzz harness list is tests/fuzz/), then the check failing
# on planted trees.
check-docs:
	scripts/check-docs
	tests/scripts/check_docs_test.sh

# Every source under app/ control/ initiator/ loop/ nvme/ rdma/ subsystem/ target/ tcp/
# util/ has its tests/unit/<path>/<stem>_test.c, but the few exceptions the script lists
# with their reasons (scripts/check-test-mirror), then the check failing on planted trees.
check-test-mirror:
	scripts/check-test-mirror
	tests/scripts/check_test_mirror_test.sh

# The man pages say what the programs' --help says, every option both ways, and groff
# renders them without a warning (scripts/check-man); then the check on planted pages.
# install-check runs the same on the installed programs and pages.
MAN_PAGES := docs/man/nvmf-target.8 docs/man/nvmf-targetctl.8 docs/man/nvmf.1
check-man: $(TARGET_BIN) $(TARGETCTL_BIN) $(NVMF_BIN)
	scripts/check-man $(BUILD) $(MAN_PAGES)
	tests/scripts/check_man_test.sh

# First: libnvmf holds host code only and needs no target code (scripts/check-libnvmf-objects),
# the daemon has no fault injection (tests/fault: no wrapper symbol, no NVMF_FAULT) and
# has every USDT probe (readelf -n).
# Then make install into a scratch prefix, and build and run a program against it with
# pkg-config, as a user of the library would; check the installed unit's lines, that
# libsystemd and librbd are the daemon's alone, and the installed man pages (scripts/check-man).
install-check: all
	NVMF_OBJS='$(NVMF_OBJS)' LIB_OBJS='$(LIB_OBJS)' \
		scripts/check-libnvmf-objects $(NVMF_A)
	! nm $(TARGET_BIN) $(NVMF_A) | grep -E '__wrap_|nvmf_fault|fault_fire'
	! grep -q NVMF_FAULT $(TARGET_BIN)
	@# The USDT probes (target/probes.h, docs/tracing.md) are in the daemon's ELF notes.
	for p in request_receive request_execute backend_submit backend_complete request_response \
		 request_abandon conn_accept queue_connect conn_disconnect conn_error; do \
		readelf -n $(TARGET_BIN) | grep -A2 'stapsdt' | grep -qx "    Name: $$p" || \
		{ echo "install-check: USDT probe nvmf:$$p missing from $(TARGET_BIN)"; exit 1; }; done
	nm $(FAULT_TARGET_BIN) | grep -q __wrap_nvmf_bdev_open
	@# nvmf-targetctl links no target code, and needs libc and jansson only.
	! nm $(TARGETCTL_BIN) | grep -E ' nvmf_tgt_'
	readelf -d $(TARGETCTL_BIN) | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | \
		grep -vE '^(libc|libjansson|libm|libpthread|ld-linux.*)\.so' | { ! grep .; }
	rm -rf $(BUILD)/install-check
	$(MAKE) --no-print-directory install PREFIX=$(CURDIR)/$(BUILD)/install-check > /dev/null
	PKG_CONFIG_PATH=$(CURDIR)/$(BUILD)/install-check/lib/pkgconfig sh -c '$(CC) -std=c11 -Wall -Werror \
		tests/install/use_libnvmf.c $$(pkg-config --cflags --libs libnvmf) -o $(BUILD)/use_libnvmf'
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/install-check/lib $(BUILD)/use_libnvmf
	grep -qx 'ExecStart=$(CURDIR)/$(BUILD)/install-check/bin/nvmf-target -c /etc/nvmf-target/config.json' \
		$(BUILD)/install-check/lib/systemd/system/nvmf-target.service
	@# Every file the unit's Documentation= names is installed.
	for d in $$(sed -n 's/^Documentation=//p' $(BUILD)/install-check/lib/systemd/system/nvmf-target.service); do \
		case $$d in file:*) test -f "$${d#file:}" || { echo "install-check: $$d not installed"; exit 1; };; esac; done
	$(BUILD)/install-check/bin/nvmf-target --version
	$(BUILD)/install-check/bin/nvmf-targetctl --help > /dev/null
	@# The unit: started when serving (Type=notify), restarted, within a start limit
	@# ([Unit]'s, as systemd reads it), reloaded by SIGHUP.
	for l in Type=notify Restart=on-failure RestartSec=2 StartLimitIntervalSec=60 StartLimitBurst=5 \
		 'ExecReload=/bin/kill -HUP $$MAINPID'; do \
		grep -qxF "$$l" $(BUILD)/install-check/lib/systemd/system/nvmf-target.service || \
		{ echo "install-check: nvmf-target.service lacks the line $$l"; exit 1; }; done
	awk '/^\[/ { s = $$0 } /^StartLimit/ && s != "[Unit]" { print "install-check: nvmf-target.service: " \
		$$0 " is in " s ", not [Unit]"; bad = 1 } END { exit bad }' \
		$(BUILD)/install-check/lib/systemd/system/nvmf-target.service
	@# systemd reads every line of it: a key it does not know would be ignored with a warning.
	@# (--man=no: a system without man pages, as container images are, is no error; ours are
	@# checked below.)
	out=$$(systemd-analyze verify --man=no $(BUILD)/install-check/lib/systemd/system/nvmf-target.service 2>&1); \
		[ -z "$$out" ] || { echo "install-check: systemd-analyze verify nvmf-target.service: $$out"; exit 1; }
	@# sd_notify is the daemon's: libsystemd in nvmf-target, in no library of ours.
	readelf -d $(TARGET_BIN) | grep -q 'NEEDED.*\[libsystemd\.so'
	! readelf -d $(NVMF_SO) | grep -q libsystemd
	@# librbd/librados are the rbd backend's: in nvmf-target, never in libnvmf or its .pc.
	readelf -d $(TARGET_BIN) | grep -q 'NEEDED.*\[librbd\.so'
	! readelf -d $(NVMF_SO) | grep -qE 'librbd|librados'
	! grep -qE -- '-l(rbd|rados)|librbd|librados' $(BUILD)/install-check/lib/pkgconfig/libnvmf.pc
	! nm $(BUILD)/libcore.a $(NVMF_A) 2>/dev/null | grep -E ' U sd_'
	@# The man pages, installed, against the installed programs (scripts/check-man).
	scripts/check-man $(BUILD)/install-check/bin $(BUILD)/install-check/share/man/man8/nvmf-target.8 \
		$(BUILD)/install-check/share/man/man8/nvmf-targetctl.8 \
		$(if $(wildcard app/nvmf/main.c),$(BUILD)/install-check/share/man/man1/nvmf.1)
	tests/scripts/check_man_test.sh

# Builds use every core (CHECK_JOBS); the tests themselves run one at a time. The static
# analysis, which times nothing and needs no guest, runs beside vm-check at the lowest CPU
# priority (SCHED_IDLE): on the cycles the emulated guest leaves idle (a third of a 2-core
# host's). The guest's tests ran 13-20 % slower for the 16 minutes it took there, and the
# suite about 3 minutes shorter than with the 4.5-minute analysis first (2026-12-02). Its
# output is in build/analyze.log, printed once vm-check ends; either failing fails check.
# Then vm-ceph (a third guest boot, the Ceph gateways on this machine: about 3 minutes).
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: deps
	$(MAKE) check-includes
	$(MAKE) check-test-mirror
	$(MAKE) check-docs
	$(MAKE) format-check
	$(MAKE) -j$(CHECK_JOBS) all
	$(MAKE) -j$(CHECK_JOBS) unit
	$(MAKE) -j$(CHECK_JOBS) SANITIZE=1 unit
	$(MAKE) -j$(CHECK_JOBS) path-trace-check
	$(MAKE) -j$(CHECK_JOBS) fuzz-smoke
	$(MAKE) -j$(CHECK_JOBS) install-check
	$(MAKE) bench-report-test
	$(MAKE) -j$(CHECK_JOBS) local-check
	@rc=0; echo "check: make analyze runs beside vm-check (SCHED_IDLE), its output in build/analyze.log"; \
	chrt --idle 0 $(MAKE) --no-print-directory -j$(CHECK_JOBS) analyze > build/analyze.log 2>&1 & apid=$$!; \
	$(MAKE) -j$(CHECK_JOBS) vm-check || rc=1; \
	$(MAKE) vm-ceph || rc=1; \
	wait $$apid; arc=$$?; echo "--- make analyze (beside vm-check): exit $$arc ---"; cat build/analyze.log; \
	[ $$arc = 0 ] || rc=1; exit $$rc

asan:
	$(MAKE) SANITIZE=1 all unit

# Static analysis (README, "Static analysis"); any finding fails. First cppcheck over every
# C file of the tree (nvme/ .. initiator/, the programs, tests/), then clang's analyzer
# through scan-build on a build of everything `make all` and path-trace compile: in its own
# tree build/analyze, removed first, so every file is compiled, hence analyzed, each time.
# The analyzer's HTML report is left in build/analyze/report/ when it found something.
ANALYZE_DIR := build/analyze
SCAN_BUILD  ?= scan-build-14
# Beyond the default checkers: zero-size allocations and other POSIX API misuse, va_list
# misuse, float loop counters (cheap, and no false positives on this tree).
SCAN_BUILD_CHECKERS := optin.portability.UnixAPI valist security.FloatLoopCounter
# cppcheck sees no system headers (faster, and no findings in them); it is given the two
# whose macros shape our declarations and loops (STAILQ_HEAD, json_object_foreach), and
# POSIX/GNU function knowledge. warning/portability/performance: "style" is matters of taste
# here (variable scope, const parameters) and its known-condition check misreads state
# other threads and callbacks change. Suppressions, each with its reason:
# scripts/cppcheck-suppressions.
CPPCHECK = cppcheck -q -j2 --std=c11 -D_GNU_SOURCE -I. --library=posix,gnu \
	    --include=/usr/include/$(shell gcc -print-multiarch 2>/dev/null)/sys/queue.h \
	    --include=/usr/include/jansson.h --enable=warning,portability,performance \
	    --suppressions-list=scripts/cppcheck-suppressions --error-exitcode=1 \
	    --template='{file}:{line}:{column}: cppcheck {severity}: {message} [{id}]'
# fio/engine.c is left to scan-build: it is made of fio's macros (for_each_file, td_vmsg),
# whose headers cppcheck is not given.
CPPCHECK_DIRS := util nvme tls rdma tcp loop subsystem target control initiator gateway app tests \
		 fio/target.c
# Two jobs unless the caller's make shares its own job slots (make -jN analyze). The inner
# make gets CC from scan-build's environment (its ccc-analyzer) on its command line, so that
# no CC given to this make can bypass the analyzer.
analyze:
	rm -rf $(ANALYZE_DIR)
	@rc=0; \
	echo "analyze: cppcheck $(CPPCHECK_DIRS)"; \
	$(CPPCHECK) $(CPPCHECK_DIRS) || rc=1; \
	case "$$MAKEFLAGS" in *jobserver*) j= ;; *) j=-j2 ;; esac; \
	echo "analyze: $(SCAN_BUILD) make $$j BUILD=$(ANALYZE_DIR) ..."; \
	$(SCAN_BUILD) --status-bugs -o $(ANALYZE_DIR)/report $(addprefix -enable-checker ,$(SCAN_BUILD_CHECKERS)) \
		sh -c 'exec "$$0" "$$@" CC="$$CC"' $(MAKE) --no-print-directory $$j BUILD=$(ANALYZE_DIR) \
		all $(ANALYZE_DIR)/path-trace || rc=1; \
	if [ $$rc = 0 ]; then echo "analyze: no findings"; else echo "analyze: FAILED (findings above)" >&2; fi; \
	exit $$rc

# libFuzzer (docs/fuzzing.md): the harnesses built with clang under build/fuzz/, then each
# run in turn (one fuzzer process at a time), failing on any crash, leak or timeout.
# fuzz: FUZZ_SECS seconds each on a working corpus under build/fuzz/corpus/ (seeded
# from tests/fuzz/corpus/, which is never written); fuzz-smoke: the committed seeds plus
# 5 seconds each.
ifeq ($(FUZZ),1)
$(BUILD)/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/unit/target/fixture.o \
		 $(BUILD)/libcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(RBD_LIBS)
$(BUILD)/fuzz_tcp_host: $(BUILD)/obj/tests/unit/tcp/host/fake_ctrl.o
fuzz-bins: $(FUZZ_BINS)
else
fuzz-bins:
	$(MAKE) FUZZ=1 fuzz-bins
endif
fuzz: fuzz-bins
	tests/fuzz/run long $(FUZZ_SECS) $(FUZZ_ONLY)
fuzz-smoke: fuzz-bins
	tests/fuzz/run smoke 5 $(FUZZ_ONLY)

# make path-trace: the functions, files and layer crossings of six 4 KiB commands (RDMA
# keyed, in-capsule write and read on the unit tests' fake device; NVMe/TCP in-capsule,
# R2T write and read over loopback), tests/trace/path_trace.c, scripts/path-trace.
# The trace build (TRACE=1, build/trace) is unoptimised (-O0: every function entered shows).
# path-trace-check: fails when docs/architecture.md's generated section differs from the
# trace (part of make check); path-trace-doc rewrites that section.
TRACE_BIN  := $(BUILD)/path-trace
$(TRACE_BIN): $(BUILD)/obj/tests/trace/path_trace.o $(BUILD)/obj/tests/unit/rdma/fixture.o \
	      $(BUILD)/obj/tests/unit/rdma/fake_verbs.o $(BUILD)/obj/tests/unit/tcp/fixture.o \
	      $(BUILD)/obj/tests/unit/target/fixture.o $(BUILD)/libcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(RBD_LIBS) -lcunit
path-trace:
	$(MAKE) TRACE=1 build/trace/path-trace
	scripts/path-trace build/trace/path-trace
path-trace-check:
	$(MAKE) TRACE=1 build/trace/path-trace >/dev/null
	scripts/path-trace --check docs/architecture.md build/trace/path-trace
path-trace-doc:
	$(MAKE) TRACE=1 build/trace/path-trace
	scripts/path-trace --doc docs/architecture.md build/trace/path-trace

# Formatting (README, "Code style"): .clang-format is the kernel's style with 100 columns.
# format-check lists every C file clang-format would change and fails if there is one;
# format rewrites them in place.
CLANG_FORMAT ?= clang-format-14
# Every C file git tracks (a new folder cannot be left out); outside a git checkout,
# every one under the tree but build/ and .cache/.
FORMAT_SRCS = $(sort $(or $(shell git ls-files '*.[ch]' 2>/dev/null), \
		$(shell find . -path ./build -prune -o -path ./.cache -prune -o -name '*.[ch]' -print)))
format-check:
	@bad=$$(for f in $(FORMAT_SRCS); do $(CLANG_FORMAT) --dry-run -Werror "$$f" > /dev/null 2>&1 || \
		echo "$$f"; done); \
	if [ -n "$$bad" ]; then echo "format-check: not as .clang-format says (make format rewrites them):"; \
		echo "$$bad" | sed 's/^/  /'; echo "format-check: $$(echo "$$bad" | wc -l) file(s)"; exit 1; fi; \
	echo "format-check: $(words $(FORMAT_SRCS)) files ok"
format:
	$(CLANG_FORMAT) -i $(FORMAT_SRCS)

# compile_commands.json for clangd, clang-tidy and editors: every compile command of
# `make all`, path-trace and the fuzz harnesses (with the plain flags), recorded by bear
# from a fresh build in build/cdb, so every file is compiled, hence listed.
CDB_DIR := build/cdb
compile_commands.json:
	rm -rf $(CDB_DIR)
	bear --output $@ -- $(MAKE) --no-print-directory BUILD=$(CDB_DIR) all $(CDB_DIR)/path-trace \
		$(FUZZ_SRCS:%.c=$(CDB_DIR)/obj/%.o)

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(GATEWAY_OBJS:.o=.d) $(UNIT_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(BUILD)/obj/app/nvmf-target/main.d \
	 $(FAULT_OBJS:.o=.d) $(BUILD)/obj/tests/fault/env.d $(FUZZ_OBJS:.o=.d) \
	 $(BUILD)/obj/app/nvmf/main.d $(TARGETCTL_OBJS:.o=.d) $(BUILD)/obj/app/nvmf-targetctl/main.d \
	 $(BUILD)/obj/tests/trace/path_trace.d $(BUILD)/obj/tests/unit/tcp/fixture.d \
	 $(BUILD)/obj/tests/unit/target/fixture.d
