/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Synthetic dutfs traces (trace_gen.h).  Pure: bytes go to the caller's write function. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/pgpath.h"
#include "lib/trace.h"
#include "lib/trace_format.h"
#include "tools/trace/trace_gen.h"

#define OUT_BYTES (4u << 20)
#define MAX_FILES 4096u

struct gthread {
	struct dut_trace_rec *v;
	size_t n, cap;
	bool has_pending;
	struct dut_trace_rec pending;  /* held back: goes after the thread's next record */
};

struct straggler {
	struct dut_trace_rec rec;
	unsigned thread, rounds_left;
	bool used;
};

struct gfile {
	char path[64];
	struct dut_pg_file pg;
	bool announced;
	uint64_t cursor;               /* end of the last read or write */
};

struct gen {
	const struct trace_gen_opts *o;
	trace_gen_write_fn write;
	void *ctx;
	uint64_t rng;
	uint8_t *out;
	size_t out_len;
	int err;
	struct gthread *th;
	unsigned nth;
	struct gfile *files;
	unsigned nfiles;
	struct straggler strag;
	uint32_t after_ids[64];        /* FILE entries to write after this round's records */
	unsigned nafter;
	uint64_t written;
};

static uint64_t rnd(struct gen *g)
{
	/* xorshift64* */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 2685821657736338717ull;
}

static unsigned pct(struct gen *g)
{
	return (unsigned)(rnd(g) >> 33) % 100;
}

static void out_flush(struct gen *g)
{
	int r;

	if (g->out_len == 0 || g->err)
		return;
	r = g->write(g->ctx, g->out, g->out_len);
	if (r < 0)
		g->err = r;
	g->out_len = 0;
}

static void out_put(struct gen *g, const void *p, size_t n)
{
	if (g->out_len + n > OUT_BYTES)
		out_flush(g);
	if (n > OUT_BYTES) { /* cannot happen: frames are smaller */
		g->err = -EINVAL;
		return;
	}
	memcpy(g->out + g->out_len, p, n);
	g->out_len += n;
}

static void out_frame(struct gen *g, int r, uint8_t *f, size_t len)
{
	if (r < 0) {
		g->err = r;
		return;
	}
	out_put(g, f, len);
	free(f);
}

static void file_announce(struct gen *g, uint32_t id)
{
	uint8_t *f = NULL;
	size_t len = 0;
	int r = dut_trace_frame_file(id, g->files[id - 1].path, &g->files[id - 1].pg, &f, &len);

	g->files[id - 1].announced = true;
	out_frame(g, r, f, len);
}

static void files_init(struct gen *g)
{
	for (unsigned i = 0; i < g->nfiles; i++) {
		struct gfile *f = &g->files[i];
		unsigned rfn = 16384 + i;

		switch (i % 8) {
		case 0: snprintf(f->path, sizeof(f->path), "pg_wal/0000000100000000000000%02X", i % 256); break;
		case 1: snprintf(f->path, sizeof(f->path), "base/5/%u", rfn); break;
		case 2: snprintf(f->path, sizeof(f->path), "base/5/%u_fsm", rfn - 1); break;
		case 3: snprintf(f->path, sizeof(f->path), "base/5/%u_vm", rfn - 2); break;
		case 4: snprintf(f->path, sizeof(f->path), "base/5/t3_%u", rfn); break;
		case 5: snprintf(f->path, sizeof(f->path), "base/pgsql_tmp/pgsql_tmp%u.0", i); break;
		case 6: snprintf(f->path, sizeof(f->path), "pg_xact/%04X", i); break;
		default: snprintf(f->path, sizeof(f->path), "base/5/%u.1", rfn); break;
		}
		if (i == 7)
			snprintf(f->path, sizeof(f->path), "postgresql.auto.conf");
		(void)dut_pg_classify(f->path, DUT_PG_ROOT_DATADIR, 0, &f->pg);
	}
}

static uint16_t pick_op(struct gen *g)
{
	unsigned p = pct(g);

	if (p < 45) return DUT_OP_READ;
	if (p < 80) return DUT_OP_WRITE;
	if (p < 84) return DUT_OP_FSYNC;
	if (p < 86) return DUT_OP_FDATASYNC;
	if (p < 90) return DUT_OP_OPEN;
	if (p < 94) return DUT_OP_RELEASE;
	if (p < 95) return DUT_OP_TRUNCATE;
	if (p < 96) return DUT_OP_FALLOCATE;
	if (p < 97) return DUT_OP_FAULT;
	if (p < 98) return DUT_OP_MMAP_WRITE;
	if (p < 99) return DUT_OP_FLUSH;
	return DUT_OP_PUNCH_HOLE;
}

/*
 * About log-normal around median_ns (a factor of 2 either way is common,
 * 8 rare), as device latencies are; 1 % of requests are 20 times slower.
 */
static uint64_t spread(struct gen *g, uint64_t median_ns)
{
	int64_t u = 0;
	double f;

	for (int i = 0; i < 4; i++)
		u += (int64_t)(rnd(g) >> 54); /* 0..1023 each */
	f = (double)(u - 2046) / 1024.0;  /* about -2..2, bell-shaped */
	f = __builtin_exp2(1.5 * f);
	if (pct(g) == 0)
		f *= 20;
	return 1 + (uint64_t)((double)median_ns * f);
}

static uint64_t lat_of(struct gen *g, uint16_t op)
{
	switch (op) {
	case DUT_OP_READ: return spread(g, pct(g) < 70 ? 15000 : 120000); /* cached, device */
	case DUT_OP_WRITE: case DUT_OP_MMAP_WRITE: return spread(g, 25000);
	case DUT_OP_FSYNC: case DUT_OP_FDATASYNC: return spread(g, 900000);
	default: return spread(g, 5000);
	}
}

static void make_rec(struct gen *g, uint64_t ts, struct dut_trace_rec *r)
{
	const struct trace_gen_opts *o = g->o;
	unsigned p = pct(g);
	uint32_t id = p < 50 ? 1 + (uint32_t)(rnd(g) % (g->nfiles < 4 ? g->nfiles : 4))
			     : 1 + (uint32_t)(rnd(g) % g->nfiles);
	struct gfile *f;

	if (o->unknown_ids && pct(g) < 2)
		id = g->nfiles + 1 + (uint32_t)(rnd(g) % 3);
	memset(r, 0, sizeof(*r));
	r->ts_ns = ts;
	r->file_id = id;
	r->op = pick_op(g);
	r->pid = 1000 + (uint32_t)(rnd(g) % o->pids);
	r->lat_ns = lat_of(g, r->op);
	r->flags = (pct(g) < 25 ? DUT_TRACE_F_DIRECT : 0) | (pct(g) < 6 ? DUT_TRACE_F_BUFFERED : 0) |
		   (pct(g) < 3 ? DUT_TRACE_F_SHAPED : 0);
	if (pct(g) < 70)
		r->dutfs_ns = (uint32_t)spread(g, 4000);
	f = id <= g->nfiles ? &g->files[id - 1] : NULL;
	if (r->op == DUT_OP_READ || r->op == DUT_OP_WRITE || r->op == DUT_OP_MMAP_WRITE) {
		uint64_t cur = f ? f->cursor : 0;

		p = pct(g);
		r->len = p < 80 ? 8192 : p < 90 ? 16384 : p < 95 ? 131072 : p < 97 ? 0 : 100;
		p = pct(g);
		if (p < 60)
			r->offset = cur;
		else if (p < 70 && cur >= 4096)
			r->offset = cur - 4096;
		else
			r->offset = (rnd(g) % (1ull << 30)) & ~8191ull;
		p = pct(g);
		r->result = p < 3 ? -5 : p < 5 ? (int32_t)(r->len / 2) : (int32_t)r->len;
		if (f)
			f->cursor = r->offset + r->len;
		if (r->op != DUT_OP_READ && pct(g) < 10) {
			r->pid = 0;
			r->flags |= DUT_TRACE_F_WRITEBACK;
		}
	} else if (r->op == DUT_OP_TRUNCATE || r->op == DUT_OP_RENAME) {
		r->offset = rnd(g) % (1ull << 30);
	} else if (r->op == DUT_OP_FAULT) {
		r->result = -5;
		r->flags |= DUT_TRACE_F_FAULT;
	}
	if (o->dutfs_heavy && f && f->pg.cls == DUT_PG_WAL && r->dutfs_ns)
		r->dutfs_ns = (uint32_t)(r->lat_ns * 2 + 1000);
	if (o->v1_0)
		r->dutfs_ns = (uint32_t)rnd(g); /* a 1.0 writer's reserved word: junk the reader ignores */
}

static void th_push(struct gen *g, struct gthread *t, const struct dut_trace_rec *r)
{
	if (t->n == t->cap) {
		size_t ncap = t->cap ? 2 * t->cap : 256;
		struct dut_trace_rec *v = realloc(t->v, ncap * sizeof(*v));

		if (!v) {
			g->err = -ENOMEM;
			return;
		}
		t->v = v;
		t->cap = ncap;
	}
	t->v[t->n++] = *r;
}

/*
 * --compact: the round's records of every thread, one thread after the
 * other, in CRECORDS frames of at most frame_recs records (what a 2.x
 * writer writes: one frame per round), each after its CSPAN frame (2.1;
 * --v2.0: without).
 */
struct cframe {
	uint8_t *buf;                /* payload after nrecs */
	size_t len, cap;
	uint32_t n;
	struct dut_trace_cstate st;
	struct dut_trace_cspan span;
};

static void cframe_put(struct gen *g, struct cframe *c)
{
	static const uint8_t zero[8];
	uint8_t hdr[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED], span[DUT_TRACE_CSPAN_FRAME];
	size_t pad;

	if (!c->n)
		return;
	if (!g->o->v2_0 && dut_trace_cframe_wants_span(c->n)) {
		dut_trace_frame_cspan(&c->span, span);
		out_put(g, span, sizeof(span));
	}
	pad = dut_trace_cframe_hdr(hdr, c->n, c->len);
	out_put(g, hdr, sizeof(hdr));
	out_put(g, c->buf, c->len);
	out_put(g, zero, pad);
	c->len = 0;
	c->n = 0;
	dut_trace_cstate_init(&c->st);
	c->span = (struct dut_trace_cspan){ .min_ts = UINT64_MAX, .max_ts = 0 };
}

static void round_cframes(struct gen *g)
{
	struct cframe c = { .span = { .min_ts = UINT64_MAX } };

	for (unsigned t = 0; t < g->nth; t++) {
		struct gthread *th = &g->th[t];

		for (size_t k = 0; k < th->n; k++) {
			if (c.len + DUT_TRACE_CREC_MAX > c.cap) {
				size_t ncap = c.cap ? 2 * c.cap : 65536;
				uint8_t *nb = realloc(c.buf, ncap);

				if (!nb) {
					g->err = -ENOMEM;
					free(c.buf);
					return;
				}
				c.buf = nb;
				c.cap = ncap;
			}
			c.len += dut_trace_crec_encode(&c.st, &th->v[k], c.buf + c.len);
			if (th->v[k].ts_ns < c.span.min_ts)
				c.span.min_ts = th->v[k].ts_ns;
			if (th->v[k].ts_ns > c.span.max_ts)
				c.span.max_ts = th->v[k].ts_ns;
			if (++c.n == g->o->frame_recs)
				cframe_put(g, &c);
		}
		g->written += th->n;
		th->n = 0;
	}
	cframe_put(g, &c);
	free(c.buf);
}

static void th_frames(struct gen *g, struct gthread *t)
{
	const size_t fmax = g->o->frame_recs;
	uint8_t hdr[DUT_TRACE_FRAME_HDR_SIZE], rec[DUT_TRACE_REC_SIZE];

	for (size_t i = 0; i < t->n; i += fmax) {
		size_t n = t->n - i < fmax ? t->n - i : fmax;

		dut_trace_frame_hdr(hdr, DUT_TRACE_FRAME_RECORDS, (uint32_t)(n * DUT_TRACE_REC_SIZE));
		out_put(g, hdr, sizeof(hdr));
		for (size_t k = 0; k < n; k++) {
			dut_trace_rec_encode(&t->v[i + k], rec);
			out_put(g, rec, sizeof(rec));
		}
	}
	g->written += t->n;
	t->n = 0;
}

static void round_write(struct gen *g, bool last)
{
	struct straggler *s = &g->strag;

	if (s->used && (last || --s->rounds_left == 0)) {
		th_push(g, &g->th[s->thread], &s->rec);
		s->used = false;
	}
	for (unsigned i = 0; i < g->nth; i++) {
		struct gthread *t = &g->th[i];

		if (last && t->has_pending) {
			th_push(g, t, &t->pending);
			t->has_pending = false;
		}
		if (!g->o->compact)
			th_frames(g, t);
	}
	if (g->o->compact)
		round_cframes(g);
	for (unsigned i = 0; i < g->nafter; i++)
		file_announce(g, g->after_ids[i]);
	g->nafter = 0;
}

static void marker_write(struct gen *g, uint64_t ts, unsigned k)
{
	char label[32];
	uint8_t *f = NULL;
	size_t len = 0;
	int r;

	snprintf(label, sizeof(label), "phase-%u", k);
	r = dut_trace_frame_marker(ts, label, &f, &len);
	out_frame(g, r, f, len);
}

static void gen_run(struct gen *g)
{
	const struct trace_gen_opts *o = g->o;
	uint64_t ts = 1000000000ull, in_round = 0;
	unsigned next_marker = 1;
	uint8_t *f = NULL;
	size_t len = 0;
	int err = dut_trace_frame_info("generator", "dutlab trace-gen", &f, &len);

	out_frame(g, err, f, len);
	for (uint64_t i = 0; i < o->records && !g->err; i++) {
		struct dut_trace_rec r;
		unsigned t = (unsigned)(rnd(g) % g->nth);
		struct gthread *th = &g->th[t];

		if (!(o->ties && pct(g) < 25))
			ts += rnd(g) % (2 * o->mean_gap_ns + 1);
		while (o->markers && next_marker <= o->markers &&
		       i >= o->records * next_marker / (o->markers + 1))
			marker_write(g, ts, next_marker++);
		make_rec(g, ts, &r);
		if (r.file_id <= g->nfiles && !g->files[r.file_id - 1].announced) {
			if (pct(g) < 50 || g->nafter == DUT_ARRAY_SIZE(g->after_ids))
				file_announce(g, r.file_id);
			else {
				g->files[r.file_id - 1].announced = true;
				g->after_ids[g->nafter++] = r.file_id;
			}
		}
		if (o->stragglers && i % 100000 == 50000 && !g->strag.used) {
			g->strag = (struct straggler){ .rec = r, .thread = t, .rounds_left = o->stragglers,
						       .used = true };
		} else if (o->disorder_pct && !th->has_pending && pct(g) < o->disorder_pct) {
			th->pending = r;
			th->has_pending = true;
		} else {
			th_push(g, th, &r);
			if (th->has_pending) {
				th_push(g, th, &th->pending);
				th->has_pending = false;
			}
		}
		if (++in_round == o->round_recs) {
			round_write(g, false);
			in_round = 0;
		}
	}
	round_write(g, true);
	if (!o->no_footer) {
		uint8_t ft[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_FOOTER_SIZE];

		dut_trace_frame_footer(&(struct dut_trace_footer){ .records_written = g->written,
								   .end_monotonic_ns = ts + 1000 }, ft);
		out_put(g, ft, sizeof(ft));
	}
	out_flush(g);
}

int trace_gen(const struct trace_gen_opts *opts, trace_gen_write_fn write, void *ctx)
{
	struct trace_gen_opts o = *opts;
	struct dut_trace_header h = { .version_major = opts->compact ? DUT_TRACE_VERSION_MAJOR : 1,
				      .version_minor = opts->compact ? (opts->v2_0 ? 0 : DUT_TRACE_VERSION_MINOR)
						     : opts->v1_0 ? 0 : 1,
				      .flags = DUT_TRACE_HDR_SYSCALL_VIEW,
				      .start_realtime_ns = 1764547200000000000ull,
				      .start_monotonic_ns = 999000000ull };
	uint8_t hdr[DUT_TRACE_HEADER_SIZE];
	struct gen g = { .o = &o, .write = write, .ctx = ctx, .rng = o.seed * 2 + 0x9e3779b97f4a7c15ull };
	int r;

	o.threads = o.threads ? o.threads : 8;
	o.round_recs = o.round_recs ? o.round_recs : 64 * o.threads;
	o.frame_recs = o.frame_recs ? o.frame_recs : 16384;
	o.files = o.files ? (o.files > MAX_FILES ? MAX_FILES : o.files) : 40;
	o.pids = o.pids ? o.pids : 12;
	o.mean_gap_ns = o.mean_gap_ns ? o.mean_gap_ns : 50000;
	g.nth = o.threads;
	g.nfiles = o.files;
	g.out = malloc(OUT_BYTES);
	g.th = calloc(g.nth, sizeof(*g.th));
	g.files = calloc(g.nfiles, sizeof(*g.files));
	if (!g.out || !g.th || !g.files) {
		r = -ENOMEM;
		goto out;
	}
	files_init(&g);
	dut_trace_header_encode(&h, hdr);
	out_put(&g, hdr, sizeof(hdr));
	gen_run(&g);
	r = g.err;
out:
	for (unsigned i = 0; g.th && i < g.nth; i++)
		free(g.th[i].v);
	free(g.th);
	free(g.files);
	free(g.out);
	return r;
}
