/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PostgreSQL file-name classification (see lib/pgpath.h).
 *
 * The rules follow what PostgreSQL itself writes, checked against a
 * PostgreSQL 15 cluster (initdb, a table with an index, an unlogged table,
 * a tablespace, a temporary table and a spilling sort):
 *
 *   - OIDs (database, tablespace, relfilenode) are printed with %u: decimal,
 *     1..4294967295, no sign, no leading zero.  Anything else is not an OID,
 *     so "base/1/0", "base/1/016385" and "base/1/4294967296" are OTHER.
 *   - A segment suffix is ".N" with N >= 1 printed with %u; segment 0 has no
 *     suffix, so "16385.0" and "16385.01" are OTHER.
 *   - Fork suffixes are "_fsm", "_vm" and "_init", before the segment.
 *   - Temporary relations are "t<backend>_<rfn>..." in a database directory;
 *     the backend number is printed with %d (0 is valid in PostgreSQL 17,
 *     where it is a proc number).
 *   - WAL and SLRU names are upper-case hex (%08X, %04X), as PostgreSQL's
 *     own IsXLogFileName() requires.
 *
 * Decisions (documented in the header too):
 *   - PG_VERSION, pg_filenode.map, pg_internal.init and their temporary
 *     siblings (pg_filenode.map.tmp, pg_internal.init.<pid>) inside a
 *     database directory or global/ are CONFIG ("small state files"), with
 *     db_oid 0 like every non-relation.
 *   - Everything at or below pg_wal/ (or the WAL directory root) is WAL or
 *     WAL_OTHER, including xlogtemp.<pid> (a new segment being zero-filled).
 *   - The pgsql_tmp directories and the entries in them whose names start
 *     with "pgsql_tmp" (files, and files one level down in *.fileset /
 *     *.sharedfileset directories) are TEMP_FILE; the SLRU directories and
 *     their hex-named segments are their SLRU class.
 *   - tablespace_oid is filled for REL, TEMP_REL and TEMP_FILE only.
 *   - Paths with empty, "." or ".." components (after the leading "./" and
 *     "/" are skipped) are OTHER: nothing is normalised.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/pgpath.h"

/* The deepest name we recognise: pg_tblspc/<ts>/PG_x_y/pgsql_tmp/<fileset>/<file>. */
#define MAX_COMPS 6

struct comp {
	const char *s;
	size_t n;
};

static bool comp_is(const struct comp *c, const char *lit)
{
	size_t n = strlen(lit);

	return c->n == n && memcmp(c->s, lit, n) == 0;
}

static bool comp_has_prefix(const struct comp *c, const char *lit)
{
	size_t n = strlen(lit);

	return c->n >= n && memcmp(c->s, lit, n) == 0;
}

static bool comp_has_suffix(const struct comp *c, const char *lit)
{
	size_t n = strlen(lit);

	return c->n >= n && memcmp(c->s + c->n - n, lit, n) == 0;
}

/*
 * Decimal as PostgreSQL prints it with %u: 1-10 digits, no leading zero
 * (except "0" itself), at most UINT32_MAX.  Parses s[0..n).
 */
static bool parse_dec(const char *s, size_t n, uint32_t *ret)
{
	uint64_t v = 0;

	if (n == 0 || n > 10 || (s[0] == '0' && n > 1))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*ret = (uint32_t)v;
	return true;
}

/* An OID: a %u decimal that is not InvalidOid (0). */
static bool parse_oid(const char *s, size_t n, uint32_t *ret)
{
	uint32_t v;

	if (!parse_dec(s, n, &v) || v == 0)
		return false;
	*ret = v;
	return true;
}

static size_t span_digits(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

static bool is_upper_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

static uint64_t hex_value(const char *s, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * 16 + (uint64_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'A' + 10);
	return v;
}

static const struct {
	const char *suffix;
	enum dut_pg_fork fork;
} fork_suffixes[] = {
	{ "_fsm", DUT_PG_FORK_FSM },
	{ "_vm", DUT_PG_FORK_VM },
	{ "_init", DUT_PG_FORK_INIT },
};

/*
 * "<rfn>[_fork][.<seg>]", or with temp "t<backend>_<rfn>[_fork][.<seg>]".
 * Fills relfilenode, fork, segment and backend_id of f.
 */
static bool parse_relfile(const struct comp *c, bool temp, struct dut_pg_file *f)
{
	const char *s = c->s, *end = c->s + c->n;
	size_t d;
	uint32_t backend = 0, rfn, seg = 0;
	enum dut_pg_fork fork = DUT_PG_FORK_MAIN;

	if (temp) {
		if (s == end || *s != 't')
			return false;
		s++;
		d = span_digits(s, (size_t)(end - s));
		if (!parse_dec(s, d, &backend) || backend > INT32_MAX)
			return false;
		s += d;
		if (s == end || *s != '_')
			return false;
		s++;
	}
	d = span_digits(s, (size_t)(end - s));
	if (!parse_oid(s, d, &rfn))
		return false;
	s += d;
	if (s < end && *s == '_') {
		size_t i;

		for (i = 0; i < sizeof(fork_suffixes) / sizeof(fork_suffixes[0]); i++) {
			size_t n = strlen(fork_suffixes[i].suffix);

			if ((size_t)(end - s) >= n && memcmp(s, fork_suffixes[i].suffix, n) == 0 &&
			    (s + n == end || s[n] == '.')) {
				fork = fork_suffixes[i].fork;
				s += n;
				break;
			}
		}
		if (i == sizeof(fork_suffixes) / sizeof(fork_suffixes[0]))
			return false;
	}
	if (s < end) {
		if (*s != '.')
			return false;
		s++;
		/* segment 0 has no suffix: ".0" is never written */
		if (!parse_oid(s, (size_t)(end - s), &seg))
			return false;
	}
	f->relfilenode = rfn;
	f->fork = fork;
	f->segment = seg;
	f->backend_id = backend;
	return true;
}

/* "PG_<major>_<catversion>"; majors before 10 were "9.6". */
static bool is_version_dir(const struct comp *c)
{
	const char *s = c->s, *end = c->s + c->n;
	size_t d;

	if (!comp_has_prefix(c, "PG_"))
		return false;
	s += 3;
	d = span_digits(s, (size_t)(end - s));
	if (d == 0)
		return false;
	s += d;
	if (s < end && *s == '.') {
		s++;
		d = span_digits(s, (size_t)(end - s));
		if (d == 0)
			return false;
		s += d;
	}
	if (s == end || *s != '_')
		return false;
	s++;
	d = span_digits(s, (size_t)(end - s));
	return d > 0 && s + d == end;
}

/* Small state files of a database directory or global/. */
static bool is_db_state_file(const struct comp *c)
{
	uint32_t pid;

	if (comp_is(c, "PG_VERSION") || comp_is(c, "pg_filenode.map") ||
	    comp_is(c, "pg_filenode.map.tmp") || comp_is(c, "pg_internal.init"))
		return true;
	/* relcache writes pg_internal.init.<pid> and renames it */
	return comp_has_prefix(c, "pg_internal.init.") &&
	       parse_dec(c->s + 17, c->n - 17, &pid);
}

static const char *const top_config_files[] = {
	"postgresql.conf", "postgresql.auto.conf", "postgresql.auto.conf.tmp",
	"pg_hba.conf", "pg_ident.conf", "PG_VERSION", "postmaster.opts",
	"postmaster.pid", "backup_label", "backup_label.old", "tablespace_map",
	"tablespace_map.old", "standby.signal", "recovery.signal", "current_logfiles",
};

static void set_class(struct dut_pg_file *f, enum dut_pg_class cls)
{
	memset(f, 0, sizeof(*f));
	f->cls = cls;
}

/* A file directly in a database directory <db> of tablespace ts. */
static void classify_db_file(const struct comp *c, uint32_t db, uint32_t ts,
			     struct dut_pg_file *f)
{
	struct dut_pg_file r = { 0 };

	if (parse_relfile(c, false, &r)) {
		r.cls = DUT_PG_REL;
	} else if (parse_relfile(c, true, &r)) {
		r.cls = DUT_PG_TEMP_REL;
	} else {
		set_class(f, is_db_state_file(c) ? DUT_PG_CONFIG : DUT_PG_OTHER);
		return;
	}
	r.db_oid = db;
	r.tablespace_oid = ts;
	*f = r;
}

/* c[0] is "pgsql_tmp". */
static void classify_temp_area(const struct comp *c, size_t n, uint32_t ts,
			       struct dut_pg_file *f)
{
	bool ok = n == 1 || (n == 2 && comp_has_prefix(&c[1], "pgsql_tmp")) ||
		  (n == 3 && comp_has_prefix(&c[1], "pgsql_tmp") &&
		   (comp_has_suffix(&c[1], ".fileset") || comp_has_suffix(&c[1], ".sharedfileset")));

	set_class(f, ok ? DUT_PG_TEMP_FILE : DUT_PG_OTHER);
	if (ok)
		f->tablespace_oid = ts;
}

/* c[0] is the version directory PG_<ver>_<cat> of tablespace ts. */
static void classify_tablespace_dir(const struct comp *c, size_t n, uint32_t ts,
				    struct dut_pg_file *f)
{
	uint32_t db;

	set_class(f, DUT_PG_OTHER);
	if (n < 2 || !is_version_dir(&c[0]))
		return;
	if (comp_is(&c[1], "pgsql_tmp"))
		classify_temp_area(&c[1], n - 1, ts, f);
	else if (n == 3 && parse_oid(c[1].s, c[1].n, &db))
		classify_db_file(&c[2], db, ts, f);
}

/* 24 upper-case hex digits: timeline, log, seg. */
static bool is_wal_segment(const char *s, size_t n)
{
	return n == 24 && is_upper_hex(s, n);
}

/* A WAL directory entry other than archive_status; false if not recognised. */
static bool classify_wal_name(const struct comp *c, struct dut_pg_file *f)
{
	uint32_t pid;

	if (is_wal_segment(c->s, c->n) ||
	    (c->n == 32 && comp_has_suffix(c, ".partial") && is_wal_segment(c->s, 24))) {
		set_class(f, DUT_PG_WAL);
		f->timeline = (uint32_t)hex_value(c->s, 8);
		f->wal_segno = hex_value(c->s + 8, 8) << 32 | hex_value(c->s + 16, 8);
		return true;
	}
	/* timeline history "00000002.history"; backup history "<seg>.<8 hex>.backup" */
	if ((c->n == 16 && comp_has_suffix(c, ".history") && is_upper_hex(c->s, 8)) ||
	    (c->n == 40 && comp_has_suffix(c, ".backup") && is_wal_segment(c->s, 24) &&
	     c->s[24] == '.' && is_upper_hex(c->s + 25, 8)) ||
	    (comp_has_prefix(c, "xlogtemp.") && parse_dec(c->s + 9, c->n - 9, &pid))) {
		set_class(f, DUT_PG_WAL_OTHER);
		return true;
	}
	return false;
}

/*
 * Relative to the WAL directory.  strict: only recognised names (for the
 * AUTO search); otherwise everything there is at least WAL_OTHER.
 */
static bool classify_waldir(const struct comp *c, size_t n, bool strict,
			    struct dut_pg_file *f)
{
	if (n == 1 && classify_wal_name(&c[0], f))
		return true;
	if (n == 2 && comp_is(&c[0], "archive_status")) {
		struct comp stem = c[1];
		struct dut_pg_file tmp;

		if (comp_has_suffix(&stem, ".ready") || comp_has_suffix(&stem, ".done")) {
			stem.n -= comp_has_suffix(&stem, ".ready") ? 6 : 5;
			if (classify_wal_name(&stem, &tmp)) {
				set_class(f, DUT_PG_WAL_OTHER);
				return true;
			}
		}
	}
	if (strict && !(n == 1 && comp_is(&c[0], "archive_status")))
		return false;
	set_class(f, n <= MAX_COMPS ? DUT_PG_WAL_OTHER : DUT_PG_OTHER);
	return true;
}

static bool is_slru_segment(const struct comp *c)
{
	/* %04X, and %015llX for PostgreSQL 17's long segment names */
	return c->n >= 4 && c->n <= 15 && is_upper_hex(c->s, c->n);
}

static const struct {
	const char *dir;
	enum dut_pg_class cls;
} slru_dirs[] = {
	{ "pg_xact", DUT_PG_XACT },
	{ "pg_subtrans", DUT_PG_SLRU },
	{ "pg_commit_ts", DUT_PG_SLRU },
	{ "pg_serial", DUT_PG_SLRU },
	{ "pg_notify", DUT_PG_SLRU },
};

/* c[0] is a known SLRU directory or pg_multixact; false if not. */
static bool classify_slru(const struct comp *c, size_t n, struct dut_pg_file *f)
{
	if (comp_is(&c[0], "pg_multixact")) {
		bool sub = n >= 2 && (comp_is(&c[1], "offsets") || comp_is(&c[1], "members"));

		set_class(f, n == 1 || (sub && (n == 2 || (n == 3 && is_slru_segment(&c[2]))))
				     ? DUT_PG_MULTIXACT : DUT_PG_OTHER);
		return true;
	}
	for (size_t i = 0; i < sizeof(slru_dirs) / sizeof(slru_dirs[0]); i++) {
		if (!comp_is(&c[0], slru_dirs[i].dir))
			continue;
		set_class(f, n == 1 || (n == 2 && is_slru_segment(&c[1])) ? slru_dirs[i].cls
									  : DUT_PG_OTHER);
		return true;
	}
	return false;
}

static void classify_datadir(const struct comp *c, size_t n, struct dut_pg_file *f)
{
	uint32_t oid;

	set_class(f, DUT_PG_OTHER);
	if (n > MAX_COMPS)
		return;
	if (comp_is(&c[0], "base")) {
		if (n >= 2 && comp_is(&c[1], "pgsql_tmp"))
			classify_temp_area(&c[1], n - 1, DUT_PG_DEFAULTTABLESPACE_OID, f);
		else if (n == 3 && parse_oid(c[1].s, c[1].n, &oid))
			classify_db_file(&c[2], oid, DUT_PG_DEFAULTTABLESPACE_OID, f);
	} else if (comp_is(&c[0], "global")) {
		if (n != 2)
			return;
		if (comp_is(&c[1], "pg_control")) {
			set_class(f, DUT_PG_CONTROL);
		} else if (is_db_state_file(&c[1])) {
			set_class(f, DUT_PG_CONFIG);
		} else if (parse_relfile(&c[1], false, f)) {
			f->cls = DUT_PG_REL;
			f->tablespace_oid = DUT_PG_GLOBALTABLESPACE_OID;
		}
	} else if (comp_is(&c[0], "pg_tblspc")) {
		/* pg_default and pg_global never have a link here */
		if (n >= 3 && parse_oid(c[1].s, c[1].n, &oid) &&
		    oid != DUT_PG_DEFAULTTABLESPACE_OID && oid != DUT_PG_GLOBALTABLESPACE_OID)
			classify_tablespace_dir(&c[2], n - 2, oid, f);
	} else if (comp_is(&c[0], "pg_wal")) {
		if (n == 1)
			set_class(f, DUT_PG_WAL_OTHER);
		else
			classify_waldir(&c[1], n - 1, false, f);
	} else if (classify_slru(c, n, f)) {
		return;
	} else if (n == 1) {
		for (size_t i = 0; i < sizeof(top_config_files) / sizeof(top_config_files[0]); i++)
			if (comp_is(&c[0], top_config_files[i]))
				set_class(f, DUT_PG_CONFIG);
	}
}

/*
 * Split p into components, at most MAX_COMPS + 1 (then *n = MAX_COMPS + 1
 * means "deeper than anything we recognise").  False if a component we
 * looked at is empty, "." or "..".
 */
static bool split(const char *p, struct comp *c, size_t *n)
{
	size_t k = 0;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		c[k].s = p;
		c[k].n = len;
		k++;
		if (!slash || k == MAX_COMPS + 1)
			break;
		p = slash + 1;
	}
	*n = k;
	return true;
}

static void classify_root(const char *p, enum dut_pg_root root, uint32_t ts,
			  struct dut_pg_file *f)
{
	struct comp c[MAX_COMPS + 1];
	size_t n;

	set_class(f, DUT_PG_OTHER);
	if (*p == '\0') {
		/* the root directory itself */
		if (root == DUT_PG_ROOT_WALDIR)
			set_class(f, DUT_PG_WAL_OTHER);
		return;
	}
	if (!split(p, c, &n))
		return;
	switch (root) {
	case DUT_PG_ROOT_DATADIR:
		classify_datadir(c, n, f);
		break;
	case DUT_PG_ROOT_TABLESPACE:
		if (n <= MAX_COMPS)
			classify_tablespace_dir(c, n, ts, f);
		break;
	case DUT_PG_ROOT_WALDIR:
		classify_waldir(c, n, false, f);
		break;
	case DUT_PG_ROOT_AUTO:
		break;
	}
}

/*
 * Try every component as the root, leftmost first: as a data directory, as
 * a tablespace location when the component is PG_<ver>_<cat> (tablespace
 * unknown), and as a WAL directory for names that only WAL has.
 */
static void classify_auto(const char *p, struct dut_pg_file *f)
{
	set_class(f, DUT_PG_OTHER);
	for (const char *s = p; s; s = strchr(s, '/') ? strchr(s, '/') + 1 : NULL) {
		struct comp c[MAX_COMPS + 1];
		size_t n;

		if (!split(s, c, &n) || n > MAX_COMPS)
			continue;
		classify_datadir(c, n, f);
		if (f->cls != DUT_PG_OTHER)
			return;
		if (is_version_dir(&c[0])) {
			classify_tablespace_dir(c, n, 0, f);
			if (f->cls != DUT_PG_OTHER)
				return;
		}
		if (classify_waldir(c, n, true, f))
			return;
		set_class(f, DUT_PG_OTHER);
	}
}

int dut_pg_classify(const char *path, enum dut_pg_root root, uint32_t tablespace_oid,
		    struct dut_pg_file *ret)
{
	struct dut_pg_file f;
	const char *p = path;

	if (!p || !*p || !ret)
		return -EINVAL;
	if (root != DUT_PG_ROOT_AUTO && root != DUT_PG_ROOT_DATADIR &&
	    root != DUT_PG_ROOT_TABLESPACE && root != DUT_PG_ROOT_WALDIR)
		return -EINVAL;
	for (;;) {
		if (p[0] == '/')
			p++;
		else if (p[0] == '.' && p[1] == '/')
			p += 2;
		else
			break;
	}
	if (root == DUT_PG_ROOT_AUTO && *p)
		classify_auto(p, &f);
	else
		classify_root(p, root, root == DUT_PG_ROOT_TABLESPACE ? tablespace_oid : 0, &f);
	*ret = f;
	return 0;
}

static const char *const class_names[DUT_PG_CLASS_COUNT] = {
	[DUT_PG_OTHER] = "other",
	[DUT_PG_REL] = "rel",
	[DUT_PG_TEMP_REL] = "temp_rel",
	[DUT_PG_TEMP_FILE] = "temp_file",
	[DUT_PG_WAL] = "wal",
	[DUT_PG_WAL_OTHER] = "wal_other",
	[DUT_PG_XACT] = "xact",
	[DUT_PG_MULTIXACT] = "multixact",
	[DUT_PG_SLRU] = "slru",
	[DUT_PG_CONTROL] = "control",
	[DUT_PG_CONFIG] = "config",
};

const char *dut_pg_class_name(enum dut_pg_class cls)
{
	if ((unsigned)cls >= DUT_PG_CLASS_COUNT)
		return "unknown";
	return class_names[cls];
}

int dut_pg_class_from_name(const char *name, enum dut_pg_class *ret)
{
	if (!name)
		return -EINVAL;
	for (unsigned i = 0; i < DUT_PG_CLASS_COUNT; i++) {
		if (strcmp(name, class_names[i]) == 0) {
			*ret = (enum dut_pg_class)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *dut_pg_fork_name(enum dut_pg_fork fork)
{
	static const char *const names[DUT_PG_FORK_COUNT] = {
		[DUT_PG_FORK_NONE] = "",
		[DUT_PG_FORK_MAIN] = "main",
		[DUT_PG_FORK_FSM] = "fsm",
		[DUT_PG_FORK_VM] = "vm",
		[DUT_PG_FORK_INIT] = "init",
	};

	if ((unsigned)fork >= DUT_PG_FORK_COUNT)
		return "unknown";
	return names[fork];
}
