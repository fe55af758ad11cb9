/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Data-file write bursts against TPS dips (pure; the definitions are in report_bursts.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report/report_bursts.h"

void burst_rebin(const uint64_t *ticks, size_t nticks, uint64_t tick_ns, uint64_t offset_ns,
		 uint64_t *out, size_t nsecs)
{
	memset(out, 0, nsecs * sizeof(*out));
	if (!tick_ns)
		return;
	for (size_t t = 0; t < nticks; t++) {
		uint64_t at = (uint64_t)t * tick_ns, sec;

		if (!ticks[t] || at < offset_ns)
			continue;
		sec = (at - offset_ns) / 1000000000ull;
		if (sec < nsecs)
			out[sec] += ticks[t];
	}
}

static double median_d(const double *v, size_t n, double *tmp)
{
	struct cmp_stat s;

	memcpy(tmp, v, n * sizeof(*v));
	s = cmp_stat_of(tmp, (unsigned)n);
	return s.n ? s.median : 0;
}

/* A run's second i is a burst (the run's median write bytes per counted second given). */
static bool is_burst(const struct burst_run *r, size_t i, double median)
{
	double b;

	if (!r->write_bytes || i >= r->nsecs)
		return false;
	b = (double)r->write_bytes[i];
	return b >= BURST_FLOOR_BYTES && b >= BURST_FACTOR * median;
}

static bool near(const bool *v, size_t i)
{
	return v && (v[i] || (i > 0 && v[i - 1]));
}

int burst_analyse(const struct burst_run *runs, size_t nruns, struct burst_result *ret)
{
	struct burst_result a = { .nruns = nruns };
	size_t total = 0, nb = 0, no = 0, nm = 0;
	double *burst = NULL, *other = NULL, *medians = NULL, *tmp = NULL, *bytes = NULL;
	int r = -ENOMEM;

	for (size_t k = 0; k < nruns; k++)
		total += runs[k].nsecs;
	if (!(burst = calloc(total + 1, sizeof(*burst))) || !(other = calloc(total + 1, sizeof(*other))) ||
	    !(medians = calloc(nruns + 1, sizeof(*medians))) || !(tmp = calloc(total + 1, sizeof(*tmp))) ||
	    !(bytes = calloc(total + 1, sizeof(*bytes))))
		goto out;
	for (size_t k = 0; k < nruns; k++) {
		const struct burst_run *x = &runs[k];
		double med, wmed = 0;
		bool *bflag;

		if (x->nsecs < 3)
			continue;   /* no counted second: the first and the last are left out */
		med = median_d(x->tps + 1, x->nsecs - 2, tmp);
		medians[nm++] = med;
		if (x->write_bytes) {
			for (size_t i = 1; i + 1 < x->nsecs; i++)
				bytes[i - 1] = (double)x->write_bytes[i];
			wmed = median_d(bytes, x->nsecs - 2, tmp);
		}
		if (!(bflag = calloc(x->nsecs, sizeof(*bflag))))
			goto out;
		for (size_t i = 0; i < x->nsecs; i++)
			bflag[i] = is_burst(x, i, wmed);
		for (size_t i = 1; i + 1 < x->nsecs; i++) {
			bool b = x->write_bytes && near(bflag, i), c = near(x->ckpt, i);

			a.nsecs++;
			a.ntraced_secs += x->write_bytes != NULL;
			a.nckpt_secs_known += x->ckpt != NULL;
			if (x->write_bytes)
				a.write_bytes += x->write_bytes[i];
			if (bflag[i]) {
				a.nburst_secs++;
				burst[nb++] = x->tps[i];
			} else {
				other[no++] = x->tps[i];
			}
			if (!(x->tps[i] < med * BURST_DIP_PCT / 100.0))
				continue;
			a.ndips++;
			a.dips_burst += b;
			a.dips_ckpt += c;
			a.dips_neither += !b && !c;
		}
		free(bflag);
	}
	a.tps = cmp_stat_of(medians, (unsigned)nm);
	a.tps_burst = cmp_stat_of(burst, (unsigned)nb);
	a.tps_other = cmp_stat_of(other, (unsigned)no);
	*ret = a;
	r = 0;
out:
	free(burst);
	free(other);
	free(medians);
	free(tmp);
	free(bytes);
	return r;
}
