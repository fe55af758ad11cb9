/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-compact: rewrite a 1.1 trace as a 2.1 one (docs/trace-format.md):
 * every RECORDS frame becomes a CRECORDS frame (after its CSPAN frame) of
 * the same records in the same order (what a 2.1 writer would have written
 * for the same drains),
 * every other frame is copied.  For measuring the compact encoding on
 * real traces (docs/soak.md) and for shrinking old traces.
 *
 *   trace-compact IN OUT     prints: records, bytes in, bytes out, bytes per record
 *
 * A 1.0 trace is refused (its reserved word would read as dutfs time in
 * 2.0); a truncated one is converted up to its last whole frame.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/trace.h"
#include "lib/trace_format.h"

struct out {
	FILE *f;
	uint64_t bytes;
};

static int put(struct out *o, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, o->f) != n)
		return -EIO;
	o->bytes += n;
	return 0;
}

/*
 * The records of consecutive RECORDS frames, as one CRECORDS frame: a 1.1
 * writer wrote a round as one frame per thread, a 2.0 one writes the round
 * as one frame.  Rounds without a FILE, MARKER or INFO frame between them
 * cannot be told apart here and go into one frame too, up to what one
 * writer batch holds (4 MiB of 48-byte records); so this saves a frame
 * header per such round more than the writer does.
 */
#define MAX_FRAME_RECS ((4u << 20) / DUT_TRACE_REC_SIZE)

struct pending {
	uint8_t *buf;
	size_t len;
	uint32_t n;
	struct dut_trace_cstate st;
	struct dut_trace_cspan span;     /* the records' times, for the CSPAN frame (2.1) */
};

static int pending_put(struct out *o, struct pending *pd)
{
	static const uint8_t zero[8];
	uint8_t hdr[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED], span[DUT_TRACE_CSPAN_FRAME];
	size_t pad;
	int ret;

	if (!pd->n)
		return 0;
	dut_trace_frame_cspan(&pd->span, span);
	pad = dut_trace_cframe_hdr(hdr, pd->n, pd->len);
	ret = dut_trace_cframe_wants_span(pd->n) ? put(o, span, sizeof(span)) : 0;
	if (!ret)
		ret = put(o, hdr, sizeof(hdr));
	if (!ret)
		ret = put(o, pd->buf, pd->len);
	if (!ret)
		ret = put(o, zero, pad);
	pd->len = 0;
	pd->n = 0;
	dut_trace_cstate_init(&pd->st);
	pd->span = (struct dut_trace_cspan){ .min_ts = UINT64_MAX, .max_ts = 0 };
	return ret;
}

static int pending_add(struct out *o, struct pending *pd, const uint8_t *p, size_t n, uint32_t rec_size)
{
	for (size_t i = 0; i < n; i++) {
		struct dut_trace_rec r;

		if (pd->n == MAX_FRAME_RECS) {
			int ret = pending_put(o, pd);

			if (ret < 0)
				return ret;
		}
		dut_trace_rec_decode(p + i * rec_size, &r);
		pd->len += dut_trace_crec_encode(&pd->st, &r, pd->buf + pd->len);
		pd->n++;
		if (r.ts_ns < pd->span.min_ts)
			pd->span.min_ts = r.ts_ns;
		if (r.ts_ns > pd->span.max_ts)
			pd->span.max_ts = r.ts_ns;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	struct out o = { 0 };
	struct pending pd = { .buf = malloc((size_t)MAX_FRAME_RECS * DUT_TRACE_CREC_MAX),
			      .span = { .min_ts = UINT64_MAX } };
	uint8_t hdr[DUT_TRACE_HEADER_SIZE];
	const uint8_t *b;
	struct stat st;
	uint32_t hsize, rsize;
	int fd, r;

	if (!pd.buf)
		return 1;
	if (argc != 3) {
		fprintf(stderr, "usage: trace-compact IN OUT\n");
		return 2;
	}
	r = dut_trace_load(argv[1], &t, &err);
	if (r < 0) {
		fprintf(stderr, "trace-compact: %s\n", err.msg);
		return 1;
	}
	if (t->hdr.version_major != 1 || t->hdr.version_minor < 1) {
		fprintf(stderr, "trace-compact: %s is a %u.%u trace: only 1.1 traces are converted\n",
			argv[1], t->hdr.version_major, t->hdr.version_minor);
		return 1;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "trace-compact: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	b = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (b == MAP_FAILED) {
		fprintf(stderr, "trace-compact: cannot map %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	o.f = fopen(argv[2], "wb");
	if (!o.f) {
		fprintf(stderr, "trace-compact: cannot create %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	hsize = dut_le32_get(b + 32);
	rsize = dut_le32_get(b + 36);
	t->hdr.version_major = DUT_TRACE_VERSION_MAJOR;
	t->hdr.version_minor = DUT_TRACE_VERSION_MINOR;
	dut_trace_header_encode(&t->hdr, hdr);
	r = put(&o, hdr, sizeof(hdr));
	/* the frames the reader accepted: [hsize, valid_bytes) */
	for (uint64_t off = hsize; r == 0 && off < t->valid_bytes;) {
		uint32_t type = dut_le32_get(b + off), plen = dut_le32_get(b + off + 4);
		size_t fsize = DUT_TRACE_FRAME_HDR_SIZE + dut_trace_pad8(plen);

		if (type == DUT_TRACE_FRAME_RECORDS) {
			r = pending_add(&o, &pd, b + off + DUT_TRACE_FRAME_HDR_SIZE, plen / rsize, rsize);
		} else {
			r = pending_put(&o, &pd);
			if (r == 0)
				r = put(&o, b + off, fsize);
		}
		off += fsize;
	}
	if (r == 0)
		r = pending_put(&o, &pd);
	free(pd.buf);
	if (fclose(o.f) != 0 && r == 0)
		r = -EIO;
	if (r < 0) {
		fprintf(stderr, "trace-compact: writing %s: %s\n", argv[2], strerror(-r));
		return 1;
	}
	printf("records %zu bytes_in %" PRIu64 " bytes_out %" PRIu64 " per_record_in %.2f per_record_out %.2f\n",
	       t->nrecs, (uint64_t)st.st_size, o.bytes,
	       t->nrecs ? (double)st.st_size / (double)t->nrecs : 0.0,
	       t->nrecs ? (double)o.bytes / (double)t->nrecs : 0.0);
	dut_trace_free(t);
	return 0;
}
