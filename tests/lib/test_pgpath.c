/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgpath: every PostgreSQL file name we recognise, checked field by field,
 * and the names that look close but PostgreSQL never writes.  The relation
 * names come from a PostgreSQL 15 cluster (initdb, CREATE TABLE/INDEX,
 * CREATE TABLESPACE, a temporary table and a spilling sort).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/pgpath.h"
#include "tests/cu_main.h"

#define VER "PG_15_202209061"
#define TS "pg_tblspc/16384/" VER

#define D DUT_PG_ROOT_DATADIR
#define T DUT_PG_ROOT_TABLESPACE
#define W DUT_PG_ROOT_WALDIR
#define A DUT_PG_ROOT_AUTO

struct row {
	enum dut_pg_root root;
	uint32_t ts_arg;
	const char *path;
	struct dut_pg_file want;
};

/* Expected structs, with every field named. */
#define REL(db, ts, rfn, fork, seg) \
	{ DUT_PG_REL, DUT_PG_FORK_##fork, db, ts, rfn, seg, 0, 0, 0 }
#define TREL(db, ts, be, rfn, fork, seg) \
	{ DUT_PG_TEMP_REL, DUT_PG_FORK_##fork, db, ts, rfn, seg, be, 0, 0 }
#define TFILE(ts) { DUT_PG_TEMP_FILE, DUT_PG_FORK_NONE, 0, ts, 0, 0, 0, 0, 0 }
#define WAL(tli, segno) { DUT_PG_WAL, DUT_PG_FORK_NONE, 0, 0, 0, 0, 0, tli, segno }
#define ONLY(cls) { DUT_PG_##cls, DUT_PG_FORK_NONE, 0, 0, 0, 0, 0, 0, 0 }

static const struct row rows[] = {
	/* --- data directory: relations in pg_default --- */
	{ D, 0, "base/5/16385", REL(5, 1663, 16385, MAIN, 0) },
	{ D, 0, "base/5/16385_fsm", REL(5, 1663, 16385, FSM, 0) },
	{ D, 0, "base/5/16385_vm", REL(5, 1663, 16385, VM, 0) },
	{ D, 0, "base/5/16392_init", REL(5, 1663, 16392, INIT, 0) },
	{ D, 0, "base/5/16385.1", REL(5, 1663, 16385, MAIN, 1) },
	{ D, 0, "base/5/16385_vm.3", REL(5, 1663, 16385, VM, 3) },
	{ D, 0, "base/5/16385_fsm.12", REL(5, 1663, 16385, FSM, 12) },
	{ D, 0, "base/1/1259", REL(1, 1663, 1259, MAIN, 0) },
	{ D, 0, "base/4294967295/4294967295.4294967295",
	  REL(4294967295u, 1663, 4294967295u, MAIN, 4294967295u) },
	{ D, 0, "/base/5/16385", REL(5, 1663, 16385, MAIN, 0) },
	{ D, 0, "./base/5/16385", REL(5, 1663, 16385, MAIN, 0) },
	{ D, 0, "//.//base/5/16385", REL(5, 1663, 16385, MAIN, 0) },
	/* shared catalogs */
	{ D, 0, "global/1262", REL(0, 1664, 1262, MAIN, 0) },
	{ D, 0, "global/1262_vm", REL(0, 1664, 1262, VM, 0) },
	{ D, 0, "global/1213_fsm", REL(0, 1664, 1213, FSM, 0) },
	{ D, 0, "global/pg_control", ONLY(CONTROL) },
	{ D, 0, "global/pg_filenode.map", ONLY(CONFIG) },
	{ D, 0, "global/pg_internal.init", ONLY(CONFIG) },
	{ D, 0, "global/t3_1262", ONLY(OTHER) },
	{ D, 0, "global", ONLY(OTHER) },
	{ D, 0, "global/1262/x", ONLY(OTHER) },
	/* small state files in a database directory */
	{ D, 0, "base/5/PG_VERSION", ONLY(CONFIG) },
	{ D, 0, "base/5/pg_filenode.map", ONLY(CONFIG) },
	{ D, 0, "base/5/pg_filenode.map.tmp", ONLY(CONFIG) },
	{ D, 0, "base/5/pg_internal.init", ONLY(CONFIG) },
	{ D, 0, "base/5/pg_internal.init.4711", ONLY(CONFIG) },
	{ D, 0, "base/5/pg_internal.init.x", ONLY(OTHER) },
	{ D, 0, "base/5/pg_internal.initx", ONLY(OTHER) },
	/* temporary relations */
	{ D, 0, "base/5/t3_16401", TREL(5, 1663, 3, 16401, MAIN, 0) },
	{ D, 0, "base/5/t3_16401_fsm", TREL(5, 1663, 3, 16401, FSM, 0) },
	{ D, 0, "base/5/t3_16404.2", TREL(5, 1663, 3, 16404, MAIN, 2) },
	{ D, 0, "base/5/t0_16404", TREL(5, 1663, 0, 16404, MAIN, 0) },
	{ D, 0, "base/5/t2147483647_1", TREL(5, 1663, 2147483647, 1, MAIN, 0) },
	{ D, 0, "base/5/t2147483648_1", ONLY(OTHER) },
	{ D, 0, "base/5/t03_16404", ONLY(OTHER) },
	{ D, 0, "base/5/t_16404", ONLY(OTHER) },
	{ D, 0, "base/5/t3_", ONLY(OTHER) },
	{ D, 0, "base/5/t3_0", ONLY(OTHER) },
	{ D, 0, "base/5/T3_16404", ONLY(OTHER) },
	/* temp files */
	{ D, 0, "base/pgsql_tmp", TFILE(1663) },
	{ D, 0, "base/pgsql_tmp/pgsql_tmp6679.0", TFILE(1663) },
	{ D, 0, "base/pgsql_tmp/pgsql_tmp6679.0.fileset", TFILE(1663) },
	{ D, 0, "base/pgsql_tmp/pgsql_tmp6679.0.fileset/i3of4.p0.0", TFILE(1663) },
	{ D, 0, "base/pgsql_tmp/pgsql_tmp6679.1.sharedfileset/o7of8.p1.0", TFILE(1663) },
	{ D, 0, "base/pgsql_tmp/pgsql_tmp6679.0/x", ONLY(OTHER) },
	{ D, 0, "base/pgsql_tmp/core", ONLY(OTHER) },
	{ D, 0, "base/pgsql_tmp/pgsql_tmp1.0.fileset/a/b", ONLY(OTHER) },
	/* relations and temp files in a tablespace */
	{ D, 0, TS "/5/16395", REL(5, 16384, 16395, MAIN, 0) },
	{ D, 0, TS "/5/16395_fsm.7", REL(5, 16384, 16395, FSM, 7) },
	{ D, 0, TS "/5/t4_16410_vm", TREL(5, 16384, 4, 16410, VM, 0) },
	{ D, 0, TS "/5/PG_VERSION", ONLY(CONFIG) },
	{ D, 0, TS "/pgsql_tmp/pgsql_tmp812.3", TFILE(16384) },
	{ D, 0, TS "/pgsql_tmp", TFILE(16384) },
	{ D, 0, "pg_tblspc/16384/PG_9.6_201608131/5/16395", REL(5, 16384, 16395, MAIN, 0) },
	{ D, 0, "pg_tblspc/16384/PG_17_202406281/5/16395", REL(5, 16384, 16395, MAIN, 0) },
	{ D, 0, "pg_tblspc/16384", ONLY(OTHER) },
	{ D, 0, TS, ONLY(OTHER) },
	{ D, 0, TS "/5", ONLY(OTHER) },
	{ D, 0, "pg_tblspc/0/" VER "/5/16395", ONLY(OTHER) },
	{ D, 0, "pg_tblspc/016384/" VER "/5/16395", ONLY(OTHER) },
	{ D, 0, "pg_tblspc/1663/" VER "/5/16395", ONLY(OTHER) },
	{ D, 0, "pg_tblspc/1664/" VER "/5/16395", ONLY(OTHER) },
	{ D, 0, "pg_tblspc/16384/PG_15/5/16395", ONLY(OTHER) },
	{ D, 0, "pg_tblspc/16384/PG_15_/5/16395", ONLY(OTHER) },
	{ D, 0, "pg_tblspc/16384/PG__1/5/16395", ONLY(OTHER) },
	{ D, 0, "pg_tblspc/16384/pg_15_202209061/5/16395", ONLY(OTHER) },
	{ D, 0, "pg_tblspc/16384/" VER "/5/6/16395", ONLY(OTHER) },
	/* WAL */
	{ D, 0, "pg_wal/000000010000000000000001", WAL(1, 1) },
	{ D, 0, "pg_wal/00000002000000A3000000FF", WAL(2, 0xA3000000FFull) },
	{ D, 0, "pg_wal/FFFFFFFFFFFFFFFFFFFFFFFF", WAL(0xFFFFFFFFu, UINT64_MAX) },
	{ D, 0, "pg_wal/000000010000000000000003.partial", WAL(1, 3) },
	{ D, 0, "pg_wal/00000002.history", ONLY(WAL_OTHER) },
	{ D, 0, "pg_wal/000000010000000000000002.00000028.backup", ONLY(WAL_OTHER) },
	{ D, 0, "pg_wal/archive_status", ONLY(WAL_OTHER) },
	{ D, 0, "pg_wal/archive_status/000000010000000000000001.ready", ONLY(WAL_OTHER) },
	{ D, 0, "pg_wal/archive_status/00000002.history.done", ONLY(WAL_OTHER) },
	{ D, 0, "pg_wal/xlogtemp.4242", ONLY(WAL_OTHER) },
	{ D, 0, "pg_wal", ONLY(WAL_OTHER) },
	{ D, 0, "pg_wal/000000010000000000000001x", ONLY(WAL_OTHER) },
	{ D, 0, "pg_wal/00000001000000000000000a", ONLY(WAL_OTHER) },
	{ D, 0, "pg_wal/summaries/0000000100000000010000000000000002000000.summary",
	  ONLY(WAL_OTHER) },
	/* SLRUs */
	{ D, 0, "pg_xact/0000", ONLY(XACT) },
	{ D, 0, "pg_xact/0A1F", ONLY(XACT) },
	{ D, 0, "pg_xact", ONLY(XACT) },
	{ D, 0, "pg_xact/000", ONLY(OTHER) },
	{ D, 0, "pg_xact/00ab", ONLY(OTHER) },
	{ D, 0, "pg_multixact/offsets/0000", ONLY(MULTIXACT) },
	{ D, 0, "pg_multixact/members/1A2B3", ONLY(MULTIXACT) },
	{ D, 0, "pg_multixact/members", ONLY(MULTIXACT) },
	{ D, 0, "pg_multixact", ONLY(MULTIXACT) },
	{ D, 0, "pg_multixact/other/0000", ONLY(OTHER) },
	{ D, 0, "pg_multixact/0000", ONLY(OTHER) },
	{ D, 0, "pg_subtrans/0000", ONLY(SLRU) },
	{ D, 0, "pg_commit_ts/0000", ONLY(SLRU) },
	{ D, 0, "pg_serial/0000", ONLY(SLRU) },
	{ D, 0, "pg_notify/0000", ONLY(SLRU) },
	{ D, 0, "pg_notify/000000000000ABC", ONLY(SLRU) },
	{ D, 0, "pg_notify/0000000000000ABC", ONLY(OTHER) },
	{ D, 0, "pg_subtrans/0000/x", ONLY(OTHER) },
	/* config and state files */
	{ D, 0, "postgresql.conf", ONLY(CONFIG) },
	{ D, 0, "postgresql.auto.conf", ONLY(CONFIG) },
	{ D, 0, "pg_hba.conf", ONLY(CONFIG) },
	{ D, 0, "pg_ident.conf", ONLY(CONFIG) },
	{ D, 0, "PG_VERSION", ONLY(CONFIG) },
	{ D, 0, "postmaster.opts", ONLY(CONFIG) },
	{ D, 0, "postmaster.pid", ONLY(CONFIG) },
	{ D, 0, "backup_label", ONLY(CONFIG) },
	{ D, 0, "standby.signal", ONLY(CONFIG) },
	{ D, 0, "base/postgresql.conf", ONLY(OTHER) },
	{ D, 0, "pg_stat/pgstat.stat", ONLY(OTHER) },
	{ D, 0, "pg_logical/replorigin_checkpoint", ONLY(OTHER) },
	/* not relations: what PostgreSQL never writes */
	{ D, 0, "base/5", ONLY(OTHER) },
	{ D, 0, "base", ONLY(OTHER) },
	{ D, 0, "base/16384/16385.x", ONLY(OTHER) },
	{ D, 0, "base/abc/1", ONLY(OTHER) },
	{ D, 0, "base/1/16385_fsm_vm", ONLY(OTHER) },
	{ D, 0, "base/1/16385_main", ONLY(OTHER) },
	{ D, 0, "base/1/16385.1_fsm", ONLY(OTHER) },
	{ D, 0, "base/1/0", ONLY(OTHER) },
	{ D, 0, "base/0/1", ONLY(OTHER) },
	{ D, 0, "base/1/4294967296", ONLY(OTHER) },
	{ D, 0, "base/1/99999999999", ONLY(OTHER) },
	{ D, 0, "base/4294967296/1", ONLY(OTHER) },
	{ D, 0, "base/1/16385.01", ONLY(OTHER) },
	{ D, 0, "base/1/16385.0", ONLY(OTHER) },
	{ D, 0, "base/1/16385.", ONLY(OTHER) },
	{ D, 0, "base/1/16385.4294967296", ONLY(OTHER) },
	{ D, 0, "base/1/016385", ONLY(OTHER) },
	{ D, 0, "base/1/+16385", ONLY(OTHER) },
	{ D, 0, "base/1/-1", ONLY(OTHER) },
	{ D, 0, "base/1/0x10", ONLY(OTHER) },
	{ D, 0, "base/1/16385 ", ONLY(OTHER) },
	{ D, 0, "base/ 1/16385", ONLY(OTHER) },
	{ D, 0, "base/1/16385\n", ONLY(OTHER) },
	{ D, 0, "base/1/16385\xc3\xa9", ONLY(OTHER) },
	{ D, 0, "base/1/16385_", ONLY(OTHER) },
	{ D, 0, "base/1/16385_FSM", ONLY(OTHER) },
	{ D, 0, "base/1/16385/", ONLY(OTHER) },
	{ D, 0, "base//1/16385", ONLY(OTHER) },
	{ D, 0, "base/./1/16385", ONLY(OTHER) },
	{ D, 0, "base/1/../1/16385", ONLY(OTHER) },
	{ D, 0, "base/1/16385/16386", ONLY(OTHER) },
	{ D, 0, "pgdata/base/5/1259", ONLY(OTHER) },
	{ D, 0, "/", ONLY(OTHER) },
	{ D, 0, ".", ONLY(OTHER) },
	{ D, 0, "..", ONLY(OTHER) },
	{ D, 0, "../base/5/1259", ONLY(OTHER) },
	{ D, 0, "a/b/c/d/e/f/g/h/i/j", ONLY(OTHER) },
	/* --- tablespace root --- */
	{ T, 16384, VER "/5/16395", REL(5, 16384, 16395, MAIN, 0) },
	{ T, 16384, "/" VER "/5/16395.2", REL(5, 16384, 16395, MAIN, 2) },
	{ T, 0, VER "/5/16395_init", REL(5, 0, 16395, INIT, 0) },
	{ T, 16384, VER "/5/t7_16410", TREL(5, 16384, 7, 16410, MAIN, 0) },
	{ T, 16384, VER "/pgsql_tmp/pgsql_tmp99.0", TFILE(16384) },
	{ T, 16384, VER "/5/pg_filenode.map", ONLY(CONFIG) },
	{ T, 16384, VER, ONLY(OTHER) },
	{ T, 16384, VER "/5", ONLY(OTHER) },
	{ T, 16384, "5/16395", ONLY(OTHER) },
	{ T, 16384, "base/5/16395", ONLY(OTHER) },
	{ T, 16384, "/", ONLY(OTHER) },
	/* --- WAL directory root (initdb --waldir) --- */
	{ W, 0, "000000010000000000000001", WAL(1, 1) },
	{ W, 0, "/0000000100000001000000FE", WAL(1, 0x1000000FEull) },
	{ W, 0, "000000030000000000000010.partial", WAL(3, 16) },
	{ W, 0, "00000003.history", ONLY(WAL_OTHER) },
	{ W, 0, "archive_status/000000010000000000000001.done", ONLY(WAL_OTHER) },
	{ W, 0, "archive_status", ONLY(WAL_OTHER) },
	{ W, 0, "xlogtemp.17", ONLY(WAL_OTHER) },
	{ W, 0, "whatever", ONLY(WAL_OTHER) },
	{ W, 0, "/", ONLY(WAL_OTHER) },
	{ W, 0, "pg_wal/000000010000000000000001", ONLY(WAL_OTHER) },
	{ W, 0, "a/b/c/d/e/f/g/h", ONLY(OTHER) },
	/* --- AUTO: anchors anywhere --- */
	{ A, 0, "base/5/1259", REL(5, 1663, 1259, MAIN, 0) },
	{ A, 0, "pgdata/base/5/1259", REL(5, 1663, 1259, MAIN, 0) },
	{ A, 0, "/srv/pg/15/main/base/5/1259_vm", REL(5, 1663, 1259, VM, 0) },
	{ A, 0, "data/global/1262", REL(0, 1664, 1262, MAIN, 0) },
	{ A, 0, "data/global/pg_control", ONLY(CONTROL) },
	{ A, 0, "data/" TS "/5/16395", REL(5, 16384, 16395, MAIN, 0) },
	{ A, 0, "data/" TS "/pgsql_tmp/pgsql_tmp1.0", TFILE(16384) },
	{ A, 0, "data/base/pgsql_tmp/pgsql_tmp1.0", TFILE(1663) },
	{ A, 0, "data/base/5/t3_16401", TREL(5, 1663, 3, 16401, MAIN, 0) },
	/* a tablespace location mounted on its own: tablespace unknown */
	{ A, 0, "mnt/ts1/" VER "/5/16395", REL(5, 0, 16395, MAIN, 0) },
	{ A, 0, VER "/5/16395.1", REL(5, 0, 16395, MAIN, 1) },
	{ A, 0, "ts/" VER "/pgsql_tmp/pgsql_tmp5.2", TFILE(0) },
	{ A, 0, "data/pg_wal/000000010000000000000001", WAL(1, 1) },
	{ A, 0, "data/pg_xact/0000", ONLY(XACT) },
	{ A, 0, "data/pg_multixact/members/0000", ONLY(MULTIXACT) },
	{ A, 0, "data/pg_serial/0000", ONLY(SLRU) },
	{ A, 0, "data/postgresql.conf", ONLY(CONFIG) },
	/* a separate WAL directory: only names that are WAL's own */
	{ A, 0, "000000010000000000000001", WAL(1, 1) },
	{ A, 0, "walmnt/wal/000000010000000000000002.partial", WAL(1, 2) },
	{ A, 0, "wal/00000002.history", ONLY(WAL_OTHER) },
	{ A, 0, "wal/archive_status/000000010000000000000001.ready", ONLY(WAL_OTHER) },
	{ A, 0, "wal/archive_status", ONLY(WAL_OTHER) },
	{ A, 0, "wal/xlogtemp.12", ONLY(WAL_OTHER) },
	{ A, 0, "wal/whatever", ONLY(OTHER) },
	{ A, 0, "archive_status/foo.ready", ONLY(OTHER) },
	{ A, 0, "data/base/5", ONLY(OTHER) },
	{ A, 0, "data/base/5/1259/", ONLY(OTHER) },
	{ A, 0, "data/base/5/01259", ONLY(OTHER) },
	{ A, 0, "5/1259", ONLY(OTHER) },
	{ A, 0, "../base/5/1259", REL(5, 1663, 1259, MAIN, 0) },
	{ A, 0, "x//base/5/1259", REL(5, 1663, 1259, MAIN, 0) },
	{ A, 0, "/", ONLY(OTHER) },
	{ A, 0, "..", ONLY(OTHER) },
};

static void format_file(const struct dut_pg_file *f, char *buf, size_t len)
{
	snprintf(buf, len, "{%s fork=%s db=%u ts=%u rfn=%u seg=%u be=%u tli=%u segno=%#llx}",
		 dut_pg_class_name(f->cls), dut_pg_fork_name(f->fork), f->db_oid,
		 f->tablespace_oid, f->relfilenode, f->segment, f->backend_id, f->timeline,
		 (unsigned long long)f->wal_segno);
}

static bool file_equal(const struct dut_pg_file *a, const struct dut_pg_file *b)
{
	return a->cls == b->cls && a->fork == b->fork && a->db_oid == b->db_oid &&
	       a->tablespace_oid == b->tablespace_oid && a->relfilenode == b->relfilenode &&
	       a->segment == b->segment && a->backend_id == b->backend_id &&
	       a->timeline == b->timeline && a->wal_segno == b->wal_segno;
}

static void test_classifies_path_table(void)
{
	static const char *const root_names[] = { "auto", "datadir", "tablespace", "waldir" };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		const struct row *rw = &rows[i];
		struct dut_pg_file got;
		char g[256], w[256];
		int r;

		memset(&got, 0xa5, sizeof(got));
		r = dut_pg_classify(rw->path, rw->root, rw->ts_arg, &got);
		CU_CHECK(r == 0, "row %zu %s \"%s\": ret %d", i, root_names[rw->root], rw->path, r);
		if (r)
			continue;
		format_file(&got, g, sizeof(g));
		format_file(&rw->want, w, sizeof(w));
		CU_CHECK(file_equal(&got, &rw->want), "row %zu %s \"%s\":\n    got  %s\n    want %s",
			 i, root_names[rw->root], rw->path, g, w);
	}
}

static void test_rejects_null_and_empty(void)
{
	static const struct {
		const char *path;
		enum dut_pg_root root;
	} bad[] = {
		{ NULL, DUT_PG_ROOT_DATADIR }, { "", DUT_PG_ROOT_DATADIR },
		{ NULL, DUT_PG_ROOT_AUTO },    { "", DUT_PG_ROOT_AUTO },
		{ "", DUT_PG_ROOT_WALDIR },    { "", DUT_PG_ROOT_TABLESPACE },
		{ "base/1/1", (enum dut_pg_root)7 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(bad); i++) {
		struct dut_pg_file f;
		int r;

		memset(&f, 0x5a, sizeof(f));
		r = dut_pg_classify(bad[i].path, bad[i].root, 0, &f);
		CU_CHECK(r == -EINVAL, "bad row %zu: ret %d, want -EINVAL", i, r);
		CU_CHECK(f.relfilenode == 0x5a5a5a5au, "bad row %zu: result written on error", i);
	}
	CU_ASSERT_EQUAL(dut_pg_classify("base/1/1", DUT_PG_ROOT_DATADIR, 0, NULL), -EINVAL);
}

/* Long paths: the classifier looks at a bounded number of components. */
static void test_handles_very_long_paths(void)
{
	const size_t reps = 20000;
	_cleanup_free_ char *p = malloc(reps * 2 + 64);
	struct dut_pg_file f;
	size_t n = 0;

	CU_ASSERT_FATAL(p != NULL);
	for (size_t i = 0; i < reps; i++) {
		p[n++] = 'a';
		p[n++] = '/';
	}
	strcpy(p + n, "base/5/16385_vm.2");
	CU_ASSERT_EQUAL(dut_pg_classify(p, DUT_PG_ROOT_AUTO, 0, &f), 0);
	CU_ASSERT_EQUAL(f.cls, DUT_PG_REL);
	CU_ASSERT_EQUAL(f.relfilenode, 16385);
	CU_ASSERT_EQUAL(f.fork, DUT_PG_FORK_VM);
	CU_ASSERT_EQUAL(f.segment, 2);
	CU_ASSERT_EQUAL(dut_pg_classify(p, DUT_PG_ROOT_DATADIR, 0, &f), 0);
	CU_ASSERT_EQUAL(f.cls, DUT_PG_OTHER);

	/* one very long component */
	memset(p, '7', reps * 2);
	p[reps * 2] = '\0';
	memcpy(p, "base/5/", 7);
	CU_ASSERT_EQUAL(dut_pg_classify(p, DUT_PG_ROOT_DATADIR, 0, &f), 0);
	CU_ASSERT_EQUAL(f.cls, DUT_PG_OTHER);
}

static void test_class_names_round_trip(void)
{
	static const char *const want[DUT_PG_CLASS_COUNT] = {
		"other", "rel", "temp_rel", "temp_file", "wal", "wal_other",
		"xact", "multixact", "slru", "control", "config",
	};

	for (unsigned i = 0; i < DUT_PG_CLASS_COUNT; i++) {
		const char *name = dut_pg_class_name((enum dut_pg_class)i);
		enum dut_pg_class back = DUT_PG_CLASS_COUNT;

		CU_CHECK(strcmp(name, want[i]) == 0, "class %u: name \"%s\", want \"%s\"", i, name,
			 want[i]);
		CU_CHECK(dut_pg_class_from_name(name, &back) == 0 && back == (enum dut_pg_class)i,
			 "class %u: \"%s\" does not parse back", i, name);
	}
	CU_ASSERT_STRING_EQUAL(dut_pg_class_name(DUT_PG_CLASS_COUNT), "unknown");
	CU_ASSERT_STRING_EQUAL(dut_pg_class_name((enum dut_pg_class)-1), "unknown");

	static const char *const bad[] = { "", "REL", "rel ", "unknown", "temp", NULL };
	for (size_t i = 0; i < DUT_ARRAY_SIZE(bad); i++) {
		enum dut_pg_class c = DUT_PG_REL;

		CU_CHECK(dut_pg_class_from_name(bad[i], &c) == -EINVAL && c == DUT_PG_REL,
			 "bad class name %zu \"%s\" accepted", i, bad[i] ? bad[i] : "(null)");
	}
}

static void test_fork_names(void)
{
	static const char *const want[DUT_PG_FORK_COUNT] = { "", "main", "fsm", "vm", "init" };

	for (unsigned i = 0; i < DUT_PG_FORK_COUNT; i++)
		CU_CHECK(strcmp(dut_pg_fork_name((enum dut_pg_fork)i), want[i]) == 0,
			 "fork %u: \"%s\", want \"%s\"", i, dut_pg_fork_name((enum dut_pg_fork)i),
			 want[i]);
	CU_ASSERT_STRING_EQUAL(dut_pg_fork_name(DUT_PG_FORK_COUNT), "unknown");
}

/* The file name PostgreSQL builds for a relation classifies back to it. */
static void test_relation_names_round_trip(void)
{
	static const uint32_t rfns[] = { 1, 1259, 16385, 4294967295u };
	static const uint32_t segs[] = { 0, 1, 9, 10, 32767 };
	static const char *const sfx[DUT_PG_FORK_COUNT] = { NULL, "", "_fsm", "_vm", "_init" };

	for (size_t a = 0; a < DUT_ARRAY_SIZE(rfns); a++)
		for (unsigned fk = DUT_PG_FORK_MAIN; fk < DUT_PG_FORK_COUNT; fk++)
			for (size_t s = 0; s < DUT_ARRAY_SIZE(segs); s++) {
				char path[128], seg[16] = "";
				struct dut_pg_file f;

				if (segs[s])
					snprintf(seg, sizeof(seg), ".%u", segs[s]);
				snprintf(path, sizeof(path), "base/16384/%u%s%s", rfns[a], sfx[fk], seg);
				CU_ASSERT_EQUAL_FATAL(dut_pg_classify(path, DUT_PG_ROOT_DATADIR, 0, &f), 0);
				CU_CHECK(f.cls == DUT_PG_REL && f.db_oid == 16384 &&
					 f.relfilenode == rfns[a] && f.fork == fk &&
					 f.segment == segs[s] && f.tablespace_oid == 1663,
					 "\"%s\" did not round-trip", path);
			}
}

static const struct cu_test tests[] = {
	{ "classifies_path_table", test_classifies_path_table },
	{ "rejects_null_and_empty", test_rejects_null_and_empty },
	{ "handles_very_long_paths", test_handles_very_long_paths },
	{ "class_names_round_trip", test_class_names_round_trip },
	{ "fork_names", test_fork_names },
	{ "relation_names_round_trip", test_relation_names_round_trip },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "pgpath", .tests = tests };
