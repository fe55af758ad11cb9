/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checking and converting one step parameter by its spec (tools/kinds/<kind>.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "tools/run/experiment_priv.h"

#define NS_PER_S 1e9
#define LIST_MAX_ITEMS 64

/* Digits only, no sign, no white space; -ERANGE past UINT64_MAX. */
static int parse_u64(const char *s, uint64_t *ret)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*ret = v;
	return 0;
}

/* Digits with at most one '.', at least one digit. */
static int parse_decimal(const char *s, double *ret)
{
	int dots = 0, digits = 0;

	for (const char *p = s; *p; p++) {
		if (*p == '.')
			dots++;
		else if (*p >= '0' && *p <= '9')
			digits++;
		else
			return -EINVAL;
	}
	if (dots > 1 || !digits || strlen(s) > 30)
		return -EINVAL;
	*ret = strtod(s, NULL);
	return 0;
}

static int check_uint(const struct dut_param_spec *p, const char *text, uint64_t *ret, char *msg, size_t len)
{
	uint64_t v;

	if (parse_u64(text, &v) < 0 || (double)v < p->min || (double)v > p->max) {
		snprintf(msg, len, "expected a whole number from %.0f to %.0f, found \"%s\"", p->min, p->max, text);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int check_choice(const struct dut_param_spec *p, const char *text, uint64_t *ret, char *msg, size_t len)
{
	char words[200], sugg[96];
	int i = exp_word_index(p->choices, text);

	if (i < 0) {
		size_t n = 0;

		while (p->choices[n])
			n++;
		exp_suggest(sugg, sizeof(sugg), p->choices, n, text);
		snprintf(msg, len, "expected %s, found \"%s\"%s", exp_join_words(p->choices, words, sizeof(words)),
			 text, sugg);
		return -EINVAL;
	}
	*ret = (uint64_t)i;
	return 0;
}

static int check_item(const struct dut_param_spec *p, const char *item, char *msg, size_t len)
{
	char buf[128];
	uint64_t u, hi;
	double pct;
	const char *at, *dash;
	struct dut_error e;
	struct dut_param_spec weight = { .min = 1, .max = 1000 };

	switch (p->item_kind) {
	case DUT_ITEM_CHOICE:
		return check_choice(p, item, &u, msg, len);
	case DUT_ITEM_CHOICE_WEIGHT:
		at = strchr(item, '@');
		if (!at)
			return check_choice(p, item, &u, msg, len);
		snprintf(buf, sizeof(buf), "%.*s", (int)(at - item), item);
		if (check_choice(p, buf, &u, msg, len) < 0)
			return -EINVAL;
		if (check_uint(&weight, at + 1, &u, msg, len) < 0) {
			snprintf(msg, len, "expected a weight from 1 to 1000 after \"@\", found \"%s\"", item);
			return -EINVAL;
		}
		return 0;
	case DUT_ITEM_UINT:
		return check_uint(p, item, &u, msg, len);
	case DUT_ITEM_LEVEL:
		if (strchr(item, '%')) {
			if (dut_parse_percent(item, &pct, &e) < 0 || pct <= 0 || pct > 100) {
				snprintf(msg, len, "expected a fill level above 0%% and at most 100%%, found \"%s\"", item);
				return -EINVAL;
			}
			return 0;
		}
		if (dut_parse_size(item, &u, &e) < 0 || !u) {
			snprintf(msg, len, "expected a fill level as a percentage (\"30%%\") or a size (\"8GiB\"), found \"%s\"",
				 item);
			return -EINVAL;
		}
		return 0;
	case DUT_ITEM_QUERIES:
		dash = strchr(item, '-');
		snprintf(buf, sizeof(buf), "%.*s", (int)(dash ? dash - item : (long)strlen(item)), item);
		hi = 0;
		if (parse_u64(buf, &u) == 0 && (!dash || parse_u64(dash + 1, &hi) == 0)) {
			if (!dash)
				hi = u;
			if ((double)u >= p->min && (double)hi <= p->max && hi >= u)
				return 0;
		}
		snprintf(msg, len, "expected a query number or range from %.0f to %.0f (\"3\", \"3-5\"), found \"%s\"",
			 p->min, p->max, item);
		return -EINVAL;
	}
	return -EINVAL;
}

static int check_list(const struct dut_param_spec *p, const char *text, uint64_t *ret, char *msg, size_t len)
{
	char item[128];
	uint64_t n = 0;

	for (const char *s = text;;) {
		const char *comma = strchr(s, ','), *end = comma ? comma : s + strlen(s);

		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end == s || (size_t)(end - s) >= sizeof(item)) {
			snprintf(msg, len, "expected a comma-separated list of non-empty items, found \"%s\"", text);
			return -EINVAL;
		}
		if (++n > LIST_MAX_ITEMS) {
			snprintf(msg, len, "expected at most %d items, found more in \"%.60s\"", LIST_MAX_ITEMS, text);
			return -EINVAL;
		}
		memcpy(item, s, (size_t)(end - s));
		item[end - s] = '\0';
		if (check_item(p, item, msg, len) < 0)
			return -EINVAL;
		if (!comma)
			break;
		s = comma + 1;
	}
	*ret = n;
	return 0;
}

static int check_tablespace(const char *text, const struct dut_experiment *e, char *msg, size_t len)
{
	const char *names[65];
	char sugg[96];
	size_t n = 0;

	if (strcmp(text, "default") == 0)
		return 0;
	for (size_t i = 0; i < e->ntablespaces; i++) {
		if (strcmp(e->tablespaces[i].name, text) == 0)
			return 0;
		if (n < 64)
			names[n++] = e->tablespaces[i].name;
	}
	names[n] = NULL;
	exp_suggest(sugg, sizeof(sugg), names, n, text);
	snprintf(msg, len, "expected \"default\" or a [tablespace NAME] of this file, found \"%s\"%s", text, sugg);
	return -EINVAL;
}

int exp_param_parse(const struct dut_param_spec *p, const char *text, struct dut_param_value *v,
		    const struct dut_experiment *e, char *msg, size_t len)
{
	char a[DUT_FMT_LEN], b[DUT_FMT_LEN];
	struct dut_error uerr;
	bool bv;
	int r;

	if (!*text) {
		snprintf(msg, len, "expected a value, found nothing");
		return -EINVAL;
	}
	switch (p->kind) {
	case DUT_P_UINT:
		return check_uint(p, text, &v->u, msg, len);
	case DUT_P_NUMBER:
		if (parse_decimal(text, &v->d) < 0 || v->d < p->min || v->d > p->max) {
			snprintf(msg, len, "expected a number from %g to %g, found \"%s\"", p->min, p->max, text);
			return -EINVAL;
		}
		return 0;
	case DUT_P_SIZE:
		r = dut_parse_size(text, &v->u, &uerr);
		if (r < 0 || (double)v->u < p->min || (double)v->u > p->max) {
			snprintf(msg, len, "expected a size from %s to %s (such as 512M, 4GiB), found \"%s\"",
				 dut_format_size((uint64_t)p->min, a, sizeof(a)),
				 dut_format_size((uint64_t)p->max, b, sizeof(b)), text);
			return -EINVAL;
		}
		return 0;
	case DUT_P_DURATION:
		r = dut_parse_duration(text, &v->u, &uerr);
		if (r < 0 || (double)v->u < p->min * NS_PER_S || (double)v->u > p->max * NS_PER_S) {
			snprintf(msg, len, "expected a duration from %s to %s (such as 30s, 5m), found \"%s\"",
				 dut_format_duration((uint64_t)(p->min * NS_PER_S), a, sizeof(a)),
				 dut_format_duration((uint64_t)(p->max * NS_PER_S), b, sizeof(b)), text);
			return -EINVAL;
		}
		return 0;
	case DUT_P_BOOL:
		if (exp_parse_bool(text, &bv) < 0) {
			snprintf(msg, len, "expected yes or no, found \"%s\"", text);
			return -EINVAL;
		}
		v->u = bv;
		return 0;
	case DUT_P_CHOICE:
		return check_choice(p, text, &v->u, msg, len);
	case DUT_P_LIST:
		return check_list(p, text, &v->u, msg, len);
	case DUT_P_STRING:
		return 0;
	case DUT_P_TABLESPACE:
		return check_tablespace(text, e, msg, len);
	}
	return -EINVAL;
}
