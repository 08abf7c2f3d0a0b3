# Shared settings for the VM harness scripts (sourced, not run).
# NVMF_VM_CACHE: where the extracted Debian kernel and the initramfs live.
NVMF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NVMF_VM_CACHE="${NVMF_VM_CACHE:-$NVMF_ROOT/.cache/vm}"
# NVMF_VM_KERNEL: which Debian 12 kernel the guest boots: "default" (linux-image-amd64,
# 6.1, no NVMe in-band authentication) or "6.12" (linux-image-6.12-amd64, with
# CONFIG_NVME_HOST_AUTH and CONFIG_NVME_TARGET_AUTH). Each is cached in its own folder.
NVMF_VM_KERNEL="${NVMF_VM_KERNEL:-default}"
case "$NVMF_VM_KERNEL" in
    default) KERNEL_DIR="$NVMF_VM_CACHE/kernel";      KERNEL_META=linux-image-amd64 ;;
    6.12)    KERNEL_DIR="$NVMF_VM_CACHE/kernel-6.12"; KERNEL_META=linux-image-6.12-amd64 ;;
    *) echo "vm: FAILED at step 'kernel': NVMF_VM_KERNEL=$NVMF_VM_KERNEL is not \"default\" or \"6.12\"" >&2
       exit 2 ;;
esac

vm_die() { echo "vm: FAILED at step '$1': $2" >&2; exit "${3:-2}"; }

# Prints the kernel release found in the cache (e.g. 6.1.0-57-amd64), or nothing.
vm_kernel_release() {
    local v
    for v in "$KERNEL_DIR"/boot/vmlinuz-*; do
        [ -e "$v" ] || continue
        basename "$v" | sed 's/^vmlinuz-//'
        return 0
    done
}
