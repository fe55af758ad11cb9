/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dutfs trace: format, writer and reader.  Format: docs/trace-format.md.
 *
 * A trace file is a 64-byte header followed by frames.  Every integer is
 * little-endian.  Each frame is { u32 type; u32 payload_len; payload; } with
 * the payload padded with zeroes to a multiple of 8 bytes.  Frame types:
 *   RECORDS  payload_len/48 fixed-size I/O records (struct dut_trace_rec; 1.x)
 *   CRECORDS the same records delta/varint-encoded, one frame per writer
 *            round (2.0, what the writer writes; lib/trace_compact.c)
 *   FILE     a file-table entry: id -> path and its PostgreSQL classification
 *   MARKER   a phase marker: timestamp and label
 *   INFO     "key=value\n" text about the mount (backing dir, view, options)
 *   FOOTER   totals written at a clean close: records written, dropped, end time
 * File-table entries may appear anywhere (files are discovered while the
 * database runs); a reader resolves ids after reading the whole trace.
 * Records from different threads are not in timestamp order in the file;
 * one thread's frames follow each other in its time order, mostly.
 * A trace without FOOTER was not closed cleanly (dutfs was killed); the
 * reader says so and still returns everything up to the last whole frame.
 */
#ifndef DUT_TRACE_H
#define DUT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/pgpath.h"
#include "lib/hist.h"

#define DUT_TRACE_MAGIC "DUTTRACE"  /* 8 bytes, no NUL */
/*
 * 2.0: compact RECORDS frames (CRECORDS), which a 1.x reader would skip as
 * unknown and so lose every record silently: a new major version, which 1.x
 * readers refuse.  This reader reads 1.0, 1.1 and 2.x.
 * 2.1: a CSPAN frame before each CRECORDS frame (its records' earliest and
 * latest time), so that the streaming reader's scan need not decode them;
 * a 2.0 reader skips it and reads 2.1 traces whole.
 */
#define DUT_TRACE_VERSION_MAJOR 2
#define DUT_TRACE_VERSION_MINOR 1
#define DUT_TRACE_VERSION_MAJOR_OLDEST 1  /* 1.1: dutfs_ns in the record */
#define DUT_TRACE_HEADER_SIZE 64
#define DUT_TRACE_REC_SIZE 48

enum dut_trace_frame_type {
	DUT_TRACE_FRAME_RECORDS = 1,
	DUT_TRACE_FRAME_FILE = 2,
	DUT_TRACE_FRAME_MARKER = 3,
	DUT_TRACE_FRAME_INFO = 4,
	DUT_TRACE_FRAME_FOOTER = 5,
	DUT_TRACE_FRAME_SEGMENT = 6,   /* 1.1, --trace-max: which segment of a rotated trace this is */
	DUT_TRACE_FRAME_CRECORDS = 7,  /* 2.0: delta/varint-encoded records of one writer thread */
	DUT_TRACE_FRAME_CSPAN = 8,     /* 2.1: the time span of the CRECORDS frame right after it */
};

enum dut_trace_op {
	DUT_OP_READ = 1,
	DUT_OP_WRITE,
	DUT_OP_FSYNC,
	DUT_OP_FDATASYNC,
	DUT_OP_OPEN,
	DUT_OP_CREATE,
	DUT_OP_RELEASE,
	DUT_OP_TRUNCATE,      /* offset = new size */
	DUT_OP_FALLOCATE,     /* flags = mode */
	DUT_OP_PUNCH_HOLE,
	DUT_OP_UNLINK,
	DUT_OP_RENAME,        /* file id = the source; offset = id of the new name */
	DUT_OP_FLUSH,
	DUT_OP_MMAP_WRITE,    /* reserved: writes that arrive through writeback of mmap pages */
	DUT_OP_FAULT,         /* a shaping fault fired; result = injected -errno */
	DUT_OP_COUNT
};

/* Record flags. */
#define DUT_TRACE_F_DIRECT   0x0001u /* file opened O_DIRECT */
#define DUT_TRACE_F_WRITEBACK 0x0002u /* write came from the kernel's writeback cache (pid is not the writer) */
#define DUT_TRACE_F_SHAPED   0x0004u /* latency includes a shaping delay */
#define DUT_TRACE_F_FAULT    0x0008u /* result was injected */
#define DUT_TRACE_F_BUFFERED 0x0010u /* meant to go O_DIRECT, served through the backing page cache */

/* One I/O, 48 bytes on disk in exactly this order. */
struct dut_trace_rec {
	uint64_t ts_ns;     /* CLOCK_MONOTONIC when the backing call started */
	uint64_t offset;
	uint64_t lat_ns;    /* time spent in the backing call (plus shaping delay) */
	uint32_t len;       /* requested bytes */
	int32_t result;     /* bytes done, 0, or -errno */
	uint32_t file_id;
	uint32_t pid;       /* calling process, from the FUSE request context */
	uint16_t op;        /* enum dut_trace_op */
	uint16_t flags;
	/*
	 * dutfs's own time for this request, from its arrival in dutfs's I/O
	 * path to the moment the reply was handed to the kernel, minus lat_ns:
	 * what the instrument added beyond the backing call and the model's
	 * delay.  Saturates at DUT_TRACE_DUTFS_NS_MAX; at least 1 when
	 * measured, so 0 means "not recorded" (a 1.0 trace, or an op whose
	 * reply time dutfs does not take).
	 */
	uint32_t dutfs_ns;
};

#define DUT_TRACE_DUTFS_NS_MAX UINT32_MAX

/* overhead = (reply - arrival) - lat_ns as stored in dutfs_ns (pure, saturating, >= 1). */
uint32_t dut_trace_dutfs_ns(uint64_t arrival_ns, uint64_t reply_ns, uint64_t lat_ns);

struct dut_trace_file {
	uint32_t id;
	char *path;                 /* relative to the mount root */
	struct dut_pg_file pg;      /* lib/pgpath classification of path */
};

struct dut_trace_marker {
	uint64_t ts_ns;
	char *label;
};

struct dut_trace_header {
	uint16_t version_major, version_minor;
	uint32_t flags;             /* DUT_TRACE_HDR_* */
	uint64_t start_realtime_ns; /* CLOCK_REALTIME at open */
	uint64_t start_monotonic_ns;
};

#define DUT_TRACE_HDR_SYSCALL_VIEW 0x1u /* direct_io: every syscall reaches dutfs */

/* Whether the records' dutfs_ns is a measurement (1.1 and later; 1.0 wrote a reserved word). */
static inline bool dut_trace_hdr_has_dutfs_ns(const struct dut_trace_header *h)
{
	return h->version_major > 1 || h->version_minor >= 1;
}

struct dut_trace_footer {
	uint64_t records_written;
	uint64_t records_dropped;   /* could not be written (disk full, ...) */
	uint64_t end_monotonic_ns;
};

/*
 * A rotated trace (--trace-max, docs/soak.md): the file PATH is the newest
 * segment, PATH.<seq> the older ones still kept.  Every segment starts with
 * a SEGMENT frame, then the INFO, FILE and MARKER frames known so far, so
 * each segment is a whole trace and the newest has the whole meta trace.
 */
struct dut_trace_segment {
	uint32_t seq;               /* 1, 2, ...: this segment's number */
	uint32_t keep;              /* segments the writer keeps (PATH and keep - 1 older) */
	uint64_t records_before;    /* records written into earlier segments */
	uint64_t dropped_before;    /* records dropped before this segment started */
	uint64_t max_bytes;         /* --trace-max: all kept segments together */
};

/* Pure encoding helpers (trace_format.c), used by writer, reader and tests. */
void dut_trace_rec_encode(const struct dut_trace_rec *r, uint8_t out[DUT_TRACE_REC_SIZE]);
void dut_trace_rec_decode(const uint8_t in[DUT_TRACE_REC_SIZE], struct dut_trace_rec *ret);
const char *dut_trace_op_name(enum dut_trace_op op);
int dut_trace_op_from_name(const char *name, enum dut_trace_op *ret);

/* ---- writer (trace_writer.c) ----
 * dut_trace_emit() is called on FUSE worker threads: it copies the record
 * into a per-thread buffer and returns; it never takes a lock shared with
 * the writer thread's disk I/O and never waits on it.  When the buffers are
 * full or the file cannot be written, records are counted as dropped.
 */
struct dut_trace_writer;

struct dut_trace_writer_opts {
	uint32_t flags;           /* DUT_TRACE_HDR_* */
	size_t thread_buf_recs;   /* per-thread buffer, records (0 = default 65536) */
	/*
	 * A full per-thread buffer smaller than this (records) is followed by
	 * one twice its size instead of dropping; the writer drains and frees
	 * the old one first, so a thread's records keep their order.  A
	 * thread's buffers then take at most about 2 x this many records (the
	 * chain while the writer is late), and its largest one stays until the
	 * thread exits.  0 = thread_buf_recs: no growth.
	 */
	size_t thread_buf_max_recs;
	uint64_t flush_interval_ns; /* writer wake-up (0 = default 50 ms) */
	/*
	 * Rotation (0 = one file, no bound): the segments together stay within
	 * max_bytes; PATH is the newest, PATH.<seq> the older ones, at most
	 * max_segments files (0 = default 4).  Also writes PATH.seconds, the
	 * per-second side file of the whole run (trace_seconds.c).
	 */
	uint64_t max_bytes;
	unsigned max_segments;
	/*
	 * Write 1.1 traces: fixed 48-byte RECORDS frames (what readers before
	 * 2.0 read), instead of 2.0's compact CRECORDS frames.
	 */
	bool fixed_records;
};

#define DUT_TRACE_SEGMENTS_DEFAULT 4u
#define DUT_TRACE_SEGMENTS_MAX 64u
/* Smallest segment (max_bytes / segments): a batch of records and the meta frames must fit. */
#define DUT_TRACE_SEGMENT_MIN_BYTES (1ull << 20)
#define DUT_TRACE_SECONDS_SUFFIX ".seconds"

int dut_trace_writer_open(const char *path, const struct dut_trace_writer_opts *opts,
			  struct dut_trace_writer **ret);
void dut_trace_emit(struct dut_trace_writer *w, const struct dut_trace_rec *r);
int dut_trace_writer_add_file(struct dut_trace_writer *w, uint32_t id, const char *path,
			      const struct dut_pg_file *pg);
int dut_trace_writer_mark(struct dut_trace_writer *w, uint64_t ts_ns, const char *label);
int dut_trace_writer_info(struct dut_trace_writer *w, const char *key, const char *value);
void dut_trace_writer_counts(struct dut_trace_writer *w, uint64_t *ret_written,
			     uint64_t *ret_dropped);
/* Flush everything, write the footer, close.  Returns the first write error seen. */
int dut_trace_writer_close(struct dut_trace_writer *w);
/* Rotations done so far (segments started after the first). */
uint64_t dut_trace_writer_rotations(struct dut_trace_writer *w);
/*
 * The same, also giving the final totals (the ones in the footer, which
 * include the last flush that dut_trace_writer_counts cannot see).  Either
 * pointer may be NULL.  w is freed in every case.
 */
int dut_trace_writer_close_counts(struct dut_trace_writer *w, uint64_t *ret_written,
				  uint64_t *ret_dropped);

/* ---- reader (trace_reader.c) ---- */
struct dut_trace {
	struct dut_trace_header hdr;
	struct dut_trace_file *files;   /* sorted by id */
	size_t nfiles;
	struct dut_trace_rec *recs;     /* sorted by ts_ns */
	size_t nrecs;
	struct dut_trace_marker *markers; /* sorted by ts_ns */
	size_t nmarkers;
	char *info;                     /* concatenated INFO text */
	bool has_footer;
	struct dut_trace_footer footer;
	bool truncated;                 /* stopped at a partial frame */
	uint64_t valid_bytes;           /* bytes of whole frames read */
	/*
	 * A rotated trace: seg is this file's SEGMENT frame.  From the
	 * streaming reader over a segment set (dut_trace_stream_open of PATH):
	 * seg is the newest's, first_seq the oldest segment read, nrecs the
	 * records of all of them, and records_gone those of the segments
	 * rotated away (in none of the files).
	 */
	bool segmented;
	struct dut_trace_segment seg;
	uint32_t first_seq;
	uint64_t records_gone;
};

/*
 * Parse a whole trace image (pure).  A bad header or a corrupt frame fails
 * with -EBADMSG (err says at which byte offset and why).  A file cut short
 * mid-frame returns 0 with ->truncated set and ->valid_bytes saying how far
 * it got; err then holds the warning text.
 */
int dut_trace_parse(const void *buf, size_t len, struct dut_trace **ret, struct dut_error *err);
int dut_trace_load(const char *path, struct dut_trace **ret, struct dut_error *err);
void dut_trace_free(struct dut_trace *t);
/* Binary search by id; NULL if absent. */
const struct dut_trace_file *dut_trace_file_by_id(const struct dut_trace *t, uint32_t id);

/*
 * ---- streaming reader (trace_stream.c) ----
 * One pass over the records in timestamp order, equal timestamps in file
 * order: the order dut_trace_load() sorts them into, without holding them.
 * Opening reads everything but the records (the meta trace: files, markers,
 * info, footer, truncation; recs NULL and nrecs their count) and indexes
 * the file; dut_trace_stream_next() then merges the writer threads' runs.
 * Memory: the meta trace, the index (about 44 bytes per 2 MiB of trace) and
 * 40 bytes per segment being merged (docs/trace-format.md); the file is mapped and its pages are handed
 * back to the kernel as the merge passes them.
 */
struct dut_trace_stream;

/*
 * Same errors, warnings (in err) and truncation rules as dut_trace_load(),
 * but that a damaged CRECORDS frame of a 2.1 trace (one with a CSPAN frame)
 * is found by dut_trace_stream_next(), not here.
 */
int dut_trace_stream_open(const char *path, struct dut_trace_stream **ret, struct dut_error *err);
/* Pure: over a buffer that outlives the stream. */
int dut_trace_stream_open_buf(const void *buf, size_t len, struct dut_trace_stream **ret,
			      struct dut_error *err);
const struct dut_trace *dut_trace_stream_meta(const struct dut_trace_stream *s);
/* Earliest and latest record time (0, 0 without records). */
void dut_trace_stream_span(const struct dut_trace_stream *s, uint64_t *ret_first_ns,
			   uint64_t *ret_last_ns);
/*
 * The next records, in order: *ret points at *ret_n of them (0 at the end),
 * valid until the next call.  -ENOMEM; -EBADMSG for a damaged CRECORDS
 * frame of a 2.1 trace (the scan at open trusts their CSPAN frames, the
 * merge decodes and checks them): dut_trace_stream_error() says which.
 */
int dut_trace_stream_next(struct dut_trace_stream *s, const struct dut_trace_rec **ret,
			  size_t *ret_n);
/*
 * Why dut_trace_stream_next() failed, in the words dut_trace_load() has for
 * the same trace ("corrupt trace at byte N: malformed CRECORDS frame
 * (length L)", "out of memory reading the trace"); an empty message while
 * it has not failed.  Any time from the thread that reads the stream, also
 * while the merge runs on its own thread (dut_trace_stream_prefetch).
 */
void dut_trace_stream_error(const struct dut_trace_stream *s, struct dut_error *ret);
void dut_trace_stream_close(struct dut_trace_stream *s);
/*
 * Merge on a second thread from now on, a few batches ahead of
 * dut_trace_stream_next() (same records, same order, same errors): the
 * consumer's work and the merge's overlap on two cores.  Call before the
 * first dut_trace_stream_next(), from the thread that reads the stream.
 * 0, or -errno when no thread could be started (the stream is unchanged
 * and still reads in the caller's thread).
 */
int dut_trace_stream_prefetch(struct dut_trace_stream *s);
/*
 * Another reader over s's trace, for another thread: it shares s's bytes and
 * its scan (read-only; s is closed after it), with its own merge.  Before
 * s's first dut_trace_stream_next()/prefetch.  A segment set (rotated trace)
 * clones each of its parts (the clone has no seconds file).
 */
int dut_trace_stream_clone(struct dut_trace_stream *s, struct dut_trace_stream **ret);
/*
 * Only the records with lo_ns <= ts_ns < hi_ns (hi_ns == UINT64_MAX: no upper
 * bound), in the same order as the whole stream gives them.  Before the
 * first dut_trace_stream_next()/prefetch.  On a set: on each part.
 */
void dut_trace_stream_set_window(struct dut_trace_stream *s, uint64_t lo_ns, uint64_t hi_ns);
/*
 * k + 1 times cutting the trace into k windows of about equal record
 * counts, from the scan's block index: bounds[0] = 0, bounds[k] = UINT64_MAX,
 * non-decreasing (a window may be empty).
 */
void dut_trace_stream_cut(const struct dut_trace_stream *s, size_t k, uint64_t *bounds);
/*
 * A clone's reading failed: s fails alike from now on (its next
 * dut_trace_stream_next() returns the clone's error), and
 * dut_trace_stream_error(s) says why in the clone's words, unless s had
 * failed first: its own error stays.  From the thread that reads s, after
 * the clone's reading has ended; not on a stream being prefetched.
 */
void dut_trace_stream_take_error(struct dut_trace_stream *s, const struct dut_trace_stream *from);

/*
 * ---- per-second side file (trace_seconds.c) ----
 * Written beside a rotated trace (PATH.seconds): per second of the run, per
 * file class and kind (read, write, sync; class "all" sums the classes),
 * ops, bytes, errors and latency percentiles of every record the writer
 * got, so the run's time series survives the rotation.  Text, one row per
 * line, tab-separated (docs/trace-format.md "Side file").
 */
enum dut_trace_sec_kind { DUT_SEC_READ, DUT_SEC_WRITE, DUT_SEC_SYNC, DUT_SEC_KINDS };

struct dut_trace_sec_cell {
	uint64_t ops, bytes, errors;
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	/* format 2 only (has_hist): the latency histogram, file->buckets[hist_first ..][hist_n] */
	uint64_t min_ns, sum_ns;
	size_t hist_first;
	uint32_t hist_n;
};

/* A non-empty bucket of a side file's latency histogram (lib/hist.h's buckets). */
struct dut_trace_sec_bucket {
	uint32_t idx;
	uint32_t count;
};

/* One second of the whole run (class "all"), as the reader keeps it. */
struct dut_trace_sec_row {
	uint64_t sec;               /* seconds since the trace's start_monotonic_ns */
	struct dut_trace_sec_cell k[DUT_SEC_KINDS];
};

struct dut_trace_seconds_file {
	uint64_t start_realtime_ns, start_monotonic_ns;
	struct dut_trace_sec_row *rows; /* by sec, only seconds with a row */
	size_t nrows;
	bool complete;                  /* has its end line (the writer closed) */
	uint64_t end_sec;               /* from the end line, else the last row's */
	uint64_t late;                  /* records added to a later second than theirs */
	uint64_t records;               /* read/write/sync records in it */
	unsigned version;               /* 1: percentiles only; 2: also histograms */
	bool has_hist;                  /* version 2: the cells' histograms are in buckets */
	struct dut_trace_sec_bucket *buckets; /* the cells' non-empty buckets, ascending per cell */
	size_t nbuckets;
};

const char *dut_trace_sec_kind_name(enum dut_trace_sec_kind k);
/* The kind of an op; DUT_SEC_KINDS for ops the side file does not count. */
enum dut_trace_sec_kind dut_trace_sec_kind_of(uint16_t op);

/* Writer side (pure): aggregate records, give back finished seconds as text. */
struct dut_trace_seconds;
int dut_trace_seconds_new(uint64_t start_realtime_ns, uint64_t start_monotonic_ns,
			  struct dut_trace_seconds **ret);
/* The class of a file id (FILE entries); unknown ids count as other. */
int dut_trace_seconds_file_class(struct dut_trace_seconds *s, uint32_t id, enum dut_pg_class cls);
int dut_trace_seconds_add(struct dut_trace_seconds *s, const struct dut_trace_rec *r);
/*
 * Text of the seconds that can no longer get records (all of them, and the
 * end line, when final): *ret_text (malloc'ed, NUL-terminated, "" when
 * nothing is finished).  The first call also gives the header lines.
 */
int dut_trace_seconds_take(struct dut_trace_seconds *s, bool final, char **ret_text);
void dut_trace_seconds_free(struct dut_trace_seconds *s);

/* Reader side: parse a side file's text (pure), load one (-ENOENT when absent). */
int dut_trace_seconds_parse(const char *text, size_t len, struct dut_trace_seconds_file **ret,
			    struct dut_error *err);
int dut_trace_seconds_load(const char *path, struct dut_trace_seconds_file **ret,
			   struct dut_error *err);
void dut_trace_seconds_file_free(struct dut_trace_seconds_file *f);
/*
 * h += the latency histograms of kind k of the seconds from_sec <= sec <
 * to_sec (class all): exact, as one histogram fed those records (count,
 * buckets, min, max and sum; sumsq is not kept, so stddev is not).  -ENODATA
 * for a format-1 side file (no histograms).
 */
int dut_trace_seconds_file_hist(const struct dut_trace_seconds_file *f, enum dut_trace_sec_kind k,
				uint64_t from_sec, uint64_t to_sec, struct dut_hist *h);

/*
 * A side file's histogram column (pure; trace_seconds_hist.c): the non-empty
 * buckets ascending, "IDX[:COUNT]" comma-separated, IDX the bucket index
 * (the first) or the step from the previous one, ":COUNT" left out for 1;
 * "-" for an empty histogram.  _encode writes it NUL-terminated into buf
 * (at most DUT_TRACE_SEC_HIST_MAX bytes with the NUL) and returns its
 * length.  _parse reads one (n bytes, no NUL needed) into out (room for
 * DUT_HIST_NBUCKETS), checking that indices ascend within the histogram
 * and counts are 1 to 2^32 - 1: 0 or -EBADMSG.  _merge adds parsed buckets
 * to h with the cell's min, max and sum.
 */
#define DUT_TRACE_SEC_HIST_MAX (DUT_HIST_NBUCKETS * 17u + 2u)
size_t dut_trace_sec_hist_encode(const struct dut_hist *h, char *buf);
int dut_trace_sec_hist_parse(const char *s, size_t n, struct dut_trace_sec_bucket *out,
			     size_t *ret_n);
void dut_trace_sec_hist_merge(struct dut_hist *h, const struct dut_trace_sec_bucket *b, size_t n,
			      uint64_t min_ns, uint64_t max_ns, uint64_t sum_ns);

/* The side file of the trace a stream reads (PATH.seconds), or NULL. */
const struct dut_trace_seconds_file *dut_trace_stream_seconds(const struct dut_trace_stream *s);

#endif
