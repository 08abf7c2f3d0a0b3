# Shared settings for the VM harness scripts (sourced, not run).
# NVMF_VM_CACHE: where the extracted Debian kernel and the initramfs live.
NVMF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NVMF_VM_CACHE="${NVMF_VM_CACHE:-$NVMF_ROOT/.cache/vm}"
KERNEL_DIR="$NVMF_VM_CACHE/kernel"

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
