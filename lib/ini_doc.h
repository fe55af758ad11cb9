/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An INI text as a list of sections, each with its keys, values and line
 * numbers: the front end that the shaping rules (fuse/shape/rules.c) and
 * the experiment files (tools/run/experiment_parse.c) share.  libinih does
 * the key = value syntax; the text reaches it through lib/ini_lines, which
 * counts lines, refuses what inih would misread and shows us every
 * "[...]" line.  What a header means is the caller's: its header callback
 * classifies each one (a kind number and a name) or refuses it.
 *
 * The caller builds its own objects from the sections once the whole text
 * is read, so a key may name a section defined further down.
 *
 * Errors: 0 or -errno; with err, -EINVAL says "SOURCE:LINE: what is wrong"
 * (the first error in the text) and -ENOMEM says "SOURCE: out of memory
 * while reading the WHAT".  Pure code: no I/O, nothing printed.
 */
#ifndef DUT_INI_DOC_H
#define DUT_INI_DOC_H

#include <stdarg.h>
#include <stddef.h>

#include "lib/error.h"

struct dut_ini_kv {
	char *key, *value;         /* as inih gives them (trimmed, inline comment cut) */
	unsigned line;
};

struct dut_ini_section {
	int kind;                  /* the header callback's */
	char *name;                /* the header callback's; "" for an unnamed section */
	unsigned line;             /* of the header */
	struct dut_ini_kv *kv;     /* in the order of the text */
	size_t nkv;
};

struct dut_ini_doc {
	struct dut_ini_section *sec;   /* in the order of the text */
	size_t nsec;
	unsigned lines;                /* number of the last line read */
};

/* One "[...]" line, for the header callback. */
struct dut_ini_header {
	const char *text;          /* in: from '[' to the end of the line, without "\n" or "\r\n" */
	size_t len;                /* in */
	unsigned line;             /* in */
	int kind;                  /* out: any value; copied into the section */
	const char *name;          /* out: the name, inside text (or a constant) */
	size_t name_len;           /* out: 0 for an unnamed section */
	char why[400];             /* out on refusal: without "SOURCE:LINE: " */
};

struct dut_ini_doc_ops {
	/* "rules": the -ENOMEM message is "SOURCE: out of memory while reading the rules". */
	const char *what;
	/* "a [model NAME] header": the error for a key above every header is
	 * "expected a [model NAME] header before the first key, found \"KEY\"". */
	const char *headers;
	/* Why an indented line is refused (dut_ini_lines_init), or NULL. */
	const char *indent_why;
	/*
	 * Classify h (sections already read: doc) into h->kind, h->name and
	 * h->name_len and return 0; or refuse it: fill h->why (dut_ini_refuse)
	 * and return -EINVAL.  Any other -errno stops the parse with it.
	 */
	int (*header)(void *arg, const struct dut_ini_doc *doc, struct dut_ini_header *h);
};

/*
 * Read text[0..len) (not NUL-terminated; text may be NULL when len is 0)
 * into *ret.  source names the text in messages.  On success *ret owns the
 * sections (dut_ini_doc_free); on error *ret is left untouched.
 */
int dut_ini_doc_parse(const char *text, size_t len, const char *source, const struct dut_ini_doc_ops *ops,
		      void *arg, struct dut_ini_doc *ret, struct dut_error *err);

/* Free what doc holds (NULL-safe) and empty it. */
void dut_ini_doc_free(struct dut_ini_doc *doc);

/* Format h->why; returns -EINVAL for `return dut_ini_refuse(h, ...);`. */
int dut_ini_refuse(struct dut_ini_header *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * ---- for header callbacks: the "[KIND]" and "[KIND NAME]" headers that the
 * shaping rules and the experiments both use ----
 */
struct dut_ini_header_words {
	const char *inner;         /* between "[" and "]", white space around it trimmed */
	size_t inner_len;
	const char *kind;          /* inner's first word */
	size_t kind_len;
	const char *name;          /* the rest after white space; name_len 0 when none */
	size_t name_len;
};

/*
 * Split h->text into its words (pointers into h->text).  Refuses (h->why,
 * -EINVAL) a header that no "]" closes, or with anything after the "]" but
 * white space or a ';'/'#' comment.
 */
int dut_ini_header_words(struct dut_ini_header *h, struct dut_ini_header_words *ret);

/* The index of the len-byte word s in words[0..n), or -1. */
int dut_ini_word_index(const char *const *words, size_t n, const char *s, size_t len);

/*
 * 0 when name (len bytes) is a section name of 1..max of [A-Za-z0-9_.-];
 * else refuses: "expected a name after \"[KIND\" (1 to MAX letters, ...)".
 */
int dut_ini_header_name(struct dut_ini_header *h, const char *kind, const char *name, size_t len, size_t max);

/* The section of doc with this kind and name (len bytes), or NULL: the duplicate check. */
const struct dut_ini_section *dut_ini_doc_find(const struct dut_ini_doc *doc, int kind, const char *name,
					       size_t len);

/*
 * ---- the first error of a parse and of the building after it ----
 * Later errors follow from the first and are dropped.  Embedded in the
 * parsers' contexts (this doc, the shaping rules, the experiments).
 */
struct dut_ini_errors {
	const char *source;        /* names the text in messages */
	struct dut_error *err;     /* may be NULL */
	int failed;                /* 0, or -errno once an error is recorded */
	unsigned line;             /* of the recorded -EINVAL */
};

/*
 * Unless e->failed: e->err = "SOURCE:LINE: [KIND NAME]: what" ("[KIND]: "
 * when name is NULL or "", no brackets when kind is NULL), e->failed =
 * -EINVAL, e->line = line.
 */
void dut_ini_error(struct dut_ini_errors *e, unsigned line, const char *kind, const char *name,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void dut_ini_verror(struct dut_ini_errors *e, unsigned line, const char *kind, const char *name,
		    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

#endif
