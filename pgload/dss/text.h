/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Comment text for the DSS generator.  The structure follows the TPC-H
 * specification's text grammar (clause 4.2.2.14): sentences made of noun
 * phrases, verb phrases and prepositional phrases with a terminator; the
 * word lists are our own, small, and contain the words the queries look for
 * (Q13: "special", "pending", "unusual", "express" as adjectives and
 * "packages", "requests", "accounts", "deposits" as nouns).  They never
 * contain "Customer", "Complaints" or "Recommends": those appear only in the
 * planted supplier comments (Q16).
 *
 * As in the specification, sentences are generated once into a text pool
 * (deterministic for a seed); a comment is a substring of the pool starting
 * at a word boundary, with a length drawn from the column's range.
 */
#ifndef DSS_TEXT_H
#define DSS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "pgload/dss/rng.h"

struct dss_text_pool {
	char *text;
	size_t len;
};

/* Build a pool of at least size bytes from seed; -ENOMEM. */
int dss_text_pool_build(uint64_t seed, size_t size, struct dss_text_pool *ret);
void dss_text_pool_free(struct dss_text_pool *p);

/*
 * Append a comment of a length uniform in [min_len, max_len] (max_len <=
 * 256) drawn with r to out; returns out + length.  No trailing space.
 */
char *dss_text_comment(const struct dss_text_pool *p, struct dss_rng *r,
		       unsigned min_len, unsigned max_len, char *out);

#endif
