/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Chart data files and gnuplot scripts from a run model (pure). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "tools/report/chart.h"
#include "tools/report/chart_priv.h"
#include "tools/report/report_buf.h"
#include "tools/report/rundir_stats.h"

#define MIB (1024.0 * 1024.0)
#define MAX_QUERY 64

const char *chart_safe_name(const char *s, char *buf, size_t n)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < n; i++) {
		char ch = s[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '+' || ch == '-';

		buf[i] = ok && !(i == 0 && ch == '.') ? ch : '-';
	}
	buf[i] = 0;
	return buf;
}

static bool is_ctl(char ch)
{
	return (unsigned char)ch < 0x20 || ch == 0x7f;
}

bool chart_metric_name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++) {
		char ch = s[n];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      strchr("_.:/ %-", ch)))
			return false;
	}
	return n > 0 && n <= 128;
}

/*
 * The one way a string enters a gnuplot script: a single-quoted string.
 * gnuplot substitutes neither `backquotes` nor @macros in it and knows one
 * escape, '' for a quote.  A newline (or any control character) would end
 * the command and start one from the data, so each becomes a space.
 */
static void gq(struct rbuf *b, const char *s)
{
	rbuf_puts(b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			rbuf_puts(b, "''");
		else if (is_ctl(*s))
			rbuf_puts(b, " ");
		else
			rbuf_printf(b, "%c", *s);
	}
	rbuf_puts(b, "'");
}

static void gqf(struct rbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* gq() of a formatted string. */
static void gqf(struct rbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		b->oom = true;
		return;
	}
	gq(b, s);
	free(s);
}

/* A string field of a data file (a tic label): double-quoted, without '"' or control characters. */
static void dstr(struct rbuf *b, const char *s)
{
	rbuf_puts(b, "\"");
	for (; *s; s++)
		rbuf_printf(b, "%c", *s == '"' ? '\'' : is_ctl(*s) ? ' ' : *s);
	rbuf_puts(b, "\"");
}

/* s for a message: control characters as \xNN, at most about 80 bytes. */
static const char *printable(const char *s, char *buf, size_t n)
{
	size_t o = 0;

	for (; *s && o + 8 < n && o < 80; s++) {
		if (is_ctl(*s) || *s == '\\')
			o += (size_t)snprintf(buf + o, n - o, "\\x%02x", (unsigned char)*s);
		else
			buf[o++] = *s;
	}
	snprintf(buf + o, n - o, "%s", *s ? "..." : "");
	return buf;
}

static int chart_warn(struct charts *cs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int chart_warn(struct charts *cs, const char *fmt, ...)
{
	char **w = realloc(cs->warnings, (cs->nwarnings + 1) * sizeof(*w));
	va_list ap;
	int n;

	if (!w)
		return -ENOMEM;
	cs->warnings = w;
	va_start(ap, fmt);
	n = vasprintf(&w[cs->nwarnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	cs->nwarnings++;
	return 0;
}

/* A plot element: the data file (quoted), what to plot, and the formatted legend (quoted). */
static void plot_file(struct rbuf *b, bool first, const char *file, const char *using)
{
	rbuf_puts(b, first ? "" : ", ");
	gq(b, file);
	rbuf_printf(b, " %s title ", using);
}

/* Longest title line: 960 px at a 10 pt font hold about 130 characters; the key takes its share. */
#define TITLE_LINE_MAX 90

/*
 * A title as gnuplot string expression, broken at spaces into lines of at
 * most TITLE_LINE_MAX characters so that gnuplot does not cut it at the
 * edge of the image: 'first line'."\n".'second line'.  Each piece is
 * quoted by gq(); the newline is a constant of ours, never from the data.
 */
static void gq_title(struct rbuf *b, const char *title)
{
	size_t len = strlen(title), start = 0;
	char *line;

	if (len <= TITLE_LINE_MAX) {
		gq(b, title);
		return;
	}
	if (!(line = malloc(len + 1))) {
		b->oom = true;
		return;
	}
	while (start < len) {
		size_t end = len;

		if (len - start > TITLE_LINE_MAX) {
			end = start + TITLE_LINE_MAX;
			while (end > start && title[end] != ' ')
				end--;
			if (end == start)       /* one word longer than a line: cut it */
				end = start + TITLE_LINE_MAX;
		}
		memcpy(line, title + start, end - start);
		line[end - start] = 0;
		if (start)
			rbuf_puts(b, ".\"\\n\".");
		gq(b, line);
		start = end;
		while (start < len && title[start] == ' ')
			start++;
	}
	free(line);
}

static void head(struct rbuf *b, const char *name, const char *title)
{
	char out[300];

	rbuf_puts(b, "# written by dutlab report; run in this directory: gnuplot ");
	/* name is a safe file name (chart_safe_name); it is still quoted like every string */
	rbuf_printf(b, "%s.gp\nset terminal pngcairo size 960,540 noenhanced font ',10'\nset output ", name);
	snprintf(out, sizeof(out), "%s.png", name);
	gq(b, out);
	rbuf_puts(b, "\nset title ");
	gq_title(b, title);
	rbuf_puts(b, "\nset grid\nset key outside right top\n");
}

void charts_free(struct charts *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		struct chart *ch = &c->v[i];

		for (size_t d = 0; d < ch->ndata; d++) {
			free(ch->data[d].file);
			free(ch->data[d].text);
		}
		free(ch->data);
		free(ch->name);
		free(ch->title);
		free(ch->step);
		free(ch->script);
		free(ch->why_not);
	}
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c->v);
	free(c);
}

/* A chart under construction: its script and data buffers. */
struct cbuild {
	const char *step;
	char name[256];
	char title[512];
	struct rbuf script;
	struct rbuf data[RUNDIR_MAX_DOCS];
	char dfile[RUNDIR_MAX_DOCS][272];
	size_t ndata;
};

static struct rbuf *new_data(struct cbuild *cb)
{
	if (cb->ndata == RUNDIR_MAX_DOCS)
		return NULL;
	if (cb->ndata == 0)
		snprintf(cb->dfile[0], sizeof(cb->dfile[0]), "%s.dat", cb->name);
	else
		snprintf(cb->dfile[cb->ndata], sizeof(cb->dfile[0]), "%s-%zu.dat", cb->name, cb->ndata + 1);
	return &cb->data[cb->ndata++];
}

static void cbuild_free(struct cbuild *cb)
{
	rbuf_free(&cb->script);
	for (size_t i = 0; i < cb->ndata; i++)
		rbuf_free(&cb->data[i]);
}

/* Move a finished build into the list; frees cb's buffers in every case. */
static int add_chart(struct charts *cs, struct cbuild *cb)
{
	struct chart *v = realloc(cs->v, (cs->n + 1) * sizeof(*v));
	struct chart *c;
	int r = 0;

	if (!v) {
		cbuild_free(cb);
		return -ENOMEM;
	}
	cs->v = v;
	c = &v[cs->n];
	*c = (struct chart){ .name = strdup(cb->name), .title = strdup(cb->title),
			     .step = strdup(cb->step ? cb->step : ""),
			     .script = rbuf_take(&cb->script),
			     .data = calloc(cb->ndata + 1, sizeof(*c->data)), .ndata = cb->ndata };
	if (!c->name || !c->title || !c->step || !c->script || !c->data)
		r = -ENOMEM;
	for (size_t i = 0; i < cb->ndata; i++) {
		if (c->data) {
			c->data[i].file = strdup(cb->dfile[i]);
			c->data[i].text = rbuf_take(&cb->data[i]);
			if (!c->data[i].file || !c->data[i].text)
				r = -ENOMEM;
		}
		rbuf_free(&cb->data[i]);
	}
	cs->n++;        /* charts_free() releases a partial one */
	return r;
}

/* ---- labelled values with their ranges (results compare) ---- */

int charts_add_ranges(struct charts *cs, const char *name, const char *title, const char *ylabel,
		      const struct chart_range *v, size_t n)
{
	_cleanup_free_ struct cbuild *cb = calloc(1, sizeof(*cb));
	struct rbuf *b;

	if (!cb)
		return -ENOMEM;
	cb->step = "";
	snprintf(cb->name, sizeof(cb->name), "%s", name);
	snprintf(cb->title, sizeof(cb->title), "%s", title);
	b = new_data(cb);
	rbuf_puts(b, "# index median min max label\n");
	for (size_t i = 0; i < n; i++) {
		rbuf_printf(b, "%zu %.17g %.17g %.17g ", i, v[i].median, v[i].min, v[i].max);
		dstr(b, v[i].label);
		rbuf_puts(b, "\n");
	}
	head(&cb->script, cb->name, cb->title);
	rbuf_puts(&cb->script, "set ylabel ");
	gq(&cb->script, ylabel);
	rbuf_printf(&cb->script, "\nset xrange [-0.5:%zu.5]\nset yrange [0:*]\nset xtics rotate by -30 left\nset bmargin 8\nplot ",
		    n ? n - 1 : 0);
	plot_file(&cb->script, true, cb->dfile[0], "using 1:2:3:4:xtic(5) with yerrorbars pt 7");
	gq(&cb->script, "median, min-max over runs");
	rbuf_puts(&cb->script, "\n");
	return add_chart(cs, cb);
}

/* ---- OLTP: TPS and latency per second ---- */

/*
 * A connection set-up longer than this share of a document's step time is
 * drawn as a shaded interval before the transactions (the step was then
 * connection-bound, and its chart shows where the time went).
 */
#define CONNECT_SHADE_PCT 5.0
/* At most this many runs get a shaded interval each; with more, one interval to the median. */
#define CONNECT_SHADE_MAX 16

/*
 * The per-second rows of one pgload run into b, on the step's time axis:
 * row i counts the transactions of second [i, i+1) after the clients had
 * connected, so its point is at conn_s + i + 1.
 *
 * The last second of a run is partial (the run stops when its last
 * transaction ends: 30.007 s hold 31 rows).  Its count over a fraction of a
 * second is no rate: that row is dropped.  A run shorter than one second has
 * only that row: it is scaled by its real length (committed / seconds) and
 * put at the run's end, so the chart still shows the run.  Without the
 * phase's duration the rows are taken as they are.  Returns the rows written.
 */
static size_t oltp_rows(struct rbuf *b, struct dut_series *s, int ct, int cv, int cl, double run_s,
			double conn_s)
{
	size_t n = dut_series_nrows(s), out = 0;

	for (size_t r = 0; r < n; r++) {
		double t = dut_series_get(s, r, (size_t)ct), v = dut_series_get(s, r, (size_t)cv);
		double len = 1.0;

		if (run_s > 0 && r + 1 == n && run_s < (double)n - 1e-3) {
			len = run_s - (double)r;        /* the real length of the last second */
			if (n > 1 || len <= 0)
				continue;
			t = run_s;
			v /= len;
		}
		rbuf_printf(b, "%.17g %.17g %.17g\n", conn_s + t, v, cl >= 0 ? dut_series_get(s, r, (size_t)cl) : 0.0);
		out++;
	}
	return out;
}

/*
 * The connection set-up of each run as a shaded interval from 0 (where
 * the runs overlap the shade is darker), labelled with its range; more than
 * CONNECT_SHADE_MAX runs get one interval to their median.  conn_s is
 * sorted in place (the intervals all start at 0: their order is no matter).
 */
static void connect_shade(struct rbuf *b, double *conn_s, size_t n)
{
	struct cmp_stat st = cmp_stat_of(conn_s, (unsigned)n);
	size_t nobj = n <= CONNECT_SHADE_MAX ? n : 1;

	for (size_t i = 0; i < nobj; i++)
		rbuf_printf(b, "set object %zu rectangle from 0, graph 0 to %.17g, graph 1 behind fillcolor "
			    "rgb 'gray' fillstyle transparent solid %.2f noborder\n", i + 1,
			    nobj == 1 && n > 1 ? st.median : conn_s[i], nobj == 1 ? 0.3 : 0.6 / (double)nobj);
	rbuf_puts(b, "set label 1 ");
	if (n == 1 || st.min == st.max)
		gqf(b, "connection set-up (%.2f s)", st.min);
	else
		gqf(b, "connection set-up (%.2f-%.2f s%s)", st.min, st.max, nobj == 1 ? ", shaded to the median" : "");
	rbuf_puts(b, " at graph 0.01, graph 0.95 left\nset xrange [0:*]\n");
}

int chart_oltp(struct charts *cs, const struct rundir_config *c, const char *step)
{
	_cleanup_free_ struct cbuild *cb = calloc(1, sizeof(*cb));
	_cleanup_free_ char (*labels)[RUNDIR_DOC_LABEL_MAX] = calloc(RUNDIR_MAX_DOCS, sizeof(*labels));
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd, used[RUNDIR_MAX_DOCS];
	char safe[128], ssafe[128];
	bool have_lat = true, shade = false;
	double conn_s[RUNDIR_MAX_DOCS];

	if (!cb || !labels)
		return -ENOMEM;
	nd = rundir_config_docs_labeled(c, step, docs, labels, RUNDIR_MAX_DOCS);
	cb->step = step;
	snprintf(cb->name, sizeof(cb->name), "oltp-%s-%s", chart_safe_name(step, ssafe, sizeof(ssafe)),
		 chart_safe_name(c->dir, safe, sizeof(safe)));
	snprintf(cb->title, sizeof(cb->title), "TPS and mean latency per second: %s, step %s", c->name, step);
	for (size_t d = 0; d < nd; d++) {
		struct dut_result_phase *ph = dut_result_find_phase(docs[d], "run");
		struct dut_series *s = ph ? dut_phase_get_series(ph, "per_second") : NULL;
		int ct = s ? dut_series_col(s, "t_s") : -1, cv = s ? dut_series_col(s, "tps") : -1;
		int cl = s ? dut_series_col(s, "lat_avg_ms") : -1;
		double conn_ns = 0, run_s = 0;
		uint64_t dur_ns;
		const char *unit;
		struct rbuf *b;

		if (ct < 0 || cv < 0 || !dut_series_nrows(s))
			continue;
		if (dut_phase_get_duration(ph, &dur_ns) == 0)
			run_s = (double)dur_ns / 1e9;
		if (dut_phase_get_metric(ph, "connection_time_total", &conn_ns, &unit) < 0 || !isfinite(conn_ns) ||
		    conn_ns < 0)
			conn_ns = 0;
		if (!(b = new_data(cb)))
			break;
		used[cb->ndata - 1] = d;
		have_lat &= cl >= 0;
		rbuf_printf(b, "# %s: t_s (from the start of the step: %.3f s of connection set-up, then the "
			    "transactions) tps lat_avg_ms; a partial last second is left out\n", labels[d],
			    conn_ns / 1e9);
		oltp_rows(b, s, ct, cv, cl, run_s, conn_ns / 1e9);
		conn_s[cb->ndata - 1] = conn_ns / 1e9;
		shade |= run_s > 0 && 100.0 * conn_ns / 1e9 / (conn_ns / 1e9 + run_s) >= CONNECT_SHADE_PCT;
	}
	if (!cb->ndata)
		return 0;
	head(&cb->script, cb->name, cb->title);
	if (shade)
		connect_shade(&cb->script, conn_s, cb->ndata);
	if (have_lat) {
		rbuf_puts(&cb->script, "set multiplot layout 2,1 title ");
		gq_title(&cb->script, cb->title);
		rbuf_puts(&cb->script, "\nunset title\n");
	}
	rbuf_puts(&cb->script, "set ylabel 'TPS (tx/s)'\nset xlabel 'time from the start of the step (s)'\n"
		  "set yrange [0:*]\nplot ");
	for (size_t i = 0; i < cb->ndata; i++) {
		plot_file(&cb->script, i == 0, cb->dfile[i], "using 1:2 with linespoints");
		gq(&cb->script, labels[used[i]]);
	}
	if (have_lat) {
		rbuf_puts(&cb->script, "\nset ylabel 'mean latency (ms)'\nplot ");
		for (size_t i = 0; i < cb->ndata; i++) {
			plot_file(&cb->script, i == 0, cb->dfile[i], "using 1:3 with linespoints");
			gq(&cb->script, labels[used[i]]);
		}
		rbuf_puts(&cb->script, "\nunset multiplot");
	}
	rbuf_puts(&cb->script, "\n");
	return add_chart(cs, cb);
}

/* ---- OLTP with a hot standby: replay lag per sample (pgload series replica_lag) ---- */

int chart_lag(struct charts *cs, const struct rundir_config *c, const char *step)
{
	_cleanup_free_ struct cbuild *cb = calloc(1, sizeof(*cb));
	_cleanup_free_ char (*labels)[RUNDIR_DOC_LABEL_MAX] = calloc(RUNDIR_MAX_DOCS, sizeof(*labels));
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd, used[RUNDIR_MAX_DOCS];
	char safe[128], ssafe[128];

	if (!cb || !labels)
		return -ENOMEM;
	nd = rundir_config_docs_labeled(c, step, docs, labels, RUNDIR_MAX_DOCS);
	cb->step = step;
	snprintf(cb->name, sizeof(cb->name), "lag-%s-%s", chart_safe_name(step, ssafe, sizeof(ssafe)),
		 chart_safe_name(c->dir, safe, sizeof(safe)));
	snprintf(cb->title, sizeof(cb->title), "Hot standby replay lag: %s, step %s", c->name, step);
	for (size_t d = 0; d < nd; d++) {
		struct dut_result_phase *ph = dut_result_find_phase(docs[d], "run");
		struct dut_series *s = ph ? dut_phase_get_series(ph, "replica_lag") : NULL;
		int ct = s ? dut_series_col(s, "t_s") : -1, cl = s ? dut_series_col(s, "replay_lag_ms") : -1;
		struct rbuf *b;

		if (ct < 0 || cl < 0 || !dut_series_nrows(s))
			continue;
		if (!(b = new_data(cb)))
			break;
		used[cb->ndata - 1] = d;
		rbuf_puts(b, "# t_s replay_lag_ms\n");
		for (size_t r = 0; r < dut_series_nrows(s); r++)
			rbuf_printf(b, "%.17g %.17g\n", dut_series_get(s, r, (size_t)ct),
				    dut_series_get(s, r, (size_t)cl));
	}
	if (!cb->ndata)
		return 0;
	head(&cb->script, cb->name, cb->title);
	rbuf_puts(&cb->script, "set xlabel 'time (s)'\nset ylabel 'replay lag (ms)'\nset yrange [0:*]\nplot ");
	for (size_t i = 0; i < cb->ndata; i++) {
		plot_file(&cb->script, i == 0, cb->dfile[i], "using 1:2 with linespoints");
		gq(&cb->script, labels[used[i]]);
	}
	rbuf_puts(&cb->script, "\n");
	return add_chart(cs, cb);
}

/* ---- dutprobe slc: throughput per window and the knees ---- */

static int slc_chart(struct charts *cs, const struct rundir_config *c, const char *step,
		     const struct dut_result *doc, const char *label, size_t k)
{
	_cleanup_free_ struct cbuild *cb = calloc(1, sizeof(*cb));
	struct dut_result_phase *ph = dut_result_find_phase(doc, "write");
	struct dut_series *s = ph ? dut_phase_get_series(ph, "per_window") : NULL;
	int cx = s ? dut_series_col(s, "bytes_written") : -1, cy = s ? dut_series_col(s, "bw") : -1;
	json_object *knees = ph ? rundir_jget(dut_phase_extra(ph), "knees") : NULL;
	char safe[128], ssafe[128];
	struct rbuf *b;

	if (!cb)
		return -ENOMEM;
	if (cx < 0 || cy < 0 || !dut_series_nrows(s))
		return 0;
	cb->step = step;
	snprintf(cb->name, sizeof(cb->name), "slc-%s-%s-%zu", chart_safe_name(step, ssafe, sizeof(ssafe)),
		 chart_safe_name(c->dir, safe, sizeof(safe)), k + 1);
	snprintf(cb->title, sizeof(cb->title), "Sequential write throughput per window and the knee: %s, "
		 "step %s", label, step);
	b = new_data(cb);
	rbuf_puts(b, "# written_MiB MB_per_s\n");
	for (size_t r = 0; r < dut_series_nrows(s); r++)
		rbuf_printf(b, "%.17g %.17g\n", dut_series_get(s, r, (size_t)cx) / MIB,
			    dut_series_get(s, r, (size_t)cy) / 1e6);
	head(&cb->script, cb->name, cb->title);
	rbuf_puts(&cb->script, "set xlabel 'written (MiB)'\nset ylabel 'write throughput (MB/s)'\n"
		  "set yrange [0:*]\n");
	double end = dut_series_get(s, dut_series_nrows(s) - 1, (size_t)cx) / MIB, prev = 0;
	size_t nk = knees ? json_object_array_length(knees) : 0;

	for (size_t i = 0; i < nk; i++) {
		json_object *kn = json_object_array_get_idx(knees, i);
		double x = json_object_get_double(rundir_knee_bytes(kn)) / MIB;
		json_object *next = i + 1 < nk ? json_object_array_get_idx(knees, i + 1) : NULL;
		double to = next ? json_object_get_double(rundir_knee_bytes(next)) / MIB : end;
		double before = json_object_get_double(rundir_jget(kn, "bw_before")) / 1e6;
		double after = json_object_get_double(rundir_jget(kn, "bw_after")) / 1e6;

		/* a number in a command is printed with %.17g: nan or inf would be a variable name */
		if (!isfinite(x) || !isfinite(to) || !isfinite(before) || !isfinite(after) || !isfinite(prev))
			continue;
		/* the two levels the knee detection fitted, either side of the knee */
		rbuf_printf(&cb->script, "set arrow from %.17g, %.17g to %.17g, %.17g nohead linewidth 2 "
			    "linecolor rgb 'dark-green'\n", prev, before, x, before);
		if (!next)
			rbuf_printf(&cb->script, "set arrow from %.17g, %.17g to %.17g, %.17g nohead "
				    "linewidth 2 linecolor rgb 'dark-green'\n", x, after, to, after);
		prev = x;

		rbuf_printf(&cb->script, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dashtype 2 "
			    "linewidth 2 linecolor rgb 'red'\nset label ", x, x);
		gqf(&cb->script, "knee %zu: %.0f MiB (%s)", i + 1, x,
		    json_object_get_string(rundir_jget(kn, "confidence")) ?: "?");
		rbuf_printf(&cb->script, " at %.17g, graph 0.95 left offset 0.5,0\n", x);
	}
	rbuf_puts(&cb->script, "plot ");
	plot_file(&cb->script, true, cb->dfile[0], "using 1:2 with linespoints");
	gqf(&cb->script, "%s, per window", label);
	rbuf_printf(&cb->script, "%s\n",
		    nk ? ", NaN with lines linewidth 2 linecolor rgb 'dark-green' title 'fitted levels'" : "");
	return add_chart(cs, cb);
}

/* ---- dutprobe fill: IOPS against fill level ---- */

static double level_of(const char *phase)
{
	char *end;
	double v;

	if (strncmp(phase, "level_", 6) != 0)
		return -1;
	v = strtod(phase + 6, &end);
	return end != phase + 6 && *end == '%' ? v : -1;
}

int chart_fill(struct charts *cs, const struct rundir_config *c, const char *step)
{
	_cleanup_free_ struct cbuild *cb = calloc(1, sizeof(*cb));
	const struct dut_result *docs[1];
	json_object *phases, *m0;
	const char *qd[16];
	size_t nqd = 0;
	char safe[128], ssafe[128];
	struct rbuf *b;

	if (!cb)
		return -ENOMEM;
	if (!rundir_config_docs(c, step, docs, 1) ||
	    !json_object_object_get_ex(dut_result_json(docs[0]), "phases", &phases) ||
	    !json_object_array_length(phases))
		return 0;
	m0 = rundir_jget(json_object_array_get_idx(phases, 0), "metrics");
	json_object_object_foreach(m0, name, val) {
		char pr[128], pc[128], ps[128];
		int r;

		(void)val;
		if (strncmp(name, "iops_qd", 7) != 0 || nqd == 16)
			continue;
		if (!chart_metric_name_ok(name)) {
			if ((r = chart_warn(cs, "%s, step %s: metric name \"%s\" has characters other than "
					    "A-Z a-z 0-9 _ . : / %% - and space (or is longer than 128); not charted",
					    printable(c->name, pc, sizeof(pc)), printable(step, ps, sizeof(ps)),
					    printable(name, pr, sizeof(pr)))) < 0)
				return r;
			continue;
		}
		qd[nqd++] = name;
	}
	if (!nqd)
		return 0;
	cb->step = step;
	snprintf(cb->name, sizeof(cb->name), "fill-%s-%s", chart_safe_name(step, ssafe, sizeof(ssafe)),
		 chart_safe_name(c->dir, safe, sizeof(safe)));
	snprintf(cb->title, sizeof(cb->title), "Random-write IOPS against fill level: %s, step %s "
		 "(median of %u repetition%s)", c->name, step, rundir_config_nreps_with(c, step),
		 rundir_config_nreps_with(c, step) == 1 ? "" : "s");
	b = new_data(cb);
	rbuf_puts(b, "# fill_pct");
	for (size_t q = 0; q < nqd; q++)
		rbuf_printf(b, " %s", qd[q]);
	rbuf_puts(b, "\n");
	for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
		const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));
		double lv = level_of(pn);

		if (lv < 0)
			continue;
		rbuf_printf(b, "%.17g", lv);
		for (size_t q = 0; q < nqd; q++) {
			struct cmp_stat st = rundir_metric(c, step, pn, qd[q]);

			rbuf_printf(b, " %.17g", st.n ? st.median : NAN);
		}
		rbuf_puts(b, "\n");
	}
	head(&cb->script, cb->name, cb->title);
	rbuf_puts(&cb->script, "set xlabel 'fill level (% of the span)'\nset ylabel 'random-write IOPS'\n"
		  "set yrange [0:*]\nset datafile missing 'nan'\nplot ");
	for (size_t q = 0; q < nqd; q++) {
		char using[64];

		snprintf(using, sizeof(using), "using 1:%zu with linespoints", q + 2);
		plot_file(&cb->script, q == 0, cb->dfile[0], using);
		gqf(&cb->script, "QD %s", qd[q] + 7);
	}
	rbuf_puts(&cb->script, "\n");
	return add_chart(cs, cb);
}

/* ---- I/O mix per class from the traces ---- */

/* step NULL: the whole traces; else the trace phase between the step's markers */
int chart_iomix(struct charts *cs, const struct rundir_config *c, const char *step)
{
	_cleanup_free_ struct cbuild *cb = calloc(1, sizeof(*cb));
	const char *mark = step ? rundir_step_mark(c, step) : NULL;
	struct rundir_io_mix mix;
	char safe[128], ssafe[128];
	struct rbuf *b;

	if (!cb)
		return -ENOMEM;
	if (step && !mark)
		return 0;
	rundir_io_mix_of(c, mark, &mix);
	if (!mix.ntraced || !(mix.total.ops[0] + mix.total.ops[1]))
		return 0;
	cb->step = step;
	if (step)
		snprintf(cb->name, sizeof(cb->name), "iomix-%s-%s", chart_safe_name(step, ssafe, sizeof(ssafe)),
			 chart_safe_name(c->dir, safe, sizeof(safe)));
	else
		snprintf(cb->name, sizeof(cb->name), "iomix-%s", chart_safe_name(c->dir, safe, sizeof(safe)));
	snprintf(cb->title, sizeof(cb->title), "Reads and writes per class, sequential and random: %s%s%s "
		 "(%u trace%s summed)%s", c->name, step ? ", step " : ", whole traces", step ? step : "",
		 mix.ntraced, mix.ntraced == 1 ? "" : "s",
		 mix.nrelmap < mix.ntraced ? "; no relmap: relation files count as heap" : "");
	b = new_data(cb);
	rbuf_puts(b, "# class read_seq read_random write_seq write_random (requests)\n");
	for (int k = 0; k < RC_COUNT; k++) {
		const struct rundir_io_class *x = &mix.cls[k];

		if (!x->ops[0] && !x->ops[1])
			continue;
		dstr(b, rep_class_name((enum rep_class)k));
		rbuf_printf(b, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			    x->seq_ops[0], x->ops[0] - x->seq_ops[0],
			    x->seq_ops[1], x->ops[1] - x->seq_ops[1]);
	}
	head(&cb->script, cb->name, cb->title);
	rbuf_puts(&cb->script, "set style data histograms\nset style histogram rowstacked\n"
		  "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset ylabel 'requests'\n"
		  "set yrange [0:*]\nplot ");
	plot_file(&cb->script, true, cb->dfile[0], "using 2:xtic(1)");
	rbuf_puts(&cb->script, "'read, sequential', '' using 3 title 'read, random', '' using 4 title "
		  "'write, sequential', '' using 5 title 'write, random'\n");
	return add_chart(cs, cb);
}

/* ---- DSS: phase and query times per configuration ---- */

static void dss_titles(struct rbuf *s, const struct rundir_model *m, const char *file, bool *use)
{
	size_t col = 2;

	rbuf_puts(s, "set style data histograms\nset style histogram clustered gap 1\n"
		  "set style fill solid 0.8 border -1\nset yrange [0:*]\nset xtics rotate by -45\nplot ");
	for (size_t i = 0; i < m->nconfigs; i++) {
		if (!use[i])
			continue;
		char using[64];

		snprintf(using, sizeof(using), "using %zu%s", col, col == 2 ? ":xtic(1)" : "");
		plot_file(s, col == 2, file, using);
		gq(s, m->configs[i].name);
		col++;
	}
	rbuf_puts(s, "\n");
}

/* Median time (s) of the successful runs of each query, over the config's documents. */
static void query_medians(const struct rundir_config *c, const char *step, double *med)
{
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);

	for (unsigned q = 0; q < MAX_QUERY; q++) {
		double v[RUNDIR_MAX_DOCS * 4];
		unsigned n = 0;

		for (size_t d = 0; d < nd; d++) {
			struct dut_result_phase *ph = dut_result_find_phase(docs[d], "queries");
			json_object *qs = ph ? rundir_jget(dut_phase_extra(ph), "queries") : NULL;

			for (size_t k = 0; qs && k < json_object_array_length(qs) && n < RUNDIR_MAX_DOCS * 4; k++) {
				json_object *e = json_object_array_get_idx(qs, k);
				const char *st = json_object_get_string(rundir_jget(e, "status"));

				if (json_object_get_int(rundir_jget(e, "query")) == (int)q && st &&
				    strcmp(st, "ok") == 0 && rundir_jget(e, "duration_ns"))
					v[n++] = (double)json_object_get_uint64(rundir_jget(e, "duration_ns")) / 1e9;
			}
		}
		med[q] = n ? cmp_stat_of(v, n).median : NAN;
	}
}

int chart_dss(struct charts *cs, const struct rundir_model *m, const char *step)
{
	_cleanup_free_ struct cbuild *cb = calloc(1, sizeof(*cb));
	_cleanup_free_ double *med = calloc(m->nconfigs * MAX_QUERY + 1, sizeof(*med));
	_cleanup_free_ bool *use = calloc(m->nconfigs + 1, sizeof(*use));
	const struct dut_result *first = NULL;
	char ssafe[128];
	struct rbuf *b;
	bool anyq = false;
	int r;

	if (!cb || !med || !use)
		return -ENOMEM;
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *d[1];

		use[i] = rundir_config_docs(&m->configs[i], step, d, 1) > 0;
		if (use[i] && !first)
			first = d[0];
	}
	if (!first)
		return 0;
	chart_safe_name(step, ssafe, sizeof(ssafe));
	cb->step = step;
	snprintf(cb->name, sizeof(cb->name), "dss-%s-phases", ssafe);
	snprintf(cb->title, sizeof(cb->title), "DSS phase times (s, median of the repetitions), step %s", step);
	b = new_data(cb);
	rbuf_puts(b, "# phase, then the median time (s) of each configuration\n");
	for (size_t p = 0; p < dut_result_phase_count(first); p++) {
		const char *pn = dut_phase_name(dut_result_phase_at(first, p));

		dstr(b, pn);
		for (size_t i = 0; i < m->nconfigs; i++)
			if (use[i]) {
				struct cmp_stat st = rundir_duration(&m->configs[i], step, pn);

				rbuf_printf(b, " %.17g", st.n ? st.median : NAN);
			}
		rbuf_puts(b, "\n");
	}
	head(&cb->script, cb->name, cb->title);
	rbuf_puts(&cb->script, "set ylabel 'time (s)'\nset datafile missing 'nan'\n");
	dss_titles(&cb->script, m, cb->dfile[0], use);
	if ((r = add_chart(cs, cb)) < 0)
		return r;

	memset(cb, 0, sizeof(*cb));
	for (size_t i = 0; i < m->nconfigs; i++)
		if (use[i])
			query_medians(&m->configs[i], step, &med[i * MAX_QUERY]);
	cb->step = step;
	snprintf(cb->name, sizeof(cb->name), "dss-%s-queries", ssafe);
	snprintf(cb->title, sizeof(cb->title), "DSS query times (s, median of the successful runs), step %s",
		 step);
	b = new_data(cb);
	rbuf_puts(b, "# query, then the median time (s) of each configuration\n");
	for (unsigned q = 0; q < MAX_QUERY; q++) {
		bool any = false;

		for (size_t i = 0; i < m->nconfigs; i++)
			any |= use[i] && !isnan(med[i * MAX_QUERY + q]);
		if (!any)
			continue;
		anyq = true;
		rbuf_printf(b, "\"Q%u\"", q);
		for (size_t i = 0; i < m->nconfigs; i++)
			if (use[i])
				rbuf_printf(b, " %.17g", med[i * MAX_QUERY + q]);
		rbuf_puts(b, "\n");
	}
	if (!anyq) {
		cbuild_free(cb);
		return 0;
	}
	head(&cb->script, cb->name, cb->title);
	rbuf_puts(&cb->script, "set ylabel 'time (s)'\nset datafile missing 'nan'\n");
	dss_titles(&cb->script, m, cb->dfile[0], use);
	return add_chart(cs, cb);
}

/* The slc chart of every document of the step in c (one per repetition). */
int chart_slc(struct charts *cs, const struct rundir_config *c, const char *step)
{
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	char (*labels)[RUNDIR_DOC_LABEL_MAX] = calloc(RUNDIR_MAX_DOCS, sizeof(*labels));
	size_t nd;
	int r = 0;

	if (!labels)
		return -ENOMEM;
	nd = rundir_config_docs_labeled(c, step, docs, labels, RUNDIR_MAX_DOCS);
	for (size_t k = 0; r == 0 && k < nd; k++)
		r = slc_chart(cs, c, step, docs[k], labels[k], k);
	free(labels);
	return r;
}

/* oltp-run: TPS and latency over time, then the standby's replay lag when there is one. */
int chart_oltp_lag(struct charts *cs, const struct rundir_config *c, const char *step)
{
	int r = chart_oltp(cs, c, step);

	return r == 0 ? chart_lag(cs, c, step) : r;
}
