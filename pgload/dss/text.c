/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text grammar and pool for comments (see text.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/dss/text.h"

/* The words, our own; some weight is given by listing a word twice. */
static const char *const nouns[] = {
	"packages", "requests", "accounts", "deposits", "orders", "shipments",
	"pallets", "invoices", "ledgers", "crates", "couriers", "manifests",
	"parcels", "tariffs", "warrants", "freighters", "packages", "requests",
	"accounts", "deposits",
};
static const char *const verbs[] = {
	"ship", "settle", "arrive", "wait", "move", "drift", "hold", "clear",
	"sort", "stack", "track", "load",
};
static const char *const adjectives[] = {
	"special", "pending", "unusual", "express", "quick", "careful", "regular",
	"final", "silent", "steady", "late", "early",
};
static const char *const adverbs[] = {
	"quickly", "carefully", "slowly", "quietly", "evenly", "boldly",
	"finally", "always", "never", "soon",
};
static const char *const prepositions[] = {
	"about", "above", "after", "against", "along", "among", "beside",
	"beyond", "despite", "near", "under", "without",
};
static const char *const auxiliaries[] = {
	"can", "will", "must", "should", "might", "may",
};
static const char *const terminators[] = { ".", ";", ":", "?", "!", "--" };

#define N(a) (sizeof(a) / sizeof((a)[0]))

enum word_class {
	W_NOUN, W_VERB, W_ADJECTIVE, W_ADVERB, W_PREPOSITION, W_AUXILIARY, W_TERMINATOR, W_NCLASSES
};

static const struct {
	const char *const *v;
	size_t n;
} classes[W_NCLASSES] = {
	[W_NOUN] = { nouns, N(nouns) },
	[W_VERB] = { verbs, N(verbs) },
	[W_ADJECTIVE] = { adjectives, N(adjectives) },
	[W_ADVERB] = { adverbs, N(adverbs) },
	[W_PREPOSITION] = { prepositions, N(prepositions) },
	[W_AUXILIARY] = { auxiliaries, N(auxiliaries) },
	[W_TERMINATOR] = { terminators, N(terminators) },
};

struct writer {
	char *p, *end;
	struct dss_rng *r;
};

static void word(struct writer *w, enum word_class c)
{
	const char *s = classes[c].v[dss_rng_range(w->r, 0, (int64_t)classes[c].n - 1)];
	size_t n = strlen(s);

	if (w->p + n + 1 > w->end)
		return;
	memcpy(w->p, s, n);
	w->p += n;
	*w->p++ = ' ';
}

/* noun | adjective noun | adjective, adjective noun | adverb adjective noun */
static void noun_phrase(struct writer *w)
{
	switch (dss_rng_range(w->r, 0, 3)) {
	case 0:
		break;
	case 1:
		word(w, W_ADJECTIVE);
		break;
	case 2:
		word(w, W_ADJECTIVE);
		if (w->p > w->end - 2)
			return;
		w->p[-1] = ',';
		*w->p++ = ' ';
		word(w, W_ADJECTIVE);
		break;
	default:
		word(w, W_ADVERB);
		word(w, W_ADJECTIVE);
		break;
	}
	word(w, W_NOUN);
}

/* verb | auxiliary verb | verb adverb | auxiliary verb adverb */
static void verb_phrase(struct writer *w)
{
	int64_t form = dss_rng_range(w->r, 0, 3);

	if (form & 1)
		word(w, W_AUXILIARY);
	word(w, W_VERB);
	if (form & 2)
		word(w, W_ADVERB);
}

/* preposition the noun_phrase */
static void prep_phrase(struct writer *w)
{
	word(w, W_PREPOSITION);
	if (w->p + 4 > w->end)
		return;
	memcpy(w->p, "the ", 4);
	w->p += 4;
	noun_phrase(w);
}

/* The specification's five sentence forms, then a terminator glued to the last word. */
static void sentence(struct writer *w)
{
	switch (dss_rng_range(w->r, 0, 4)) {
	case 0:
		noun_phrase(w);
		verb_phrase(w);
		break;
	case 1:
		noun_phrase(w);
		verb_phrase(w);
		prep_phrase(w);
		break;
	case 2:
		noun_phrase(w);
		verb_phrase(w);
		noun_phrase(w);
		break;
	case 3:
		noun_phrase(w);
		prep_phrase(w);
		verb_phrase(w);
		noun_phrase(w);
		break;
	default:
		noun_phrase(w);
		prep_phrase(w);
		verb_phrase(w);
		prep_phrase(w);
		break;
	}
	const char *t = terminators[dss_rng_range(w->r, 0, N(terminators) - 1)];
	size_t n = strlen(t);
	if (w->p + n + 1 > w->end || w->p[-1] != ' ')
		return;
	memcpy(w->p - 1, t, n); /* replaces the space after the last word */
	w->p += n - 1;
	*w->p++ = ' ';
}

int dss_text_pool_build(uint64_t seed, size_t size, struct dss_text_pool *ret)
{
	/* Slack so that a comment starting near the end never runs past it. */
	size_t cap = size + 512;
	char *text = malloc(cap + 1);
	struct dss_rng r = dss_rng_at(seed, 0xff, 0, 0);
	struct writer w = { text, text + cap, &r };

	if (!text)
		return -ENOMEM;
	while (w.p < text + cap - 256)
		sentence(&w);
	*w.p = '\0';
	ret->text = text;
	ret->len = (size_t)(w.p - text);
	return 0;
}

void dss_text_pool_free(struct dss_text_pool *p)
{
	free(p->text);
	p->text = NULL;
	p->len = 0;
}

char *dss_text_comment(const struct dss_text_pool *p, struct dss_rng *r,
		       unsigned min_len, unsigned max_len, char *out)
{
	size_t len = (size_t)dss_rng_range(r, min_len, max_len);
	size_t off = (size_t)dss_rng_range(r, 0, (int64_t)(p->len - 300));

	/* Start at a word: skip to just after the next space. */
	while (off > 0 && p->text[off - 1] != ' ')
		off++;
	/* A comment does not end in a space (a cut word is fine, as in the
	 * specification's substrings): move the end by one, within the range. */
	if (p->text[off + len - 1] == ' ')
		len += len < max_len ? 1 : -1;
	memcpy(out, p->text + off, len);
	return out + len;
}
