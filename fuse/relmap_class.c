/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "fuse/dutfs.h"
#include "fuse/relmap_class.h"
#include "lib/relmap.h"

static int relkind(void *ctx, uint32_t tablespace_oid, uint32_t db_oid, uint32_t relfilenode,
		   enum relmap_kind *ret)
{
	const struct relmap_rel *r = relmap_lookup(ctx, tablespace_oid, db_oid, relfilenode,
						   dutfs_now_ns());

	if (!r)
		return -ENOENT;
	*ret = r->kind;
	return 0;
}

int dutfs_relmap_class_load(const char *path, struct shape_classifier *ret, struct dut_error *err)
{
	struct relmap *m;
	int r = relmap_load(path, &m, err);

	if (r < 0)
		return r;
	*ret = (struct shape_classifier){ .relkind = relkind, .ctx = m };
	return 0;
}

void dutfs_relmap_class_free(struct shape_classifier *c)
{
	relmap_free(c->ctx);
	c->ctx = NULL;
	c->relkind = NULL;
}
