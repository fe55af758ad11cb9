/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SQL of the TPC-H-derived schema: the eight tables with the
 * specification's columns and types (keys as integer, order keys bigint so
 * that large scale factors fit), then the statements of the `keys` phase in
 * the order they run: primary keys, secondary indexes, foreign keys.
 */
#ifndef DSS_SCHEMA_H
#define DSS_SCHEMA_H

#include "pgload/dss/gen.h"

enum dss_key_kind { DSS_KEY_PRIMARY, DSS_KEY_INDEX, DSS_KEY_FOREIGN };

struct dss_key_stmt {
	enum dss_key_kind kind;
	const char *name;  /* constraint or index name */
	const char *sql;
};

/* CREATE TABLE for table t (without keys). */
const char *dss_schema_create(enum dss_table t);
/* The keys phase, in order; *ret_n statements. */
const struct dss_key_stmt *dss_schema_keys(unsigned *ret_n);
/* "primary key", "index", "foreign key". */
const char *dss_key_kind_name(enum dss_key_kind k);

#endif
