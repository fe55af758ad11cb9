/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fault plans: pure decisions.  The engine asks a fault whether it fires
 * on one request and what it does; the daemon applies the effect.
 *
 * Types ([fault NAME] sections, "type ="):
 *   error     fail the request with errno (EIO, ENOSPC, EDQUOT, ...)
 *   short     transfer fewer bytes: `keep` bytes (a size) or a share of the
 *             request (a percentage); always at least 1 byte fewer than asked
 *             and, for a request of 1 byte, not applied
 *   crash     the device dies: this request fails with EIO and so does every
 *             later one until `recover` (engine state machine)
 *   unsynced  writes to matched files are journaled until the file is
 *             fsync'ed; at a crash, unsynced data is lost (`lose`) and
 *             writes in flight are torn at `sector` granularity (`torn`);
 *             with `grain`, the loss is drawn per grain-aligned piece of
 *             each unsynced extent (a subset survives, out of order)
 *
 * Triggers (all given conditions must hold; none = every matching request):
 *   offset, length   the request overlaps [offset, offset + length)
 *   nth = N          the Nth request that passed the range condition (once)
 *   every = N        every Nth such request
 *   probability = P  with probability P, from a seeded splitmix64 stream
 *                    (`seed`, default 1): the same seed gives the same
 *                    decisions for the same request order
 */
#ifndef DUTFS_SHAPE_FAULT_H
#define DUTFS_SHAPE_FAULT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "fuse/shape/shape.h"
#include "lib/error.h"

enum shape_fault_type {
	SHAPE_FAULT_ERROR = 0,
	SHAPE_FAULT_SHORT,
	SHAPE_FAULT_CRASH,
	SHAPE_FAULT_UNSYNCED,
};

enum shape_torn {
	SHAPE_TORN_NONE = 0,   /* an in-flight write is lost whole */
	SHAPE_TORN_PREFIX,     /* its first k sectors persist, k uniform in 0..n */
	SHAPE_TORN_RANDOM,     /* each sector persists with probability 1/2 */
};

struct shape_fault_params {
	enum shape_fault_type type;
	bool type_set;
	int err;                  /* positive errno, for ERROR */
	/* triggers */
	bool has_range;
	uint64_t range_off, range_len;
	uint64_t nth, every;      /* 0: not a condition */
	double probability;       /* 0..1; < 0: not a condition */
	uint64_t seed;
	/* SHORT */
	uint64_t keep_bytes;      /* used when keep_pct < 0 */
	double keep_pct;
	/* UNSYNCED */
	double lose_pct;          /* chance each unsynced extent is lost */
	enum shape_torn torn;
	uint32_t sector;
	uint64_t grain;           /* 0: extents lost whole; else per grain (out of order) */
};

struct shape_fault {
	char *name;
	unsigned line;
	struct shape_fault_params p;
	pthread_mutex_t lock;
	uint64_t rng;             /* protected by lock */
	uint64_t seen;            /* requests past the range condition; lock */
	uint64_t fired;           /* lock */
};

struct shape_fault_effect {
	int err;                  /* -errno, or 0 */
	uint64_t len;             /* bytes to transfer (== the request's unless SHORT) */
	bool crash;
};

void shape_fault_params_init(struct shape_fault_params *p);
/* One key of a [fault] section; -ENOENT for an unknown key (err lists the keys). */
int shape_fault_param_set(struct shape_fault_params *p, const char *key, const char *value,
			  struct dut_error *err);
/* Completeness once the section ended (type given, errno for error, ...). */
int shape_fault_params_check(const struct shape_fault_params *p, struct dut_error *err);

int shape_fault_new(const char *name, unsigned line, const struct shape_fault_params *p,
		    struct shape_fault **ret);
void shape_fault_free(struct shape_fault *f);

/*
 * Does f fire on this request?  Thread-safe; counts the request when it
 * passes the range condition.  UNSYNCED faults never fire here (they act at
 * crash time).  SHORT applies to reads and writes only.  ret is written
 * only when the fault fires.
 */
bool shape_fault_decide(struct shape_fault *f, const struct shape_req *r,
			struct shape_fault_effect *ret);

const char *shape_fault_type_name(enum shape_fault_type t);
/* "EIO" -> EIO; 0 if unknown */
int shape_errno_from_name(const char *name);
const char *shape_errno_name(int err);

/* splitmix64 step: the fault and journal random stream. */
uint64_t shape_rng_next(uint64_t *state);
/* uniform in [0, 1) with 53 bits */
double shape_rng_unit(uint64_t *state);

#endif
