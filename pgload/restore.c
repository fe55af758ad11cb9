/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `pgload restore`, the pure part: TOC lists, catalogs, sidecar, result (see restore.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/restore.h"

static const char *const phase_names[PGL_RS_NPHASES] = {
	[PGL_RS_PRE_DATA] = "pre-data",
	[PGL_RS_DATA] = "data",
	[PGL_RS_INDEXES] = "indexes",
	[PGL_RS_CONSTRAINTS] = "constraints",
	[PGL_RS_FKEYS] = "foreign-keys",
	[PGL_RS_POST_OTHER] = "post-data-other",
};

const char *pgl_restore_phase_name(enum pgl_restore_phase p)
{
	return p < PGL_RS_NPHASES ? phase_names[p] : "?";
}

/* --- TOC lists ---------------------------------------------------------- */

/* Entry types of the post-data phases; longer prefixes first. */
static const struct {
	const char *type;
	enum pgl_restore_phase phase;
} toc_types[] = {
	{ "INDEX ATTACH ", PGL_RS_INDEXES },
	{ "INDEX ", PGL_RS_INDEXES },
	{ "FK CONSTRAINT ", PGL_RS_FKEYS },
	{ "CHECK CONSTRAINT ", PGL_RS_CONSTRAINTS },
	{ "CONSTRAINT ", PGL_RS_CONSTRAINTS },
};

/* The type field of a TOC line; -ENOENT for comments, -EINVAL for garbage. */
static int toc_type(const char *line, const char **ret)
{
	const char *p = line;
	char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == ';' || *p == '\0' || *p == '\n')
		return -ENOENT;
	/* "<dumpId>; <catalog oid> <oid> <TYPE> <schema> <name> <owner>" */
	strtoul(p, &end, 10);
	if (end == p || *end != ';')
		return -EINVAL;
	p = end + 1;
	for (int i = 0; i < 2; i++) {
		while (*p == ' ')
			p++;
		strtoul(p, &end, 10);
		if (end == p || *end != ' ')
			return -EINVAL;
		p = end;
	}
	while (*p == ' ')
		p++;
	*ret = p;
	return 0;
}

int pgl_restore_toc_classify(const char *line)
{
	const char *type;
	int r = toc_type(line, &type);

	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(toc_types) / sizeof(toc_types[0]); i++)
		if (strncmp(type, toc_types[i].type, strlen(toc_types[i].type)) == 0)
			return toc_types[i].phase;
	return PGL_RS_POST_OTHER;
}

int pgl_restore_toc_count_type(const char *toc, const char *type)
{
	size_t tl = strlen(type);
	int n = 0;

	for (const char *line = toc; *line;) {
		const char *nl = strchr(line, '\n'), *t;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[2048];

		if (len >= sizeof(buf))
			return -E2BIG;
		memcpy(buf, line, len);
		buf[len] = '\0';
		if (toc_type(buf, &t) == 0 && strncmp(t, type, tl) == 0 && t[tl] == ' ')
			n++;
		line += len + (nl ? 1 : 0);
	}
	return n;
}

int pgl_restore_toc_select(const char *toc, enum pgl_restore_phase phase, FILE *out)
{
	int n = 0;

	if (phase < PGL_RS_INDEXES || phase >= PGL_RS_NPHASES)
		return -EINVAL;
	for (const char *line = toc; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[2048];
		int c;

		if (len >= sizeof(buf))
			return -E2BIG;
		memcpy(buf, line, len);
		buf[len] = '\0';
		c = pgl_restore_toc_classify(buf);
		if (c == -EINVAL)
			return -EINVAL;
		if (c >= 0 && (enum pgl_restore_phase)c == phase)
			n++;
		if (fprintf(out, "%s%s\n", c >= 0 && (enum pgl_restore_phase)c != phase ? ";" : "", buf) < 0)
			return -EIO;
		line += len + (nl ? 1 : 0);
	}
	return n;
}

/* --- catalogs ----------------------------------------------------------- */

static int push_str(char ***arr, size_t *n, char *s)
{
	char **a;

	if (!s)
		return -ENOMEM;
	a = realloc(*arr, (*n + 1) * sizeof(**arr));
	if (!a) {
		free(s);
		return -ENOMEM;
	}
	a[(*n)++] = s;
	*arr = a;
	return 0;
}

/* "a|b|c" or "a|b|c|d"; NULL without memory. */
static char *joined(const char *a, const char *b, const char *c, const char *d)
{
	char *s;
	int n = d ? asprintf(&s, "%s|%s|%s|%s", a, b, c, d) : asprintf(&s, "%s|%s|%s", a, b, c);

	return n < 0 ? NULL : s;
}

int pgl_restore_catalog_add_table(struct pgl_restore_catalog *c, const char *name, int64_t rows)
{
	struct pgl_restore_table *t = realloc(c->tables, (c->ntables + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	c->tables = t;
	if (!(t[c->ntables].name = strdup(name)))
		return -ENOMEM;
	t[c->ntables++].rows = rows;
	return 0;
}

int pgl_restore_catalog_add_con(struct pgl_restore_catalog *c, const char *table,
				const char *name, const char *type, const char *def)
{
	return push_str(&c->cons, &c->ncons, joined(table, name, type, def));
}

int pgl_restore_catalog_add_index(struct pgl_restore_catalog *c, const char *table,
				  const char *name, const char *def)
{
	return push_str(&c->indexes, &c->nindexes, joined(table, name, def, NULL));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_table(const void *a, const void *b)
{
	return strcmp(((const struct pgl_restore_table *)a)->name,
		      ((const struct pgl_restore_table *)b)->name);
}

void pgl_restore_catalog_sort(struct pgl_restore_catalog *c)
{
	if (c->ntables)
		qsort(c->tables, c->ntables, sizeof(*c->tables), cmp_table);
	if (c->ncons)
		qsort(c->cons, c->ncons, sizeof(*c->cons), cmp_str);
	if (c->nindexes)
		qsort(c->indexes, c->nindexes, sizeof(*c->indexes), cmp_str);
}

int64_t pgl_restore_catalog_rows(const struct pgl_restore_catalog *c)
{
	int64_t n = 0;

	for (size_t i = 0; i < c->ntables; i++)
		n += c->tables[i].rows;
	return n;
}

void pgl_restore_catalog_free(struct pgl_restore_catalog *c)
{
	for (size_t i = 0; i < c->ntables; i++)
		free(c->tables[i].name);
	for (size_t i = 0; i < c->ncons; i++)
		free(c->cons[i]);
	for (size_t i = 0; i < c->nindexes; i++)
		free(c->indexes[i]);
	free(c->tables);
	free(c->cons);
	free(c->indexes);
	memset(c, 0, sizeof(*c));
}

struct diff_buf {
	char *buf;
	size_t len, used;
	unsigned n;
};

__attribute__((format(printf, 2, 3)))
static void diff_add(struct diff_buf *d, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (d->n++ >= 8 || d->used + 1 >= d->len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(d->buf + d->used, d->len - d->used, fmt, ap);
	va_end(ap);
	if (w > 0)
		d->used = d->used + (size_t)w >= d->len ? d->len - 1 : d->used + (size_t)w;
}

/* Merge two sorted string lists, reporting what only one side has. */
static void diff_lists(struct diff_buf *d, const char *what, char *const *want, size_t nw,
		       char *const *got, size_t ng)
{
	size_t i = 0, j = 0;

	while (i < nw || j < ng) {
		int c = i == nw ? 1 : j == ng ? -1 : strcmp(want[i], got[j]);

		if (c < 0)
			diff_add(d, "%s missing after the restore: %s\n", what, want[i++]);
		else if (c > 0)
			diff_add(d, "%s not in the source: %s\n", what, got[j++]);
		else
			i++, j++;
	}
}

unsigned pgl_restore_catalog_diff(const struct pgl_restore_catalog *want,
				  const struct pgl_restore_catalog *got, char *diff, size_t len)
{
	struct diff_buf d = { diff, len, 0, 0 };
	size_t i = 0, j = 0;

	if (len)
		diff[0] = '\0';
	while (i < want->ntables || j < got->ntables) {
		int c = i == want->ntables ? 1 : j == got->ntables ? -1 :
			strcmp(want->tables[i].name, got->tables[j].name);

		if (c < 0) {
			diff_add(&d, "table missing after the restore: %s\n", want->tables[i++].name);
		} else if (c > 0) {
			diff_add(&d, "table not in the source: %s\n", got->tables[j++].name);
		} else {
			if (want->tables[i].rows != got->tables[j].rows)
				diff_add(&d, "table %s: %" PRId64 " rows in the source, %" PRId64 " restored\n",
					 want->tables[i].name, want->tables[i].rows, got->tables[j].rows);
			i++, j++;
		}
	}
	diff_lists(&d, "constraint", want->cons, want->ncons, got->cons, got->ncons);
	diff_lists(&d, "index", want->indexes, want->nindexes, got->indexes, got->nindexes);
	return d.n;
}

/* --- sidecar ------------------------------------------------------------ */

json_object *pgl_restore_sidecar_to_json(const struct pgl_restore_sidecar *s)
{
	json_object *o = json_object_new_object(), *tables = json_object_new_array();
	json_object *cons = json_object_new_array(), *idx = json_object_new_array();

	json_object_object_add(o, "schema", json_object_new_string(PGL_RESTORE_SIDECAR_SCHEMA));
	json_object_object_add(o, "schema_version", json_object_new_int(1));
	json_object_object_add(o, "created", json_object_new_string(s->created));
	json_object_object_add(o, "source", json_object_new_string(s->source));
	json_object_object_add(o, "dbname", json_object_new_string(s->dbname));
	json_object_object_add(o, "server_version", json_object_new_string(s->server_version));
	json_object_object_add(o, "dump_bytes", json_object_new_int64((int64_t)s->dump_bytes));
	json_object_object_add(o, "dump_ns", json_object_new_int64((int64_t)s->dump_ns));
	json_object_object_add(o, "rows", json_object_new_int64(pgl_restore_catalog_rows(&s->cat)));
	for (size_t i = 0; i < s->cat.ntables; i++) {
		json_object *t = json_object_new_object();

		json_object_object_add(t, "name", json_object_new_string(s->cat.tables[i].name));
		json_object_object_add(t, "rows", json_object_new_int64(s->cat.tables[i].rows));
		json_object_array_add(tables, t);
	}
	for (size_t i = 0; i < s->cat.ncons; i++)
		json_object_array_add(cons, json_object_new_string(s->cat.cons[i]));
	for (size_t i = 0; i < s->cat.nindexes; i++)
		json_object_array_add(idx, json_object_new_string(s->cat.indexes[i]));
	json_object_object_add(o, "tables", tables);
	json_object_object_add(o, "constraints", cons);
	json_object_object_add(o, "indexes", idx);
	return o;
}

static const char *get_str(json_object *o, const char *key, struct dut_error *err)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string)) {
		dut_error_set(err, "\"%s\": missing or not a string", key);
		return NULL;
	}
	return json_object_get_string(v);
}

static int get_strings(json_object *o, const char *key, char ***arr, size_t *n,
		       struct dut_error *err)
{
	json_object *a;

	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array)) {
		dut_error_set(err, "\"%s\": missing or not an array", key);
		return -EINVAL;
	}
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_is_type(e, json_type_string)) {
			dut_error_set(err, "%s[%zu]: expected a string", key, i);
			return -EINVAL;
		}
		if (push_str(arr, n, strdup(json_object_get_string(e))) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int sidecar_tables(json_object *o, struct pgl_restore_catalog *c, struct dut_error *err)
{
	json_object *a, *name, *rows;

	if (!json_object_object_get_ex(o, "tables", &a) || !json_object_is_type(a, json_type_array)) {
		dut_error_set(err, "\"tables\": missing or not an array");
		return -EINVAL;
	}
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *t = json_object_array_get_idx(a, i);

		if (!json_object_object_get_ex(t, "name", &name) ||
		    !json_object_is_type(name, json_type_string) ||
		    !json_object_object_get_ex(t, "rows", &rows) ||
		    !json_object_is_type(rows, json_type_int)) {
			dut_error_set(err, "tables[%zu]: expected {\"name\": string, \"rows\": integer}", i);
			return -EINVAL;
		}
		if (pgl_restore_catalog_add_table(c, json_object_get_string(name),
						  json_object_get_int64(rows)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int pgl_restore_sidecar_from_json(json_object *o, struct pgl_restore_sidecar *ret,
				  struct dut_error *err)
{
	struct pgl_restore_sidecar s = { 0 };
	const char *schema = get_str(o, "schema", err), *src, *db, *ver;
	json_object *bytes;
	int r;

	if (!schema)
		return -EINVAL;
	if (strcmp(schema, PGL_RESTORE_SIDECAR_SCHEMA) != 0) {
		dut_error_set(err, "\"schema\" is \"%s\", expected \"%s\"", schema,
			      PGL_RESTORE_SIDECAR_SCHEMA);
		return -EINVAL;
	}
	if (!(src = get_str(o, "source", err)) || !(db = get_str(o, "dbname", err)) ||
	    !(ver = get_str(o, "server_version", err)))
		return -EINVAL;
	if (!json_object_object_get_ex(o, "dump_bytes", &bytes) ||
	    !json_object_is_type(bytes, json_type_int)) {
		dut_error_set(err, "\"dump_bytes\": missing or not an integer");
		return -EINVAL;
	}
	snprintf(s.source, sizeof(s.source), "%s", src);
	snprintf(s.dbname, sizeof(s.dbname), "%s", db);
	snprintf(s.server_version, sizeof(s.server_version), "%s", ver);
	s.dump_bytes = (uint64_t)json_object_get_int64(bytes);
	r = sidecar_tables(o, &s.cat, err);
	if (r == 0)
		r = get_strings(o, "constraints", &s.cat.cons, &s.cat.ncons, err);
	if (r == 0)
		r = get_strings(o, "indexes", &s.cat.indexes, &s.cat.nindexes, err);
	if (r < 0) {
		pgl_restore_catalog_free(&s.cat);
		return r;
	}
	pgl_restore_catalog_sort(&s.cat);
	*ret = s;
	return 0;
}
