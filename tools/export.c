/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace export: fio version 3 iolog and CSV (export.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/pgpath.h"
#include "tools/export.h"

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

/* The [start, end) window of a phase, or of the whole trace. */
static int export_window(const struct dut_trace *t, const char *phase, uint64_t *ret_start,
			 uint64_t *ret_end, struct dut_error *err)
{
	if (!phase) {
		*ret_start = t->nrecs ? t->recs[0].ts_ns : 0;
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

static int export_fio(const struct dut_trace *t, const struct export_opts *o, uint32_t mask,
		      uint64_t start, uint64_t end, FILE *out, uint64_t *ret_n, struct dut_error *err)
{
	_cleanup_free_ bool *used = calloc(t->nfiles ? t->nfiles : 1, sizeof(bool));
	char path[4200];
	uint64_t n = 0, last_ms = 0;
	int r;

	if (!used)
		return -ENOMEM;
	if (mask & ~FIO_OPS) {
		dut_error_set(err, "a fio iolog replays only read, write, mmap_write, fsync and fdatasync");
		return -EINVAL;
	}
	/* Pass 1: which files appear (fio wants add + open before any I/O). */
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *r0 = &t->recs[i];
		const struct dut_trace_file *f;

		if (r0->ts_ns < start || r0->ts_ns >= end || !op_selected(mask, r0->op))
			continue;
		if ((r = fio_path(t, o, r0->file_id, path, sizeof(path), err)) < 0)
			return r;
		f = dut_trace_file_by_id(t, r0->file_id);
		used[f - t->files] = true;
	}
	fprintf(out, "fio version 3 iolog\n");
	for (size_t i = 0; i < t->nfiles; i++) {
		if (!used[i] || fio_path(t, o, t->files[i].id, path, sizeof(path), err) < 0)
			continue;
		fprintf(out, "0 %s add\n0 %s open\n", path, path);
	}
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *rec = &t->recs[i];
		const char *act;

		if (rec->ts_ns < start || rec->ts_ns >= end || !op_selected(mask, rec->op))
			continue;
		switch (rec->op) {
		case DUT_OP_READ: act = "read"; break;
		case DUT_OP_WRITE: case DUT_OP_MMAP_WRITE: act = "write"; break;
		case DUT_OP_FSYNC: act = "sync"; break;
		default: act = "datasync"; break;
		}
		if ((rec->op == DUT_OP_READ || rec->op == DUT_OP_WRITE || rec->op == DUT_OP_MMAP_WRITE) &&
		    rec->len == 0)
			continue; /* fio rejects zero-length I/O */
		fio_path(t, o, rec->file_id, path, sizeof(path), err);
		last_ms = (rec->ts_ns - start) / 1000000;
		if (rec->op == DUT_OP_FSYNC || rec->op == DUT_OP_FDATASYNC)
			/* fio tells I/O actions from file actions by the field count: 0 0 */
			fprintf(out, "%" PRIu64 " %s %s 0 0\n", last_ms, path, act);
		else
			fprintf(out, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu32 "\n", last_ms, path, act,
				rec->offset, rec->len);
		n++;
	}
	for (size_t i = 0; i < t->nfiles; i++) {
		if (!used[i] || fio_path(t, o, t->files[i].id, path, sizeof(path), err) < 0)
			continue;
		fprintf(out, "%" PRIu64 " %s close\n", last_ms, path);
	}
	if (ret_n)
		*ret_n = n;
	return 0;
}

static int export_csv(const struct dut_trace *t, uint32_t mask, uint64_t start, uint64_t end,
		      FILE *out, uint64_t *ret_n)
{
	uint64_t n = 0;

	fprintf(out, "ts_ns,rel_ns,op,file_id,path,class,fork,offset,len,result,lat_ns,pid,flags\n");
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *r = &t->recs[i];
		const struct dut_trace_file *f;

		if (r->ts_ns < start || r->ts_ns >= end || !op_selected(mask, r->op))
			continue;
		f = dut_trace_file_by_id(t, r->file_id);
		fprintf(out, "%" PRIu64 ",%" PRIu64 ",%s,%" PRIu32 ",", r->ts_ns, r->ts_ns - start,
			dut_trace_op_name(r->op), r->file_id);
		csv_field(out, f ? f->path : "");
		fprintf(out, ",%s,%s,%" PRIu64 ",%" PRIu32 ",%" PRId32 ",%" PRIu64 ",%" PRIu32 ",%u\n",
			f ? dut_pg_class_name(f->pg.cls) : "", f ? dut_pg_fork_name(f->pg.fork) : "",
			r->offset, r->len, r->result, r->lat_ns, r->pid, r->flags);
		n++;
	}
	if (ret_n)
		*ret_n = n;
	return 0;
}

int export_check(const struct dut_trace *t, const struct export_opts *o, struct dut_error *err)
{
	uint32_t mask = o->ops_mask ? o->ops_mask : FIO_OPS;
	uint64_t start, end;
	char path[4200];
	int r = export_window(t, o->phase, &start, &end, err);

	if (r < 0 || o->format != EXPORT_FIO)
		return r;
	if (mask & ~FIO_OPS) {
		dut_error_set(err, "a fio iolog replays only read, write, mmap_write, fsync and fdatasync");
		return -EINVAL;
	}
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *rec = &t->recs[i];

		if (rec->ts_ns >= start && rec->ts_ns < end && op_selected(mask, rec->op) &&
		    (r = fio_path(t, o, rec->file_id, path, sizeof(path), err)) < 0)
			return r;
	}
	return 0;
}

int export_write(const struct dut_trace *t, const struct export_opts *o, FILE *out,
		 uint64_t *ret_n, struct dut_error *err)
{
	uint64_t start, end;
	uint32_t mask = o->ops_mask;
	int r = export_window(t, o->phase, &start, &end, err);

	if (r < 0)
		return r;
	if (o->format == EXPORT_FIO) {
		r = export_fio(t, o, mask ? mask : FIO_OPS, start, end, out, ret_n, err);
	} else {
		r = export_csv(t, mask ? mask : ALL_OPS, start, end, out, ret_n);
	}
	if (r == 0 && ferror(out)) {
		dut_error_set(err, "write error");
		r = -EIO;
	}
	return r;
}
