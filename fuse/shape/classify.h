/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The class of a file for rule matching (docs/relmap-format.md, "Report classes"):
 * lib/pgpath names the file; a relation's main fork is heap unless the
 * caller's relkind callback (a relation map lookup) says index or toast.
 * _fsm and _vm forks are fsm and vm whatever the relation.
 */
#ifndef DUTFS_SHAPE_CLASSIFY_H
#define DUTFS_SHAPE_CLASSIFY_H

#include <stdint.h>

#include "fuse/shape/shape.h"

struct shape_classifier {
	/* 0 with *ret set, or -ENOENT when the relation is not known (-> heap).  May be NULL. */
	int (*relkind)(void *ctx, uint32_t tablespace_oid, uint32_t db_oid, uint32_t relfilenode,
		       enum shape_class *ret);
	void *ctx;
};

/* path relative to the mount root; c may be NULL (no relation map). */
enum shape_class shape_classify(const struct shape_classifier *c, const char *path);

#endif
