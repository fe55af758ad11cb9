/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs shaping: device models, the vocabulary shared by the rules file,
 * the models, the fault plans and the engine.
 *
 * A device model is pure: given a request (op, file, offset, length, arrival
 * time) and its own state, it says when the request completes and updates
 * its state.  It does no I/O and never sleeps; the daemon delays the reply
 * (fuse/shape/timerq.h) and does the backing call.
 *
 * Every model's parameter struct begins with struct shape_common (fsync
 * latency, barriers).  Parameters are described by a table of struct
 * shape_param, so the rules parser fills any model's struct, checks ranges
 * and names the unit it expected, without knowing the model.
 *
 * Times are uint64_t nanoseconds of CLOCK_MONOTONIC; sizes and offsets are
 * uint64_t bytes; rates are double bytes per second.
 */
#ifndef DUTFS_SHAPE_H
#define DUTFS_SHAPE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/io_class.h"
#include "lib/error.h"

struct json_object;

enum shape_op {
	SHAPE_OP_READ = 0,
	SHAPE_OP_WRITE,
	SHAPE_OP_FSYNC,
	SHAPE_OP_FDATASYNC,
	SHAPE_OP_OPEN,
	SHAPE_OP_CREATE,
	SHAPE_OP_RELEASE,
	SHAPE_OP_FLUSH,
	SHAPE_OP_TRUNCATE,   /* offset = new size */
	SHAPE_OP_FALLOCATE,
	SHAPE_OP_PUNCH_HOLE, /* offset, len = the hole */
	SHAPE_OP_UNLINK,
	SHAPE_OP_RENAME,
	SHAPE_OP_COUNT
};

/* "read", "write", "fsync", ... ; NULL when out of range */
const char *shape_op_name(enum shape_op op);
int shape_op_from_name(const char *name, enum shape_op *ret);
/* Map an enum dut_trace_op (lib/trace.h) value; -EINVAL for ops that are not shaped. */
int shape_op_from_trace(unsigned trace_op, enum shape_op *ret);

/* The report classes (docs/relmap-format.md, "Report classes"). */
/* The classes of lib/io_class.h, under shaping's names. */
enum shape_class {
	SHAPE_CLASS_HEAP = DUT_IO_HEAP,
	SHAPE_CLASS_INDEX = DUT_IO_INDEX,
	SHAPE_CLASS_TOAST = DUT_IO_TOAST,
	SHAPE_CLASS_FSM = DUT_IO_FSM,
	SHAPE_CLASS_VM = DUT_IO_VM,
	SHAPE_CLASS_WAL = DUT_IO_WAL,
	SHAPE_CLASS_SLRU = DUT_IO_SLRU,
	SHAPE_CLASS_TEMP = DUT_IO_TEMP,
	SHAPE_CLASS_OTHER = DUT_IO_OTHER,
	SHAPE_CLASS_COUNT = DUT_IO_CLASS_COUNT
};

const char *shape_class_name(enum shape_class cls);
int shape_class_from_name(const char *name, enum shape_class *ret);

/* One request as a model sees it. */
struct shape_req {
	enum shape_op op;
	uint64_t file_key;   /* stable per file (the dutfs file id); 0 is a valid key */
	uint64_t offset;     /* bytes; for TRUNCATE the new size */
	uint64_t len;        /* bytes */
	uint64_t now_ns;     /* arrival time */
};

/* ---- parameters ---- */

enum shape_ptype {
	SHAPE_P_DURATION,    /* uint64_t ns; "8ms" */
	SHAPE_P_SIZE,        /* uint64_t bytes; "4k" */
	SHAPE_P_RATE,        /* double B/s; "200MB/s" */
	SHAPE_P_COUNT,       /* uint64_t; plain decimal integer */
	SHAPE_P_PERCENT,     /* double 0..100; "30%" */
	SHAPE_P_BOOL,        /* bool; on/off, yes/no, true/false, 1/0 */
	SHAPE_P_FILL_TABLE,  /* struct shape_fill_table; "30%=1.0, 60%=1.4, 90%=2.6" */
};

#define SHAPE_FILL_POINTS_MAX 16

/* Piecewise-linear multiplier over the fill fraction (pct strictly increasing). */
struct shape_fill_table {
	unsigned n;
	double pct[SHAPE_FILL_POINTS_MAX];
	double mult[SHAPE_FILL_POINTS_MAX];
};

/* Multiplier at fill pct (0..100): linear between points, flat outside them. */
double shape_fill_table_at(const struct shape_fill_table *t, double pct);

struct shape_param {
	const char *key;
	enum shape_ptype type;
	size_t offset;       /* into the model's parameter struct */
	const char *dflt;    /* text parsed when absent; NULL: required unless optional */
	bool optional;       /* absent: left zero (e.g. a rate of 0 = no per-byte cost) */
	double min, max;     /* allowed range, in the stored unit (ns, bytes, B/s, count) */
	const char *what;    /* for messages: "average seek time" */
};

/* Keys every model takes; the struct is the first member of each model's params. */
struct shape_common {
	uint64_t fsync_ns;   /* cost of a cache flush once the device has drained */
	bool barriers;       /* false: fsync returns at once and is not passed on */
};

#define SHAPE_CHANNELS_MAX 256u

struct shape_model_ops {
	const char *type;            /* "hdd", ... : the rules file's "type =" */
	const struct shape_param *params;  /* model keys, terminated by key == NULL */
	size_t params_size;          /* sizeof the parameter struct */
	/* Cross-parameter checks once every key parsed (NULL: none). */
	int (*check)(const void *params, struct dut_error *err);
	int (*init)(const void *params, void **ret_state);
	void (*fini)(void *state);
	/*
	 * The request arrives at r->now_ns: return when it completes (>= now)
	 * and update the state.  Called under the model's lock.  Ops a model
	 * has no cost for (open, ...) return r->now_ns; fsync is called only
	 * with barriers on.  TRUNCATE, PUNCH_HOLE and UNLINK update state
	 * (fill level) whatever rule matched.
	 */
	uint64_t (*submit)(void *state, const void *params, const struct shape_req *r);
	/* Add model-specific live numbers to obj (NULL: none).  Under the lock. */
	void (*stats)(void *state, const void *params, struct json_object *obj);
};

extern const struct shape_model_ops shape_model_fixed;
extern const struct shape_model_ops shape_model_bandwidth;
extern const struct shape_model_ops shape_model_queue;
extern const struct shape_model_ops shape_model_hdd;
extern const struct shape_model_ops shape_model_ssd;

const struct shape_model_ops *shape_model_ops_find(const char *type);
/* "fixed, bandwidth, queue, hdd, ssd" for messages */
const char *shape_model_types(void);

/* A configured model: parameters plus live state. */
struct shape_model {
	char *name;
	unsigned line;                     /* of its [model NAME] header */
	const struct shape_model_ops *ops;
	void *params;                      /* ops->params_size bytes */
	pthread_mutex_t lock;
	void *state;                       /* protected by lock */
	uint64_t requests;                 /* protected by lock */
};

struct shape_model_result {
	uint64_t done_ns;
	bool skip_sync;                    /* fsync with barriers off: do not pass it on */
};

/*
 * Parameter handling for the parser.  Keys are set one by one (a key set
 * twice is an error: the caller tracks that through *seen, one bit per
 * table row, common keys first); shape_model_params_finish() applies
 * defaults, reports missing keys and runs ops->check.
 */
void *shape_model_params_new(const struct shape_model_ops *ops);
/* -ENOENT: not a key of this model (err says which keys are) */
int shape_model_param_set(const struct shape_model_ops *ops, void *params, uint64_t *seen,
			  const char *key, const char *value, struct dut_error *err);
int shape_model_params_finish(const struct shape_model_ops *ops, void *params, uint64_t seen,
			      struct dut_error *err);

/* Parse one value of a type into out (the stored type), range-checked. */
int shape_param_parse(const struct shape_param *p, const char *value, void *out,
		      struct dut_error *err);

/* Takes ownership of params. */
int shape_model_new(const char *name, unsigned line, const struct shape_model_ops *ops,
		    void *params, struct shape_model **ret);
void shape_model_free(struct shape_model *m);
/* Thread-safe. */
void shape_model_submit(struct shape_model *m, const struct shape_req *r,
			struct shape_model_result *ret);
/* {"name":..,"type":..,"requests":N, model stats...} */
struct json_object *shape_model_stats_json(struct shape_model *m);

/* ---- helpers shared by the models (model.c) ---- */

/*
 * N FIFO servers behind one transfer link: a request takes the channel that
 * frees up first and holds it for its latency, then for its transfer on the
 * link, which the channels share (transfers in arrival order).  So channels
 * add concurrency, not capacity: a model's rates are the device's whatever
 * its channel count, and with one channel this is done = max(now, free) +
 * latency + transfer.
 */
struct shape_channels {
	unsigned n;
	uint64_t free_ns[SHAPE_CHANNELS_MAX];
	uint64_t link_free_ns;
};

void shape_channels_init(struct shape_channels *c, unsigned n);
/* Earliest-free channel (lowest index on ties). */
unsigned shape_channels_pick(const struct shape_channels *c);
/* The time all channels are idle. */
uint64_t shape_channels_drained_ns(const struct shape_channels *c);
/* Serve on the earliest-free channel: done = max(now, free) + service (no transfer). */
uint64_t shape_channels_issue(struct shape_channels *c, uint64_t now_ns, uint64_t service_ns);
/*
 * Serve latency_ns on the earliest-free channel, then xfer_ns on the shared
 * link: done = max(max(now, free) + latency, link_free) + xfer.
 */
uint64_t shape_channels_issue_xfer(struct shape_channels *c, uint64_t now_ns, uint64_t latency_ns,
				   uint64_t xfer_ns);

/* len bytes at rate B/s in ns, rounded to nearest; rate <= 0: 0 (no per-byte cost). */
uint64_t shape_xfer_ns(uint64_t len, double rate);

/* The hdd seek curve (model_hdd.c): frac = distance / capacity. */
uint64_t shape_seek_curve_ns(uint64_t t2t_ns, uint64_t avg_ns, uint64_t full_ns, double frac);

/* fsync with barriers on: wait for every channel, then fsync_ns. */
uint64_t shape_fsync_done(const struct shape_channels *c, const struct shape_common *cm,
			  uint64_t now_ns);

static inline uint64_t shape_max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline bool shape_op_is_data(enum shape_op op)
{
	return op == SHAPE_OP_READ || op == SHAPE_OP_WRITE;
}

static inline bool shape_op_is_sync(enum shape_op op)
{
	return op == SHAPE_OP_FSYNC || op == SHAPE_OP_FDATASYNC;
}

#endif
