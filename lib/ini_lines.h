/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Line reader for libinih's ini_parse_stream().  Debian builds inih without
 * INI_HANDLER_LINENO and calls the handler only for keys, so a parser that
 * wants "file:line" errors and sees empty or repeated sections reads the
 * text through this cursor instead: it counts lines, rejects what inih would
 * silently misread (NUL bytes, lines longer than inih's buffer, indented
 * lines that inih would take as the continuation of the previous value),
 * skips a UTF-8 byte-order mark as inih does, and reports "[section]" lines.
 *
 * Pure code: no I/O, no allocation.  lib/ini_doc's ini_reader calls
 * dut_ini_lines_next() and turns DUT_INI_ERROR into "SOURCE:LINE: ..." for
 * the parsers built on it; use ini_doc rather than this cursor directly.
 */
#ifndef DUT_INI_LINES_H
#define DUT_INI_LINES_H

#include <stdbool.h>
#include <stddef.h>

enum dut_ini_line {
	DUT_INI_END,     /* no more text: the reader returns NULL */
	DUT_INI_TEXT,    /* str holds the line (key, comment or blank) */
	DUT_INI_HEADER,  /* str holds the line; header/header_len the "[...]" part */
	DUT_INI_ERROR,   /* error[] says what is wrong with line `line` */
};

struct dut_ini_lines {
	const char *text;          /* in: the whole file, not NUL-terminated */
	size_t len;                /* in */
	const char *indent_why;    /* in: reason after the indented-line error, or NULL */
	size_t pos;                /* offset of the next line */
	unsigned line;             /* number of the line last read, 1-based; 0 before */
	/* DUT_INI_HEADER: from '[' (leading white space is not allowed, a BOM
	 * is skipped) to the end of the line without "\n" or "\r\n". */
	const char *header;
	size_t header_len;
	char error[256];           /* DUT_INI_ERROR: the message, without "file:line: " */
};

/* Initialise the cursor over text[0..len). */
void dut_ini_lines_init(struct dut_ini_lines *r, const char *text, size_t len, const char *indent_why);

/*
 * Copy the next line (with its "\n") into str[num], like fgets, for inih.
 * Returns what the line is; after DUT_INI_ERROR the caller stops reading.
 */
enum dut_ini_line dut_ini_lines_next(struct dut_ini_lines *r, char *str, int num);

/* A section or model name of n bytes: 1..max of [A-Za-z0-9_.-] (shaping rules, experiments). */
bool dut_ini_name_ok(const char *s, size_t n, size_t max);

#endif
