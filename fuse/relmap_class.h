/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A shaping classifier (fuse/shape/classify.h) backed by a relation map
 * (docs/relmap-format.md, parsed by lib/relmap.c): a relation's main fork
 * is heap, index or toast by the relation's kind.
 *   table, matview, sequence, other -> heap;  index -> index;
 *   toast, toast_index -> toast.
 * A relfilenode the map does not know is heap (classify.c's default).  When
 * the map holds a relfilenode several times (history), the entry whose
 * first/last_seen window contains the lookup time wins, else the last one.
 */
#ifndef DUTFS_RELMAP_CLASS_H
#define DUTFS_RELMAP_CLASS_H

#include "fuse/shape/classify.h"
#include "lib/error.h"

/* Load path; *ret gets relkind and ctx (the map).  err says what is wrong with the file. */
int dutfs_relmap_class_load(const char *path, struct shape_classifier *ret, struct dut_error *err);
/* Free the map behind c (c->ctx); c may be zeroed (no map). */
void dutfs_relmap_class_free(struct shape_classifier *c);

#endif
