/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The relation map of `pgload dss --relmap`: the OLTP half's snapshots, as dss ops.  Prints nothing. */
#include <stdlib.h>

#include "pgload/pgconn.h"
#include "pgload/session.h"

static void *rm_open(void)
{
	struct pgl_relmap *m = calloc(1, sizeof(*m));

	if (m)
		pgl_relmap_init(m);
	return m;
}

static int rm_snapshot(void *ctx, const char *conninfo, PGconn *c, struct dut_error *err)
{
	if (PQstatus(c) != CONNECTION_OK)
		return 0;       /* the phase's own error says why */
	return pgl_pq_relmap_snapshot(conninfo, c, ctx, err);
}

static int rm_save(void *ctx, const char *path, struct dut_error *err)
{
	return pgl_relmap_save(ctx, path, err);
}

static void rm_close(void *ctx)
{
	pgl_relmap_free(ctx);
	free(ctx);
}

const struct dss_relmap_ops pgl_dss_relmap_ops = {
	.open = rm_open,
	.snapshot = rm_snapshot,
	.save = rm_save,
	.close = rm_close,
};
