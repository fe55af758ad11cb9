/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lost unsynced data: which written ranges a crash discards.
 *
 * Per file, the journal keeps the byte ranges written since its last
 * fsync/fdatasync (merged, sorted), and the writes still in flight.  At a
 * crash it produces a discard plan: the ranges whose content must go back
 * to what it was at the last sync.
 *   - completed unsynced extents: each is lost with probability lose_pct
 *     (100%: everything since the last fsync is lost);
 *   - writes in flight: torn at sector granularity (struct shape_loss):
 *     none -> the whole write is lost; prefix -> its first k sectors
 *     persist, k uniform in 0..n; random -> each sector persists with
 *     probability 1/2.  Sectors are device-aligned (offset / sector).
 *   - with a grain, the loss of completed extents is drawn per grain-aligned
 *     piece instead of per extent (an out-of-order subset survives).
 *
 * Keeping the bytes is the daemon's part: before a journaled write it
 * saves the range's current content (a pre-image) unless the range is
 * already unsynced; on fsync it drops the file's pre-images; at a crash it
 * writes the pre-images of the plan's ranges back (or punches a hole where
 * the file had no data).  When a file holds more than
 * SHAPE_JOURNAL_MAX_EXTENTS extents the two closest merge, so a range may
 * cover bytes that were not written: their pre-image is their current
 * content, so restoring it is harmless.
 *
 * Thread-safe (one lock).
 */
#ifndef DUTFS_SHAPE_JOURNAL_H
#define DUTFS_SHAPE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fuse/shape/fault.h"

#define SHAPE_JOURNAL_MAX_EXTENTS 4096u
#define SHAPE_JOURNAL_MAX_INFLIGHT 65536u

struct shape_loss {
	double lose_pct;
	enum shape_torn torn;
	uint32_t sector;
	/*
	 * 0: each completed extent is lost or kept whole.  Otherwise each
	 * grain-aligned piece of it is lost with probability lose_pct on its
	 * own, so what survives of an fsync epoch is any subset of its pages,
	 * not only a prefix (persistence out of order).
	 */
	uint64_t grain;
};

struct shape_discard {
	uint64_t file_key;
	uint64_t offset, len;
};

struct shape_journal;

int shape_journal_new(uint64_t seed, struct shape_journal **ret);
void shape_journal_free(struct shape_journal *j);

/* A journaled write starts: remember it as in flight.  -ENOSPC when too many are. */
int shape_journal_write_begin(struct shape_journal *j, uint64_t key, uint64_t offset,
			      uint64_t len, const struct shape_loss *loss, uint64_t *ret_token);
/* It finished: written > 0 bytes become unsynced (from its offset); 0 or an error: nothing. */
void shape_journal_write_end(struct shape_journal *j, uint64_t token, uint64_t written);
/* fsync/fdatasync of the file succeeded: nothing of it is unsynced any more. */
void shape_journal_sync(struct shape_journal *j, uint64_t key);
/*
 * fsync/fdatasync of the file failed (an injected EIO): as Linux does after a
 * writeback error, what it should have made durable is dropped, not kept
 * for the next fsync.  Returns the file's unsynced ranges (sorted, disjoint;
 * *ret malloc'ed, NULL when n is 0) for the daemon to put the synced content
 * back, and forgets them, so a later successful fsync does not make them
 * durable.  Writes of the file still in flight are not part of it: they
 * start a new epoch when they end.
 */
int shape_journal_drop_unsynced(struct shape_journal *j, uint64_t key,
				struct shape_discard **ret, size_t *ret_n);
/* The file was truncated: unsynced bytes past size no longer exist. */
void shape_journal_truncate(struct shape_journal *j, uint64_t key, uint64_t size);
/* The file was unlinked. */
void shape_journal_forget(struct shape_journal *j, uint64_t key);
/* Unsynced bytes of one file (tests, stats). */
uint64_t shape_journal_unsynced_bytes(struct shape_journal *j, uint64_t key);

/*
 * The crash: the discard plan, sorted by (file_key, offset), adjacent and
 * overlapping ranges merged; then the journal is empty (in-flight writes
 * included: the daemon fails them).  *ret is malloc'ed (NULL when n is 0).
 */
int shape_journal_crash(struct shape_journal *j, struct shape_discard **ret, size_t *ret_n);

#endif
