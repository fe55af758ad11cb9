/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Notes for the program to print (notes.h). */
#include <stdarg.h>
#include <stdio.h>

#include "pgload/notes.h"

void pgl_note(struct pgl_notes *n, const char *fmt, ...)
{
	va_list ap;

	if (n->n == PGL_NOTES_MAX) {
		n->more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(n->v[n->n].msg, sizeof(n->v[0].msg), fmt, ap);
	va_end(ap);
	n->n++;
}
