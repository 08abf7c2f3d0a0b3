#!/usr/bin/env bash
# scripts/check-includes on planted trees: the real tree passes; each planted include that
# goes up, sideways, or into the core's internals from a transport fails, naming the file,
# the line and the rule; a file no rule covers fails. Run by make check-includes.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
check="$here/scripts/check-includes"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect_fail NAME FILE LINE-TEXT EXPECTED-OUTPUT: a tree of FILE holding LINE-TEXT at line 2
# fails with exactly EXPECTED-OUTPUT.
expect_fail() {
	local name=$1 file=$2 text=$3 want=$4 out rc=0
	rm -rf "$tmp/t" && mkdir -p "$tmp/t/$(dirname "$file")"
	printf '/* planted */\n%s\n' "$text" > "$tmp/t/$file"
	out=$("$check" "$tmp/t") || rc=$?
	if [ "$rc" != 1 ] || [ "$out" != "$want" ]; then
		printf 'FAIL %s: exit %s, output:\n%s\nwanted:\n%s\n' "$name" "$rc" "$out" "$want"
		fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}

expect_pass() {
	local name=$1 file=$2 text=$3 out rc=0
	rm -rf "$tmp/t" && mkdir -p "$tmp/t/$(dirname "$file")"
	printf '/* planted */\n%s\n' "$text" > "$tmp/t/$file"
	out=$("$check" "$tmp/t") || rc=$?
	if [ "$rc" != 0 ] || [ -n "$out" ]; then
		printf 'FAIL %s: exit %s, output:\n%s\n' "$name" "$rc" "$out"
		fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}

# The tree as it is passes.
out=$("$check" "$here") && [ -z "$out" ] && echo "ok   the_tree_passes" ||
	{ printf 'FAIL the_tree_passes:\n%s\n' "$out"; fails=$((fails + 1)); }

expect_fail transport_including_core_internals_fails tcp/target/conn.c '#include "target/core.h"' \
	'check-includes: tcp/target/conn.c:2: includes "target/core.h": tcp/target/ (a target transport) may include only tcp/target/ target/transport.h tls/ nvme/ util/'
expect_fail transport_including_another_transport_fails rdma/target/queue.c '#include "tcp/target/internal.h"' \
	'check-includes: rdma/target/queue.c:2: includes "tcp/target/internal.h": rdma/target/ (a target transport) may include only rdma/target/ target/transport.h rdma/device.h nvme/ util/'
expect_fail nvme_including_upward_fails nvme/sgl.c '  #  include "subsystem/config.h"' \
	'check-includes: nvme/sgl.c:2: includes "subsystem/config.h": nvme/ (wire formats, pure protocol) may include only nvme/ util/'
expect_fail core_including_a_transport_fails target/core.c '#include "rdma/target/transport.h"' \
	'check-includes: target/core.c:2: includes "rdma/target/transport.h": target/ (the target core) may include only target/ subsystem/ nvme/ util/'
expect_fail host_transport_including_libnvmf_internals_fails tcp/host/io.c '#include "initiator/internal.h"' \
	'check-includes: tcp/host/io.c:2: includes "initiator/internal.h": tcp/host/ (a host transport) may include only tcp/host/ initiator/transport.h tls/ nvme/ util/'
expect_fail initiator_including_target_fails initiator/ctrl.c '#include "target/transport.h"' \
	'check-includes: initiator/ctrl.c:2: includes "target/transport.h": initiator/ (libnvmf'"'"'s core) may include only initiator/ nvme/ util/'
expect_fail loop_transport_including_core_internals_fails loop/internal.h '#include "target/core.h"' \
	'check-includes: loop/internal.h:2: includes "target/core.h": loop/internal.h (the loop transport'"'"'s halves) may include only loop/loop.h target/transport.h initiator/transport.h nvme/ util/'
expect_fail tcp_exception_is_for_its_one_file_only tcp/target/conn.c '#include "target/ephemeral.h"' \
	'check-includes: tcp/target/conn.c:2: includes "target/ephemeral.h": tcp/target/ (a target transport) may include only tcp/target/ target/transport.h tls/ nvme/ util/'
expect_fail tls_including_the_core_fails tls/channel.c '#include "target/transport.h"' \
	'check-includes: tls/channel.c:2: includes "target/transport.h": tls/ (the TLS channel) may include only tls/ nvme/ util/'
expect_fail rdma_transport_including_tls_fails rdma/target/queue.c '#include "tls/channel.h"' \
	'check-includes: rdma/target/queue.c:2: includes "tls/channel.h": rdma/target/ (a target transport) may include only rdma/target/ target/transport.h rdma/device.h nvme/ util/'
expect_fail file_of_a_new_folder_fails newdir/x.c '#include "nvme/wire.h"' \
	'check-includes: newdir/x.c:2: includes "nvme/wire.h": no rule covers newdir/x.c (add its folder to scripts/check-includes)'

expect_pass transport_including_the_interface_passes tcp/target/conn.c '#include "target/transport.h"'
expect_pass tcp_transports_including_tls_pass tcp/target/conn.c '#include "tls/channel.h"'
expect_pass tcp_host_including_tls_passes tcp/host/io.c '#include "tls/channel.h"'
expect_pass rdma_transport_including_the_device_passes rdma/target/queue.c '#include "rdma/device.h"'
expect_pass neighbour_header_without_folder_is_its_own rdma/target/queue.c '#include "internal.h"'
expect_pass programs_include_anything app/nvmf-target/main.c '#include "rdma/target/transport.h"'
expect_pass system_headers_are_not_checked nvme/sgl.c '#include <infiniband/verbs.h>'
# Downloaded sources (fio's, under .cache/ after scripts/fetch-fio-src) are not ours.
expect_pass downloaded_sources_under_cache_are_not_checked .cache/fio/src/zone-dist.c '#include "fio.h"'

[ "$fails" = 0 ] && echo "check_includes_test: all passed" || { echo "check_includes_test: $fails failed"; exit 1; }
