/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report document as Markdown (pure). */
#include <errno.h>
#include <string.h>

#include "tools/report/report_buf.h"
#include "tools/report/report_doc.h"

/* A table cell: '|' would end it, a newline would end the row. */
static void cell(struct rbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			rbuf_puts(b, "\\|");
		else if (*s == '\n')
			rbuf_puts(b, " ");
		else
			rbuf_printf(b, "%c", *s);
	}
}

static void table(struct rbuf *b, const struct rdoc_block *t)
{
	size_t nrows = (t->nitems + t->ncols - 1) / t->ncols;

	if (t->text[0])
		rbuf_printf(b, "%s\n\n", t->text);
	for (size_t r = 0; r < nrows; r++) {
		rbuf_puts(b, "|");
		for (size_t c = 0; c < t->ncols; c++) {
			size_t i = r * t->ncols + c;

			rbuf_puts(b, " ");
			cell(b, i < t->nitems ? t->items[i] : "");
			rbuf_puts(b, " |");
		}
		rbuf_puts(b, "\n");
		if (r == 0) {
			rbuf_puts(b, "|");
			for (size_t c = 0; c < t->ncols; c++)
				rbuf_puts(b, t->right[c] ? " ---: |" : " --- |");
			rbuf_puts(b, "\n");
		}
	}
	rbuf_puts(b, "\n");
}

int render_md(const struct rdoc *d, char **ret)
{
	struct rbuf b = { 0 };
	char *s;

	for (size_t i = 0; i < d->n; i++) {
		const struct rdoc_block *k = &d->b[i];

		switch (k->kind) {
		case RD_HEADING:
			rbuf_printf(&b, "%.*s %s\n\n", (int)(k->level < 6 ? k->level : 6), "######", k->text);
			break;
		case RD_PARA:
			rbuf_printf(&b, "%s\n\n", k->text);
			break;
		case RD_LIST:
			for (size_t j = 0; j < k->nitems; j++)
				rbuf_printf(&b, "- %s\n", k->items[j]);
			rbuf_puts(&b, "\n");
			break;
		case RD_TABLE:
			table(&b, k);
			break;
		case RD_IMAGE:
			rbuf_printf(&b, "![%s](%s)\n\n", k->text, k->src);
			break;
		}
	}
	s = rbuf_take(&b);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}
