/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace export: fio version 3 iolog and CSV (export.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/pgpath.h"
#include "tools/report/export.h"

#define OP_BIT(op) (1u << (op))
#define FIO_OPS (OP_BIT(DUT_OP_READ) | OP_BIT(DUT_OP_WRITE) | OP_BIT(DUT_OP_MMAP_WRITE) | \
		 OP_BIT(DUT_OP_FSYNC) | OP_BIT(DUT_OP_FDATASYNC))
#define ALL_OPS UINT32_MAX
_Static_assert(DUT_OP_COUNT <= 32, "ops_mask holds one bit per op");

/*
 * Whether a record's op is selected.  op is a u16 from the file: a newer
 * writer's op (or a damaged record) can be >= 32, and 1u << op would then be
 * undefined and on x86 alias op % 32 (op 40 exported as a truncate).  Such
 * ops are selected only by the "everything" default.
 */
static bool op_selected(uint32_t mask, uint16_t op)
{
	return op < 32 ? (mask >> op) & 1u : mask == ALL_OPS;
}

int export_format_parse(const char *s, enum export_format *ret)
{
	if (s && strcmp(s, "fio") == 0)
		*ret = EXPORT_FIO;
	else if (s && strcmp(s, "csv") == 0)
		*ret = EXPORT_CSV;
	else
		return -EINVAL;
	return 0;
}

int export_ops_parse(const char *s, uint32_t *ret_mask, struct dut_error *err)
{
	_cleanup_free_ char *copy = strdup(s ? s : "");
	uint32_t mask = 0;
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum dut_trace_op op;

		if (dut_trace_op_from_name(tok, &op) < 0) {
			dut_error_set(err, "unknown op \"%s\" (ops: read, write, fsync, fdatasync, open, "
				      "create, release, truncate, fallocate, punch_hole, unlink, rename, "
				      "flush, mmap_write, fault)", tok);
			return -EINVAL;
		}
		mask |= OP_BIT(op);
	}
	if (!mask) {
		dut_error_set(err, "empty op list");
		return -EINVAL;
	}
	*ret_mask = mask;
	return 0;
}

/*
 * What is exported: a loaded trace (its records in memory), or a trace
 * file read by the streaming reader, once per pass (a fio iolog takes
 * three: check, files used, records), so memory does not grow with the
 * trace.  meta names files and markers in both cases.
 */
struct export_src {
	const struct dut_trace *meta;
	const struct dut_trace *loaded;  /* NULL: stream path */
	char *path;
	struct dut_trace_stream *ms;     /* holds meta for a streamed trace */
	uint64_t first_ts;
};

typedef int (*rec_fn)(void *ctx, const struct dut_trace_rec *r);

static int src_each(const struct export_src *s, rec_fn fn, void *ctx, struct dut_error *err)
{
	struct dut_trace_stream *st = NULL;
	int r;

	if (s->loaded) {
		for (size_t i = 0; i < s->loaded->nrecs; i++)
			if ((r = fn(ctx, &s->loaded->recs[i])) != 0)
				return r;
		return 0;
	}
	r = dut_trace_stream_open(s->path, &st, err);
	if (r < 0)
		return r;
	for (;;) {
		const struct dut_trace_rec *v;
		size_t n;

		r = dut_trace_stream_next(st, &v, &n);
		if (r < 0) {
			/* a damaged frame the merge met (2.1): in the loader's words */
			dut_trace_stream_error(st, err);
			break;
		}
		if (n == 0)
			break;
		for (size_t i = 0; i < n && r == 0; i++)
			r = fn(ctx, &v[i]);
		if (r)
			break;
	}
	dut_trace_stream_close(st);
	if (r == -ENOMEM)
		dut_error_set(err, "out of memory reading the trace");
	return r;
}

int export_src_open(const char *path, struct export_src **ret, struct dut_error *err)
{
	struct export_src *s = calloc(1, sizeof(*s));
	uint64_t last;
	int r;

	if (!s || !(s->path = strdup(path))) {
		free(s);
		return -ENOMEM;
	}
	r = dut_trace_stream_open(path, &s->ms, err);
	if (r < 0) {
		export_src_close(s);
		return r;
	}
	s->meta = dut_trace_stream_meta(s->ms);
	dut_trace_stream_span(s->ms, &s->first_ts, &last);
	*ret = s;
	return 0;
}

const struct dut_trace *export_src_meta(const struct export_src *s)
{
	return s->meta;
}

void export_src_close(struct export_src *s)
{
	if (!s)
		return;
	dut_trace_stream_close(s->ms);
	free(s->path);
	free(s);
}

static void src_of_loaded(const struct dut_trace *t, struct export_src *ret)
{
	*ret = (struct export_src){ .meta = t, .loaded = t,
				    .first_ts = t->nrecs ? t->recs[0].ts_ns : 0 };
}

/* The [start, end) window of a phase, or of the whole trace. */
static int export_window(const struct export_src *s, const char *phase, uint64_t *ret_start,
			 uint64_t *ret_end, struct dut_error *err)
{
	const struct dut_trace *t = s->meta;

	if (!phase) {
		*ret_start = s->first_ts;
		*ret_end = UINT64_MAX;
		return 0;
	}
	for (size_t i = 0; i < t->nmarkers; i++) {
		if (strcmp(t->markers[i].label, phase) == 0) {
			*ret_start = t->markers[i].ts_ns;
			*ret_end = i + 1 < t->nmarkers ? t->markers[i + 1].ts_ns : UINT64_MAX;
			return 0;
		}
	}
	char list[256] = "";
	for (size_t i = 0; i < t->nmarkers; i++) {
		size_t l = strlen(list);

		snprintf(list + l, sizeof(list) - l, "%s\"%s\"", i ? ", " : "", t->markers[i].label);
	}
	dut_error_set(err, "no phase marker \"%s\" in the trace (markers: %s)", phase,
		      t->nmarkers ? list : "none");
	return -ENOENT;
}

static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static int fio_path(const struct dut_trace *t, const struct export_opts *o, uint32_t id,
		    char *buf, size_t n, struct dut_error *err)
{
	const struct dut_trace_file *f = dut_trace_file_by_id(t, id);
	int k;

	if (!f) {
		dut_error_set(err, "record for file id %u, which has no FILE entry: cannot name it in a fio iolog", id);
		return -EINVAL;
	}
	if (strpbrk(f->path, " \t\n")) {
		dut_error_set(err, "file name \"%s\" contains white space, which a fio iolog cannot hold", f->path);
		return -EINVAL;
	}
	k = snprintf(buf, n, "%s%s%s", o->prefix ? o->prefix : "", o->prefix ? "/" : "", f->path);
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

/* One pass's state: what it selects, where it writes. */
struct pass {
	const struct dut_trace *t;
	const struct export_opts *o;
	uint32_t mask;
	uint64_t start, end;
	FILE *out;
	bool *used;                      /* fio: files used, by index in t->files */
	uint64_t n, last_ms;
	struct dut_error *err;
	char path[4200];
};

static bool selected(const struct pass *p, const struct dut_trace_rec *r)
{
	return r->ts_ns >= p->start && r->ts_ns < p->end && op_selected(p->mask, r->op);
}

/* Every selected record's file can be named in an iolog. */
static int fio_check_rec(void *ctx, const struct dut_trace_rec *rec)
{
	struct pass *p = ctx;

	if (!selected(p, rec))
		return 0;
	return fio_path(p->t, p->o, rec->file_id, p->path, sizeof(p->path), p->err);
}

/* Pass 1: which files appear (fio wants add + open before any I/O). */
static int fio_used_rec(void *ctx, const struct dut_trace_rec *rec)
{
	struct pass *p = ctx;
	const struct dut_trace_file *f;
	int r;

	if (!selected(p, rec))
		return 0;
	if ((r = fio_path(p->t, p->o, rec->file_id, p->path, sizeof(p->path), p->err)) < 0)
		return r;
	f = dut_trace_file_by_id(p->t, rec->file_id);
	p->used[f - p->t->files] = true;
	return 0;
}

static int fio_write_rec(void *ctx, const struct dut_trace_rec *rec)
{
	struct pass *p = ctx;
	const char *act;

	if (!selected(p, rec))
		return 0;
	switch (rec->op) {
	case DUT_OP_READ: act = "read"; break;
	case DUT_OP_WRITE: case DUT_OP_MMAP_WRITE: act = "write"; break;
	case DUT_OP_FSYNC: act = "sync"; break;
	default: act = "datasync"; break;
	}
	if ((rec->op == DUT_OP_READ || rec->op == DUT_OP_WRITE || rec->op == DUT_OP_MMAP_WRITE) &&
	    rec->len == 0)
		return 0; /* fio rejects zero-length I/O */
	fio_path(p->t, p->o, rec->file_id, p->path, sizeof(p->path), p->err);
	p->last_ms = (rec->ts_ns - p->start) / 1000000;
	if (rec->op == DUT_OP_FSYNC || rec->op == DUT_OP_FDATASYNC)
		/* fio tells I/O actions from file actions by the field count: 0 0 */
		fprintf(p->out, "%" PRIu64 " %s %s 0 0\n", p->last_ms, p->path, act);
	else
		fprintf(p->out, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu32 "\n", p->last_ms, p->path, act,
			rec->offset, rec->len);
	p->n++;
	return 0;
}

static int export_fio(const struct export_src *s, struct pass *p)
{
	const struct dut_trace *t = s->meta;
	_cleanup_free_ bool *used = calloc(t->nfiles ? t->nfiles : 1, sizeof(bool));
	int r;

	if (!used)
		return -ENOMEM;
	if (p->mask & ~FIO_OPS) {
		dut_error_set(p->err, "a fio iolog replays only read, write, mmap_write, fsync and fdatasync");
		return -EINVAL;
	}
	p->used = used;
	if ((r = src_each(s, fio_used_rec, p, p->err)) < 0)
		return r;
	fprintf(p->out, "fio version 3 iolog\n");
	for (size_t i = 0; i < t->nfiles; i++) {
		if (!used[i] || fio_path(t, p->o, t->files[i].id, p->path, sizeof(p->path), p->err) < 0)
			continue;
		fprintf(p->out, "0 %s add\n0 %s open\n", p->path, p->path);
	}
	if ((r = src_each(s, fio_write_rec, p, p->err)) < 0)
		return r;
	for (size_t i = 0; i < t->nfiles; i++) {
		if (!used[i] || fio_path(t, p->o, t->files[i].id, p->path, sizeof(p->path), p->err) < 0)
			continue;
		fprintf(p->out, "%" PRIu64 " %s close\n", p->last_ms, p->path);
	}
	return 0;
}

static int csv_write_rec(void *ctx, const struct dut_trace_rec *r)
{
	struct pass *p = ctx;
	const struct dut_trace_file *f;

	if (!selected(p, r))
		return 0;
	f = dut_trace_file_by_id(p->t, r->file_id);
	fprintf(p->out, "%" PRIu64 ",%" PRIu64 ",%s,%" PRIu32 ",", r->ts_ns, r->ts_ns - p->start,
		dut_trace_op_name(r->op), r->file_id);
	csv_field(p->out, f ? f->path : "");
	fprintf(p->out, ",%s,%s,%" PRIu64 ",%" PRIu32 ",%" PRId32 ",%" PRIu64 ",%" PRIu32 ",%u\n",
		f ? dut_pg_class_name(f->pg.cls) : "", f ? dut_pg_fork_name(f->pg.fork) : "",
		r->offset, r->len, r->result, r->lat_ns, r->pid, r->flags);
	p->n++;
	return 0;
}

int export_src_check(const struct export_src *s, const struct export_opts *o, struct dut_error *err)
{
	struct pass p = { .t = s->meta, .o = o, .mask = o->ops_mask ? o->ops_mask : FIO_OPS, .err = err };
	int r = export_window(s, o->phase, &p.start, &p.end, err);

	if (r < 0 || o->format != EXPORT_FIO)
		return r;
	if (p.mask & ~FIO_OPS) {
		dut_error_set(err, "a fio iolog replays only read, write, mmap_write, fsync and fdatasync");
		return -EINVAL;
	}
	return src_each(s, fio_check_rec, &p, err);
}

int export_src_write(const struct export_src *s, const struct export_opts *o, FILE *out,
		     uint64_t *ret_n, struct dut_error *err)
{
	struct pass p = { .t = s->meta, .o = o, .out = out, .err = err };
	int r = export_window(s, o->phase, &p.start, &p.end, err);

	if (r < 0)
		return r;
	if (o->format == EXPORT_FIO) {
		p.mask = o->ops_mask ? o->ops_mask : FIO_OPS;
		r = export_fio(s, &p);
	} else {
		p.mask = o->ops_mask ? o->ops_mask : ALL_OPS;
		fprintf(out, "ts_ns,rel_ns,op,file_id,path,class,fork,offset,len,result,lat_ns,pid,flags\n");
		r = src_each(s, csv_write_rec, &p, err);
	}
	if (r == 0 && ret_n)
		*ret_n = p.n;
	if (r == 0 && ferror(out)) {
		dut_error_set(err, "write error");
		r = -EIO;
	}
	return r;
}

int export_check(const struct dut_trace *t, const struct export_opts *o, struct dut_error *err)
{
	struct export_src s;

	src_of_loaded(t, &s);
	return export_src_check(&s, o, err);
}

int export_write(const struct dut_trace *t, const struct export_opts *o, FILE *out,
		 uint64_t *ret_n, struct dut_error *err)
{
	struct export_src s;

	src_of_loaded(t, &s);
	return export_src_write(&s, o, out, ret_n, err);
}
