/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report of a run directory as a small document: headings, paragraphs,
 * lists, tables and images.  report_run_build() (report_run.c, pure) fills
 * it from the run model, its findings and its charts; the Markdown and HTML
 * renderers (render_md.c, render_html.c) only lay it out, so both files say
 * the same thing.
 */
#ifndef DUTLAB_REPORT_DOC_H
#define DUTLAB_REPORT_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/report/chart.h"
#include "tools/report/findings.h"
#include "tools/report/rundir_model.h"

enum rdoc_kind { RD_HEADING, RD_PARA, RD_LIST, RD_TABLE, RD_IMAGE };

struct rdoc_block {
	enum rdoc_kind kind;
	unsigned level;        /* heading: 1.. */
	char *text;            /* heading, paragraph, table caption, image caption */
	char *src;             /* image: path relative to the report */
	char **items;          /* list items; table cells, row-major, header row first */
	size_t nitems;
	size_t ncols;          /* table */
	bool *right;           /* table: per column, right-aligned (numbers) */
};

struct rdoc {
	struct rdoc_block *b;
	size_t n;
	bool oom;              /* sticky: an append failed */
};

/* Builders: printf-style text; failures set d->oom (checked once at the end). */
void rdoc_heading(struct rdoc *d, unsigned level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rdoc_para(struct rdoc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rdoc_list(struct rdoc *d);    /* starts a list; then rdoc_item() */
void rdoc_item(struct rdoc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Starts a table with ncols header cells given as a "|"-separated string; ">" before a name aligns right. */
void rdoc_table(struct rdoc *d, const char *caption, const char *headers);
void rdoc_cell(struct rdoc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rdoc_image(struct rdoc *d, const char *src, const char *caption);
void rdoc_free(struct rdoc *d);

/* The report of a run (pure). */
int report_run_build(const struct rundir_model *m, const struct findings *f, const struct charts *c,
		     struct rdoc **ret);

/* Renderers: the whole document as text (malloc'ed); -ENOMEM. */
int render_md(const struct rdoc *d, char **ret);
int render_html(const struct rdoc *d, const char *title, char **ret);

#endif
