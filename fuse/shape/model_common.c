/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the model types (model_basic.c, model_hdd.c, model_ssd.c) share: the
 * fill table, the channels with their one transfer link, transfer times and
 * fsync completion.  Kept apart from model.c (the registry that names the
 * types), so the types depend on these and the registry on the types.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuse/shape/shape.h"

double shape_fill_table_at(const struct shape_fill_table *t, double pct)
{
	if (t->n == 0)
		return 1.0;
	if (pct <= t->pct[0])
		return t->mult[0];
	for (unsigned i = 1; i < t->n; i++) {
		if (pct <= t->pct[i]) {
			double f = (pct - t->pct[i - 1]) / (t->pct[i] - t->pct[i - 1]);

			return t->mult[i - 1] + f * (t->mult[i] - t->mult[i - 1]);
		}
	}
	return t->mult[t->n - 1];
}

void shape_channels_init(struct shape_channels *c, unsigned n)
{
	memset(c, 0, sizeof(*c));
	c->n = n ? (n > SHAPE_CHANNELS_MAX ? SHAPE_CHANNELS_MAX : n) : 1;
}

unsigned shape_channels_pick(const struct shape_channels *c)
{
	unsigned best = 0;

	for (unsigned i = 1; i < c->n; i++) {
		if (c->free_ns[i] < c->free_ns[best])
			best = i;
	}
	return best;
}

uint64_t shape_channels_drained_ns(const struct shape_channels *c)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < c->n; i++)
		t = shape_max_u64(t, c->free_ns[i]);
	return t;
}

uint64_t shape_channels_issue_xfer(struct shape_channels *c, uint64_t now_ns, uint64_t latency_ns,
				   uint64_t xfer_ns)
{
	unsigned ch = shape_channels_pick(c);
	uint64_t done = shape_max_u64(now_ns, c->free_ns[ch]) + latency_ns;

	if (xfer_ns) {
		done = shape_max_u64(done, c->link_free_ns) + xfer_ns;
		c->link_free_ns = done;
	}
	c->free_ns[ch] = done;
	return done;
}

uint64_t shape_channels_issue(struct shape_channels *c, uint64_t now_ns, uint64_t service_ns)
{
	return shape_channels_issue_xfer(c, now_ns, service_ns, 0);
}

uint64_t shape_xfer_ns(uint64_t len, double rate)
{
	if (rate <= 0)
		return 0;
	return (uint64_t)llround((double)len * 1e9 / rate);
}

uint64_t shape_fsync_done(const struct shape_channels *c, const struct shape_common *cm,
			  uint64_t now_ns)
{
	return shape_max_u64(now_ns, c ? shape_channels_drained_ns(c) : 0) + cm->fsync_ns;
}
