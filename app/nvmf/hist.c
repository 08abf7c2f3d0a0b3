/* SPDX-License-Identifier: MIT */
/*
 * Latency histogram with log-linear buckets (the HdrHistogram idea): values below
 * 2^S (S = CLI_HIST_SUB_BITS) get one bucket each; a value v >= 2^S with highest set bit
 * e falls in group e - S + 1, sub-bucket (v >> (e - S)) - 2^S. Every bucket is at most
 * 1/2^S of its values wide, so percentiles carry < 0.8% error in constant memory and
 * recording is a few instructions: no sort of all samples.
 */
#include <string.h>
#include "app/nvmf/cli.h"

void cli_hist_init(struct cli_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned cli_hist_bucket(uint64_t v)
{
	if (v < CLI_HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);
	unsigned shift = e - CLI_HIST_SUB_BITS;
	return (shift + 1) * CLI_HIST_SUB + (unsigned)((v >> shift) - CLI_HIST_SUB);
}

uint64_t cli_hist_bucket_low(unsigned idx)
{
	if (idx < CLI_HIST_SUB)
		return idx;
	unsigned shift = idx / CLI_HIST_SUB - 1;
	return (uint64_t)(CLI_HIST_SUB + idx % CLI_HIST_SUB) << shift;
}

uint64_t cli_hist_bucket_width(unsigned idx)
{
	if (idx < CLI_HIST_SUB)
		return 1;
	return (uint64_t)1 << (idx / CLI_HIST_SUB - 1);
}

void cli_hist_record(struct cli_hist *h, uint64_t v)
{
	h->bucket[cli_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void cli_hist_merge(struct cli_hist *dst, const struct cli_hist *src)
{
	for (unsigned i = 0; i < CLI_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->count && src->min < dst->min)
		dst->min = src->min;
	if (src->count && src->max > dst->max)
		dst->max = src->max;
}

double cli_hist_percentile(const struct cli_hist *h, double pct)
{
	if (!h->count || pct <= 0)
		return 0;
	if (pct > 100)
		pct = 100;
	/* The rank of the value asked for, 1-based: ceil(pct% of count). A small epsilon
	 * keeps 99.9% of 1000 at 999, not 1000 through rounding of the product. */
	double r = pct / 100.0 * (double)h->count;
	uint64_t rank = (uint64_t)r;
	if ((double)rank < r - 1e-9)
		rank++;
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < CLI_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			double mid = (double)cli_hist_bucket_low(i) +
				     (double)(cli_hist_bucket_width(i) - 1) / 2.0;
			if (mid < (double)h->min)
				mid = (double)h->min;
			if (mid > (double)h->max)
				mid = (double)h->max;
			return mid;
		}
	}
	return (double)h->max;
}

double cli_hist_mean(const struct cli_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}
