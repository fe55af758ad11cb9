/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The relation map of `pgload dss --relmap`: the OLTP half's snapshots, as dss ops. */
#include <stdlib.h>

#include "lib/log.h"
#include "pgload/pgconn.h"
#include "pgload/session.h"

static void *rm_open(void)
{
	struct pgl_relmap *m = calloc(1, sizeof(*m));

	if (m)
		pgl_relmap_init(m);
	return m;
}

static void rm_snapshot(void *ctx, const char *conninfo, PGconn *c, const char *when)
{
	struct dut_error e = { "" };

	if (PQstatus(c) == CONNECTION_OK && pgl_pq_relmap_snapshot(conninfo, c, ctx, &e) < 0)
		dut_warn("dss: relation snapshot after %s: %s", when, e.msg);
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
