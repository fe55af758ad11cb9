/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to lib/trace_*.c and their tests: the byte layout of the header
 * and of the non-record frames (docs/trace-format.md).  Everything is
 * little-endian; frames start at multiples of 8 from the start of the file.
 */
#ifndef DUT_TRACE_FORMAT_H
#define DUT_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/trace.h"

#define DUT_TRACE_FRAME_HDR_SIZE 8u
/* FILE payload: u32 id, u32 path_len, pg (10 x u32 slots, see below), path bytes */
#define DUT_TRACE_FILE_FIXED 48u
/* MARKER payload: u64 ts_ns, u32 label_len, u32 reserved, label bytes */
#define DUT_TRACE_MARKER_FIXED 16u
/* FOOTER payload: u64 written, u64 dropped, u64 end_monotonic_ns */
#define DUT_TRACE_FOOTER_SIZE 24u
/* SEGMENT payload: u32 seq, u32 keep, u64 records_before, u64 dropped_before, u64 max_bytes */
#define DUT_TRACE_SEGMENT_SIZE 32u
/* CRECORDS payload: u32 nrecs, then the records (trace_compact.c) */
#define DUT_TRACE_CFRAME_FIXED 4u
#define DUT_TRACE_CREC_MIN 4u    /* ctrl, ts, offset and lat: a byte each at least */
#define DUT_TRACE_CREC_MAX 62u   /* every field present, every varint at its longest */
/* CSPAN payload (2.1): u64 min_ts, u64 max_ts of the CRECORDS frame that follows */
#define DUT_TRACE_CSPAN_SIZE 16u
#define DUT_TRACE_CSPAN_FRAME (DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CSPAN_SIZE)
/* No valid frame is larger; a bigger length field means corruption. */
#define DUT_TRACE_MAX_PAYLOAD (64u << 20)
#define DUT_TRACE_MAX_PATH 4096u
#define DUT_TRACE_MAX_LABEL 1024u
#define DUT_TRACE_MAX_INFO 65536u

static inline void dut_le16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void dut_le32_put(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void dut_le64_put(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The readers are on the reader's hot path: one load each on a little-endian host. */
static inline uint16_t dut_le16_get(const uint8_t *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint16_t)(p[0] | (p[1] << 8));
#endif
}

static inline uint32_t dut_le32_get(const uint8_t *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

static inline uint64_t dut_le64_get(const uint8_t *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint64_t)dut_le32_get(p) | (uint64_t)dut_le32_get(p + 4) << 32;
#endif
}

static inline size_t dut_trace_pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The 64-byte file header. */
void dut_trace_header_encode(const struct dut_trace_header *h, uint8_t out[DUT_TRACE_HEADER_SIZE]);

/*
 * Whole frames (frame header + payload + zero padding), malloc'ed into *ret
 * with the total length in *ret_len.  -EINVAL for a path, label or text that
 * is empty, too long or (info) malformed; -ENOMEM.
 */
int dut_trace_frame_file(uint32_t id, const char *path, const struct dut_pg_file *pg,
			 uint8_t **ret, size_t *ret_len);
int dut_trace_frame_marker(uint64_t ts_ns, const char *label, uint8_t **ret, size_t *ret_len);
int dut_trace_frame_info(const char *key, const char *value, uint8_t **ret, size_t *ret_len);
/* Footer frame: always 8 + 24 bytes. */
void dut_trace_frame_footer(const struct dut_trace_footer *f,
			    uint8_t out[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_FOOTER_SIZE]);
/* Segment frame of a rotated trace: always 8 + 32 bytes. */
void dut_trace_frame_segment(const struct dut_trace_segment *sg,
			     uint8_t out[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_SEGMENT_SIZE]);
void dut_trace_frame_hdr(uint8_t out[DUT_TRACE_FRAME_HDR_SIZE], uint32_t type, uint32_t payload_len);
/*
 * The opening of a CRECORDS frame (frame header and nrecs, 12 bytes) whose
 * nrecs compact records take records_len bytes after it.  Returns how many
 * zero bytes must follow the records to end the frame on 8 bytes.  The one
 * writer of this header for the trace writer, trace-compact and trace-gen.
 */
size_t dut_trace_cframe_hdr(uint8_t out[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED],
			    uint32_t nrecs, size_t records_len);

/*
 * 2.1: the CSPAN frame (24 bytes) a writer puts right before a CRECORDS
 * frame: the earliest and latest ts_ns of that frame's records.  The
 * streaming reader's scan takes them instead of decoding the frame; every
 * reader that decodes the frame checks them (a wrong span would break the
 * merge's order silently).
 */
struct dut_trace_cspan {
	uint64_t min_ts, max_ts;
};

void dut_trace_frame_cspan(const struct dut_trace_cspan *sp, uint8_t out[DUT_TRACE_CSPAN_FRAME]);

/*
 * Writers put a CSPAN frame only before a CRECORDS frame of at least this
 * many records: it costs 24 bytes, 0.75 a record at 32 (4.6 % of the 16.3
 * bytes of a mean record), and a small frame costs the scan little to
 * decode; a quiet mount's rounds of a few records stay as small as in 2.0.
 */
#define DUT_TRACE_CSPAN_MIN_RECS 32u

static inline bool dut_trace_cframe_wants_span(uint32_t nrecs)
{
	return nrecs >= DUT_TRACE_CSPAN_MIN_RECS;
}

/*
 * The end of a checked decode of a CRECORDS frame: its records ended at q,
 * the frame's payload at end, and their times went from min_ts to max_ts.
 * They must end the payload exactly and, when the frame has a span (sp not
 * NULL), have its times.
 */
static inline bool dut_trace_cframe_decoded_ok(const uint8_t *q, const uint8_t *end, uint64_t min_ts,
					       uint64_t max_ts, const struct dut_trace_cspan *sp)
{
	return q == end && (!sp || (sp->min_ts == min_ts && sp->max_ts == max_ts));
}

/*
 * The message of a malformed frame at byte off (trace_reader.c): the
 * loader's and the scan's, and the streaming merge's for a CRECORDS frame
 * it finds damaged, so that all of them say the same.
 */
void dut_trace_error_malformed(struct dut_error *err, uint64_t off, uint32_t type, uint32_t plen);

/*
 * Compact records (trace_compact.c).  The coder's state: the record before
 * (all zero at a frame's start) and the most recently used pids, which the
 * encoder and the decoder update alike.  Encode r into out (room for
 * DUT_TRACE_CREC_MAX bytes): returns the bytes written.  Decode the record
 * at *pp (before end) into st->prev, advancing *pp; -EBADMSG when the bytes
 * are not a record (st is then undefined).
 */
#define DUT_TRACE_CPIDS 8u

struct dut_trace_cstate {
	struct dut_trace_rec prev;
	uint32_t pids[DUT_TRACE_CPIDS];  /* [0]: prev.pid, then less and less recent */
};

static inline void dut_trace_cstate_init(struct dut_trace_cstate *st)
{
	memset(st, 0, sizeof(*st));
}

size_t dut_trace_crec_encode(struct dut_trace_cstate *st, const struct dut_trace_rec *r, uint8_t *out);
int dut_trace_crec_decode(const uint8_t **pp, const uint8_t *end, struct dut_trace_cstate *st);

/* Decode a FILE payload; path is returned malloc'ed.  -EBADMSG when malformed. */
int dut_trace_file_decode(const uint8_t *p, size_t len, struct dut_trace_file *ret);

/*
 * The streaming reader's index (trace_reader.c scans, trace_stream.c
 * merges).  The file is cut into blocks of DUT_TRACE_BLOCK_SIZE bytes; a
 * frame belongs to the block its header starts in.  Per block: where its
 * first frame starts and the earliest and latest record times in its RECORDS and
 * CRECORDS frames (of a CRECORDS frame with a CSPAN, the span's).
 * The merge reads a block only once every record it has not read yet is
 * later than that block's (and every later block's) earliest record.
 */
#define DUT_TRACE_BLOCK_SHIFT 17u
#define DUT_TRACE_BLOCK_SIZE ((size_t)1 << DUT_TRACE_BLOCK_SHIFT)
/* Readers hand pages back, and map them in, in runs of at least this many bytes. */
#define DUT_TRACE_RELEASE_BATCH ((size_t)2 << 20)

struct dut_trace_block {
	uint64_t first_frame;            /* byte offset; UINT64_MAX: no frame starts here */
	uint64_t min_ts;                 /* earliest record (UINT64_MAX without) */
	uint64_t max_ts;                 /* latest record (0 without): a window skips the block below it */
	uint64_t nrecs;
};

struct dut_trace_scan {
	/* in: pages [off, off + len) will not be read again before the merge (NULL: keep) */
	void (*release)(void *ctx, size_t off, size_t len);
	void *release_ctx;
	/* in: the merge reads pages [off, off + len) next: map them in one go (NULL: fault them in) */
	void (*prefault)(void *ctx, size_t off, size_t len);
	/*
	 * in: read exactly len bytes at off into buf (0 or -errno); when set,
	 * the scan reads the trace so, read_chunk bytes a call (0: 1 MiB),
	 * instead of from the buffer, and hands back no pages.
	 */
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
	void *read_ctx;
	size_t read_chunk;
	/* out */
	struct dut_trace *meta;          /* everything but the records: recs NULL, nrecs their count */
	struct dut_trace_block *blocks;
	size_t nblocks;
	uint32_t rec_size;
	uint64_t first_ts, last_ts;      /* earliest and latest record (0, 0 without records) */
};

/*
 * Pass one of the streaming reader (pure): what dut_trace_parse() checks and
 * returns, except that records are counted and indexed, not copied.  Same
 * errors and truncation rules as dut_trace_parse(), but for the records of
 * a CRECORDS frame with a CSPAN (2.1): their count and span are taken as
 * they are (plausible: nrecs >= 1, not more than the bytes can hold), and
 * the merge finds their damage (trace_stream.c).  When a later frame is
 * corrupt, those frames are decoded after all, so that the first damaged
 * frame is the one named, as dut_trace_parse() would.
 */
int dut_trace_scan(const void *buf, size_t len, struct dut_trace_scan *sc, struct dut_error *err);

/* How a stream hands pages back and lets go of its buffer (trace_stream_linux.c: a mapping). */
struct dut_trace_stream_hooks {
	void (*release)(void *ctx, size_t off, size_t len);
	void (*prefault)(void *ctx, size_t off, size_t len); /* NULL: none */
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len); /* NULL: the scan reads buf */
	void (*unmap)(void *ctx);        /* at close, and when opening fails */
	void *ctx;
};

/*
 * A stream over the segments of a rotated trace (parts oldest first, all
 * segmented), and its side file (NULL: none).  Takes all of them, also
 * when it fails.
 */
int dut_trace_stream_set(struct dut_trace_stream **parts, size_t nparts,
			 struct dut_trace_seconds_file *seconds, struct dut_trace_stream **ret);

int dut_trace_stream_new(const void *buf, size_t len, const struct dut_trace_stream_hooks *hooks,
			 struct dut_trace_stream **ret, struct dut_error *err);

#endif
