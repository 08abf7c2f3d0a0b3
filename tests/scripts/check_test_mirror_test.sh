#!/usr/bin/env bash
# scripts/check-test-mirror on planted trees: a tree where every source has its test
# passes; a source without its test fails naming the source and the test it needs (every
# one of them, in each checked folder); an exception passes without a test, and fails once
# it has one or its source is gone; folders outside the checked ones are not looked at.
# Run by make check-test-mirror.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
check="$here/scripts/check-test-mirror"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# plant FILE...: an empty tree holding each FILE (empty), with every exception's source
# of the real script present, so that only the planted files decide.
plant() {
	rm -rf "$tmp/t" && mkdir -p "$tmp/t"
	for f in app/nvmf-target/main.c app/nvmf/main.c app/nvmf-targetctl/main.c \
		$(sed -n 's/^\([a-z][^ |]*\.c\)[[:space:]]*|.*/\1/p' "$check"); do
		mkdir -p "$tmp/t/$(dirname "$f")" && : > "$tmp/t/$f"
	done
	for f in "$@"; do
		mkdir -p "$tmp/t/$(dirname "$f")" && : > "$tmp/t/$f"
	done
}

# expect RC WANT NAME: the check of the planted tree exits RC printing exactly WANT.
expect() {
	local want_rc=$1 want=$2 name=$3 out rc=0
	out=$("$check" "$tmp/t") || rc=$?
	if [ "$rc" != "$want_rc" ] || [ "$out" != "$want" ]; then
		printf 'FAIL %s: exit %s, output:\n%s\nwanted exit %s:\n%s\n' "$name" "$rc" "$out" \
			"$want_rc" "$want"
		fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}

# The tree as it is passes.
out=$("$check" "$here") && [ -z "$out" ] && echo "ok   the_tree_passes" ||
	{ printf 'FAIL the_tree_passes:\n%s\n' "$out"; fails=$((fails + 1)); }

plant nvme/sgl.c tests/unit/nvme/sgl_test.c tcp/target/conn.c tests/unit/tcp/target/conn_test.c
expect 0 "" sources_with_their_tests_pass

plant nvme/sgl.c tests/unit/nvme/sgl_test.c rdma/target/new.c
expect 1 "check-test-mirror: rdma/target/new.c has no tests/unit/rdma/target/new_test.c" \
	planted_source_without_a_test_fails

plant util/a.c app/nvmf/b.c loop/host/c.c tests/unit/util/b_test.c
expect 1 "check-test-mirror: app/nvmf/b.c has no tests/unit/app/nvmf/b_test.c
check-test-mirror: loop/host/c.c has no tests/unit/loop/host/c_test.c
check-test-mirror: util/a.c has no tests/unit/util/a_test.c" every_missing_test_is_named_once

plant target/io-cmd.c tests/unit/target/io-cmd-test.c tests/unit/io-cmd_test.c
expect 1 "check-test-mirror: target/io-cmd.c has no tests/unit/target/io-cmd_test.c" \
	a_test_of_another_name_or_folder_does_not_count

plant bench/x.c tests/fuzz/fuzz_x.c scripts/y.c nvme/wire.h
expect 0 "" files_outside_the_checked_folders_and_headers_are_not_checked

plant tests/unit/app/nvmf/main_test.c
expect 1 "check-test-mirror: app/nvmf/main.c has tests/unit/app/nvmf/main_test.c: remove it from the exceptions in scripts/check-test-mirror" \
	an_exception_that_has_a_test_fails

plant
rm "$tmp/t/app/nvmf/main.c"
expect 1 "check-test-mirror: app/nvmf/main.c is in the exceptions but does not exist: remove it from scripts/check-test-mirror" \
	an_exception_whose_source_is_gone_fails

[ "$fails" = 0 ] && echo "check_test_mirror_test: all passed" || { echo "check_test_mirror_test: $fails failed"; exit 1; }
