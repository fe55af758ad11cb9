/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Plan fingerprints.  A query's EXPLAIN (FORMAT JSON) document is reduced
 * to its shape: per node, the node type and the attributes that name what
 * the plan does (join type, aggregate strategy, parent relationship,
 * sub-plan and CTE names, relation, alias, index, scan direction, set
 * operation), children in order, so the join order is part of it.  Costs,
 * row estimates, widths, worker counts, filter and key expressions are left
 * out: a fingerprint changes when the plan changes shape, not when the
 * statistics move the estimates or the parameters change a constant.
 *
 * The canonical string looks like
 *   Sort(Hash Join{Join Type=Inner}(Seq Scan{Relation Name=orders,...},Hash(...)))
 * and the fingerprint is its 64-bit FNV-1a hash.
 */
#ifndef DSS_PLAN_H
#define DSS_PLAN_H

#include <stdint.h>

#include "lib/error.h"

/* 64-bit FNV-1a of len bytes. */
uint64_t dss_fnv1a64(const void *data, size_t len);

/*
 * Reduce an EXPLAIN (FORMAT JSON) document (an array of one object with a
 * "Plan") to the canonical string (*ret_canon, malloc'ed) and its
 * fingerprint.  -EINVAL with err set when the text is not such a document,
 * -ENOMEM.
 */
int dss_plan_fingerprint(const char *explain_json, uint64_t *ret_fp, char **ret_canon,
			 struct dut_error *err);

#endif
