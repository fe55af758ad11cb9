/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Renderers of struct report: a human table and a result document (JSON). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "tools/report/report.h"
#include "tools/report/report_out.h"
#include "tools/report/report_seconds.h"

/* %s: the page, "8 KiB" (PostgreSQL's default; the text of reports before #26) or the sizes */
#define SEQ_DEFINITION \
	"a read or write is sequential when it starts at the byte where the previous read " \
	"or write on the same file ended (offset + length, in timestamp order), or at most " \
	"one %s page before it (a tail rewrite or re-read: PostgreSQL rewrites the current " \
	"WAL page at each commit); anything else, and the first request on a file, counts " \
	"as random"
#define VIEW_DEVICE \
	"device view: the trace holds what reaches the device after the page cache " \
	"(reads served from the cache and writes not yet written back are not in it; " \
	"written-back pages may carry the pid of a kernel thread)"
#define VIEW_SYSCALL \
	"syscall view (direct_io): every read and write the database issued is in the trace"
#define DUTFS_DEFINITION \
	"dutfs's own time per read, write and fsync: from the request's arrival in dutfs's I/O " \
	"path to its reply, minus the latency (backing call and model delay); the FUSE round " \
	"trip in the kernel is not in it. share = sum of dutfs time / sum of (latency + dutfs time)"
#define DUTFS_NOT_RECORDED_OLD \
	"not recorded (trace format 1.0: the dutfs that wrote it did not measure its own time)"
#define DUTFS_NOT_RECORDED_NONE \
	"not recorded (no read, write or fsync in the trace carries it)"

static const char *fmt_bytes(uint64_t b, char *buf, size_t n)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	unsigned i = 0;

	while (v >= 1024 && i + 1 < DUT_ARRAY_SIZE(u)) {
		v /= 1024;
		i++;
	}
	snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
	return buf;
}

/* "8 KiB", or bytes when not whole KiB (a relation map may say anything). */
static void page_size(uint32_t bytes, char *buf, size_t n)
{
	if (bytes % 1024)
		snprintf(buf, n, "%u-byte", bytes);
	else
		snprintf(buf, n, "%u KiB", bytes / 1024);
}

/* SEQ_DEFINITION with the page sizes the tail rewrites were measured in. */
static const char *seq_definition(const struct report *rep, char *buf, size_t n)
{
	char pages[96], w[24], d[24];

	page_size(rep->pages.wal_block_bytes, w, sizeof(w));
	page_size(rep->pages.block_bytes, d, sizeof(d));
	if (rep->pages.block_bytes == rep->pages.wal_block_bytes)
		snprintf(pages, sizeof(pages), "%s", d);
	else
		snprintf(pages, sizeof(pages), "%s (WAL files; other files %s)", w, d);
	snprintf(buf, n, SEQ_DEFINITION, pages);
	return buf;
}

static const char *fmt_ns(uint64_t ns, bool have, char *buf, size_t n)
{
	if (!have)
		snprintf(buf, n, "-");
	else if (ns < 10000)
		snprintf(buf, n, "%" PRIu64 "ns", ns);
	else if (ns < 10000000)
		snprintf(buf, n, "%.1fus", (double)ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(buf, n, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.1fs", (double)ns / 1e9);
	return buf;
}

/* ---- human ---- */

static void table_head(FILE *out, const char *first)
{
	fprintf(out, "  %-34s %9s %10s %5s %9s %10s %5s %7s %8s %8s %8s %8s %8s %8s %8s %8s  %s\n",
		first, "rd ops", "rd bytes", "seq%", "wr ops", "wr bytes", "seq%", "fsyncs",
		"rd p50", "rd p99", "rd max", "wr p50", "wr p99", "wr max", "fs p99", "fs max", "");
}

#define NAME_WIDTH 34

/*
 * A name that fits the first column.  Long names lose their head, not their
 * tail: "pgdata/pg_wal/000000010000000000000A3" and "...A4" differ only at
 * the end, and so do the segments of one relation ("16384.1", "16384.2").
 */
static const char *fit_name(const char *name, char *buf, size_t n)
{
	size_t len = strlen(name);

	if (len <= NAME_WIDTH)
		return name;
	snprintf(buf, n, "...%s", name + len - (NAME_WIDTH - 3));
	return buf;
}

static void table_row(FILE *out, const char *name, const char *detail, const struct rep_stats *st)
{
	char b[14][24], nb[NAME_WIDTH + 1];
	const struct rep_dirstats *rd = &st->dir[REP_READ], *wr = &st->dir[REP_WRITE];

	fprintf(out, "  %-34s %9" PRIu64 " %10s %5.1f %9" PRIu64 " %10s %5.1f %7" PRIu64
		" %8s %8s %8s %8s %8s %8s %8s %8s  %s\n",
		fit_name(name, nb, sizeof(nb)), rd->ops, fmt_bytes(rd->bytes, b[0], 24), rep_pct(rd->seq_ops, rd->ops),
		wr->ops, fmt_bytes(wr->bytes, b[1], 24), rep_pct(wr->seq_ops, wr->ops), st->fsyncs,
		fmt_ns(rd->lat ? dut_shist_percentile(rd->lat, 50) : 0, rd->lat, b[2], 24),
		fmt_ns(rd->lat ? dut_shist_percentile(rd->lat, 99) : 0, rd->lat, b[3], 24),
		fmt_ns(rd->lat ? rd->lat->max : 0, rd->lat, b[4], 24),
		fmt_ns(wr->lat ? dut_shist_percentile(wr->lat, 50) : 0, wr->lat, b[5], 24),
		fmt_ns(wr->lat ? dut_shist_percentile(wr->lat, 99) : 0, wr->lat, b[6], 24),
		fmt_ns(wr->lat ? wr->lat->max : 0, wr->lat, b[7], 24),
		fmt_ns(st->fsync_lat ? dut_shist_percentile(st->fsync_lat, 99) : 0, st->fsync_lat, b[8], 24),
		fmt_ns(st->fsync_lat ? st->fsync_lat->max : 0, st->fsync_lat, b[9], 24), detail);
}

static void class_table(FILE *out, const struct rep_phase *ph)
{
	table_head(out, "class");
	for (unsigned c = 0; c < RC_COUNT; c++)
		table_row(out, rep_class_name(c), "", &ph->cls[c]);
	table_row(out, "total", "", &ph->total);
}

static const char *dutfs_not_recorded(const struct report *rep)
{
	return rep->trace_version_major == 1 && rep->trace_version_minor < 1 ? DUTFS_NOT_RECORDED_OLD : DUTFS_NOT_RECORDED_NONE;
}

static void dutfs_row(FILE *out, const char *name, const struct rep_dutfs *d)
{
	char b[3][24];

	if (!d->reqs) {
		fprintf(out, "  %-34s %9s %9s %9s %9s %7s\n", name, "0", "-", "-", "-", "-");
		return;
	}
	fprintf(out, "  %-34s %9" PRIu64 " %9s %9s %9s %6.1f%%\n", name, d->reqs,
		fmt_ns(dut_shist_percentile(d->hist, 50), true, b[0], 24),
		fmt_ns(dut_shist_percentile(d->hist, 99), true, b[1], 24),
		fmt_ns(d->hist->max, true, b[2], 24), rep_dutfs_share_pct(d));
}

static void dutfs_table(FILE *out, const struct report *rep, const struct rep_phase *ph)
{
	if (!rep->dutfs_recorded) {
		fprintf(out, "\ndutfs time: %s\n", dutfs_not_recorded(rep));
		return;
	}
	fprintf(out, "\ndutfs time (dutfs's own time per read, write and fsync; share of the request time)\n");
	fprintf(out, "  %-34s %9s %9s %9s %9s %7s\n", "class", "requests", "p50", "p99", "max", "share");
	for (unsigned c = 0; c < RC_COUNT; c++)
		dutfs_row(out, rep_class_name(c), &ph->cls[c].dutfs);
	dutfs_row(out, "total", &ph->total.dutfs);
}

/* "the instrument, not the device, set the pace for heap: ..." */
static void dutfs_finding_text(const struct rep_dutfs_finding *f, char *buf, size_t n)
{
	char a[24], b[24];

	snprintf(buf, n, "the instrument, not the device, set the pace for %s: dutfs's own time was "
		 "%.1f%% of its request time (%" PRIu64 " requests; median dutfs time %s against a "
		 "median latency of %s)", rep_class_name(f->cls), f->share_pct, f->reqs,
		 fmt_ns(f->dutfs_p50_ns, true, a, sizeof(a)), fmt_ns(f->lat_p50_ns, true, b, sizeof(b)));
}

static void findings(FILE *out, const struct report *rep)
{
	char text[400];

	if (!rep->ndutfs_findings)
		return;
	fprintf(out, "\nFindings\n");
	for (size_t i = 0; i < rep->ndutfs_findings; i++) {
		dutfs_finding_text(&rep->dutfs_findings[i], text, sizeof(text));
		fprintf(out, "  - %s\n", text);
	}
}

static void rows_table(FILE *out, const char *what, const char *col, const struct rep_row *rows,
		       size_t n, unsigned top)
{
	size_t shown = top && top < n ? top : n;

	fprintf(out, "\nBy %s (%zu of %zu, most bytes first)\n", what, shown, n);
	table_head(out, col);
	for (size_t i = 0; i < shown; i++)
		table_row(out, rows[i].name, rows[i].detail, &rows[i].st);
}

/* 2^k bytes exactly, in the largest binary unit that divides it: "8 KiB". */
static const char *fmt_pow2(unsigned k, char *buf, size_t n)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned i = k / 10 < DUT_ARRAY_SIZE(u) ? k / 10 : DUT_ARRAY_SIZE(u) - 1;

	snprintf(buf, n, "%" PRIu64 " %s", UINT64_C(1) << (k - 10 * i), u[i]);
	return buf;
}

/*
 * Bins as half-open ranges of exact powers of two, "[8 KiB, 16 KiB)": an
 * inclusive upper bound of 16383 bytes rounds to "16.0 KiB" and would put
 * 16 KiB requests into two rows as far as the reader can tell.
 */
static void size_table(FILE *out, const struct rep_stats *st)
{
	char lo[24], hi[24], range[56];

	fprintf(out, "\nRequest sizes (whole trace; power-of-two bins of the requested length)\n");
	fprintf(out, "  %-22s %10s %10s\n", "size", "reads", "writes");
	for (unsigned b = 0; b < REP_SIZE_BINS; b++) {
		uint64_t r = st->dir[REP_READ].size_bins[b], w = st->dir[REP_WRITE].size_bins[b];

		if (!r && !w)
			continue;
		snprintf(range, sizeof(range), "[%s, %s)", b ? fmt_pow2(b, lo, sizeof(lo)) : "0 B",
			 fmt_pow2(b + 1, hi, sizeof(hi)));
		fprintf(out, "  %-22s %10" PRIu64 " %10" PRIu64 "\n", range, r, w);
	}
}

static int render_human(const struct report *rep, const struct report_opts *o, FILE *out,
			const char *dest)
{
	const struct rep_phase *all = &rep->phases[0];
	char seq[640];

	fprintf(out, "dutlab report: %s\n", o->trace_path);
	fprintf(out, "  view:       %s\n", rep->syscall_view ? VIEW_SYSCALL : VIEW_DEVICE);
	fprintf(out, "  records:    %" PRIu64 " in the trace", rep->nrecs);
	if (rep->has_footer)
		fprintf(out, "; dropped by dutfs: %" PRIu64 "%s\n  closed:     cleanly (footer: %"
			PRIu64 " written)\n", rep->footer.records_dropped,
			rep->footer.records_dropped ? " (the report misses them)" : "",
			rep->footer.records_written);
	else
		fprintf(out, "; dropped by dutfs: unknown\n  closed:     NOT cleanly (no footer: dutfs "
			"was killed or its disk filled; the trace may end early)\n");
	if (rep->truncated)
		fprintf(out, "  truncated:  the file ends inside a frame; the report covers its first %"
			PRIu64 " bytes\n", rep->valid_bytes);
	if (rep->rot)
		rep_rotation_render_head(rep->rot, o->trace_path, out);
	if (o->relmap_path)
		fprintf(out, "  relmap:     %s (%" PRIu64 " relation-file records not in it, counted as heap)\n",
			o->relmap_path, rep->unmapped_rel_recs);
	else
		fprintf(out, "  relmap:     none: unknown relation kind: no relmap (relation files count as heap)\n");
	if (rep->unknown_file_recs)
		fprintf(out, "  unknown:    %" PRIu64 " records name a file id without a FILE entry (class other)\n",
			rep->unknown_file_recs);
	fprintf(out, "  duration:   %.3f s (first to last record)\n",
		(double)(all->end_ns - all->start_ns) / 1e9);
	fprintf(out, "  sequential: %s\n", seq_definition(rep, seq, sizeof(seq)));
	fprintf(out, "  latency:    per request, time in the backing file system, plus the model delay on a --shape mount (p50/p99 within 0.8 %%)\n");
	fprintf(out, "  dutfs time: %s\n", rep->dutfs_recorded ? DUTFS_DEFINITION : dutfs_not_recorded(rep));
	findings(out, rep);

	fprintf(out, "\nBy class (whole trace)\n");
	class_table(out, all);
	if (rep->dutfs_recorded)
		dutfs_table(out, rep, all);
	switch (o->by) {
	case REP_BY_FILE:
		rows_table(out, "file", "file", rep->files, rep->nfiles, o->top);
		break;
	case REP_BY_RELATION:
		rows_table(out, "relation", "relation", rep->relations, rep->nrelations, o->top);
		break;
	case REP_BY_PROCESS:
		rows_table(out, "process", "process", rep->processes, rep->nprocesses, o->top);
		break;
	case REP_BY_PHASE:
		for (size_t i = 1; i < rep->nphases; i++) {
			fprintf(out, "\nPhase \"%s\" (%.3f s)\n", rep->phases[i].name,
				(double)(rep->phases[i].end_ns - rep->phases[i].start_ns) / 1e9);
			class_table(out, &rep->phases[i]);
			if (rep->dutfs_recorded)
				dutfs_table(out, rep, &rep->phases[i]);
		}
		break;
	case REP_BY_CLASS:
		break;
	}
	if (o->by != REP_BY_PHASE && rep->nphases > 1) {
		fprintf(out, "\nBy phase (between markers)\n");
		table_head(out, "phase");
		for (size_t i = 1; i < rep->nphases; i++)
			table_row(out, rep->phases[i].name, "", &rep->phases[i].total);
	}
	size_table(out, &all->total);
	if (rep->rot)
		rep_rotation_render_series(rep->rot, out);
	return ferror(out) ? -EIO : 0;
}

const struct report_renderer report_render_human = { .name = "human", .render = render_human };

/* ---- json (result document) ---- */

static int add_u64(json_object *o, const char *k, uint64_t v)
{
	return json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

static json_object *lat_json(const struct dut_shist *h)
{
	json_object *l = json_object_new_object();

	add_u64(l, "p50", dut_shist_percentile(h, 50));
	add_u64(l, "p99", dut_shist_percentile(h, 99));
	add_u64(l, "max", h->max);
	return l;
}

static json_object *dir_json(const struct rep_dirstats *d)
{
	json_object *o = json_object_new_object(), *bins = json_object_new_array();

	add_u64(o, "ops", d->ops);
	add_u64(o, "bytes", d->bytes);
	add_u64(o, "sequential_ops", d->seq_ops);
	json_object_object_add(o, "sequential_pct", json_object_new_double(rep_pct(d->seq_ops, d->ops)));
	add_u64(o, "tail_rewrite_ops", d->rewrite_ops);
	json_object_object_add(o, "tail_rewrite_pct", json_object_new_double(rep_pct(d->rewrite_ops, d->ops)));
	add_u64(o, "errors", d->errors);
	for (unsigned b = 0; b < REP_SIZE_BINS; b++)
		json_object_array_add(bins, json_object_new_int64((int64_t)d->size_bins[b]));
	json_object_object_add(o, "size_bins", bins);
	if (d->lat)
		json_object_object_add(o, "latency_ns", lat_json(d->lat));
	return o;
}

/* null when no request of the block has dutfs time */
static json_object *dutfs_json(const struct rep_dutfs *d)
{
	json_object *o;

	if (!d->reqs)
		return NULL;
	o = json_object_new_object();
	add_u64(o, "requests", d->reqs);
	add_u64(o, "p50", dut_shist_percentile(d->hist, 50));
	add_u64(o, "p99", dut_shist_percentile(d->hist, 99));
	add_u64(o, "max", d->hist->max);
	add_u64(o, "sum", d->sum_ns);
	add_u64(o, "request_time_sum", d->req_sum_ns);
	json_object_object_add(o, "share_pct", json_object_new_double(rep_dutfs_share_pct(d)));
	return o;
}

static json_object *stats_json(const struct rep_stats *st)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "read", dir_json(&st->dir[REP_READ]));
	json_object_object_add(o, "write", dir_json(&st->dir[REP_WRITE]));
	add_u64(o, "fsyncs", st->fsyncs);
	/* WAL fdatasync latency is what commits wait for: per class, not only per phase */
	if (st->fsync_lat)
		json_object_object_add(o, "fsync_latency_ns", lat_json(st->fsync_lat));
	add_u64(o, "other_ops", st->other_ops);
	json_object_object_add(o, "dutfs_ns", dutfs_json(&st->dutfs));
	return o;
}

static json_object *findings_json(const struct report *rep)
{
	json_object *a = json_object_new_array();
	char text[400];

	for (size_t i = 0; i < rep->ndutfs_findings; i++) {
		const struct rep_dutfs_finding *f = &rep->dutfs_findings[i];
		json_object *o = json_object_new_object();

		dutfs_finding_text(f, text, sizeof(text));
		json_object_object_add(o, "kind", json_object_new_string("dutfs_share"));
		json_object_object_add(o, "class", json_object_new_string(rep_class_name(f->cls)));
		json_object_object_add(o, "share_pct", json_object_new_double(f->share_pct));
		add_u64(o, "requests", f->reqs);
		add_u64(o, "dutfs_p50_ns", f->dutfs_p50_ns);
		add_u64(o, "latency_p50_ns", f->lat_p50_ns);
		json_object_object_add(o, "text", json_object_new_string(text));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *rows_json(const struct rep_row *rows, size_t n, unsigned top)
{
	json_object *a = json_object_new_array();
	size_t shown = top && top < n ? top : n;

	for (size_t i = 0; i < shown; i++) {
		json_object *o = stats_json(&rows[i].st);

		json_object_object_add(o, "name", json_object_new_string(rows[i].name));
		json_object_object_add(o, "detail", json_object_new_string(rows[i].detail));
		json_object_array_add(a, o);
	}
	return a;
}

/*
 * A document's phase names are unique (docs/result-schema.md), a trace's
 * marker labels need not be: a step repeated (repeat = 2) marks the same
 * label twice.  The second phase of a label is "LABEL (2)", and so on, with
 * the label itself in extra.marker.
 */
static struct dut_result_phase *add_unique_phase(struct dut_result *res, const char *label)
{
	_cleanup_free_ char *alt = NULL;
	struct dut_result_phase *p;

	for (unsigned n = 2; dut_result_find_phase(res, alt ? alt : label); n++) {
		free(alt);
		if (asprintf(&alt, "%s (%u)", label, n) < 0) {
			alt = NULL;
			return NULL;
		}
	}
	p = dut_result_add_phase(res, alt ? alt : label);
	if (p && alt)
		json_object_object_add(dut_phase_extra(p), "marker", json_object_new_string(label));
	return p;
}

static int phase_result(struct dut_result *res, const struct rep_phase *ph, const struct report *rep,
			const struct report_opts *o, bool whole)
{
	struct dut_result_phase *p = add_unique_phase(res, ph->name);
	const struct rep_stats *t = &ph->total;
	json_object *extra, *cls;
	struct dut_hist_summary s;

	if (!p)
		return -ENOMEM;
	dut_phase_set_duration(p, ph->end_ns - ph->start_ns);
	dut_phase_set_metric(p, "read_ops", (double)t->dir[REP_READ].ops, "ops");
	dut_phase_set_metric(p, "read_bytes", (double)t->dir[REP_READ].bytes, "B");
	dut_phase_set_metric(p, "read_sequential", rep_pct(t->dir[REP_READ].seq_ops, t->dir[REP_READ].ops), "%");
	dut_phase_set_metric(p, "write_ops", (double)t->dir[REP_WRITE].ops, "ops");
	dut_phase_set_metric(p, "write_bytes", (double)t->dir[REP_WRITE].bytes, "B");
	dut_phase_set_metric(p, "write_sequential", rep_pct(t->dir[REP_WRITE].seq_ops, t->dir[REP_WRITE].ops), "%");
	dut_phase_set_metric(p, "write_tail_rewrites", rep_pct(t->dir[REP_WRITE].rewrite_ops, t->dir[REP_WRITE].ops), "%");
	dut_phase_set_metric(p, "fsyncs", (double)t->fsyncs, "ops");
	if (t->dutfs.reqs)
		dut_phase_set_metric(p, "dutfs_share", rep_dutfs_share_pct(&t->dutfs), "%");
	if (t->dir[REP_READ].lat) {
		dut_shist_summarize(t->dir[REP_READ].lat, &s);
		dut_phase_set_latency(p, "read", &s);
	}
	if (t->dir[REP_WRITE].lat) {
		dut_shist_summarize(t->dir[REP_WRITE].lat, &s);
		dut_phase_set_latency(p, "write", &s);
	}
	if (t->fsync_lat) {
		dut_shist_summarize(t->fsync_lat, &s);
		dut_phase_set_latency(p, "fsync", &s);
	}
	extra = dut_phase_extra(p);
	if (!extra)
		return -ENOMEM;
	add_u64(extra, "start_monotonic_ns", ph->start_ns);
	cls = json_object_new_object();
	for (unsigned c = 0; c < RC_COUNT; c++)
		json_object_object_add(cls, rep_class_name(c), stats_json(&ph->cls[c]));
	json_object_object_add(extra, "classes", cls);
	json_object_object_add(extra, "total", stats_json(t));
	if (whole) {
		json_object_object_add(extra, "findings", findings_json(rep));
		json_object_object_add(extra, "files", rows_json(rep->files, rep->nfiles, o->top));
		json_object_object_add(extra, "relations", rows_json(rep->relations, rep->nrelations, o->top));
		json_object_object_add(extra, "processes", rows_json(rep->processes, rep->nprocesses, o->top));
	}
	return 0;
}

static int render_json(const struct report *rep, const struct report_opts *o, FILE *out,
		       const char *dest)
{
	struct dut_result *res = dut_result_new("dutlab", DUT_VERSION);
	struct dut_host host;
	json_object *tg, *cfg;
	char seq[640];
	int r = -ENOMEM;

	if (!res)
		return -ENOMEM;
	if (o->argv)
		dut_result_set_command(res, o->argc, o->argv);
	if (dut_host_probe(&host) == 0)
		dut_result_set_host(res, &host);
	tg = dut_result_target(res);
	cfg = dut_result_config(res);
	if (!tg || !cfg)
		goto out;
	json_object_object_add(tg, "trace", json_object_new_string(o->trace_path));
	json_object_object_add(tg, "view", json_object_new_string(rep->syscall_view ? "syscall" : "device"));
	json_object_object_add(tg, "view_meaning",
			       json_object_new_string(rep->syscall_view ? VIEW_SYSCALL : VIEW_DEVICE));
	add_u64(tg, "records", rep->nrecs);
	json_object_object_add(tg, "closed_cleanly", json_object_new_boolean(rep->has_footer));
	if (rep->has_footer) {
		add_u64(tg, "records_dropped", rep->footer.records_dropped);
		add_u64(tg, "records_written", rep->footer.records_written);
	}
	json_object_object_add(tg, "truncated", json_object_new_boolean(rep->truncated));
	if (rep->rot)
		rep_rotation_render_json(rep->rot, tg);
	add_u64(tg, "valid_bytes", rep->valid_bytes);
	json_object_object_add(tg, "relmap", o->relmap_path ? json_object_new_string(o->relmap_path) : NULL);
	add_u64(tg, "unmapped_relation_records", rep->unmapped_rel_recs);
	add_u64(tg, "unknown_file_records", rep->unknown_file_recs);
	add_u64(tg, "trace_version_minor", rep->trace_version_minor);
	json_object_object_add(tg, "dutfs_time_recorded", json_object_new_boolean(rep->dutfs_recorded));
	json_object_object_add(tg, "dutfs_time", json_object_new_string(
		rep->dutfs_recorded ? DUTFS_DEFINITION : dutfs_not_recorded(rep)));
	json_object_object_add(cfg, "by", json_object_new_string(rep_by_name(o->by)));
	add_u64(cfg, "top", o->top);
	json_object_object_add(cfg, "sequential_definition",
			       json_object_new_string(seq_definition(rep, seq, sizeof(seq))));
	json_object_object_add(cfg, "size_bins", json_object_new_string(
		"bin k counts requests of [2^k, 2^(k+1)) bytes; bin 0 also counts 0"));
	for (size_t i = 0; i < rep->nphases; i++) {
		r = phase_result(res, &rep->phases[i], rep, o, i == 0);
		if (r < 0)
			goto out;
	}
	r = out_file_write_result(res, dest);
out:
	dut_result_free(res);
	return r;
}

const struct report_renderer report_render_json = { .name = "json", .render = render_json };
