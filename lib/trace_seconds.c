/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-second side file of a rotated trace (pure: text in, text out).
 *
 * Writer side: the trace writer thread adds every record it drains, so the
 * side file has what the trace had before any segment was rotated away.
 * Records reach the writer up to a flush interval (and, for an open held
 * for its reply, longer) after their time, from several threads out of
 * order, so the last WINDOW seconds stay open; a second is written once
 * a record WINDOW seconds later arrives.  A record older than every open
 * second (a thread that stalled for seconds) is added to the oldest open
 * one and counted as late: its ops and bytes are kept, a second late.
 *
 * Memory: WINDOW seconds x classes x kinds cells, each with a latency
 * histogram (about 20 KiB) allocated the first time that cell is used:
 * at most 4 x 11 x 3 of them (2.6 MiB), a few in practice.
 *
 * Reader side: only the rows of class "all" are kept, one row per second
 * (about 200 bytes: 4 MB for a night of 8 hours).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/hist.h"
#include "lib/trace.h"

#define WINDOW 4u
#define NS_PER_S 1000000000ull
/* Format 2 adds min_ns, sum_ns and the histogram (trace_seconds_hist.c); 1 is still read. */
#define HEADER_MAGIC_V1 "# dutlab trace seconds 1"
#define HEADER_MAGIC "# dutlab trace seconds 2"
#define COLUMNS "sec\tclass\tkind\tops\tbytes\terrors\tp50_ns\tp90_ns\tp99_ns\tp999_ns\tmax_ns" \
	"\tmin_ns\tsum_ns\thist"
/* A line longer than this is not one of ours (a full histogram is about 37 KB). */
#define LINE_MAX_BYTES (DUT_TRACE_SEC_HIST_MAX + 512u)

static const char *const kind_names[DUT_SEC_KINDS] = { "read", "write", "sync" };

const char *dut_trace_sec_kind_name(enum dut_trace_sec_kind k)
{
	return k < DUT_SEC_KINDS ? kind_names[k] : "?";
}

/* The same kinds as dutfs's live statistics (fuse/tracer.c), so the totals agree. */
enum dut_trace_sec_kind dut_trace_sec_kind_of(uint16_t op)
{
	switch (op) {
	case DUT_OP_READ:
		return DUT_SEC_READ;
	case DUT_OP_WRITE:
		return DUT_SEC_WRITE;
	case DUT_OP_FSYNC:
	case DUT_OP_FDATASYNC:
		return DUT_SEC_SYNC;
	default:
		return DUT_SEC_KINDS;
	}
}

struct cell {
	uint64_t ops, bytes, errors;
	struct dut_hist *lat;            /* valid for this second only when ops > 0 */
};

struct slot {
	bool used;
	uint64_t sec;
	struct cell c[DUT_PG_CLASS_COUNT][DUT_SEC_KINDS];
};

struct dut_trace_seconds {
	uint64_t start_realtime_ns, start_monotonic_ns;
	uint8_t *cls;                    /* class by file id */
	size_t ncls;
	struct slot slots[WINDOW];
	bool any;
	uint64_t newest;                 /* latest second seen */
	uint64_t late, records;
	bool header_done;
	struct dut_hist *sum;
	char *hist_text;                 /* DUT_TRACE_SEC_HIST_MAX: a row's histogram column */
	char *text;                      /* being built for the next take */
	size_t len, cap;
	int err;                         /* -ENOMEM while building text */
};

int dut_trace_seconds_new(uint64_t start_realtime_ns, uint64_t start_monotonic_ns,
			  struct dut_trace_seconds **ret)
{
	struct dut_trace_seconds *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->sum = dut_hist_new();
	s->hist_text = malloc(DUT_TRACE_SEC_HIST_MAX);
	if (!s->sum || !s->hist_text) {
		dut_hist_free(s->sum);
		free(s->hist_text);
		free(s);
		return -ENOMEM;
	}
	s->start_realtime_ns = start_realtime_ns;
	s->start_monotonic_ns = start_monotonic_ns;
	*ret = s;
	return 0;
}

void dut_trace_seconds_free(struct dut_trace_seconds *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < WINDOW; i++)
		for (unsigned c = 0; c < DUT_PG_CLASS_COUNT; c++)
			for (unsigned k = 0; k < DUT_SEC_KINDS; k++)
				dut_hist_free(s->slots[i].c[c][k].lat);
	dut_hist_free(s->sum);
	free(s->hist_text);
	free(s->cls);
	free(s->text);
	free(s);
}

int dut_trace_seconds_file_class(struct dut_trace_seconds *s, uint32_t id, enum dut_pg_class cls)
{
	if (id >= s->ncls) {
		size_t n = s->ncls ? s->ncls : 256;
		uint8_t *p;

		while (n <= id)
			n *= 2;
		p = realloc(s->cls, n);
		if (!p)
			return -ENOMEM;
		memset(p + s->ncls, DUT_PG_OTHER, n - s->ncls);
		s->cls = p;
		s->ncls = n;
	}
	s->cls[id] = (uint8_t)(cls < DUT_PG_CLASS_COUNT ? cls : DUT_PG_OTHER);
	return 0;
}

static void put(struct dut_trace_seconds *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->err)
		return;
	for (;;) {
		size_t room = s->cap - s->len;

		va_start(ap, fmt);
		n = vsnprintf(s->text ? s->text + s->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			s->err = -EINVAL;
			return;
		}
		if ((size_t)n < room) {
			s->len += (size_t)n;
			return;
		}
		size_t ncap = s->cap ? s->cap * 2 : 4096;
		char *p;

		while (ncap - s->len <= (size_t)n)
			ncap *= 2;
		p = realloc(s->text, ncap);
		if (!p) {
			s->err = -ENOMEM;
			return;
		}
		s->text = p;
		s->cap = ncap;
	}
}

static void put_row(struct dut_trace_seconds *s, uint64_t sec, const char *cls, unsigned k,
		    uint64_t ops, uint64_t bytes, uint64_t errors, const struct dut_hist *h)
{
	struct dut_hist_summary sm;

	dut_hist_summarize(h, &sm);
	dut_trace_sec_hist_encode(h, s->hist_text);
	put(s, "%" PRIu64 "\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
	    "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n", sec, cls,
	    kind_names[k], ops, bytes, errors, sm.p50, sm.p90, sm.p99, sm.p999, sm.max, sm.min, h->sum,
	    s->hist_text);
}

static void slot_emit(struct dut_trace_seconds *s, struct slot *sl)
{
	for (unsigned k = 0; k < DUT_SEC_KINDS; k++) {
		uint64_t ops = 0, bytes = 0, errors = 0;

		dut_hist_reset(s->sum);
		for (unsigned c = 0; c < DUT_PG_CLASS_COUNT; c++) {
			struct cell *ce = &sl->c[c][k];

			if (!ce->ops)
				continue;
			put_row(s, sl->sec, dut_pg_class_name((enum dut_pg_class)c), k, ce->ops, ce->bytes,
				ce->errors, ce->lat);
			ops += ce->ops;
			bytes += ce->bytes;
			errors += ce->errors;
			dut_hist_merge(s->sum, ce->lat);
			ce->ops = ce->bytes = ce->errors = 0;
		}
		if (ops)
			put_row(s, sl->sec, "all", k, ops, bytes, errors, s->sum);
	}
	sl->used = false;
}

/* Write the open seconds up to and including sec `upto`, oldest first. */
static void emit_upto(struct dut_trace_seconds *s, uint64_t upto)
{
	for (;;) {
		struct slot *oldest = NULL;

		for (unsigned i = 0; i < WINDOW; i++)
			if (s->slots[i].used && s->slots[i].sec <= upto &&
			    (!oldest || s->slots[i].sec < oldest->sec))
				oldest = &s->slots[i];
		if (!oldest)
			return;
		slot_emit(s, oldest);
	}
}

static void header(struct dut_trace_seconds *s)
{
	if (s->header_done)
		return;
	s->header_done = true;
	put(s, HEADER_MAGIC "\n# start_realtime_ns=%" PRIu64 " start_monotonic_ns=%" PRIu64 "\n"
	    COLUMNS "\n", s->start_realtime_ns, s->start_monotonic_ns);
}

int dut_trace_seconds_add(struct dut_trace_seconds *s, const struct dut_trace_rec *r)
{
	enum dut_trace_sec_kind k = dut_trace_sec_kind_of(r->op);
	uint64_t sec;
	struct slot *sl;
	struct cell *ce;
	unsigned cls;

	if (k == DUT_SEC_KINDS)
		return 0;
	sec = r->ts_ns > s->start_monotonic_ns ? (r->ts_ns - s->start_monotonic_ns) / NS_PER_S : 0;
	if (!s->any) {
		s->any = true;
		s->newest = sec;
	}
	if (sec > s->newest) {
		if (sec >= WINDOW) {
			header(s);
			emit_upto(s, sec - WINDOW);
		}
		s->newest = sec;
	} else if (sec + WINDOW <= s->newest) {
		sec = s->newest - WINDOW + 1; /* its second is written: the oldest open one */
		s->late++;
	}
	sl = &s->slots[sec % WINDOW];
	if (!sl->used) {
		sl->used = true;
		sl->sec = sec;
	}
	cls = r->file_id < s->ncls ? s->cls[r->file_id] : DUT_PG_OTHER;
	ce = &sl->c[cls][k];
	if (!ce->lat && !(ce->lat = dut_hist_new()))
		return -ENOMEM;
	if (!ce->ops)
		dut_hist_reset(ce->lat);
	ce->ops++;
	ce->bytes += r->result > 0 ? (uint64_t)r->result : 0;
	ce->errors += r->result < 0;
	dut_hist_add(ce->lat, r->lat_ns);
	s->records++;
	return 0;
}

int dut_trace_seconds_take(struct dut_trace_seconds *s, bool final, char **ret_text)
{
	char *t;

	header(s);
	if (final) {
		emit_upto(s, UINT64_MAX);
		put(s, "# end\tseconds=%" PRIu64 "\tlate=%" PRIu64 "\trecords=%" PRIu64 "\n",
		    s->any ? s->newest + 1 : 0, s->late, s->records);
	}
	if (s->err) {
		int r = s->err;

		s->err = 0;
		s->len = 0;
		return r;
	}
	if (!s->text) {
		t = strdup("");
		if (!t)
			return -ENOMEM;
	} else {
		t = s->text;
		t[s->len] = '\0';
		s->text = NULL;
		s->len = s->cap = 0;
	}
	*ret_text = t;
	return 0;
}

/* ---- reader ---- */

void dut_trace_seconds_file_free(struct dut_trace_seconds_file *f)
{
	if (!f)
		return;
	free(f->rows);
	free(f->buckets);
	free(f);
}
DUT_DEFINE_FREEP(struct dut_trace_seconds_file *, dut_trace_seconds_file_free)

static int kind_parse(const char *s, size_t n)
{
	for (unsigned k = 0; k < DUT_SEC_KINDS; k++)
		if (strlen(kind_names[k]) == n && !memcmp(s, kind_names[k], n))
			return (int)k;
	return -1;
}

struct parse_state {
	struct dut_trace_seconds_file *f;
	size_t cap_rows, cap_buckets;
	struct dut_trace_sec_bucket *scratch; /* one histogram, DUT_HIST_NBUCKETS */
};

/* Keep a parsed histogram of class all: its buckets go to f->buckets. */
static int keep_hist(struct parse_state *ps, struct dut_trace_sec_cell *c, size_t n)
{
	struct dut_trace_seconds_file *f = ps->f;

	if (f->nbuckets + n > ps->cap_buckets) {
		size_t ncap = ps->cap_buckets ? ps->cap_buckets * 2 : 4096;
		struct dut_trace_sec_bucket *p;

		while (ncap < f->nbuckets + n)
			ncap *= 2;
		p = realloc(f->buckets, ncap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		f->buckets = p;
		ps->cap_buckets = ncap;
	}
	memcpy(f->buckets + f->nbuckets, ps->scratch, n * sizeof(*ps->scratch));
	c->hist_first = f->nbuckets;
	c->hist_n = (uint32_t)n;
	f->nbuckets += n;
	return 0;
}

/*
 * One data line: sec, class, kind, 8 numbers (format 1); format 2 then
 * min_ns, sum_ns and the histogram, whose counts must add up to ops.
 */
static int parse_row(struct parse_state *ps, const char *line)
{
	struct dut_trace_seconds_file *f = ps->f;
	char cls[32], kind[16];
	struct dut_trace_sec_cell c = { 0 };
	uint64_t sec, total = 0;
	size_t nb = 0;
	int k, n = 0, r;

	if (sscanf(line, "%" SCNu64 "\t%31[^\t]\t%15[^\t]\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64 "\t%"
		   SCNu64 "\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64 "%n", &sec, cls, kind,
		   &c.ops, &c.bytes, &c.errors, &c.p50_ns, &c.p90_ns, &c.p99_ns, &c.p999_ns, &c.max_ns,
		   &n) != 11)
		return -EBADMSG;
	if (f->has_hist) {
		int m = 0;
		const char *h;

		if (sscanf(line + n, "\t%" SCNu64 "\t%" SCNu64 "\t%n", &c.min_ns, &c.sum_ns, &m) != 2 || !m)
			return -EBADMSG;
		h = line + n + m;
		n += m + (int)strlen(h);
		if ((r = dut_trace_sec_hist_parse(h, strlen(h), ps->scratch, &nb)) < 0)
			return r;
		for (size_t i = 0; i < nb; i++)
			total += ps->scratch[i].count;
		if (total != c.ops)
			return -EBADMSG;
	}
	if (line[n] != '\n' && line[n] != '\0')
		return -EBADMSG;
	k = kind_parse(kind, strlen(kind));
	if (k < 0)
		return -EBADMSG;
	if (strcmp(cls, "all") != 0)
		return 0;
	if (f->nrows && sec < f->rows[f->nrows - 1].sec)
		return -EBADMSG;
	if (f->has_hist && (r = keep_hist(ps, &c, nb)) < 0)
		return r;
	if (!f->nrows || f->rows[f->nrows - 1].sec != sec) {
		if (f->nrows == ps->cap_rows) {
			size_t ncap = ps->cap_rows ? ps->cap_rows * 2 : 256;
			struct dut_trace_sec_row *p = realloc(f->rows, ncap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			f->rows = p;
			ps->cap_rows = ncap;
		}
		memset(&f->rows[f->nrows], 0, sizeof(f->rows[0]));
		f->rows[f->nrows++].sec = sec;
	}
	f->rows[f->nrows - 1].k[k] = c;
	f->records += c.ops;
	return 0;
}

static int parse_line(struct parse_state *ps, const char *line)
{
	struct dut_trace_seconds_file *f = ps->f;

	if (!strncmp(line, "# start_realtime_ns=", 20)) {
		if (sscanf(line, "# start_realtime_ns=%" SCNu64 " start_monotonic_ns=%" SCNu64,
			   &f->start_realtime_ns, &f->start_monotonic_ns) != 2)
			return -EBADMSG;
	} else if (!strncmp(line, "# end\t", 6)) {
		uint64_t records;

		if (sscanf(line, "# end\tseconds=%" SCNu64 "\tlate=%" SCNu64 "\trecords=%" SCNu64,
			   &f->end_sec, &f->late, &records) != 3)
			return -EBADMSG;
		f->complete = true;
	} else if (line[0] != '#' && strncmp(line, "sec\t", 4) != 0) {
		return parse_row(ps, line);
	}
	return 0;
}

int dut_trace_seconds_parse(const char *text, size_t len, struct dut_trace_seconds_file **ret,
			    struct dut_error *err)
{
	_cleanup_(dut_trace_seconds_file_freep) struct dut_trace_seconds_file *f = calloc(1, sizeof(*f));
	_cleanup_free_ char *line = malloc(LINE_MAX_BYTES);
	_cleanup_free_ struct dut_trace_sec_bucket *scratch =
		malloc(DUT_HIST_NBUCKETS * sizeof(*scratch));
	struct parse_state ps = { .f = f };
	size_t lineno = 0;
	const char *p = text, *end = text + len;

	if (!f || !line || !scratch)
		return -ENOMEM;
	ps.scratch = scratch;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n;
		int r = 0;

		if (!nl)
			break; /* a last line cut short (the writer was killed): not a row */
		n = (size_t)(nl - p);
		lineno++;
		if (n >= LINE_MAX_BYTES) {
			dut_error_set(err, "side file line %zu: longer than %u bytes", lineno,
				      LINE_MAX_BYTES);
			return -EBADMSG;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl + 1;
		if (lineno == 1) {
			if (strcmp(line, HEADER_MAGIC) == 0) {
				f->version = 2;
				f->has_hist = true;
			} else if (strcmp(line, HEADER_MAGIC_V1) == 0) {
				f->version = 1;
			} else if (!strncmp(line, "# dutlab trace seconds ", 23)) {
				dut_error_set(err, "side file of format \"%.20s\", newer than this dutlab "
					      "reads (1 and 2): use a newer dutlab", line + 23);
				return -EBADMSG;
			} else {
				dut_error_set(err, "not a dutlab side file (first line is not \"%s\")",
					      HEADER_MAGIC);
				return -EBADMSG;
			}
			continue;
		}
		r = parse_line(&ps, line);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			dut_error_set(err, "side file line %zu is malformed: \"%.80s\"", lineno, line);
			return r;
		}
	}
	if (lineno == 0) {
		dut_error_set(err, "the side file is empty");
		return -EBADMSG;
	}
	if (!f->complete)
		f->end_sec = f->nrows ? f->rows[f->nrows - 1].sec + 1 : 0;
	*ret = TAKE_PTR(f);
	return 0;
}

int dut_trace_seconds_file_hist(const struct dut_trace_seconds_file *f, enum dut_trace_sec_kind k,
				uint64_t from_sec, uint64_t to_sec, struct dut_hist *h)
{
	if (!f->has_hist)
		return -ENODATA;
	if (k >= DUT_SEC_KINDS)
		return -EINVAL;
	for (size_t i = 0; i < f->nrows && f->rows[i].sec < to_sec; i++) {
		const struct dut_trace_sec_cell *c = &f->rows[i].k[k];

		if (f->rows[i].sec < from_sec || !c->ops)
			continue;
		dut_trace_sec_hist_merge(h, f->buckets + c->hist_first, c->hist_n, c->min_ns, c->max_ns,
					 c->sum_ns);
	}
	return 0;
}
