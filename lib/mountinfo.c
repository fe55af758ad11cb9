/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/self/mountinfo parsing (pure); see mountinfo.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mountinfo.h"

static bool is_oct(char c, char max)
{
	return c >= '0' && c <= max;
}

/* Copy the n-byte field at s into out (size len), decoding \ooo escapes. */
static int unescape(const char *s, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 3 < n && is_oct(s[i + 1], '3') && is_oct(s[i + 2], '7') &&
		    is_oct(s[i + 3], '7')) {
			c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= len)
			return -ENAMETOOLONG;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

/* The next space-separated field of [*p, end): false at the end. */
static bool next_field(const char **p, const char *end, const char **ret_s, size_t *ret_n)
{
	const char *s = *p, *e;

	while (s < end && *s == ' ')
		s++;
	if (s >= end)
		return false;
	for (e = s; e < end && *e != ' '; e++)
		;
	*ret_s = s;
	*ret_n = (size_t)(e - s);
	*p = e;
	return true;
}

/* "maj:min" and nothing else */
static int parse_dev(const char *s, size_t n, unsigned *ret_major, unsigned *ret_minor)
{
	unsigned long v[2] = { 0, 0 };
	int k = 0;
	bool digit = false;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == ':' && k == 0 && digit) {
			k = 1;
			digit = false;
		} else if (s[i] >= '0' && s[i] <= '9' && v[k] < 0xfffffffful / 10) {
			v[k] = v[k] * 10 + (unsigned long)(s[i] - '0');
			digit = true;
		} else {
			return -EINVAL;
		}
	}
	if (k != 1 || !digit)
		return -EINVAL;
	*ret_major = (unsigned)v[0];
	*ret_minor = (unsigned)v[1];
	return 0;
}

int dut_mountinfo_parse_line(const char *line, size_t len, struct dut_mount *ret)
{
	const char *p = line, *end = line + len, *f[5], *s;
	size_t n[5], sn;
	int r;

	/* 1 id, 2 parent, 3 maj:min, 4 root, 5 mount point; 6 options */
	for (int i = 0; i < 5; i++)
		if (!next_field(&p, end, &f[i], &n[i]))
			return -EINVAL;
	if (!next_field(&p, end, &s, &sn))
		return -EINVAL;
	do {    /* optional fields up to the "-" separator */
		if (!next_field(&p, end, &s, &sn))
			return -EINVAL;
	} while (!(sn == 1 && *s == '-'));
	if (parse_dev(f[2], n[2], &ret->major, &ret->minor) < 0)
		return -EINVAL;
	if ((r = unescape(f[3], n[3], ret->root, sizeof(ret->root))) < 0 ||
	    (r = unescape(f[4], n[4], ret->mount_point, sizeof(ret->mount_point))) < 0)
		return r;
	if (!next_field(&p, end, &s, &sn))
		return -EINVAL;
	if ((r = unescape(s, sn, ret->fstype, sizeof(ret->fstype))) < 0)
		return r;
	if (!next_field(&p, end, &s, &sn))
		return -EINVAL;
	if ((r = unescape(s, sn, ret->source, sizeof(ret->source))) < 0)
		return r;
	ret->super_opts[0] = '\0';
	if (next_field(&p, end, &s, &sn) && (r = unescape(s, sn, ret->super_opts, sizeof(ret->super_opts))) < 0)
		return r;
	return 0;
}

int dut_mountinfo_next(const char **pos, const char *end, struct dut_mount *ret)
{
	while (*pos < end) {
		const char *line = *pos, *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		*pos = nl ? nl + 1 : end;
		if (n == 0)
			continue;
		return dut_mountinfo_parse_line(line, n, ret) < 0 ? -EINVAL : 1;
	}
	return 0;
}

/* Walk every well-formed line; keep the first or last one match() accepts. */
static int find(const char *text, size_t len, bool last, struct dut_mount *ret,
		bool (*match)(const struct dut_mount *, const void *), const void *arg)
{
	const char *p = text, *end = text + len;
	struct dut_mount *m = malloc(sizeof(*m));
	int r, found = 0;

	if (!m)
		return -ENOMEM;
	while ((r = dut_mountinfo_next(&p, end, m)) != 0) {
		if (r < 0 || !match(m, arg))
			continue;
		*ret = *m;
		found = 1;
		if (!last)
			break;
	}
	free(m);
	return found;
}

struct dev_arg {
	unsigned major, minor;
};

static bool match_dev(const struct dut_mount *m, const void *arg)
{
	const struct dev_arg *d = arg;

	return m->major == d->major && m->minor == d->minor;
}

static bool match_source(const struct dut_mount *m, const void *arg)
{
	return strcmp(m->source, arg) == 0;
}

static bool match_point(const struct dut_mount *m, const void *arg)
{
	return strcmp(m->mount_point, arg) == 0;
}

int dut_mountinfo_find_dev(const char *text, size_t len, unsigned major, unsigned minor,
			   struct dut_mount *ret)
{
	struct dev_arg d = { major, minor };

	return find(text, len, false, ret, match_dev, &d);
}

int dut_mountinfo_find_source(const char *text, size_t len, const char *source, int last,
			      struct dut_mount *ret)
{
	return find(text, len, last, ret, match_source, source);
}

int dut_mountinfo_find_point(const char *text, size_t len, const char *path, struct dut_mount *ret)
{
	return find(text, len, true, ret, match_point, path);
}

/* Is mp a mount point path lies under ("/" covers every absolute path)? */
static bool path_under(const char *path, const char *mp)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return path[0] == '/';
	return strncmp(path, mp, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int dut_mountinfo_find_covering(const char *text, size_t len, unsigned major, unsigned minor,
				const char *path, struct dut_mount *ret)
{
	const char *p = text, *end = text + len;
	struct dut_mount *m = malloc(sizeof(*m));
	size_t best = 0;
	int r, found = 0;

	if (!m)
		return -ENOMEM;
	while ((r = dut_mountinfo_next(&p, end, m)) != 0) {
		size_t n;

		if (r < 0 || m->major != major || m->minor != minor || !path_under(path, m->mount_point))
			continue;
		n = strlen(m->mount_point);
		if (found && n < best)
			continue;
		best = n;
		*ret = *m;
		found = 1;
	}
	free(m);
	return found;
}

int dut_mount_has_option(const char *opts, size_t len, const char *word)
{
	const char *s = opts, *end = opts + len;
	size_t w = strlen(word);

	while (s < end) {
		const char *c = memchr(s, ',', (size_t)(end - s));
		size_t n = c ? (size_t)(c - s) : (size_t)(end - s);

		if (n == w && memcmp(s, word, w) == 0)
			return 1;
		s += n + 1;
	}
	return 0;
}
