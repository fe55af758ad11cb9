/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Charts of a run: for each, the data files and the gnuplot script that
 * draws NAME.png from them.  charts_build() is pure (chart.c: the model in,
 * text out); charts_render() (chart_exec.c) writes the files into the charts
 * directory and runs gnuplot there, one process per chart.
 *
 * Only the charts the run's data supports are built:
 *   oltp-STEP-CFG      TPS and mean latency per second (pgload oltp per_second series)
 *   lag-STEP-CFG       hot standby replay lag per sample (pgload oltp replica_lag series)
 *   slc-STEP-CFG-repR  the write throughput per window, with the detected knee
 *   fill-STEP-CFG      random-write IOPS against fill level, one line per queue depth
 *   iomix-CFG          reads and writes per class, sequential vs random (dutfs traces;
 *                      iomix-STEP-CFG: the trace between the step's markers)
 *   dss-STEP-phases    DSS phase times per configuration
 *   dss-STEP-queries   DSS query times per configuration
 *
 * Nothing read from the run directory becomes a gnuplot command (issue #27:
 * the report runs as root on run directories other users can write).  The
 * numbers go into the data files and the strings of a script (titles,
 * legends, labels, file names) go through one quoting function: a gnuplot
 * single-quoted string, in which gnuplot substitutes neither backquotes nor
 * macros, with ' doubled and every control character (a newline ends a
 * command) made a space.  Strings in data files (tic labels) are
 * double-quoted fields with '"' and control characters replaced; gnuplot
 * reads them as data, never as commands.  A metric name that would reach a
 * chart must match chart_metric_name_ok(); one that does not is left out of
 * the chart with a warning (charts->warnings).
 */
#ifndef DUTLAB_CHART_H
#define DUTLAB_CHART_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/report/rundir_model.h"

#define CHART_APT_PACKAGE "gnuplot-nox"

struct chart_data {
	char *file;            /* NAME.dat or NAME-N.dat, relative to the charts directory */
	char *text;
};

struct chart {
	char *name;            /* the file stem: NAME.png, NAME.gp */
	char *title;           /* what it shows (the caption) */
	char *step;            /* the step it belongs to; "" for the per-configuration I/O mix */
	char *script;          /* gnuplot commands; file names relative to the charts directory */
	struct chart_data *data;
	size_t ndata;
	bool rendered;         /* NAME.png was written (charts_render) */
	char *why_not;         /* when not rendered: why, and what to do */
};

struct charts {
	struct chart *v;
	size_t n;
	char **warnings;       /* what was left out of a chart, and why (for the user) */
	size_t nwarnings;
};

int charts_build(const struct rundir_model *m, struct charts **ret);
void charts_free(struct charts *c);

/*
 * Write every chart's data and script into dir (created when missing) and
 * run gnuplot (the program named by $DUTLAB_GNUPLOT, else "gnuplot" on
 * PATH) on it.  A chart gnuplot could not draw gets why_not; a missing
 * gnuplot marks every chart not rendered with the package to install.
 * Returns 0, or -errno when dir cannot be made or written.
 */
int charts_render(struct charts *c, const char *dir);

/* One labelled value with its range (charts_add_ranges). */
struct chart_range {
	const char *label;
	double median, min, max;
};

/*
 * Append a chart of labelled values, the median as a point and min-max as an
 * error bar per label (dutlab results compare).  name is a file stem made by
 * chart_safe_name(); every string is quoted as in the charts of a run.
 * step is "".  -ENOMEM.
 */
int charts_add_ranges(struct charts *c, const char *name, const char *title, const char *ylabel,
		      const struct chart_range *v, size_t n);

/* Whether a metric name may appear in a chart: [A-Za-z0-9_.:/ %-], 1 to 128 characters. */
bool chart_metric_name_ok(const char *s);

/* A file-name-safe version of s ([A-Za-z0-9._+-], others become '-'), into buf. */
const char *chart_safe_name(const char *s, char *buf, size_t n);

#endif
