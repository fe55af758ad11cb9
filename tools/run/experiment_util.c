/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers of the experiment parser: word lists, "did you mean", names. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tools/run/experiment_priv.h"

int exp_word_index(const char *const *words, const char *s)
{
	for (int i = 0; words[i]; i++)
		if (strcmp(words[i], s) == 0)
			return i;
	return -1;
}

/* Levenshtein distance, bounded: strings longer than 63 are "far". */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[64];

	if (la > 63 || lb > 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *exp_did_you_mean(const char *const *words, size_t n, const char *s)
{
	const char *best = NULL;
	unsigned best_d = 99, limit = strlen(s) / 3;

	if (limit < 2)
		limit = 2;
	for (size_t i = 0; i < n && words[i]; i++) {
		unsigned d = strcasecmp(words[i], s) == 0 ? 0 : edit_distance(words[i], s);

		if (d < best_d) {
			best_d = d;
			best = words[i];
		}
	}
	return best_d <= limit ? best : NULL;
}

void exp_suggest(char *buf, size_t len, const char *const *words, size_t n, const char *s)
{
	const char *m = exp_did_you_mean(words, n, s);

	if (m)
		snprintf(buf, len, " (did you mean \"%s\"?)", m);
	else if (len)
		buf[0] = '\0';
}

const char *exp_join_words(const char *const *words, char *buf, size_t len)
{
	size_t n = 0, used = 0;

	while (words[n])
		n++;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", words[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return buf;
}

int exp_parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1", NULL };
	static const char *const no[] = { "no", "false", "off", "0", NULL };

	if (exp_word_index(yes, s) >= 0) {
		*ret = true;
		return 0;
	}
	if (exp_word_index(no, s) >= 0) {
		*ret = false;
		return 0;
	}
	return -EINVAL;
}

const char *dut_target_type_name(enum dut_target_type t)
{
	static const char *const n[] = { "directory", "image", "device" };

	return (unsigned)t < 3 ? n[t] : "?";
}

const char *dut_fs_type_name(enum dut_fs_type t)
{
	static const char *const n[] = { "none", "ext4", "xfs", "btrfs" };

	return (unsigned)t < 4 ? n[t] : "?";
}

const char *dut_view_name(enum dut_view v)
{
	static const char *const n[] = { "device", "syscall", "off" };

	return (unsigned)v < 3 ? n[v] : "?";
}

const char *dut_replica_mode_name(enum dut_replica_mode m)
{
	static const char *const n[] = { "none", "async", "sync" };

	return (unsigned)m < 3 ? n[m] : "?";
}

const char *dut_exp_order_name(enum dut_exp_order o)
{
	static const char *const n[] = { "interleaved", "sequential" };

	return (unsigned)o < 2 ? n[o] : "?";
}

const struct dut_filesystem *dut_experiment_filesystem(const struct dut_experiment *e, const char *name)
{
	for (size_t i = 0; name && i < e->nfilesystems; i++)
		if (strcmp(e->filesystems[i].name, name) == 0)
			return &e->filesystems[i];
	return NULL;
}

const struct dut_target *dut_experiment_target(const struct dut_experiment *e, const char *name)
{
	for (size_t i = 0; name && i < e->ntargets; i++)
		if (strcmp(e->targets[i].name, name) == 0)
			return &e->targets[i];
	return NULL;
}
