/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shaping engine: what the daemon calls per request.
 *
 *   submit    before the backing call: which rule matched, the fault to
 *             inject (fail without the backing call), a short length, and
 *             the time the reply may go out (the model's completion time);
 *   complete  after the backing call: journal bookkeeping (unsynced writes,
 *             successful fsyncs, truncates, unlinks).
 *
 * Crash state machine: running --crash--> crashed --recover--> running.
 * While crashed every request fails with EIO.  crash while crashed is
 * -EALREADY, recover while running -EINVAL.  A crash (from the control file
 * or a crash fault) computes the discard plan of the journal, which the
 * daemon takes with shape_engine_take_plan() and applies before recover.
 *
 * Thread-safe: many workers may submit and complete at once.
 */
#ifndef DUTFS_SHAPE_ENGINE_H
#define DUTFS_SHAPE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "fuse/shape/journal.h"
#include "fuse/shape/rules.h"

struct shape_io {
	enum shape_op op;
	enum shape_class cls;
	const char *path;       /* relative to the mount root */
	uint64_t file_key;
	uint64_t offset, len;
	uint64_t now_ns;
};

struct shape_verdict {
	struct shape_rule *rule;    /* NULL: no rule matched */
	uint64_t done_ns;           /* reply not before this */
	int err;                    /* -errno: reply with it, skip the backing call */
	uint64_t len;               /* bytes to read/write (< io.len: short) */
	bool skip_sync;             /* barriers off: do not pass the fsync on */
	bool journaled;             /* write: complete() must be called */
	uint64_t token;
};

struct shape_engine;

/* Takes ownership of rules. */
int shape_engine_new(struct shape_rules *rules, struct shape_engine **ret);
void shape_engine_free(struct shape_engine *e);

void shape_engine_submit(struct shape_engine *e, const struct shape_io *io, struct shape_verdict *ret);
/* result: bytes or 0 on success, -errno on failure (of the backing call or injected). */
void shape_engine_complete(struct shape_engine *e, const struct shape_io *io,
			   const struct shape_verdict *v, int64_t result);

int shape_engine_crash(struct shape_engine *e);
int shape_engine_recover(struct shape_engine *e);
bool shape_engine_crashed(struct shape_engine *e);
/*
 * An injected fsync/fdatasync error on file_key: its unsynced ranges, which
 * the daemon puts back to their synced content (shape_journal_drop_unsynced).
 */
int shape_engine_drop_unsynced(struct shape_engine *e, uint64_t file_key,
			       struct shape_discard **ret, size_t *ret_n);
/* The discard plan of the last crash (then forgotten); *ret NULL when empty. */
void shape_engine_take_plan(struct shape_engine *e, struct shape_discard **ret, size_t *ret_n);

/* {"crashed", "crashes", "rules": [...], "models": [...], "faults": [...]} */
struct json_object *shape_engine_stats_json(struct shape_engine *e);

#endif
