# Helpers for integration tests that run inside the test guest (sourced).
# Each test file defines functions named test_* (itself, or by sourcing a file that is not
# *_test.sh, as initiator_cases.sh); tests/integration/run-suite runs them in definition order.
# Environment from the guest init: NVMF_ROOT, NVMF_TRADDR (rxe0's IPv4), NVMF_RESULTS.

# fail MESSAGE: fail the current test with a message naming what was expected. Each test
# runs in a subshell of its own (run-suite): exit ends the test there, so a check in the
# middle of a test cannot be masked by a later command that succeeds.
fail() { echo "    FAIL: $*" >&2; exit 1; }

# expect_eq WHAT GOT WANT
expect_eq() {
    [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# wait_for SECONDS CMD...: retry CMD every 0.2 s until it succeeds or time runs out.
wait_for() {
    # Prefixed locals: bash scoping is dynamic, so a CMD function that reads its caller's
    # $t or $end would see these instead.
    local wait_for_end=$((SECONDS + $1)); shift
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -ge $wait_for_end ] && return 1
        sleep 0.2
    done
}

# Kernel target (nvmet) configuration through configfs, used as the reference peer.
NVMET_CFS=/sys/kernel/config/nvmet

# knvmet_add_subsys NQN DEVICE [NSID]: a subsystem open to any host with one namespace.
knvmet_add_subsys() {
    local nqn=$1 dev=$2 nsid=${3:-1}
    mkdir "$NVMET_CFS/subsystems/$nqn" || return 1
    echo 1 > "$NVMET_CFS/subsystems/$nqn/attr_allow_any_host"
    mkdir "$NVMET_CFS/subsystems/$nqn/namespaces/$nsid"
    echo -n "$dev" > "$NVMET_CFS/subsystems/$nqn/namespaces/$nsid/device_path"
    echo 1 > "$NVMET_CFS/subsystems/$nqn/namespaces/$nsid/enable"
}

# knvmet_add_port PORTID ADDR SVCID NQN...: an IPv4 port exposing the given subsystems,
# of transport KNVMET_TRTYPE (rdma when unset; tcp: nvmet-tcp), e.g.
# `KNVMET_TRTYPE=tcp knvmet_add_port 9 "$NVMF_TRADDR" 4450 "$NQN"`.
knvmet_add_port() {
    local id=$1 addr=$2 svc=$3; shift 3
    local p="$NVMET_CFS/ports/$id"
    mkdir "$p" || return 1
    echo "${KNVMET_TRTYPE:-rdma}" > "$p/addr_trtype"
    echo ipv4 > "$p/addr_adrfam"
    echo "$addr" > "$p/addr_traddr"
    echo "$svc" > "$p/addr_trsvcid"
    local n
    for n in "$@"; do ln -s "$NVMET_CFS/subsystems/$n" "$p/subsystems/$n" || return 1; done
}

# knvmet_clear: remove every port, subsystem and host from the kernel target.
knvmet_clear() {
    local p s n
    for p in "$NVMET_CFS"/ports/*; do
        [ -d "$p" ] || continue
        rm -f "$p"/subsystems/* 2>/dev/null
        rmdir "$p"
    done
    for s in "$NVMET_CFS"/subsystems/*; do
        [ -d "$s" ] || continue
        rm -f "$s"/allowed_hosts/* 2>/dev/null
        for n in "$s"/namespaces/*; do
            [ -d "$n" ] || continue
            echo 0 > "$n/enable"; rmdir "$n"
        done
        rmdir "$s"
    done
    for h in "$NVMET_CFS"/hosts/*; do [ -d "$h" ] && rmdir "$h"; done
    return 0
}

# The helpers below that look at sysfs use shell builtins only: in the emulated guest a
# process (cat, basename, grep) costs 0.1-0.3 s to start, and they run in wait_for loops.

# sysfs_is FILE VALUE: FILE's first line is VALUE.
sysfs_is() { local v; read -r v 2>/dev/null < "$1" && [ "$v" = "$2" ]; }

# nvme_dev_for NQN [NSID]: prints the /dev/nvmeXnY block device of namespace NSID (the
# first one when NSID is not given) of the connected subsystem NQN: the multipath head when
# native multipath is on, never a hidden nvmeXcYnZ path.
nvme_dev_for() {
    local b
    for b in /sys/block/nvme*n*; do
        case "${b##*/}" in *c[0-9]*) continue ;; esac
        sysfs_is "$b/device/subsysnqn" "$1" || continue
        [ -z "${2:-}" ] || sysfs_is "$b/nsid" "$2" || continue
        echo "/dev/${b##*/}"; return 0
    done
    return 1
}

# nvme_ctrl_for NQN: prints nvmeN, the host's first controller of the subsystem NQN.
nvme_ctrl_for() {
    local c
    for c in /sys/class/nvme/nvme*; do
        sysfs_is "$c/subsysnqn" "$1" && { echo "${c##*/}"; return 0; }
    done
    return 1
}

# nullb_create NAME SIZE_MB [BS]: a memory-backed null_blk device (/dev/NAME) made through
# configfs, so data written can be read back. Prints the device path.
nullb_create() {
    local d=/sys/kernel/config/nullb/$1
    mkdir "$d" || return 1
    echo "$2" > "$d/size"
    echo "${3:-512}" > "$d/blocksize"
    echo 1 > "$d/memory_backed"
    echo 1 > "$d/power"
    wait_for 5 test -b "/dev/$1" || return 1
    echo "/dev/$1"
}

# nullb_remove NAME
nullb_remove() {
    local d=/sys/kernel/config/nullb/$1
    [ -d "$d" ] || return 0
    echo 0 > "$d/power"; rmdir "$d"
}

# The target binary the tests run: NVMF_TARGET_BIN (the sanitizer pass sets it to
# build/asan/nvmf-target), else build/nvmf-target.
NVMF_TARGET_BIN=${NVMF_TARGET_BIN:-$NVMF_ROOT/build/nvmf-target}

# nvmf_target_start DIR: start $NVMF_TARGET_BIN on DIR/config.json in the background,
# log in DIR/target.log, pid in DIR/target.pid, exit status in DIR/target.rc once it ends.
# Returns 1 (log printed) when it is not ready within 20 s.
nvmf_target_start() {
    local d=$1
    rm -f "$d/target.rc" "$d/target.pid"
    ( "$NVMF_TARGET_BIN" -c "$d/config.json" --rpc-socket "$d/rpc.sock" > "$d/target.log" 2>&1 &
      echo $! > "$d/target.pid"; wait $!; echo $? > "$d/target.rc" ) &
    wait_for 5 test -s "$d/target.pid"
    wait_for 20 grep -q 'nvmf-target: core: ready' "$d/target.log" || { cat "$d/target.log"; return 1; }
}

# nvmf_target_stop DIR: SIGTERM, and wait up to 30 s for it to exit.
nvmf_target_stop() {
    local pid; pid=$(cat "$1/target.pid" 2>/dev/null) || return 0
    kill -TERM "$pid" 2>/dev/null
    wait_for 30 test -s "$1/target.rc"
}
