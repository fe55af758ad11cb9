/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab results compare: the answer as aligned tables and as JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/results/results_render.h"

static void render_table(FILE *f, const struct results_table *t, const char *title)
{
	size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof(*w));
	char buf[256];

	fprintf(f, "%s\n", title);
	if (!w)
		return;
	if (t->nrows == 0) {
		fprintf(f, "  (none)\n\n");
		free(w);
		return;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->cols[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			results_cell_text(t, r, c, buf, sizeof(buf));
			if (strlen(buf) > w[c])
				w[c] = strlen(buf);
		}
	}
	fprintf(f, " ");
	for (size_t c = 0; c < t->ncols; c++)
		fprintf(f, " %*s", t->numeric[c] ? (int)w[c] : -(int)w[c], t->cols[c]);
	fprintf(f, "\n");
	for (size_t r = 0; r < t->nrows; r++) {
		fprintf(f, " ");
		for (size_t c = 0; c < t->ncols; c++) {
			results_cell_text(t, r, c, buf, sizeof(buf));
			fprintf(f, " %*s", t->numeric[c] ? (int)w[c] : -(int)w[c], buf);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
	free(w);
}

void results_render_human(FILE *f, const struct results_cmp *cmp)
{
	for (size_t i = 0; i < 3; i++)
		render_table(f, &cmp->t[i], results_titles[i]);
}

static json_object *table_json(const struct results_table *t)
{
	json_object *a = json_object_new_array();

	for (size_t r = 0; a && r < t->nrows; r++) {
		json_object *o = json_object_new_object();

		for (size_t c = 0; o && c < t->ncols; c++) {
			const char *v = t->cells[r * t->ncols + c];
			json_object *x = NULL;

			if (v && t->numeric[c])
				x = strchr(v, '.') || strchr(v, 'e') || strchr(v, 'N') || strchr(v, 'I') ?
					json_object_new_double(strtod(v, NULL)) :
					json_object_new_int64(strtoll(v, NULL, 10));
			else if (v)
				x = json_object_new_string(v);
			json_object_object_add(o, t->cols[c], x);
		}
		json_object_array_add(a, o);
	}
	return a;
}

int results_render_json(const struct results_cmp *cmp, json_object *filter, char **ret)
{
	json_object *o = json_object_new_object();
	const char *s;

	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "schema", json_object_new_string("dutlab-results-compare"));
	/* 2: the filter is the --where object (version 1 had experiment and metric strings) */
	json_object_object_add(o, "schema_version", json_object_new_int(2));
	json_object_object_add(o, "filter", json_object_get(filter));
	for (size_t i = 0; i < 3; i++)
		json_object_object_add(o, cmp->t[i].name, table_json(&cmp->t[i]));
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	*ret = s ? strdup(s) : NULL;
	json_object_put(o);
	return *ret ? 0 : -ENOMEM;
}
