#!/usr/bin/env bash
# bench/report on canned raw results (no VM): with a baseline, results.json holds the
# baseline's medians, ours/baseline of the medians and ours/baseline and ours/kernel per
# round, and the table shows them; without one, none of that appears; a failed baseline
# round drops out of the per-round ratios and fails the report. With TLS (BENCH_TLS=1),
# the TLS systems' medians, TLS/plain and ours TLS/kernel TLS ratios and where our
# target's records were built. Also bench/local-run's refusals of bad settings, and
# bench/run's checks of BENCH_BASELINE, BENCH_TLS and
# BENCH_PASSTHRU (bench/passthru-run's settings) (exit 2) and bench/guest.sh's rotating order. Run by make bench-report-test (and before
# every make bench).
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
# make bench runs this with the benchmark's own BENCH_* settings in the environment: the
# checks below set what they need, nothing else may leak into them.
unset $(compgen -e | grep '^BENCH_') NVMF_VM_KERNEL
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $1"; }
fail() {
	echo "FAIL $1"
	fails=$((fails + 1))
}

# canned DIR [baseline|tls]: a raw results folder of 3 rounds of two measurements (fio IOPS
# and nvmf perf latency), with a baseline's (or the TLS systems') values and meta when asked.
canned() {
	local d=$1/raw
	mkdir -p "$d"
	printf 'fio\tmem\t4k-randread-qd32\trandread\t4k\t32\tiops\n' > "$d/plan.tsv"
	printf 'nvmf\tmem\t4k-randread-qd1\trandread\t4k\t1\tlat_mean_us\n' >> "$d/plan.tsv"
	printf 'rounds\t3\nsecs\t3\nramp_secs\t1\nsize_mib\t64\ntransport\ttcp\n' > "$d/meta.tsv"
	printf 'date\t2026-12-04T00:00:00Z\ngit_commit\t0123456789abcdef\ngit_dirty\tno\n' > "$d/host-meta.tsv"
	# tool backend workload target round metric value
	{
		printf 'fio\tmem\t4k-randread-qd32\tours\t1\tiops\t110\n'
		printf 'fio\tmem\t4k-randread-qd32\tkernel\t1\tiops\t200\n'
		printf 'fio\tmem\t4k-randread-qd32\tkernel\t2\tiops\t220\n'
		printf 'fio\tmem\t4k-randread-qd32\tours\t2\tiops\t132\n'
		printf 'fio\tmem\t4k-randread-qd32\tours\t3\tiops\t99\n'
		printf 'fio\tmem\t4k-randread-qd32\tkernel\t3\tiops\t198\n'
		printf 'nvmf\tmem\t4k-randread-qd1\tours\t1\tlat_mean_us\t50\n'
		printf 'nvmf\tmem\t4k-randread-qd1\tkernel\t1\tlat_mean_us\t40\n'
		printf 'nvmf\tmem\t4k-randread-qd1\tkernel\t2\tlat_mean_us\t40\n'
		printf 'nvmf\tmem\t4k-randread-qd1\tours\t2\tlat_mean_us\t60\n'
		printf 'nvmf\tmem\t4k-randread-qd1\tours\t3\tlat_mean_us\t55\n'
		printf 'nvmf\tmem\t4k-randread-qd1\tkernel\t3\tlat_mean_us\t50\n'
	} > "$d/raw.tsv"
	if [ "${2:-}" = tls ]; then
		printf 'tls\t1\ntls_records.ours\t2 channels, TLS_AES_128_GCM_SHA256: records sent by the kernel (kTLS), received in user space\n' >> "$d/meta.tsv"
		printf 'tls_records.kernel\tkTLS both ways\ntls_nvme_cli_version\tnvme version 2.13\n' >> "$d/meta.tsv"
		{
			printf 'fio\tmem\t4k-randread-qd32\tours-tls\t1\tiops\t88\n'
			printf 'fio\tmem\t4k-randread-qd32\tkernel-tls\t1\tiops\t150\n'
			printf 'fio\tmem\t4k-randread-qd32\tours-tls\t2\tiops\t121\n'
			printf 'fio\tmem\t4k-randread-qd32\tkernel-tls\t2\tiops\t200\n'
			printf 'fio\tmem\t4k-randread-qd32\tours-tls\t3\tiops\t90\n'
			printf 'fio\tmem\t4k-randread-qd32\tkernel-tls\t3\tiops\t180\n'
			printf 'nvmf\tmem\t4k-randread-qd1\tours-tls\t1\tlat_mean_us\t60\n'
			printf 'nvmf\tmem\t4k-randread-qd1\tkernel-tls\t1\tlat_mean_us\t44\n'
			printf 'nvmf\tmem\t4k-randread-qd1\tours-tls\t2\tlat_mean_us\t66\n'
			printf 'nvmf\tmem\t4k-randread-qd1\tkernel-tls\t2\tlat_mean_us\t44\n'
			printf 'nvmf\tmem\t4k-randread-qd1\tours-tls\t3\tlat_mean_us\t55\n'
			printf 'nvmf\tmem\t4k-randread-qd1\tkernel-tls\t3\tlat_mean_us\t50\n'
		} >> "$d/raw.tsv"
		return 0
	fi
	[ "${2:-}" = baseline ] || return 0
	printf 'baseline\t/x/old\n' >> "$d/meta.tsv"
	printf 'baseline_dir\t/x/old\nbaseline_commit\tfedcba9876543210\nbaseline_dirty\tno\n' >> "$d/host-meta.tsv"
	{
		printf 'fio\tmem\t4k-randread-qd32\tbaseline\t1\tiops\t100\n'
		printf 'fio\tmem\t4k-randread-qd32\tbaseline\t2\tiops\t120\n'
		printf 'fio\tmem\t4k-randread-qd32\tbaseline\t3\tiops\t110\n'
		printf 'nvmf\tmem\t4k-randread-qd1\tbaseline\t1\tlat_mean_us\t50\n'
		printf 'nvmf\tmem\t4k-randread-qd1\tbaseline\t2\tlat_mean_us\t50\n'
		printf 'nvmf\tmem\t4k-randread-qd1\tbaseline\t3\tlat_mean_us\t44\n'
	} >> "$d/raw.tsv"
}

# check NAME DIR PYTHON-EXPRESSION: true of results.json loaded as r (its results as e[0],
# e[1]) and results.md as md.
check() {
	if python3 - "$2" "$3" <<'EOF'; then ok "$1"; else fail "$1"; fi
import json, math, sys
d = sys.argv[1]
r = json.load(open(d + "/results.json"))
md = open(d + "/results.md").read()
e = r["results"]
close = lambda a, b: len(a) == len(b) and all(math.isclose(x, y, rel_tol=1e-9) for x, y in zip(a, b))
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# --- with a baseline: medians, ratios of medians, per-round ratios --------------------------
canned "$tmp/b" baseline
if python3 "$here/bench/report" "$tmp/b" > "$tmp/b.out" 2>&1; then ok "report with a baseline exits 0"; else
	fail "report with a baseline exits 0"
	cat "$tmp/b.out"
fi
check "baseline medians" "$tmp/b" 'e[0]["baseline"]["median"] == 110 and e[1]["baseline"]["median"] == 50'
check "ours/kernel of the medians unchanged" "$tmp/b" 'close([e[0]["ratio"], e[1]["ratio"]], [110 / 200, 55 / 40])'
check "ours/baseline of the medians" "$tmp/b" 'close([e[0]["ratio_baseline"], e[1]["ratio_baseline"]], [1.0, 1.1])'
check "ours/baseline per round" "$tmp/b" \
	'e[0]["ratio_baseline_round_numbers"] == [1, 2, 3] and close(e[0]["ratio_baseline_rounds"], [1.1, 1.1, 0.9]) and close(e[1]["ratio_baseline_rounds"], [1.0, 1.2, 55 / 44])'
check "ours/kernel per round" "$tmp/b" 'close(e[0]["ratio_rounds"], [110 / 200, 132 / 220, 99 / 198])'
check "the baseline's commit" "$tmp/b" 'r["baseline"] == {"dir": "/x/old", "commit": "fedcba9876543210", "dirty": False}'
check "the table has the baseline's columns" "$tmp/b" \
	'"| ours | baseline | kernel | ours/kernel (latency: <1 = ours better) | ours/baseline | ours/baseline per round |" in md and "| 110 | 110 | 200 | 0.55 | 1.00 | 1.10 1.10 0.90 |" in md and "commit fedcba987654" in md'
if command -v gnuplot > /dev/null; then
	if [ -s "$tmp/b/results.png" ]; then ok "plot with a baseline"; else fail "plot with a baseline"; fi
fi

# --- without: nothing of the baseline --------------------------------------------------------
canned "$tmp/n"
python3 "$here/bench/report" "$tmp/n" > "$tmp/n.out" 2>&1 || fail "report without a baseline exits 0"
check "no baseline, no baseline fields" "$tmp/n" \
	'"baseline" not in r and all(k not in x for x in e for k in ("baseline", "ratio_baseline", "ratio_rounds")) and "baseline" not in md'
check "no baseline, same ratios" "$tmp/n" 'close([e[0]["ratio"], e[1]["ratio"]], [110 / 200, 55 / 40])'
check "no TLS, no TLS fields" "$tmp/n" \
	'"tls" not in r and all(k not in x for x in e for k in ("ours-tls", "kernel-tls", "ratio_tls", "ratio_tls_ours")) and "TLS" not in md'

# --- with TLS: both targets plain and over TLS in the same rounds ----------------------------
canned "$tmp/t" tls
if python3 "$here/bench/report" "$tmp/t" > "$tmp/t.out" 2>&1; then ok "report with TLS exits 0"; else
	fail "report with TLS exits 0"
	cat "$tmp/t.out"
fi
check "TLS medians" "$tmp/t" \
	'e[0]["ours-tls"]["median"] == 90 and e[0]["kernel-tls"]["median"] == 180 and e[1]["ours-tls"]["median"] == 60 and e[1]["kernel-tls"]["median"] == 44'
check "TLS/plain of the medians, ours and the kernel's" "$tmp/t" \
	'close([e[0]["ratio_tls_ours"], e[0]["ratio_tls_kernel"], e[1]["ratio_tls_ours"], e[1]["ratio_tls_kernel"]], [90 / 110, 180 / 200, 60 / 55, 44 / 40])'
check "ours TLS / kernel TLS" "$tmp/t" 'close([e[0]["ratio_tls"], e[1]["ratio_tls"]], [0.5, 60 / 44])'
check "TLS/plain per round" "$tmp/t" \
	'e[0]["ratio_tls_ours_round_numbers"] == [1, 2, 3] and close(e[0]["ratio_tls_ours_rounds"], [0.8, 121 / 132, 90 / 99]) and close(e[0]["ratio_tls_kernel_rounds"], [0.75, 200 / 220, 180 / 198])'
check "plain ratios unchanged" "$tmp/t" 'close([e[0]["ratio"], e[1]["ratio"]], [110 / 200, 55 / 40]) and "baseline" not in r'
check "where our records were built" "$tmp/t" \
	'"records sent by the kernel (kTLS), received in user space" in r["tls"]["records_ours"] and "received in user space" in md'
check "the table has the TLS columns" "$tmp/t" \
	'"| ours TLS | kernel TLS | TLS/plain ours | TLS/plain ours per round | TLS/plain kernel | ours TLS/kernel TLS |" in md and "| 110 | 200 | 0.55 | 90 | 180 | 0.82 | 0.80 0.92 0.91 | 0.90 | 0.50 |" in md'
if command -v gnuplot > /dev/null; then
	if [ -s "$tmp/t/results.png" ] && grep -q "TLS/plain ours" "$tmp/t/plot-higher.dat"; then ok "plot with TLS"; else fail "plot with TLS"; fi
fi

# --- a failed baseline round -----------------------------------------------------------------
canned "$tmp/f" baseline
sed -i '/\tbaseline\t2\tiops/d' "$tmp/f/raw/raw.tsv"
printf 'fio\tmem\t4k-randread-qd32\tbaseline\t2\tFAILED\tfio failed\n' >> "$tmp/f/raw/raw.tsv"
rc=0
python3 "$here/bench/report" "$tmp/f" > "$tmp/f.out" 2>&1 || rc=$?
if [ $rc = 1 ]; then ok "a failed baseline round fails the report"; else fail "a failed baseline round fails the report (exit $rc)"; fi
check "a failed round leaves the per-round ratios" "$tmp/f" \
	'e[0]["ratio_baseline_round_numbers"] == [1, 3] and close(e[0]["ratio_baseline_rounds"], [1.1, 0.9]) and e[0]["baseline"]["median"] == 105 and r["failures"][0]["target"] == "baseline"'

# --- bench/run refuses a BENCH_BASELINE without a built target, before anything else -------
for bad in "$tmp/none" "$tmp/b"; do
	rc=0
	out=$(BENCH_BASELINE=$bad "$here/bench/run" 2>&1) || rc=$?
	if [ $rc = 2 ] && [[ "$out" == *"BENCH_BASELINE=$bad"* ]]; then ok "bench/run refuses BENCH_BASELINE=${bad##*/}"; else
		fail "bench/run refuses BENCH_BASELINE=${bad##*/}: exit $rc: $out"
	fi
done

# refuses PROGRAM "SETTINGS:MESSAGE": PROGRAM run with SETTINGS (VAR=value ...) exits 2 and
# prints MESSAGE.
refuses() {
	local rc=0 out
	out=$(env ${2%%:*} "$here/$1" 2>&1) || rc=$?
	if [ $rc = 2 ] && [[ "$out" == *"${2#*:}"* ]]; then ok "$1 refuses ${2%%:*}"; else
		fail "$1 refuses ${2%%:*}: exit $rc: $out"
	fi
}

# --- bench/run refuses BENCH_TLS where it cannot work, before anything else --------------------
for bad in "BENCH_TLS=1 BENCH_TRANSPORT=rdma:needs BENCH_TRANSPORT=tcp" "BENCH_TLS=yes BENCH_TRANSPORT=tcp:BENCH_TLS must be 1" \
	"BENCH_TLS=1 BENCH_TRANSPORT=tcp NVMF_VM_KERNEL=default:needs the 6.12 guest kernel"; do
	refuses bench/run "$bad"
done

# --- BENCH_PASSTHRU: bench/run refuses a value other than 1; bench/passthru-run its bad settings
for bad in "BENCH_PASSTHRU=yes:BENCH_PASSTHRU must be 1 or unset, got 'yes'" \
	"BENCH_PASSTHRU=1 BENCH_ROUNDS=0:BENCH_ROUNDS must be a positive integer, got '0'" \
	"BENCH_PASSTHRU=1 BENCH_RAMP=x:BENCH_RAMP must be an integer >= 0, got 'x'" \
	"BENCH_PASSTHRU=1 BENCH_PT_KERNEL=2:BENCH_PT_KERNEL must be 1 or unset, got '2'"; do
	refuses bench/run "$bad"
done

# --- bench/local-run refuses bad settings before it starts anything -------------------------
for bad in "BENCH_ROUNDS=0:BENCH_ROUNDS must be a positive integer, got '0'" \
	"BENCH_SECS=4000:BENCH_SECS must be at most 3600, got 4000" \
	"BENCH_IDLE_HOSTS=x:BENCH_IDLE_HOSTS must be a positive integer, got 'x'" \
	"BENCH_ONLY=nothing-by-this-name:BENCH_ONLY='nothing-by-this-name' picks nothing"; do
	refuses bench/local-run "$bad"
done

# --- bench/local-report: a failed measurement is named in results.md, not only on stderr ---
printf 'round\tkind\tname\tmetric\tvalue\n1\ttarget\t4k-randread-qd32\tiops\t1000\n2\ttarget\t4k-randread-qd32\tfailed\t1\n1\tlimit\tstream-recv-4096\tfailed\t1\n1\tidle\tidle-no-host\ttgt_cpu_pct\t0.1\n' \
	> "$tmp/local-raw.tsv"
out=$("$here/bench/local-report" "$tmp/local-raw.tsv" "skipped: test" "meta" 200 2>&1)
if [[ "$out" == *"- FAILED: round 2 target 4k-randread-qd32"* && "$out" == *"- FAILED: round 1 limit stream-recv-4096"* &&
	"$out" == *"| 4k-randread-qd32 | 1000 |"* ]]; then
	ok "bench/local-report names each failed measurement and keeps the other rounds' values"
else
	fail "bench/local-report with failed rows: $out"
fi
out=$("$here/bench/local-report" <(head -2 "$tmp/local-raw.tsv" | sed 's/failed/x/') "skipped" "meta" 200 2>&1)
if [[ "$out" != *"FAILED"* ]]; then ok "no failure section without failed rows"; else fail "a failure section without failures: $out"; fi

# --- SANITIZE=1 make bench-local would measure build/, not the sanitizer build: refused ---
rc=0
out=$(make -C "$here" -n SANITIZE=1 bench-local 2>&1) || rc=$?
if [ $rc != 0 ] && [[ "$out" == *"bench-local measures the optimized build"* ]]; then
	ok "SANITIZE=1 make bench-local is refused"
else
	fail "SANITIZE=1 make bench-local: exit $rc: $(echo "$out" | tail -3)"
fi

# --- bench/guest.sh --list: each round rotates the order --------------------------------------
printf 'BENCH_ROUNDS=3\nBENCH_ONLY=%q\nBENCH_TRANSPORT=tcp\nBENCH_BASELINE=/x/old\n' "nvmf mem 4k-randread-qd1" > "$tmp/params.sh"
want="ours baseline kernel baseline kernel ours kernel ours baseline"
got=$(bash "$here/bench/guest.sh" --list "$tmp/params.sh" | awk '{print $NF}' | paste -sd' ')
if [ "$got" = "$want" ]; then ok "three systems rotate per round"; else fail "three systems rotate per round: $got"; fi
sed -i '/^BENCH_BASELINE=/d' "$tmp/params.sh"
got=$(bash "$here/bench/guest.sh" --list "$tmp/params.sh" | awk '{print $NF}' | paste -sd' ')
if [ "$got" = "ours kernel kernel ours ours kernel" ]; then ok "two systems alternate as before"; else fail "two systems alternate as before: $got"; fi
printf 'BENCH_TLS=1\n' >> "$tmp/params.sh"
want="ours ours-tls kernel kernel-tls ours-tls kernel kernel-tls ours kernel kernel-tls ours ours-tls"
got=$(bash "$here/bench/guest.sh" --list "$tmp/params.sh" | awk '{print $NF}' | paste -sd' ')
if [ "$got" = "$want" ]; then ok "with TLS four systems rotate per round"; else fail "with TLS four systems rotate per round: $got"; fi

# bench/guest.sh waits for its target with wait_for and a function reading the caller's $t:
# wait_for's own locals must not shadow it (it once did, and the bench connected before the
# target was ready).
got=$(bash -c '. "$1/tests/integration/lib.sh"; t=ours; is_ours() { [ "$t" = ours ]; }
	wait_for 1 is_ours && echo waited' _ "$here")
if [ "$got" = waited ]; then ok "wait_for leaves its caller's \$t alone"; else fail "wait_for shadows its caller's \$t"; fi

[ $fails = 0 ] || {
	echo "bench_report_test: $fails failure(s)"
	exit 1
}
echo "bench_report_test: all passed"
