# libnvmf's `nvmf` tool over RDMA against our target and the kernel's nvmet-rdma in one
# guest run: the shared list of initiator_cases.sh.
INIT_TRTYPE=rdma
. "$(dirname "${BASH_SOURCE[0]}")/initiator_cases.sh"
