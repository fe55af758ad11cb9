/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report document as one self-contained HTML page (pure; no JavaScript). */
#include <errno.h>
#include <string.h>

#include "tools/report/report_buf.h"
#include "tools/report/report_doc.h"

static const char css[] =
	"body{font-family:sans-serif;max-width:72em;margin:1em auto;padding:0 1em;color:#222}"
	"table{border-collapse:collapse;margin:0.5em 0 1.5em}"
	"th,td{border:1px solid #bbb;padding:0.2em 0.6em}th{background:#eee}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"caption{text-align:left;font-style:italic;padding:0.3em 0}"
	"figure{margin:1em 0}img{max-width:100%;border:1px solid #ddd}"
	"h1,h2,h3{border-bottom:1px solid #ddd}";

static void esc(struct rbuf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': rbuf_puts(b, "&amp;"); break;
		case '<': rbuf_puts(b, "&lt;"); break;
		case '>': rbuf_puts(b, "&gt;"); break;
		case '"': rbuf_puts(b, "&quot;"); break;
		default: rbuf_printf(b, "%c", *s); break;
		}
	}
}

static void table(struct rbuf *b, const struct rdoc_block *t)
{
	size_t nrows = (t->nitems + t->ncols - 1) / t->ncols;

	rbuf_puts(b, "<table>\n");
	if (t->text[0]) {
		rbuf_puts(b, "<caption>");
		esc(b, t->text);
		rbuf_puts(b, "</caption>\n");
	}
	for (size_t r = 0; r < nrows; r++) {
		rbuf_puts(b, "<tr>");
		for (size_t c = 0; c < t->ncols; c++) {
			size_t i = r * t->ncols + c;

			rbuf_puts(b, r == 0 ? "<th>" : t->right[c] ? "<td class=\"n\">" : "<td>");
			esc(b, i < t->nitems ? t->items[i] : "");
			rbuf_puts(b, r == 0 ? "</th>" : "</td>");
		}
		rbuf_puts(b, "</tr>\n");
	}
	rbuf_puts(b, "</table>\n");
}

int render_html(const struct rdoc *d, const char *title, char **ret)
{
	struct rbuf b = { 0 };
	char *s;

	rbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
	esc(&b, title);
	rbuf_printf(&b, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
	for (size_t i = 0; i < d->n; i++) {
		const struct rdoc_block *k = &d->b[i];
		unsigned lv = k->level < 1 ? 1 : k->level > 6 ? 6 : k->level;

		switch (k->kind) {
		case RD_HEADING:
			rbuf_printf(&b, "<h%u>", lv);
			esc(&b, k->text);
			rbuf_printf(&b, "</h%u>\n", lv);
			break;
		case RD_PARA:
			rbuf_puts(&b, "<p>");
			esc(&b, k->text);
			rbuf_puts(&b, "</p>\n");
			break;
		case RD_LIST:
			rbuf_puts(&b, "<ul>\n");
			for (size_t j = 0; j < k->nitems; j++) {
				rbuf_puts(&b, "<li>");
				esc(&b, k->items[j]);
				rbuf_puts(&b, "</li>\n");
			}
			rbuf_puts(&b, "</ul>\n");
			break;
		case RD_TABLE:
			table(&b, k);
			break;
		case RD_IMAGE:
			rbuf_puts(&b, "<figure><img src=\"");
			esc(&b, k->src);
			rbuf_puts(&b, "\" alt=\"");
			esc(&b, k->text);
			rbuf_puts(&b, "\"><figcaption>");
			esc(&b, k->text);
			rbuf_puts(&b, "</figcaption></figure>\n");
			break;
		}
	}
	rbuf_puts(&b, "</body>\n</html>\n");
	s = rbuf_take(&b);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}
