# nvmf-rdma: user-space NVMe over Fabrics target and initiator on RDMA.
#   make            build everything under build/
#   make unit       build and run the CUnit unit tests
#   make check      install missing dependencies, build, unit tests, VM integration tests
#   make asan       the same build with AddressSanitizer + UBSan (or SANITIZE=1 make ...)
#   make deps       install missing packages (apt-get) and the guest kernel
#   make vm-check   only the VM integration tests

CC      ?= gcc
PKGS    := libibverbs librdmacm libnvme liburing jansson numa
# Generic x86-64 code: the test guest's CPU model has no host-specific extensions.
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. -pthread
LDFLAGS += -pthread

BUILD   := build
ifeq ($(SANITIZE),1)
BUILD   := build/asan
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

# pkg-config is asked only when building, so `make deps` works on a bare machine.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) || echo PKG-CONFIG-FAILED-run-make-deps)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) || echo PKG-CONFIG-FAILED-run-make-deps)

# Library code of each layer; files named *main.c are programs.
LIB_DIRS := nvme rdma subsystem target
LIB_SRCS := $(filter-out %main.c,$(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)

UNIT_SRCS := $(wildcard tests/unit/*.c tests/unit/*/*.c)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o)

TARGET_BIN := $(BUILD)/nvmf-target
UNIT_BIN   := $(BUILD)/unit-tests

.PHONY: all unit check vm-check demo asan deps clean
all: $(if $(wildcard target/main.c),$(TARGET_BIN)) $(UNIT_BIN)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libcore.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(TARGET_BIN): $(BUILD)/obj/target/main.o $(BUILD)/libcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# Suite list: every "const struct unit_test NAME_tests[]" in tests/unit.
$(BUILD)/gen/unit_suites.inc: $(UNIT_SRCS)
	@mkdir -p $(dir $@)
	@sed -n 's/^const struct unit_test \([a-z0-9_]*\)_tests\[\].*/UNIT_SUITE(\1)/p' $(UNIT_SRCS) > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(BUILD)/obj/tests/unit/main.o: CFLAGS += -I$(BUILD)/gen
$(BUILD)/obj/tests/unit/main.o: $(BUILD)/gen/unit_suites.inc

$(UNIT_BIN): $(UNIT_OBJS) $(BUILD)/libcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lcunit

unit: $(UNIT_BIN)
	$(UNIT_BIN)

deps:
	@scripts/install-deps

# Integration tests: one guest boot for the whole batch. The guest gets an emulated NVMe
# drive (QEMU -device nvme, serial nvmfdrive01) backed by a sparse image, for the raw
# NVMe backend tests.
VM_DRIVE := build/vm/drive.img
VM_ARGS  := -q "-drive file=$(VM_DRIVE),if=none,id=nvm0,format=raw -device nvme,serial=nvmfdrive01,drive=nvm0"
vm-check: all
	@mkdir -p build/vm && rm -f $(VM_DRIVE) && truncate -s 256M $(VM_DRIVE)
	tests/vm/run -t 1500 $(VM_ARGS) tests/integration/suite

# The main job: our target in the VM, the stock kernel host connects, fio verifies.
demo: deps
	$(MAKE) all
	tests/vm/run -t 600 scripts/main-job-guest.sh $(CONFIG)

check: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) vm-check

asan:
	$(MAKE) SANITIZE=1 all unit

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(UNIT_OBJS:.o=.d) $(BUILD)/obj/target/main.d
