#!/usr/bin/env bash
# scripts/check-docs on planted trees: the tree as it is passes; a source naming a doc that
# does not exist fails naming the file, line and doc; a doc named without .md passes when
# the .md exists; a README fuzz row missing a harness, or listing one that is gone, fails
# naming it. Run by make check-docs.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
check="$here/scripts/check-docs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# plant: a tree with docs/a.md, tests/fuzz/fuzz_x.c and a README listing fuzz_x.c.
plant() {
	rm -rf "$tmp/t" && mkdir -p "$tmp/t/docs" "$tmp/t/tests/fuzz" "$tmp/t/nvme"
	: > "$tmp/t/docs/a.md"
	: > "$tmp/t/tests/fuzz/fuzz_x.c"
	echo '| `tests/fuzz/` | harnesses (`fuzz_x.c`) |' > "$tmp/t/README.md"
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

out=$("$check" "$here") && [ -z "$out" ] && echo "ok   the_tree_passes" ||
	{ printf 'FAIL the_tree_passes:\n%s\n' "$out"; fails=$((fails + 1)); }

plant
printf '/* see docs/a.md and docs/a. */\n' > "$tmp/t/nvme/x.h"
expect 0 "" existing_docs_pass_with_or_without_md

plant
printf '\n/* see docs/gone.md section 1 */\n' > "$tmp/t/nvme/x.h"
expect 1 "nvme/x.h:2: names docs/gone.md, which does not exist" missing_doc_fails_by_line

plant
: > "$tmp/t/tests/fuzz/fuzz_y.c"
expect 1 "README.md: tests/fuzz/ row: does not list fuzz_y.c" unlisted_harness_fails

plant
rm "$tmp/t/tests/fuzz/fuzz_x.c"
: > "$tmp/t/tests/fuzz/fuzz_y.c"
expect 1 "README.md: tests/fuzz/ row: lists fuzz_x.c, which tests/fuzz/ does not have
README.md: tests/fuzz/ row: does not list fuzz_y.c" listed_harness_gone_fails

[ $fails = 0 ] && echo "check-docs test: PASSED" || { echo "check-docs test: $fails FAILED"; exit 1; }
