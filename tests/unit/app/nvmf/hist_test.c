/* Latency histogram: log-linear buckets keep every value within 1/128 of its bucket,
 * percentiles follow the nearest-rank rule, merging equals recording everything once. */
#include <math.h>
#include <stdlib.h>
#include "app/nvmf/cli.h"
#include "tests/unit/suites.h"

static struct cli_hist *new_hist(void)
{
	struct cli_hist *h = malloc(sizeof(*h));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	cli_hist_init(h);
	return h;
}

static void values_below_128_have_exact_buckets(void)
{
	struct cli_hist *h = new_hist();
	for (uint64_t v = 0; v < 128; v++) {
		CU_ASSERT_EQUAL(cli_hist_bucket(v), v);
		cli_hist_record(h, v);
	}
	/* nearest rank: the 64th of 128 values is 63 */
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_percentile(h, 50), 63, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_percentile(h, 100), 127, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_percentile(h, 1), 1, 1e-9);
	free(h);
}

static void every_value_lies_in_its_bucket_within_1_of_128(void)
{
	static const uint64_t vs[] = {
		128,       129,  255,   256,     257,       511,        512,
		1000,      4097, 65535, 1000000, 123456789, 1ull << 40, (1ull << 63) + 12345,
		UINT64_MAX
	};
	for (unsigned i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
		unsigned b = cli_hist_bucket(vs[i]);
		CU_ASSERT_FATAL(b < CLI_HIST_BUCKETS);
		uint64_t low = cli_hist_bucket_low(b), w = cli_hist_bucket_width(b);
		CU_ASSERT(low <= vs[i]);
		CU_ASSERT(vs[i] - low < w);
		CU_ASSERT(w <= low / 128);
	}
	/* buckets are contiguous: the next bucket starts where this one ends */
	for (unsigned b = 0; b + 1 < CLI_HIST_BUCKETS; b++)
		CU_ASSERT_EQUAL_FATAL(cli_hist_bucket_low(b) + cli_hist_bucket_width(b),
				      cli_hist_bucket_low(b + 1));
}

static void percentiles_of_a_uniform_run_are_within_one_percent(void)
{
	struct cli_hist *h = new_hist();
	for (uint64_t v = 1; v <= 100000; v++)
		cli_hist_record(h, v);
	CU_ASSERT_EQUAL(h->count, 100000);
	CU_ASSERT_EQUAL(h->min, 1);
	CU_ASSERT_EQUAL(h->max, 100000);
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_mean(h), 50000.5, 1e-6);
	CU_ASSERT(fabs(cli_hist_percentile(h, 50) - 50000) <= 500);
	CU_ASSERT(fabs(cli_hist_percentile(h, 99) - 99000) <= 990);
	CU_ASSERT(fabs(cli_hist_percentile(h, 99.9) - 99900) <= 999);
	CU_ASSERT(cli_hist_percentile(h, 100) <= 100000);
	free(h);
}

static void single_value_is_every_percentile(void)
{
	struct cli_hist *h = new_hist();
	cli_hist_record(h, 123457);
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_percentile(h, 50), 123457, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_percentile(h, 99.9), 123457, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_mean(h), 123457, 1e-9);
	free(h);
}

static void empty_histogram_reports_zero(void)
{
	struct cli_hist *h = new_hist();
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_percentile(h, 50), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_mean(h), 0, 1e-9);
	free(h);
}

static void tail_percentile_finds_the_outliers(void)
{
	/* 990 fast values and 10 slow: p99 is still fast, p99.9 is slow */
	struct cli_hist *h = new_hist();
	for (int i = 0; i < 990; i++)
		cli_hist_record(h, 10000);
	for (int i = 0; i < 10; i++)
		cli_hist_record(h, 5000000);
	CU_ASSERT(fabs(cli_hist_percentile(h, 99) - 10000) <= 100);
	CU_ASSERT(fabs(cli_hist_percentile(h, 99.9) - 5000000) <= 50000);
	free(h);
}

static void merge_equals_recording_all_values_in_one(void)
{
	struct cli_hist *a = new_hist(), *b = new_hist(), *all = new_hist();
	for (uint64_t v = 1; v < 5000; v += 3) {
		cli_hist_record(v % 2 ? a : b, v * 7);
		cli_hist_record(all, v * 7);
	}
	struct cli_hist *m = new_hist();
	cli_hist_merge(m, a);
	cli_hist_merge(m, b);
	CU_ASSERT_EQUAL(m->count, all->count);
	CU_ASSERT_EQUAL(m->sum, all->sum);
	CU_ASSERT_EQUAL(m->min, all->min);
	CU_ASSERT_EQUAL(m->max, all->max);
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_percentile(m, 50), cli_hist_percentile(all, 50), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cli_hist_percentile(m, 99.9), cli_hist_percentile(all, 99.9), 1e-9);
	free(a);
	free(b);
	free(all);
	free(m);
}

const struct unit_test cli_hist_tests[] = {
	{ "values_below_128_have_exact_buckets", values_below_128_have_exact_buckets },
	{ "every_value_lies_in_its_bucket_within_1_of_128",
	  every_value_lies_in_its_bucket_within_1_of_128 },
	{ "percentiles_of_a_uniform_run_are_within_one_percent",
	  percentiles_of_a_uniform_run_are_within_one_percent },
	{ "single_value_is_every_percentile", single_value_is_every_percentile },
	{ "empty_histogram_reports_zero", empty_histogram_reports_zero },
	{ "tail_percentile_finds_the_outliers", tail_percentile_finds_the_outliers },
	{ "merge_equals_recording_all_values_in_one", merge_equals_recording_all_values_in_one },
	{ NULL, NULL },
};
