#!/usr/bin/env bash
# scripts/check-man on planted pages of a planted program: a page that says what the help
# says passes; an option the help has and the block lacks, or the block has and the help
# lacks, a command listed without its block, a block for no command, an option outside the
# blocks that no help has, a page without its --help block and a groff warning each fail,
# naming the page, the block and the option. Run by make check-man and make install-check.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
check="$here/scripts/check-man"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# The program: two commands, a global option, one option of its own for "go".
mkdir "$tmp/bin"
cat > "$tmp/bin/prog" <<'PROG'
#!/bin/sh
case "$*" in
--help) printf 'Usage: prog [--json] COMMAND\nCommands:\n  go      do it\n  stop    stop it\n\n  -j, --json  JSON output\n' ;;
"go --help") printf 'Usage: prog go [--fast]\n  --fast  quickly\n  -j, --json  JSON output\n' ;;
"stop --help") printf 'Usage: prog stop\n  -j, --json  JSON output\n' ;;
*) echo "prog: unknown command" >&2; exit 2 ;;
esac
PROG
chmod +x "$tmp/bin/prog"

good='.TH PROG 1 "December 2026" "test" "User Commands"
.SH NAME
prog \- a planted program
.SH OPTIONS
.\" check-man: --help
.TP
.BR \-j ", " \-\-json
JSON output.
.\" check-man: go --help
.SS go
.TP
.B \-\-fast
Quickly.
.\" check-man: stop --help
.SS stop
Stop it.
.\" check-man: end
.SH SEE ALSO
.BR prog (1)'

# expect RC WANT NAME: the check of the planted page $tmp/prog.1 exits RC printing WANT.
expect() {
	local want_rc=$1 want=$2 name=$3 out rc=0
	out=$("$check" "$tmp/bin" "$tmp/prog.1" 2>&1) || rc=$?
	if [ "$rc" != "$want_rc" ] || [ "$out" != "$want" ]; then
		printf 'FAIL %s: exit %s, output:\n%s\nwanted exit %s:\n%s\n' "$name" "$rc" "$out" \
			"$want_rc" "$want"
		fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}
page() { printf '%s\n' "$1" > "$tmp/prog.1"; }

page "$good"
expect 0 "check-man: 1 pages ok" "a page that says what the help says passes"

page "${good/.B \\-\\-fast/.B quickly}"
expect 1 "check-man: prog.1: 'prog go --help' has --fast, block 'go --help' of the page lacks it" \
	"an option of a command's help missing from its block fails, naming both"

page "${good/Quickly./Quickly.
.TP
.B \\-\\-slow
Slowly.}"
expect 1 "check-man: prog.1: block 'go --help' has --slow, 'prog go --help' does not" \
	"an option in a block that the help lacks fails"

page "${good/.TP
.BR \\-j \", \" \\-\\-json/.TP
.B \\-\\-json}"
expect 1 "check-man: prog.1: 'prog --help' has -j, block '--help' of the page lacks it" \
	"a short option missing from the first block fails"

page "${good/.\\\" check-man: stop --help
.SS stop
Stop it./}"
expect 1 "check-man: prog.1: prog --help lists the command 'stop', the page has no block 'stop --help'" \
	"a listed command without its block fails"

page "${good/.\\\" check-man: end/.\\\" check-man: start --help
.SS start
.\\\" check-man: end}"
expect 1 "check-man: prog.1: block 'start --help' names no command prog --help lists" \
	"a block for a command the help does not list fails"

page "$good
See also \\fB\\-\\-bogus\\fR."
expect 1 "check-man: prog.1: --bogus is in the page but in none of prog's help texts" \
	"an option outside the blocks that no help has fails"

page "${good/.\\\" check-man: --help/}"
expect 1 "check-man: prog.1: no block for 'prog --help' (a line .\\\" check-man: --help before its options)" \
	"a page without the program's --help block fails"

page "$good
.XX"
out=$("$check" "$tmp/bin" "$tmp/prog.1" 2>&1) && rc=0 || rc=$?
if [ "$rc" = 1 ] && grep -q "^check-man: prog.1: groff: .*XX" <<< "$out"; then
	echo "ok   a page groff warns about fails, the warning quoted"
else
	printf 'FAIL a page groff warns about: exit %s, output:\n%s\n' "$rc" "$out"
	fails=$((fails + 1))
fi

[ "$fails" = 0 ] || { echo "check_man_test: $fails failed"; exit 1; }
echo "check_man_test: all passed"
