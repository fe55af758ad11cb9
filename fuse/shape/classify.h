/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The class of a file for rule matching, by the rules of lib/io_class.h (the
 * report's classes, docs/relmap-format.md "Report classes"): lib/pgpath names
 * the file, the caller's relkind callback (a relation map lookup) gives a
 * relation's kind; without one a main fork is heap.
 */
#ifndef DUTFS_SHAPE_CLASSIFY_H
#define DUTFS_SHAPE_CLASSIFY_H

#include <stdint.h>

#include "fuse/shape/shape.h"
#include "lib/relmap.h"

struct shape_classifier {
	/* 0 with the relation's kind in *ret, or -ENOENT when it is not known (-> heap).  May be NULL. */
	int (*relkind)(void *ctx, uint32_t tablespace_oid, uint32_t db_oid, uint32_t relfilenode,
		       enum relmap_kind *ret);
	void *ctx;
};

/* path relative to the mount root; c may be NULL (no relation map). */
enum shape_class shape_classify(const struct shape_classifier *c, const char *path);

#endif
