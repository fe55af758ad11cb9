/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simple models:
 *   fixed      latency + per-byte cost, reads and writes separately; no
 *              queueing (every request is served at once, in parallel).
 *   bandwidth  token bucket (for reads, writes, or both combined).
 *   queue      N FIFO channels, service = latency + len / bw; a request
 *              takes the earliest-free channel: done = max(now, free) + service.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>

#include "fuse/shape/shape.h"

#define HOUR_NS 3600e9
#define RATE_MAX 1e12     /* 1 TB/s: beyond any device */
#define RATE_MIN 1.0

/* ---- fixed ---- */

struct fixed_params {
	struct shape_common common;
	uint64_t read_ns, write_ns;
	double read_bw, write_bw;     /* 0: no per-byte cost */
};

#define FX(f) offsetof(struct fixed_params, f)
static const struct shape_param fixed_params[] = {
	{ "read_latency", SHAPE_P_DURATION, FX(read_ns), NULL, false, 0, HOUR_NS, "latency of a read" },
	{ "write_latency", SHAPE_P_DURATION, FX(write_ns), NULL, false, 0, HOUR_NS, "latency of a write" },
	{ "read_bw", SHAPE_P_RATE, FX(read_bw), NULL, true, RATE_MIN, RATE_MAX, "per-byte cost of reads, as a rate" },
	{ "write_bw", SHAPE_P_RATE, FX(write_bw), NULL, true, RATE_MIN, RATE_MAX, "per-byte cost of writes, as a rate" },
	{ NULL },
};

static int stateless_init(const void *params, void **ret_state)
{
	*ret_state = NULL;
	return 0;
}

static void stateless_fini(void *state)
{
}

static uint64_t fixed_submit(void *state, const void *params, const struct shape_req *r)
{
	const struct fixed_params *p = params;

	switch (r->op) {
	case SHAPE_OP_READ:
		return r->now_ns + p->read_ns + shape_xfer_ns(r->len, p->read_bw);
	case SHAPE_OP_WRITE:
		return r->now_ns + p->write_ns + shape_xfer_ns(r->len, p->write_bw);
	case SHAPE_OP_FSYNC:
	case SHAPE_OP_FDATASYNC:
		return shape_fsync_done(NULL, &p->common, r->now_ns);
	default:
		return r->now_ns;
	}
}

const struct shape_model_ops shape_model_fixed = {
	.type = "fixed",
	.params = fixed_params,
	.params_size = sizeof(struct fixed_params),
	.init = stateless_init,
	.fini = stateless_fini,
	.submit = fixed_submit,
};

/* ---- bandwidth: token bucket with debt ---- */

/*
 * The bucket holds up to `burst` bytes of tokens and refills at `rate`.
 * A request takes its length in tokens at once; when that leaves the
 * bucket negative, the request completes when the refill has paid the debt
 * back: done = now + debt / rate.  Requests therefore complete in arrival
 * order and the long-run throughput is `rate`.
 */
struct bw_params {
	struct shape_common common;
	double rate, read_rate, write_rate;
	uint64_t burst;
};

#define BW(f) offsetof(struct bw_params, f)
static const struct shape_param bw_params[] = {
	{ "rate", SHAPE_P_RATE, BW(rate), NULL, true, RATE_MIN, RATE_MAX, "one bucket for reads and writes combined" },
	{ "read_rate", SHAPE_P_RATE, BW(read_rate), NULL, true, RATE_MIN, RATE_MAX, "bucket for reads" },
	{ "write_rate", SHAPE_P_RATE, BW(write_rate), NULL, true, RATE_MIN, RATE_MAX, "bucket for writes" },
	{ "burst", SHAPE_P_SIZE, BW(burst), "1M", false, 1, 1ull << 40, "bucket size" },
	{ NULL },
};

struct bucket {
	double tokens;        /* bytes; negative = debt */
	uint64_t last_ns;
};

struct bw_state {
	struct bucket b[2];   /* [0] reads (or combined), [1] writes */
	uint64_t waited_ns;   /* total delay handed out */
	uint64_t last_done_ns;
};

static int bw_check(const void *params, struct dut_error *err)
{
	const struct bw_params *p = params;

	if (p->rate > 0 && (p->read_rate > 0 || p->write_rate > 0)) {
		dut_error_set(err, "rate (combined) and read_rate/write_rate exclude each other: "
			      "give either one combined rate or separate ones");
		return -EINVAL;
	}
	if (p->rate <= 0 && p->read_rate <= 0 && p->write_rate <= 0) {
		dut_error_set(err, "missing parameter: a bandwidth model needs rate, read_rate or write_rate");
		return -EINVAL;
	}
	return 0;
}

static int bw_init(const void *params, void **ret_state)
{
	const struct bw_params *p = params;
	struct bw_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->b[0].tokens = s->b[1].tokens = (double)p->burst;   /* starts full */
	*ret_state = s;
	return 0;
}

static void bw_fini(void *state)
{
	free(state);
}

static uint64_t bucket_take(struct bucket *b, double rate, uint64_t burst, uint64_t now,
			    uint64_t len)
{
	if (now > b->last_ns) {
		b->tokens += (double)(now - b->last_ns) * rate / 1e9;
		if (b->tokens > (double)burst)
			b->tokens = (double)burst;
		b->last_ns = now;
	}
	b->tokens -= (double)len;
	if (b->tokens >= 0)
		return now;
	return now + (uint64_t)llround(-b->tokens * 1e9 / rate);
}

static uint64_t bw_submit(void *state, const void *params, const struct shape_req *r)
{
	const struct bw_params *p = params;
	struct bw_state *s = state;
	uint64_t done = r->now_ns;

	if (shape_op_is_data(r->op)) {
		bool wr = r->op == SHAPE_OP_WRITE;
		double rate = p->rate > 0 ? p->rate : (wr ? p->write_rate : p->read_rate);
		struct bucket *b = &s->b[p->rate > 0 ? 0 : wr];

		if (rate > 0)
			done = bucket_take(b, rate, p->burst, r->now_ns, r->len);
		s->waited_ns += done - r->now_ns;
		s->last_done_ns = shape_max_u64(s->last_done_ns, done);
	} else if (shape_op_is_sync(r->op)) {
		/* a flush waits for the data already admitted */
		done = shape_max_u64(r->now_ns, s->last_done_ns) + p->common.fsync_ns;
	}
	return done;
}

static void bw_stats(void *state, const void *params, struct json_object *o)
{
	const struct bw_state *s = state;

	json_object_object_add(o, "throttled_ns", json_object_new_int64((int64_t)s->waited_ns));
}

const struct shape_model_ops shape_model_bandwidth = {
	.type = "bandwidth",
	.params = bw_params,
	.params_size = sizeof(struct bw_params),
	.check = bw_check,
	.init = bw_init,
	.fini = bw_fini,
	.submit = bw_submit,
	.stats = bw_stats,
};

/* ---- queue ---- */

struct queue_params {
	struct shape_common common;
	uint64_t channels;
	uint64_t latency_ns;
	double bw;           /* the device's, shared by the channels; 0: no per-byte cost */
};

#define QP(f) offsetof(struct queue_params, f)
static const struct shape_param queue_params[] = {
	{ "channels", SHAPE_P_COUNT, QP(channels), NULL, false, 1, SHAPE_CHANNELS_MAX, "requests served in parallel" },
	{ "latency", SHAPE_P_DURATION, QP(latency_ns), NULL, false, 0, HOUR_NS, "service time of one request" },
	{ "bw", SHAPE_P_RATE, QP(bw), NULL, true, RATE_MIN, RATE_MAX, "transfer rate of the device (the channels share it)" },
	{ NULL },
};

struct queue_state {
	struct shape_channels ch;
	uint64_t busy_ns;   /* sum of service times */
};

static int queue_init(const void *params, void **ret_state)
{
	const struct queue_params *p = params;
	struct queue_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	shape_channels_init(&s->ch, (unsigned)p->channels);
	*ret_state = s;
	return 0;
}

static uint64_t queue_submit(void *state, const void *params, const struct shape_req *r)
{
	const struct queue_params *p = params;
	struct queue_state *s = state;
	if (shape_op_is_sync(r->op))
		return shape_fsync_done(&s->ch, &p->common, r->now_ns);
	if (!shape_op_is_data(r->op))
		return r->now_ns;
	uint64_t xfer = shape_xfer_ns(r->len, p->bw);

	s->busy_ns += p->latency_ns + xfer;
	return shape_channels_issue_xfer(&s->ch, r->now_ns, p->latency_ns, xfer);
}

static void queue_stats(void *state, const void *params, struct json_object *o)
{
	const struct queue_state *s = state;

	json_object_object_add(o, "busy_ns", json_object_new_int64((int64_t)s->busy_ns));
}

const struct shape_model_ops shape_model_queue = {
	.type = "queue",
	.params = queue_params,
	.params_size = sizeof(struct queue_params),
	.init = queue_init,
	.fini = bw_fini,
	.submit = queue_submit,
	.stats = queue_stats,
};
