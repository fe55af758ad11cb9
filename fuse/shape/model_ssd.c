/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ssd: flash behind N channels, with an SLC write cache and a fill-level
 * penalty on writes.
 *
 *   read:   read_latency + len / read_bw
 *   write:  (write_latency + in_slc / slc_write_bw + rest / write_bw) * penalty(fill)
 *           in_slc = min(len, slc_size - slc_used): the part that still fits
 *           the SLC cache; the rest goes to native flash at write_bw.
 *           penalty(fill) is the fill_penalty table at the fill level before
 *           the write: (prefill + grains holding data) / capacity.
 * Each request takes the earliest-free channel for its latency and then the
 * transfer link the channels share (shape_channels_issue_xfer): the rates
 * are the device's, channels add concurrency.  While every channel is idle the
 * controller folds SLC into native flash at slc_recovery bytes/s, freeing
 * that much cache.  Fill is tracked per file (fuse/shape/fill.h) from
 * writes, truncates, punched holes and unlinks, whatever rule matched them.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>

#include "fuse/shape/fill.h"
#include "fuse/shape/shape.h"

struct ssd_params {
	struct shape_common common;
	uint64_t read_ns, write_ns;
	double read_bw, write_bw;
	uint64_t channels;
	uint64_t capacity;
	uint64_t slc_size;
	double slc_write_bw, slc_recovery;
	struct shape_fill_table fill;
	double prefill_pct;
};

#define SP(f) offsetof(struct ssd_params, f)
static const struct shape_param ssd_params[] = {
	{ "read_latency", SHAPE_P_DURATION, SP(read_ns), NULL, false, 0, 1e9, "latency of a read" },
	{ "write_latency", SHAPE_P_DURATION, SP(write_ns), NULL, false, 0, 1e9, "latency of a write" },
	{ "read_bw", SHAPE_P_RATE, SP(read_bw), NULL, true, 1e3, 1e12, "read rate of the device" },
	{ "write_bw", SHAPE_P_RATE, SP(write_bw), NULL, true, 1e3, 1e12, "write rate of the device to native flash" },
	{ "channels", SHAPE_P_COUNT, SP(channels), "1", false, 1, SHAPE_CHANNELS_MAX, "requests served in parallel" },
	{ "capacity", SHAPE_P_SIZE, SP(capacity), NULL, false, SHAPE_FILL_GRAIN, 1e16, "logical size of the device" },
	{ "slc_size", SHAPE_P_SIZE, SP(slc_size), "0", false, 0, 1e15, "SLC write cache size (0: none)" },
	{ "slc_write_bw", SHAPE_P_RATE, SP(slc_write_bw), NULL, true, 1e3, 1e12, "write rate of the device into the SLC cache" },
	{ "slc_recovery", SHAPE_P_RATE, SP(slc_recovery), NULL, true, 1, 1e12, "SLC cache freed per second while idle" },
	{ "fill_penalty", SHAPE_P_FILL_TABLE, SP(fill), "0%=1.0", false, 0, 0, "write cost multiplier by fill level" },
	{ "prefill", SHAPE_P_PERCENT, SP(prefill_pct), "0%", false, 0, 100, "share of the device already holding other data" },
	{ NULL },
};

struct ssd_state {
	struct shape_channels ch;
	struct shape_fill fill;
	uint64_t cap_grains, prefill_grains;
	double slc_used;             /* bytes */
	uint64_t recovered_to_ns;    /* idle time before this is already credited */
	uint64_t slc_bytes, native_bytes;
	uint64_t fill_errors;        /* fill updates lost to ENOMEM */
};

static int ssd_check(const void *params, struct dut_error *err)
{
	const struct ssd_params *p = params;

	if (p->slc_size && p->slc_write_bw <= 0) {
		dut_error_set(err, "missing parameter slc_write_bw: an SLC cache (slc_size) needs its write rate");
		return -EINVAL;
	}
	if (!p->slc_size && (p->slc_write_bw > 0 || p->slc_recovery > 0)) {
		dut_error_set(err, "slc_write_bw and slc_recovery need slc_size (the SLC cache size)");
		return -EINVAL;
	}
	if (p->slc_size > p->capacity) {
		dut_error_set(err, "slc_size must not exceed capacity");
		return -EINVAL;
	}
	return 0;
}

static int ssd_init(const void *params, void **ret_state)
{
	const struct ssd_params *p = params;
	struct ssd_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	shape_channels_init(&s->ch, (unsigned)p->channels);
	s->cap_grains = p->capacity / SHAPE_FILL_GRAIN;
	s->prefill_grains = (uint64_t)llround(p->prefill_pct / 100 * (double)s->cap_grains);
	*ret_state = s;
	return 0;
}

static void ssd_fini(void *state)
{
	struct ssd_state *s = state;

	shape_fill_clear(&s->fill);
	free(s);
}

static double fill_pct(const struct ssd_state *s)
{
	double used = (double)(s->prefill_grains + s->fill.grains);

	return used >= (double)s->cap_grains ? 100.0 : 100.0 * used / (double)s->cap_grains;
}

static void slc_recover(struct ssd_state *s, const struct ssd_params *p, uint64_t now)
{
	uint64_t idle_from = shape_max_u64(shape_channels_drained_ns(&s->ch), s->recovered_to_ns);

	if (now <= idle_from)
		return;
	if (p->slc_recovery > 0 && s->slc_used > 0) {
		s->slc_used -= (double)(now - idle_from) * p->slc_recovery / 1e9;
		if (s->slc_used < 0)
			s->slc_used = 0;
	}
	s->recovered_to_ns = now;
}

/* A write's latency and transfer, both scaled by the fill penalty. */
static void ssd_write_cost(struct ssd_state *s, const struct ssd_params *p, uint64_t len,
			   uint64_t *ret_lat_ns, uint64_t *ret_xfer_ns)
{
	uint64_t in_slc = 0, x;
	double room = (double)p->slc_size - s->slc_used, pen;

	if (p->slc_size && room > 0)
		in_slc = (double)len <= room ? len : (uint64_t)room;
	s->slc_used += (double)in_slc;
	s->slc_bytes += in_slc;
	s->native_bytes += len - in_slc;
	x = shape_xfer_ns(in_slc, p->slc_write_bw) + shape_xfer_ns(len - in_slc, p->write_bw);
	pen = shape_fill_table_at(&p->fill, fill_pct(s));
	*ret_lat_ns = (uint64_t)llround((double)p->write_ns * pen);
	*ret_xfer_ns = (uint64_t)llround((double)x * pen);
}

static uint64_t ssd_submit(void *state, const void *params, const struct shape_req *r)
{
	const struct ssd_params *p = params;
	struct ssd_state *s = state;
	uint64_t lat, xfer;

	slc_recover(s, p, r->now_ns);
	switch (r->op) {
	case SHAPE_OP_READ:
		return shape_channels_issue_xfer(&s->ch, r->now_ns, p->read_ns,
						 shape_xfer_ns(r->len, p->read_bw));
	case SHAPE_OP_WRITE:
		ssd_write_cost(s, p, r->len, &lat, &xfer);
		if (shape_fill_write(&s->fill, r->file_key, r->offset, r->len) < 0)
			s->fill_errors++;
		return shape_channels_issue_xfer(&s->ch, r->now_ns, lat, xfer);
	case SHAPE_OP_FSYNC:
	case SHAPE_OP_FDATASYNC:
		return shape_fsync_done(&s->ch, &p->common, r->now_ns);
	case SHAPE_OP_TRUNCATE:
		shape_fill_truncate(&s->fill, r->file_key, r->offset);
		return r->now_ns;
	case SHAPE_OP_PUNCH_HOLE:
		shape_fill_punch(&s->fill, r->file_key, r->offset, r->len);
		return r->now_ns;
	case SHAPE_OP_UNLINK:
		shape_fill_forget(&s->fill, r->file_key);
		return r->now_ns;
	default:
		return r->now_ns;
	}
}

static void ssd_stats(void *state, const void *params, struct json_object *o)
{
	const struct ssd_params *p = params;
	const struct ssd_state *s = state;

	json_object_object_add(o, "fill_pct", json_object_new_double(fill_pct(s)));
	json_object_object_add(o, "write_penalty", json_object_new_double(shape_fill_table_at(&p->fill, fill_pct(s))));
	json_object_object_add(o, "slc_used_bytes", json_object_new_int64((int64_t)s->slc_used));
	json_object_object_add(o, "slc_written_bytes", json_object_new_int64((int64_t)s->slc_bytes));
	json_object_object_add(o, "native_written_bytes", json_object_new_int64((int64_t)s->native_bytes));
	json_object_object_add(o, "fill_untracked_writes", json_object_new_int64((int64_t)s->fill_errors));
}

const struct shape_model_ops shape_model_ssd = {
	.type = "ssd",
	.params = ssd_params,
	.params_size = sizeof(struct ssd_params),
	.check = ssd_check,
	.init = ssd_init,
	.fini = ssd_fini,
	.submit = ssd_submit,
	.stats = ssd_stats,
};
