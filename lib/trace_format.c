/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Byte layout of the dutfs trace (docs/trace-format.md).  Pure code. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace.h"
#include "lib/trace_format.h"

void dut_trace_rec_encode(const struct dut_trace_rec *r, uint8_t out[DUT_TRACE_REC_SIZE])
{
	dut_le64_put(out + 0, r->ts_ns);
	dut_le64_put(out + 8, r->offset);
	dut_le64_put(out + 16, r->lat_ns);
	dut_le32_put(out + 24, r->len);
	dut_le32_put(out + 28, (uint32_t)r->result);
	dut_le32_put(out + 32, r->file_id);
	dut_le32_put(out + 36, r->pid);
	dut_le16_put(out + 40, r->op);
	dut_le16_put(out + 42, r->flags);
	dut_le32_put(out + 44, r->dutfs_ns);
}

void dut_trace_rec_decode(const uint8_t in[DUT_TRACE_REC_SIZE], struct dut_trace_rec *ret)
{
	ret->ts_ns = dut_le64_get(in + 0);
	ret->offset = dut_le64_get(in + 8);
	ret->lat_ns = dut_le64_get(in + 16);
	ret->len = dut_le32_get(in + 24);
	ret->result = (int32_t)dut_le32_get(in + 28);
	ret->file_id = dut_le32_get(in + 32);
	ret->pid = dut_le32_get(in + 36);
	ret->op = dut_le16_get(in + 40);
	ret->flags = dut_le16_get(in + 42);
	ret->dutfs_ns = dut_le32_get(in + 44);
}

uint32_t dut_trace_dutfs_ns(uint64_t arrival_ns, uint64_t reply_ns, uint64_t lat_ns)
{
	uint64_t total = reply_ns > arrival_ns ? reply_ns - arrival_ns : 0;
	uint64_t own = total > lat_ns ? total - lat_ns : 0;

	if (own > DUT_TRACE_DUTFS_NS_MAX)
		return DUT_TRACE_DUTFS_NS_MAX;
	return own ? (uint32_t)own : 1; /* measured: never the "not recorded" 0 */
}

static const char *const op_names[DUT_OP_COUNT] = {
	[DUT_OP_READ] = "read",
	[DUT_OP_WRITE] = "write",
	[DUT_OP_FSYNC] = "fsync",
	[DUT_OP_FDATASYNC] = "fdatasync",
	[DUT_OP_OPEN] = "open",
	[DUT_OP_CREATE] = "create",
	[DUT_OP_RELEASE] = "release",
	[DUT_OP_TRUNCATE] = "truncate",
	[DUT_OP_FALLOCATE] = "fallocate",
	[DUT_OP_PUNCH_HOLE] = "punch_hole",
	[DUT_OP_UNLINK] = "unlink",
	[DUT_OP_RENAME] = "rename",
	[DUT_OP_FLUSH] = "flush",
	[DUT_OP_MMAP_WRITE] = "mmap_write",
	[DUT_OP_FAULT] = "fault",
};

const char *dut_trace_op_name(enum dut_trace_op op)
{
	if ((unsigned)op >= DUT_OP_COUNT || !op_names[op])
		return "unknown";
	return op_names[op];
}

int dut_trace_op_from_name(const char *name, enum dut_trace_op *ret)
{
	if (!name)
		return -EINVAL;
	for (unsigned i = 1; i < DUT_OP_COUNT; i++) {
		if (op_names[i] && strcmp(op_names[i], name) == 0) {
			*ret = (enum dut_trace_op)i;
			return 0;
		}
	}
	return -EINVAL;
}

void dut_trace_header_encode(const struct dut_trace_header *h, uint8_t out[DUT_TRACE_HEADER_SIZE])
{
	memset(out, 0, DUT_TRACE_HEADER_SIZE);
	memcpy(out, DUT_TRACE_MAGIC, 8);
	dut_le16_put(out + 8, h->version_major);
	dut_le16_put(out + 10, h->version_minor);
	dut_le32_put(out + 12, h->flags);
	dut_le64_put(out + 16, h->start_realtime_ns);
	dut_le64_put(out + 24, h->start_monotonic_ns);
	dut_le32_put(out + 32, DUT_TRACE_HEADER_SIZE);
	dut_le32_put(out + 36, DUT_TRACE_REC_SIZE);
}

void dut_trace_frame_hdr(uint8_t out[DUT_TRACE_FRAME_HDR_SIZE], uint32_t type, uint32_t payload_len)
{
	dut_le32_put(out, type);
	dut_le32_put(out + 4, payload_len);
}

size_t dut_trace_cframe_hdr(uint8_t out[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED],
			    uint32_t nrecs, size_t records_len)
{
	size_t plen = DUT_TRACE_CFRAME_FIXED + records_len;

	dut_trace_frame_hdr(out, DUT_TRACE_FRAME_CRECORDS, (uint32_t)plen);
	dut_le32_put(out + DUT_TRACE_FRAME_HDR_SIZE, nrecs);
	return dut_trace_pad8(plen) - plen;
}

void dut_trace_frame_cspan(const struct dut_trace_cspan *sp, uint8_t out[DUT_TRACE_CSPAN_FRAME])
{
	dut_trace_frame_hdr(out, DUT_TRACE_FRAME_CSPAN, DUT_TRACE_CSPAN_SIZE);
	dut_le64_put(out + DUT_TRACE_FRAME_HDR_SIZE, sp->min_ts);
	dut_le64_put(out + DUT_TRACE_FRAME_HDR_SIZE + 8, sp->max_ts);
}

/* Allocate a zeroed frame with room for payload_len (padded) and fill its header. */
static int frame_alloc(uint32_t type, size_t payload_len, uint8_t **ret, size_t *ret_len)
{
	size_t total = DUT_TRACE_FRAME_HDR_SIZE + dut_trace_pad8(payload_len);
	uint8_t *f = calloc(1, total);

	if (!f)
		return -ENOMEM;
	dut_trace_frame_hdr(f, type, (uint32_t)payload_len);
	*ret = f;
	*ret_len = total;
	return 0;
}

int dut_trace_frame_file(uint32_t id, const char *path, const struct dut_pg_file *pg,
			 uint8_t **ret, size_t *ret_len)
{
	static const struct dut_pg_file unclassified = { .cls = DUT_PG_OTHER };
	size_t plen = path ? strlen(path) : 0;
	uint8_t *f, *p;
	size_t total;
	int r;

	if (plen == 0 || plen > DUT_TRACE_MAX_PATH)
		return -EINVAL;
	if (!pg) /* the caller did not classify: record "other" */
		pg = &unclassified;
	r = frame_alloc(DUT_TRACE_FRAME_FILE, DUT_TRACE_FILE_FIXED + plen, &f, &total);
	if (r < 0)
		return r;
	p = f + DUT_TRACE_FRAME_HDR_SIZE;
	dut_le32_put(p + 0, id);
	dut_le32_put(p + 4, (uint32_t)plen);
	dut_le32_put(p + 8, (uint32_t)pg->cls);
	dut_le32_put(p + 12, (uint32_t)pg->fork);
	dut_le32_put(p + 16, pg->db_oid);
	dut_le32_put(p + 20, pg->tablespace_oid);
	dut_le32_put(p + 24, pg->relfilenode);
	dut_le32_put(p + 28, pg->segment);
	dut_le32_put(p + 32, pg->backend_id);
	dut_le32_put(p + 36, pg->timeline);
	dut_le64_put(p + 40, pg->wal_segno);
	memcpy(p + DUT_TRACE_FILE_FIXED, path, plen);
	*ret = f;
	*ret_len = total;
	return 0;
}

int dut_trace_file_decode(const uint8_t *p, size_t len, struct dut_trace_file *ret)
{
	uint32_t plen, cls, fork;
	char *path;

	if (len < DUT_TRACE_FILE_FIXED)
		return -EBADMSG;
	plen = dut_le32_get(p + 4);
	if (plen == 0 || plen > DUT_TRACE_MAX_PATH || plen != len - DUT_TRACE_FILE_FIXED)
		return -EBADMSG;
	if (memchr(p + DUT_TRACE_FILE_FIXED, '\0', plen))
		return -EBADMSG;
	path = malloc(plen + 1);
	if (!path)
		return -ENOMEM;
	memcpy(path, p + DUT_TRACE_FILE_FIXED, plen);
	path[plen] = '\0';
	cls = dut_le32_get(p + 8);
	fork = dut_le32_get(p + 12);
	memset(ret, 0, sizeof(*ret));
	ret->id = dut_le32_get(p);
	ret->path = path;
	/* Classes and forks a newer writer knows but this reader does not: "other". */
	ret->pg.cls = cls < DUT_PG_CLASS_COUNT ? (enum dut_pg_class)cls : DUT_PG_OTHER;
	ret->pg.fork = fork < DUT_PG_FORK_COUNT ? (enum dut_pg_fork)fork : DUT_PG_FORK_NONE;
	ret->pg.db_oid = dut_le32_get(p + 16);
	ret->pg.tablespace_oid = dut_le32_get(p + 20);
	ret->pg.relfilenode = dut_le32_get(p + 24);
	ret->pg.segment = dut_le32_get(p + 28);
	ret->pg.backend_id = dut_le32_get(p + 32);
	ret->pg.timeline = dut_le32_get(p + 36);
	ret->pg.wal_segno = dut_le64_get(p + 40);
	return 0;
}

int dut_trace_frame_marker(uint64_t ts_ns, const char *label, uint8_t **ret, size_t *ret_len)
{
	size_t llen = label ? strlen(label) : 0;
	uint8_t *f, *p;
	size_t total;
	int r;

	if (llen == 0 || llen > DUT_TRACE_MAX_LABEL)
		return -EINVAL;
	r = frame_alloc(DUT_TRACE_FRAME_MARKER, DUT_TRACE_MARKER_FIXED + llen, &f, &total);
	if (r < 0)
		return r;
	p = f + DUT_TRACE_FRAME_HDR_SIZE;
	dut_le64_put(p, ts_ns);
	dut_le32_put(p + 8, (uint32_t)llen);
	memcpy(p + DUT_TRACE_MARKER_FIXED, label, llen);
	*ret = f;
	*ret_len = total;
	return 0;
}

int dut_trace_frame_info(const char *key, const char *value, uint8_t **ret, size_t *ret_len)
{
	size_t klen = key ? strlen(key) : 0;
	size_t vlen = value ? strlen(value) : 0;
	uint8_t *f, *p;
	size_t total;
	int r;

	if (klen == 0 || !value || strpbrk(key, "=\n") || strchr(value, '\n'))
		return -EINVAL;
	if (klen + vlen + 2 > DUT_TRACE_MAX_INFO)
		return -EINVAL;
	r = frame_alloc(DUT_TRACE_FRAME_INFO, klen + vlen + 2, &f, &total);
	if (r < 0)
		return r;
	p = f + DUT_TRACE_FRAME_HDR_SIZE;
	memcpy(p, key, klen);
	p[klen] = '=';
	memcpy(p + klen + 1, value, vlen);
	p[klen + 1 + vlen] = '\n';
	*ret = f;
	*ret_len = total;
	return 0;
}

void dut_trace_frame_footer(const struct dut_trace_footer *ft,
			    uint8_t out[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_FOOTER_SIZE])
{
	dut_trace_frame_hdr(out, DUT_TRACE_FRAME_FOOTER, DUT_TRACE_FOOTER_SIZE);
	dut_le64_put(out + 8, ft->records_written);
	dut_le64_put(out + 16, ft->records_dropped);
	dut_le64_put(out + 24, ft->end_monotonic_ns);
}

void dut_trace_frame_segment(const struct dut_trace_segment *sg,
			     uint8_t out[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_SEGMENT_SIZE])
{
	dut_trace_frame_hdr(out, DUT_TRACE_FRAME_SEGMENT, DUT_TRACE_SEGMENT_SIZE);
	dut_le32_put(out + 8, sg->seq);
	dut_le32_put(out + 12, sg->keep);
	dut_le64_put(out + 16, sg->records_before);
	dut_le64_put(out + 24, sg->dropped_before);
	dut_le64_put(out + 32, sg->max_bytes);
}
