/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Path bookkeeping for dutfs (pure: no I/O).
 *
 * Every inode dutfs knows carries a struct dutfs_pnode: its parent and the
 * name it was last seen under.  The trace file table and stats.json need the
 * path of a file relative to the mount root; the FUSE protocol only gives
 * (parent inode, name) pairs, so the path is rebuilt by walking parents.
 * Renames move a node; an unlinked node keeps its last name (its file id
 * already carries the path).  Locking is the caller's: dutfs holds its inode
 * table lock around every call.
 */
#ifndef DUTFS_PATHS_H
#define DUTFS_PATHS_H

#include <stdbool.h>
#include <stddef.h>

struct dutfs_pnode {
	struct dutfs_pnode *parent; /* NULL for the root */
	char *name;                 /* NULL for the root; owned */
};

/* A single path component dutfs accepts: non-empty, not "." or "..", no '/', <= NAME_MAX. */
bool dutfs_name_ok(const char *name);

/* Point n at (parent, name), copying name.  -ENOMEM leaves n unchanged. */
int dutfs_pnode_set(struct dutfs_pnode *n, struct dutfs_pnode *parent, const char *name);
void dutfs_pnode_clear(struct dutfs_pnode *n);

/*
 * Write the path of n relative to the root ("" for the root, "a/b" below it)
 * into buf.  -ENAMETOOLONG when it does not fit in size bytes (with the NUL),
 * -ELOOP when the parent chain is deeper than DUTFS_PNODE_MAX_DEPTH (a cycle).
 */
#define DUTFS_PNODE_MAX_DEPTH 4096
int dutfs_pnode_path(const struct dutfs_pnode *n, char *buf, size_t size);

/*
 * Is anc a proper ancestor of n (n lies below the directory anc)?  false
 * when the chain is deeper than DUTFS_PNODE_MAX_DEPTH.
 */
bool dutfs_pnode_below(const struct dutfs_pnode *n, const struct dutfs_pnode *anc);

/* path and dir are canonical absolute paths: is path dir itself or below it? */
bool dutfs_path_within(const char *path, const char *dir);

#endif
