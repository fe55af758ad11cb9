/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The two helpers every findings file uses (findings_priv.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/report/findings_priv.h"

int findings_add(struct findings *fs, const struct finding *f, const char *subject,
		 const char *fmt, ...)
{
	struct finding *v = realloc(fs->v, (fs->n + 1) * sizeof(*v));
	va_list ap;
	int n;

	if (!v)
		return -ENOMEM;
	fs->v = v;
	v[fs->n] = *f;
	v[fs->n].subject = strdup(subject);
	va_start(ap, fmt);
	n = vasprintf(&v[fs->n].text, fmt, ap);
	va_end(ap);
	if (n < 0 || !v[fs->n].subject) {
		free(v[fs->n].subject);
		if (n >= 0)
			free(v[fs->n].text);
		return -ENOMEM;
	}
	fs->n++;
	return 0;
}

json_object *findings_doc_member(const struct dut_result *r, const char *key)
{
	return rundir_jget(dut_result_json(r), key);
}
