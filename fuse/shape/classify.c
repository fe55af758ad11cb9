/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fuse/shape/classify.h"
#include "lib/io_class.h"
#include "lib/pgpath.h"

enum shape_class shape_classify(const struct shape_classifier *c, const char *path)
{
	struct dut_pg_file pg;
	enum relmap_kind kind = RELMAP_TABLE;
	bool known = false;

	if (!path || dut_pg_classify(path, DUT_PG_ROOT_AUTO, 0, &pg) < 0)
		return SHAPE_CLASS_OTHER;
	if (pg.cls == DUT_PG_REL && c && c->relkind)
		known = c->relkind(c->ctx, pg.tablespace_oid, pg.db_oid, pg.relfilenode, &kind) == 0 &&
			(unsigned)kind < RELMAP_KIND_COUNT;
	return (enum shape_class)dut_io_class_of_file(&pg, known, kind);
}
