/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the PostgreSQL file-name classifier.  The first byte
 * picks the root (and a tablespace OID), the rest is the path.  Checks the
 * invariants every consumer relies on, and that a relation's canonical
 * name classifies back to the same key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pgpath.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "invariant failed: %s (path \"%s\")\n", #cond, path); \
			abort();                                                 \
		}                                                                \
	} while (0)

static int same(const struct dut_pg_file *a, const struct dut_pg_file *b)
{
	return a->cls == b->cls && a->fork == b->fork && a->db_oid == b->db_oid &&
	       a->tablespace_oid == b->tablespace_oid && a->relfilenode == b->relfilenode &&
	       a->segment == b->segment && a->backend_id == b->backend_id &&
	       a->timeline == b->timeline && a->wal_segno == b->wal_segno;
}

static void check_invariants(const char *path, const struct dut_pg_file *f)
{
	static const char *const forks[] = { NULL, "", "_fsm", "_vm", "_init" };
	enum dut_pg_class back;
	char canon[160], name[64], seg[16] = "";
	struct dut_pg_file g;

	CHECK((unsigned)f->cls < DUT_PG_CLASS_COUNT && (unsigned)f->fork < DUT_PG_FORK_COUNT);
	CHECK(dut_pg_class_from_name(dut_pg_class_name(f->cls), &back) == 0 && back == f->cls);
	if (f->cls == DUT_PG_REL || f->cls == DUT_PG_TEMP_REL) {
		CHECK(f->relfilenode != 0 && f->fork != DUT_PG_FORK_NONE);
		CHECK(f->timeline == 0 && f->wal_segno == 0);
		CHECK(f->cls == DUT_PG_TEMP_REL || f->backend_id == 0);
		CHECK(f->cls == DUT_PG_REL || f->db_oid != 0);
		/* global relations, and only they, have db 0 in pg_global */
		CHECK((f->db_oid == 0) == (f->tablespace_oid == DUT_PG_GLOBALTABLESPACE_OID));
		if (f->segment)
			snprintf(seg, sizeof(seg), ".%u", f->segment);
		if (f->cls == DUT_PG_TEMP_REL)
			snprintf(name, sizeof(name), "t%u_%u%s%s", f->backend_id, f->relfilenode,
				 forks[f->fork], seg);
		else
			snprintf(name, sizeof(name), "%u%s%s", f->relfilenode, forks[f->fork], seg);
		if (f->db_oid == 0)
			snprintf(canon, sizeof(canon), "global/%s", name);
		else if (f->tablespace_oid == DUT_PG_DEFAULTTABLESPACE_OID)
			snprintf(canon, sizeof(canon), "base/%u/%s", f->db_oid, name);
		else /* 0 (unknown) becomes some real tablespace */
			snprintf(canon, sizeof(canon), "pg_tblspc/%u/PG_15_202209061/%u/%s",
				 f->tablespace_oid ? f->tablespace_oid : 16384, f->db_oid, name);
		CHECK(dut_pg_classify(canon, DUT_PG_ROOT_DATADIR, 0, &g) == 0);
		CHECK(g.cls == f->cls && g.relfilenode == f->relfilenode && g.fork == f->fork &&
		      g.segment == f->segment && g.db_oid == f->db_oid &&
		      g.backend_id == f->backend_id);
		return;
	}
	CHECK(f->fork == DUT_PG_FORK_NONE && f->relfilenode == 0 && f->segment == 0 &&
	      f->db_oid == 0 && f->backend_id == 0);
	if (f->cls != DUT_PG_TEMP_FILE)
		CHECK(f->tablespace_oid == 0);
	if (f->cls != DUT_PG_WAL)
		CHECK(f->timeline == 0 && f->wal_segno == 0);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	enum dut_pg_root root;
	struct dut_pg_file f, g;
	uint32_t ts;
	char *path, *prefixed;
	int r;

	if (size < 1 || size > 4096)
		return 0;
	root = (enum dut_pg_root)(data[0] & 3);
	ts = data[0] >> 2; /* 0 = unknown tablespace */
	path = malloc(size);
	prefixed = malloc(size + 2);
	if (!path || !prefixed)
		abort();
	memcpy(path, data + 1, size - 1);
	path[size - 1] = '\0';

	r = dut_pg_classify(path, root, ts, &f);
	if (path[0] == '\0') {
		CHECK(r == -EINVAL);
		goto out;
	}
	CHECK(r == 0);
	check_invariants(path, &f);
	if (root == DUT_PG_ROOT_TABLESPACE && (f.cls == DUT_PG_REL || f.cls == DUT_PG_TEMP_REL ||
					       f.cls == DUT_PG_TEMP_FILE))
		CHECK(f.tablespace_oid == ts);
	/* deterministic, and a leading "./" or "/" changes nothing */
	CHECK(dut_pg_classify(path, root, ts, &g) == 0 && same(&f, &g));
	snprintf(prefixed, size + 2, "./%s", path);
	CHECK(dut_pg_classify(prefixed, root, ts, &g) == 0 && same(&f, &g));
	snprintf(prefixed, size + 2, "/%s", path);
	CHECK(dut_pg_classify(prefixed, root, ts, &g) == 0 && same(&f, &g));
out:
	free(prefixed);
	free(path);
	return 0;
}
