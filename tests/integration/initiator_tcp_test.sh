# libnvmf's `nvmf` tool over NVMe/TCP against our target and the kernel's nvmet-tcp in one
# guest run: the shared list of initiator_cases.sh, plus verified I/O with header and data
# digests (-g, -G) against both.
INIT_TRTYPE=tcp
. "$(dirname "${BASH_SOURCE[0]}")/initiator_cases.sh"
