#!/usr/bin/env bash
# build/tcp-limit (bench/tcp-limit.c, make bench-local's limits): its argument errors exit
# 2 with a message, and a short run of each mode prints one JSON line of positive numbers.
# Run by make bench-report-test (and so before every make bench); about 3 seconds, on
# whatever CPUs this process may use (the first allowed one for server and client when
# there is only one; rr --poll then left out).
#   tests/scripts/tcp_limit_test.sh [TCP_LIMIT]   default build/tcp-limit
set -uo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$here/build/tcp-limit}
[ -x "$bin" ] || { echo "tcp_limit_test: $bin is missing (make build/tcp-limit)" >&2; exit 2; }
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
fails=0
ok() { echo "ok   $1"; }
fail() {
	echo "FAIL $1"
	fails=$((fails + 1))
}
read -r -a cpus <<< "$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')"
c0=${cpus[0]} c1=${cpus[1]:-${cpus[0]}}

# usage CASE MESSAGE-REGEX ARGS...: exit 2, a tcp-limit: message, nothing on stdout.
usage() {
	local what=$1 re=$2 out err rc
	shift 2
	out=$("$bin" "$@" 2> "$tmp")
	rc=$?
	err=$(cat "$tmp")
	if [ "$rc" = 2 ] && [ -z "$out" ] && grep -qE "^tcp-limit: .*$re" <<< "$err"; then
		ok "$what: exit 2, '$(head -1 <<< "$err")'"
	else
		fail "$what: exit $rc, stdout '$out', stderr '$(head -1 <<< "$err")' (want 2 and /$re/)"
	fi
}
usage "no mode" "a mode is needed"
usage "unknown mode" "unknown mode 'nope'" nope --secs 1
usage "unknown option" "unknown option '--bogus'" memcpy --size 4096 --secs 1 --cpu "$c0" --bogus 1
usage "missing value" "--secs needs a value" memcpy --size 4096 --cpu "$c0" --secs
usage "size zero" "--size: '0' is not a byte count" stream --size 0 --secs 1 --server-cpu "$c0" --client-cpu "$c1"
usage "size too large" "is not a byte count" memcpy --size 67108865 --secs 1 --cpu "$c0"
usage "size not a number" "'4k' is not a byte count" memcpy --size 4k --secs 1 --cpu "$c0"
usage "secs zero" "--secs: '0' is not a number of seconds" memcpy --size 4096 --secs 0 --cpu "$c0"
usage "secs junk" "--secs: '1x'" memcpy --size 4096 --secs 1x --cpu "$c0"
usage "cpu not allowed" "may not run on CPU 1023" memcpy --size 4096 --secs 1 --cpu 1023
usage "cpu not a number" "'x' is not a CPU number" rr --req 1 --resp 1 --secs 1 --server-cpu x --client-cpu "$c1"
usage "bad dir" "'both' is neither send nor recv" stream --size 1 --secs 1 --server-cpu "$c0" --client-cpu "$c1" --dir both
usage "stream without cpus" "needs --server-cpu and --client-cpu" stream --size 4096 --secs 1
usage "rr without resp" "rr needs --req and --resp" rr --req 72 --secs 1 --server-cpu "$c0" --client-cpu "$c1"
usage "memcpy without cpu" "memcpy needs --cpu" memcpy --size 4096 --secs 1
usage "no secs" "needs --secs" memcpy --size 4096 --cpu "$c0"
usage "option of another mode" "an option of another mode" memcpy --size 4096 --secs 1 --cpu "$c0" --req 5
usage "--dir outside stream" "--dir is for stream only" rr --req 1 --resp 1 --secs 1 --server-cpu "$c0" --client-cpu "$c1" --dir recv
usage "--poll outside rr and stream" "--poll is for rr and stream only" memcpy --size 4096 --secs 1 --cpu "$c0" --poll
if "$bin" --help | grep -q '^Usage: tcp-limit stream'; then ok "--help: usage, exit 0"; else fail "--help"; fi

# smoke KEYS ARGS...: one JSON line whose KEYS are all positive numbers.
smoke() {
	local keys=$1 out
	shift
	if ! out=$(timeout 20 "$bin" "$@" 2>&1); then
		fail "$*: exit status $?: $out"
		return
	fi
	if python3 -c '
import json, sys
lines = sys.argv[1].splitlines()
assert len(lines) == 1, "not one line"
j = json.loads(lines[0])
for k in sys.argv[2].split():
    assert isinstance(j[k], (int, float)) and j[k] > 0, "%s is %r" % (k, j[k])' "$out" "$keys" 2> "$tmp"; then
		ok "$*: $out"
	else
		fail "$*: $(tail -1 "$tmp"): $out"
	fi
}
K="mbps msgs_per_s server_cpu_s server_cpu_s_per_gb"
smoke "$K" stream --size 4096 --secs 0.5 --server-cpu "$c0" --client-cpu "$c1"
smoke "$K" stream --size 131072 --secs 0.5 --server-cpu "$c0" --client-cpu "$c1" --dir recv
K="round_trips rt_per_s mean_us p50_us p99_us"
smoke "$K" rr --req 72 --resp 4144 --secs 0.5 --server-cpu "$c0" --client-cpu "$c1"
# Two spinning threads on one CPU would take turns by time slices: --poll only on two.
[ "$c0" != "$c1" ] && poll=--poll || poll=
smoke "$K" rr --req 4168 --resp 24 --secs 0.5 --server-cpu "$c0" --client-cpu "$c1" $poll
smoke mbps memcpy --size 131072 --secs 0.5 --cpu "$c0"

if [ "$fails" -gt 0 ]; then
	echo "tcp_limit_test: $fails failure(s)"
	exit 1
fi
echo "tcp_limit_test: all passed"
