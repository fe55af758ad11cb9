/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pre-images of unsynced writes: what a file held at its last successful
 * fsync/fdatasync, for the byte ranges written since (docs/shaping.md,
 * "Crash and unsynced data").
 *
 * Before a journaled write the shaper saves the bytes of the range that have
 * no pre-image yet (the first save after a sync wins: it is the synced
 * content).  Bytes past the end of file at that moment are saved as "no
 * data".  A successful fsync/fdatasync drops the file's pre-images, a
 * truncate clips them, an unlink forgets them.  At a crash, restore() puts
 * the pre-images of the discard plan back: data is written back, "no data"
 * becomes a hole, and a file whose whole tail past its synced size is
 * discarded is truncated back to that size.  Plan bytes without a pre-image
 * (a write that raced an fsync of the same file) are left as they are: the
 * store never writes anything but synced content, so committed data is
 * never lost.
 *
 * Memory: at most max_bytes of saved data (the mount option default is
 * DUTFS_PREIMAGE_MAX_DEFAULT).  A write whose pre-image would exceed it is
 * refused with ENOSPC (counted; the daemon logs the first one), so a crash
 * can always undo every write that was accepted.
 *
 * Each file with pre-images holds a reference on its dutfs_inode, so its
 * O_PATH fd stays valid until the pre-images are dropped.
 *
 * Thread-safe: one lock; saves read the backing file under it, which also
 * orders two writes racing for the same new range.
 */
#ifndef DUTFS_PREIMAGE_H
#define DUTFS_PREIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "fuse/shape/journal.h"

#define DUTFS_PREIMAGE_MAX_DEFAULT (512ull << 20)

struct dutfs;
struct dutfs_inode;
struct dutfs_preimages;

struct dutfs_preimage_stats {
	uint64_t bytes;            /* saved data held now */
	uint64_t files;            /* files with pre-images now */
	uint64_t max_bytes;
	uint64_t refused_writes;   /* writes refused with ENOSPC at the bound */
	uint64_t save_errors;      /* writes refused because the backing read failed */
	/* the last crash */
	uint64_t restored_bytes;   /* written back */
	uint64_t hole_bytes;       /* punched (no data at the last sync) */
	uint64_t truncated_files;  /* cut back to their synced size */
	uint64_t missing_bytes;    /* planned but without a pre-image: left as they are */
	uint64_t restore_errors;   /* failed write-backs (logged) */
};

int dutfs_preimages_new(struct dutfs *fs, uint64_t max_bytes, struct dutfs_preimages **ret);
/* Drops everything (inode references too). */
void dutfs_preimages_free(struct dutfs_preimages *p);

/* Before a journaled write of [offset, offset + len) to file key: -ENOSPC, -errno. */
int dutfs_preimages_save(struct dutfs_preimages *p, uint64_t key, struct dutfs_inode *in,
			 uint64_t offset, uint64_t len);
/* The file was fsync'ed, truncated, unlinked. */
void dutfs_preimages_drop(struct dutfs_preimages *p, uint64_t key);
void dutfs_preimages_truncate(struct dutfs_preimages *p, uint64_t key, uint64_t size);

/*
 * Apply a crash plan (sorted by key and offset, as shape_journal_crash
 * makes it), then drop every pre-image.  Returns the first error (the
 * others are counted); err_key tells which file failed first.
 */
int dutfs_preimages_restore(struct dutfs_preimages *p, const struct shape_discard *plan,
			    size_t n);
/*
 * An fsync of file key failed (injected EIO): put its synced content back
 * over plan[0..n) (the file's ranges, sorted), keeping its size (bytes that
 * had no data read as zeros, as a lost extending write does on Linux) and
 * its pre-images (they equal the content now, so a later crash restoring
 * them again is harmless).  The last crash's counters are not touched.
 * Returns the first error; *ret_bytes is how many bytes went back.
 */
int dutfs_preimages_restore_file(struct dutfs_preimages *p, uint64_t key,
				 const struct shape_discard *plan, size_t n, uint64_t *ret_bytes);
void dutfs_preimages_clear(struct dutfs_preimages *p);
void dutfs_preimages_stats(struct dutfs_preimages *p, struct dutfs_preimage_stats *ret);

#endif
