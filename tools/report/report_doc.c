/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Building a report document (pure). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report/report_doc.h"

static struct rdoc_block *add(struct rdoc *d, enum rdoc_kind kind)
{
	struct rdoc_block *b;

	if (d->oom)
		return NULL;
	b = realloc(d->b, (d->n + 1) * sizeof(*b));
	if (!b) {
		d->oom = true;
		return NULL;
	}
	d->b = b;
	b = &d->b[d->n++];
	*b = (struct rdoc_block){ .kind = kind };
	return b;
}

static char *vfmt(struct rdoc *d, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static char *vfmt(struct rdoc *d, const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0) {
		d->oom = true;
		return NULL;
	}
	return s;
}

void rdoc_heading(struct rdoc *d, unsigned level, const char *fmt, ...)
{
	struct rdoc_block *b = add(d, RD_HEADING);
	va_list ap;

	if (!b)
		return;
	b->level = level;
	va_start(ap, fmt);
	b->text = vfmt(d, fmt, ap);
	va_end(ap);
}

void rdoc_para(struct rdoc *d, const char *fmt, ...)
{
	struct rdoc_block *b = add(d, RD_PARA);
	va_list ap;

	if (!b)
		return;
	va_start(ap, fmt);
	b->text = vfmt(d, fmt, ap);
	va_end(ap);
}

void rdoc_list(struct rdoc *d)
{
	add(d, RD_LIST);
}

static void push_item(struct rdoc *d, struct rdoc_block *b, char *s)
{
	char **items;

	if (!s)
		return;
	items = realloc(b->items, (b->nitems + 1) * sizeof(*items));
	if (!items) {
		free(s);
		d->oom = true;
		return;
	}
	b->items = items;
	b->items[b->nitems++] = s;
}

/* The last block if it is of kind k (items go there), else NULL. */
static struct rdoc_block *last(struct rdoc *d, enum rdoc_kind k)
{
	if (d->oom || !d->n || d->b[d->n - 1].kind != k) {
		d->oom = true;     /* a builder bug; reported like a failure */
		return NULL;
	}
	return &d->b[d->n - 1];
}

void rdoc_item(struct rdoc *d, const char *fmt, ...)
{
	struct rdoc_block *b = last(d, RD_LIST);
	va_list ap;

	if (!b)
		return;
	va_start(ap, fmt);
	push_item(d, b, vfmt(d, fmt, ap));
	va_end(ap);
}

void rdoc_table(struct rdoc *d, const char *caption, const char *headers)
{
	struct rdoc_block *b = add(d, RD_TABLE);
	size_t n = 1;

	if (!b)
		return;
	for (const char *s = headers; *s; s++)
		n += *s == '|';
	b->text = strdup(caption);
	b->right = calloc(n, sizeof(*b->right));
	if (!b->text || !b->right) {
		d->oom = true;
		return;
	}
	b->ncols = n;
	for (size_t i = 0; i < n; i++) {
		const char *e = strchrnul(headers, '|');

		b->right[i] = *headers == '>';
		headers += b->right[i];
		push_item(d, b, strndup(headers, (size_t)(e - headers)));
		headers = *e ? e + 1 : e;
	}
}

void rdoc_cell(struct rdoc *d, const char *fmt, ...)
{
	struct rdoc_block *b = last(d, RD_TABLE);
	va_list ap;

	if (!b)
		return;
	va_start(ap, fmt);
	push_item(d, b, vfmt(d, fmt, ap));
	va_end(ap);
}

void rdoc_image(struct rdoc *d, const char *src, const char *caption)
{
	struct rdoc_block *b = add(d, RD_IMAGE);

	if (!b)
		return;
	b->src = strdup(src);
	b->text = strdup(caption);
	if (!b->src || !b->text)
		d->oom = true;
}

void rdoc_free(struct rdoc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		for (size_t k = 0; k < d->b[i].nitems; k++)
			free(d->b[i].items[k]);
		free(d->b[i].items);
		free(d->b[i].text);
		free(d->b[i].src);
		free(d->b[i].right);
	}
	free(d->b);
	free(d);
}
