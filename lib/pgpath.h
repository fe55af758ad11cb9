/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PostgreSQL file-name classification.
 *
 * Given a path relative to a data directory, a tablespace directory or a WAL
 * directory, say what PostgreSQL keeps there and extract the keys that later
 * join a trace to relation names: database OID, tablespace OID, relfilenode,
 * fork and segment.  Pure string work: no I/O.
 *
 * Recognised (PostgreSQL 12..17 layouts):
 *   base/<db>/<rfn>[_fsm|_vm|_init][.<seg>]        relation, tablespace 1663 (pg_default)
 *   global/<rfn>[...]                              relation, tablespace 1664 (pg_global), db 0
 *   pg_tblspc/<ts>/PG_<ver>_<catver>/<db>/<rfn>... relation in tablespace <ts>
 *   base/<db>/t<backend>_<rfn>[...]                temporary relation
 *   base/pgsql_tmp/..., pg_tblspc/<ts>/PG_<ver>_<catver>/pgsql_tmp/...
 *                                                  temp files (sorts, hashes)
 *   pg_wal/<24 hex>[.partial]                      WAL segment (timeline, segno)
 *   pg_wal/<8 hex>.history, pg_wal/archive_status/...  WAL other
 *   pg_xact/, pg_multixact/{offsets,members}/, pg_subtrans/, pg_commit_ts/,
 *   pg_serial/, pg_notify/                         SLRU
 *   global/pg_control                              control file
 *   postgresql.conf, postgresql.auto.conf, pg_hba.conf, pg_ident.conf,
 *   PG_VERSION, postmaster.opts                    config
 *   everything else                                other
 *
 * With DUT_PG_ROOT_AUTO the root is found by looking for these anchors
 * anywhere in the path, so a mount that holds the data directory one level
 * down ("pgdata/base/5/1259") still classifies.
 *
 * Details (lib/pgpath.c has the full list):
 *   - Names PostgreSQL never writes are OTHER: OID 0, leading zeros, OIDs
 *     above 4294967295, segment ".0", unknown fork suffixes, lower-case hex.
 *   - PG_VERSION, pg_filenode.map and pg_internal.init inside base/<db>/,
 *     global/ or a tablespace database directory are CONFIG, like
 *     postmaster.pid, backup_label, tablespace_map and the *.signal files
 *     at the top of the data directory.
 *   - Everything under pg_wal/ (or the WAL directory root) is WAL or
 *     WAL_OTHER (xlogtemp.<pid>, a segment being created, is WAL_OTHER).
 *   - db_oid is set for REL and TEMP_REL; tablespace_oid for REL, TEMP_REL
 *     and TEMP_FILE; every other field is 0 when it does not apply.
 *   - Paths with empty, "." or ".." components are OTHER (not normalised);
 *     "/" alone is the root directory: OTHER (WAL_OTHER for WALDIR).
 */
#ifndef DUT_PGPATH_H
#define DUT_PGPATH_H

#include <stdbool.h>
#include <stdint.h>

enum dut_pg_root {
	DUT_PG_ROOT_AUTO = 0,   /* find the anchor in the path */
	DUT_PG_ROOT_DATADIR,    /* path is relative to PGDATA */
	DUT_PG_ROOT_TABLESPACE, /* relative to a tablespace location (holds PG_<ver>_<cat>/) */
	DUT_PG_ROOT_WALDIR,     /* relative to pg_wal (or initdb --waldir) */
};

enum dut_pg_class {
	DUT_PG_OTHER = 0,
	DUT_PG_REL,         /* relation data file, any fork */
	DUT_PG_TEMP_REL,    /* temporary relation t<backend>_<rfn> */
	DUT_PG_TEMP_FILE,   /* pgsql_tmp spill files */
	DUT_PG_WAL,         /* WAL segment */
	DUT_PG_WAL_OTHER,   /* .history, archive_status, ... */
	DUT_PG_XACT,        /* pg_xact (clog) */
	DUT_PG_MULTIXACT,   /* pg_multixact offsets and members */
	DUT_PG_SLRU,        /* other SLRUs: subtrans, commit_ts, serial, notify */
	DUT_PG_CONTROL,     /* global/pg_control */
	DUT_PG_CONFIG,      /* config and small state files */
	DUT_PG_CLASS_COUNT
};

enum dut_pg_fork {
	DUT_PG_FORK_NONE = 0, /* not a relation file */
	DUT_PG_FORK_MAIN,
	DUT_PG_FORK_FSM,
	DUT_PG_FORK_VM,
	DUT_PG_FORK_INIT,
	DUT_PG_FORK_COUNT
};

#define DUT_PG_DEFAULTTABLESPACE_OID 1663u
#define DUT_PG_GLOBALTABLESPACE_OID 1664u

struct dut_pg_file {
	enum dut_pg_class cls;
	enum dut_pg_fork fork;
	uint32_t db_oid;          /* 0 for global relations and non-relations */
	uint32_t tablespace_oid;  /* 1663, 1664, the pg_tblspc OID, or 0 (unknown) */
	uint32_t relfilenode;     /* 0 when not a relation */
	uint32_t segment;         /* .N suffix; 0 for the first segment */
	uint32_t backend_id;      /* temp relations: the t<N> part */
	uint32_t timeline;        /* WAL segments */
	uint64_t wal_segno;       /* WAL segments: log * 2^32/segsize + seg, as printed (log<<32 | seg) */
};

/*
 * Classify path (relative; a leading "./" or "/" is ignored).  For
 * DUT_PG_ROOT_TABLESPACE, tablespace_oid is recorded in the result (pass 0
 * when unknown); it is ignored for the other roots.  Returns 0, or -EINVAL
 * for an empty or NULL path.  Unknown names are not errors: they are
 * DUT_PG_OTHER.
 */
int dut_pg_classify(const char *path, enum dut_pg_root root, uint32_t tablespace_oid,
		    struct dut_pg_file *ret);

/* "rel", "temp_rel", "temp_file", "wal", "wal_other", "xact", "multixact", "slru", "control", "config", "other" */
const char *dut_pg_class_name(enum dut_pg_class cls);
int dut_pg_class_from_name(const char *name, enum dut_pg_class *ret);
/* "", "main", "fsm", "vm", "init" */
const char *dut_pg_fork_name(enum dut_pg_fork fork);

#endif
