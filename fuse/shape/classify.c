/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fuse/shape/classify.h"
#include "lib/pgpath.h"

enum shape_class shape_classify(const struct shape_classifier *c, const char *path)
{
	struct dut_pg_file pg;
	enum shape_class cls;

	if (!path || dut_pg_classify(path, DUT_PG_ROOT_AUTO, 0, &pg) < 0)
		return SHAPE_CLASS_OTHER;
	switch (pg.cls) {
	case DUT_PG_REL:
		if (pg.fork == DUT_PG_FORK_FSM)
			return SHAPE_CLASS_FSM;
		if (pg.fork == DUT_PG_FORK_VM)
			return SHAPE_CLASS_VM;
		if (c && c->relkind &&
		    c->relkind(c->ctx, pg.tablespace_oid, pg.db_oid, pg.relfilenode, &cls) == 0 &&
		    (unsigned)cls < SHAPE_CLASS_COUNT)
			return cls;
		return SHAPE_CLASS_HEAP;
	case DUT_PG_TEMP_REL:
	case DUT_PG_TEMP_FILE:
		return SHAPE_CLASS_TEMP;
	case DUT_PG_WAL:
	case DUT_PG_WAL_OTHER:
		return SHAPE_CLASS_WAL;
	case DUT_PG_XACT:
	case DUT_PG_MULTIXACT:
	case DUT_PG_SLRU:
		return SHAPE_CLASS_SLRU;
	default:
		return SHAPE_CLASS_OTHER;
	}
}
