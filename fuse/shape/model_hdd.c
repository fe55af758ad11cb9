/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hdd: a disk arm over a platter.
 *
 * Layout.  Files have no disk address, so each file gets a slot of
 * `file_slot` bytes (default 1 GiB, PostgreSQL's segment size) in the order
 * it is first seen; the device address of (file, offset) is
 * (slot * file_slot + offset) mod capacity.
 *
 * Service time of a request at device address a, length n, started at s
 * (s = max(arrival, the arm's channel free time)) on an arm whose head is
 * at h and whose previous request finished at t:
 *   read-ahead hit (reads only; a..a+n inside the window the drive
 *   prefetched after its last read):  transfer only, n / transfer
 *   a == h (sequential):  position-based rotation: the sector we need went
 *                  under the head at t, it is back after whole revolutions:
 *                  rot = 0 if s == t, else rev - ((s - t) mod rev)
 *   |a - h| <= one track (transfer * rev bytes):  rev / 2 (no seek)
 *   otherwise:     seek(|a - h| / capacity) + rev / 2
 * plus the media transfer n / transfer.  Writes go straight to the media
 * (no write cache) and drop an overlapping read-ahead window.
 *
 * Seek curve through the three datasheet points, with f = distance as a
 * fraction of a full stroke (the usual sqrt-then-linear shape: the arm
 * accelerates over short seeks and coasts over long ones):
 *   0 < f <= 1/3:  t2t + (avg - t2t) * sqrt(3f)         (t2t at f -> 0, avg at 1/3)
 *   1/3 < f <= 1:  avg + (full - avg) * (f - 1/3) / (2/3) (full at 1)
 * 1/3 is where the average seek of uniformly random requests falls.
 *
 * One arm (channels = 1) unless channels is given; each channel is an
 * independent arm with its own head position and read-ahead window.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuse/shape/keymap.h"
#include "fuse/shape/shape.h"

struct hdd_params {
	struct shape_common common;
	uint64_t rpm;
	uint64_t t2t_ns, avg_ns, full_ns;
	double transfer;
	uint64_t capacity;
	uint64_t cache;
	uint64_t channels;
	uint64_t file_slot;
};

#define HP(f) offsetof(struct hdd_params, f)
static const struct shape_param hdd_params[] = {
	{ "rpm", SHAPE_P_COUNT, HP(rpm), NULL, false, 1, 30000, "spindle speed in revolutions per minute" },
	{ "track_to_track", SHAPE_P_DURATION, HP(t2t_ns), NULL, false, 1, 1e9, "seek time to the next track" },
	{ "average_seek", SHAPE_P_DURATION, HP(avg_ns), NULL, false, 1, 1e9, "average seek time" },
	{ "full_stroke", SHAPE_P_DURATION, HP(full_ns), NULL, false, 1, 1e9, "seek time across the whole platter" },
	{ "transfer", SHAPE_P_RATE, HP(transfer), NULL, false, 1e3, 1e10, "media transfer rate" },
	{ "capacity", SHAPE_P_SIZE, HP(capacity), NULL, false, 1 << 20, 1e15, "device size" },
	{ "cache", SHAPE_P_SIZE, HP(cache), "0", false, 0, 1ull << 32, "read-ahead window (0: none)" },
	{ "channels", SHAPE_P_COUNT, HP(channels), "1", false, 1, SHAPE_CHANNELS_MAX, "independent arms" },
	{ "file_slot", SHAPE_P_SIZE, HP(file_slot), "1G", false, 4096, 1e15, "disk space reserved per file" },
	{ NULL },
};

uint64_t shape_seek_curve_ns(uint64_t t2t_ns, uint64_t avg_ns, uint64_t full_ns, double frac)
{
	double t;

	if (frac <= 0)
		return 0;
	if (frac > 1)
		frac = 1;
	if (frac <= 1.0 / 3)
		t = (double)t2t_ns + (double)(avg_ns - t2t_ns) * sqrt(3 * frac);
	else
		t = (double)avg_ns + (double)(full_ns - avg_ns) * (frac - 1.0 / 3) * 1.5;
	return (uint64_t)llround(t);
}

struct hdd_arm {
	uint64_t head;            /* device address after the last request */
	uint64_t last_done_ns;
	uint64_t ra_start, ra_end; /* read-ahead window; empty when equal */
};

struct hdd_state {
	struct shape_channels ch;
	struct hdd_arm arm[SHAPE_CHANNELS_MAX];
	struct shape_keymap slots;  /* file_key -> slot index + 1 */
	uint64_t nslots;
	uint64_t rev_ns, track_bytes;
	uint64_t seeks, sequential, ra_hits;
};

static int hdd_check(const void *params, struct dut_error *err)
{
	const struct hdd_params *p = params;

	if (!(p->t2t_ns <= p->avg_ns && p->avg_ns <= p->full_ns)) {
		dut_error_set(err, "seek times must satisfy track_to_track <= average_seek <= full_stroke");
		return -EINVAL;
	}
	if (p->file_slot > p->capacity) {
		dut_error_set(err, "file_slot must not exceed capacity");
		return -EINVAL;
	}
	return 0;
}

static int hdd_init(const void *params, void **ret_state)
{
	const struct hdd_params *p = params;
	struct hdd_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	shape_channels_init(&s->ch, (unsigned)p->channels);
	s->rev_ns = (uint64_t)llround(60e9 / (double)p->rpm);
	s->track_bytes = (uint64_t)(p->transfer * (double)s->rev_ns / 1e9);
	*ret_state = s;
	return 0;
}

static void hdd_fini(void *state)
{
	struct hdd_state *s = state;

	shape_keymap_clear(&s->slots);
	free(s);
}

static uint64_t device_addr(struct hdd_state *s, const struct hdd_params *p, uint64_t key,
			    uint64_t offset)
{
	uintptr_t slot = (uintptr_t)shape_keymap_get(&s->slots, key);

	if (!slot) {
		slot = (uintptr_t)++s->nslots;
		/* out of memory: the file shares slot 0's place, still a valid address */
		if (shape_keymap_put(&s->slots, key, (void *)slot) < 0)
			slot = 1;
	}
	return (uint64_t)(((unsigned __int128)(slot - 1) * p->file_slot + offset) % p->capacity);
}

static uint64_t position_ns(struct hdd_state *s, const struct hdd_params *p, struct hdd_arm *a,
			    uint64_t addr, uint64_t start_ns)
{
	uint64_t dist = addr > a->head ? addr - a->head : a->head - addr;

	if (dist == 0) {
		uint64_t gap = start_ns - a->last_done_ns;

		s->sequential++;
		return gap == 0 ? 0 : (s->rev_ns - gap % s->rev_ns) % s->rev_ns;
	}
	if (dist <= s->track_bytes)
		return s->rev_ns / 2;
	s->seeks++;
	return shape_seek_curve_ns(p->t2t_ns, p->avg_ns, p->full_ns,
				   (double)dist / (double)p->capacity) + s->rev_ns / 2;
}

static uint64_t hdd_submit(void *state, const void *params, const struct shape_req *r)
{
	const struct hdd_params *p = params;
	struct hdd_state *s = state;
	unsigned c;
	struct hdd_arm *a;
	uint64_t addr, start, service;

	if (shape_op_is_sync(r->op))
		return shape_fsync_done(&s->ch, &p->common, r->now_ns);
	if (!shape_op_is_data(r->op))
		return r->now_ns;

	c = shape_channels_pick(&s->ch);
	a = &s->arm[c];
	start = shape_max_u64(r->now_ns, s->ch.free_ns[c]);
	addr = device_addr(s, p, r->file_key, r->offset);
	if (r->op == SHAPE_OP_READ && a->ra_start < a->ra_end && addr >= a->ra_start &&
	    addr + r->len <= a->ra_end) {
		s->ra_hits++;
		service = 0;
	} else {
		service = position_ns(s, p, a, addr, start);
	}
	service += shape_xfer_ns(r->len, p->transfer);

	if (r->op == SHAPE_OP_READ && p->cache) {
		a->ra_start = addr + r->len;
		a->ra_end = a->ra_start + p->cache;
	} else if (r->op == SHAPE_OP_WRITE && addr < a->ra_end && addr + r->len > a->ra_start) {
		a->ra_start = a->ra_end = 0;
	}
	a->head = addr + r->len;
	a->last_done_ns = start + service;
	s->ch.free_ns[c] = start + service;
	return start + service;
}

static void hdd_stats(void *state, const void *params, struct json_object *o)
{
	const struct hdd_state *s = state;

	json_object_object_add(o, "seeks", json_object_new_int64((int64_t)s->seeks));
	json_object_object_add(o, "sequential", json_object_new_int64((int64_t)s->sequential));
	json_object_object_add(o, "readahead_hits", json_object_new_int64((int64_t)s->ra_hits));
}

const struct shape_model_ops shape_model_hdd = {
	.type = "hdd",
	.params = hdd_params,
	.params_size = sizeof(struct hdd_params),
	.check = hdd_check,
	.init = hdd_init,
	.fini = hdd_fini,
	.submit = hdd_submit,
	.stats = hdd_stats,
};
