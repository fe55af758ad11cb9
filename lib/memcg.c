/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Memory budgets, the pure half: mountinfo and /proc/self/cgroup text to paths (memcg.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/memcg.h"

/* Copy the n-byte field at s into out, undoing mountinfo's \ooo escapes. */
static int unescape(const char *s, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
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

/* The next space-separated field of the line [*p, end); false at the end. */
static bool next_field(const char **p, const char *end, const char **ret_s, size_t *ret_n)
{
	const char *s = *p;

	while (s < end && *s == ' ')
		s++;
	if (s >= end)
		return false;
	const char *e = s;

	while (e < end && *e != ' ')
		e++;
	*ret_s = s;
	*ret_n = (size_t)(e - s);
	*p = e;
	return true;
}

/* Does the comma-separated list [s, s+n) contain word? */
static bool has_option(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	const char *end = s + n;

	while (s < end) {
		const char *c = memchr(s, ',', (size_t)(end - s));
		size_t len = c ? (size_t)(c - s) : (size_t)(end - s);

		if (len == w && !memcmp(s, word, w))
			return true;
		s += len + 1;
	}
	return false;
}

static int parse_line(const char *line, const char *end, struct dut_memcg_mounts *m)
{
	const char *p = line, *f[6], *fs, *opts;
	size_t n[6], fsn, optsn;
	int i;

	for (i = 0; i < 6; i++)         /* id parent dev root mountpoint options */
		if (!next_field(&p, end, &f[i], &n[i]))
			return -EINVAL;
	for (;;) {                      /* optional fields up to the "-" separator */
		const char *s;
		size_t sn;

		if (!next_field(&p, end, &s, &sn))
			return -EINVAL;
		if (sn == 1 && *s == '-')
			break;
	}
	if (!next_field(&p, end, &fs, &fsn) || !next_field(&p, end, &opts, &optsn) ||
	    !next_field(&p, end, &opts, &optsn))
		return -EINVAL;
	if (fsn == 7 && !memcmp(fs, "cgroup2", 7) && !m->v2_mountpoint[0]) {
		if (unescape(f[4], n[4], m->v2_mountpoint, sizeof(m->v2_mountpoint)) < 0 ||
		    unescape(f[3], n[3], m->v2_root, sizeof(m->v2_root)) < 0)
			return -EINVAL;
	} else if (fsn == 6 && !memcmp(fs, "cgroup", 6) && has_option(opts, optsn, "memory") &&
		   !m->v1_mountpoint[0]) {
		if (unescape(f[4], n[4], m->v1_mountpoint, sizeof(m->v1_mountpoint)) < 0 ||
		    unescape(f[3], n[3], m->v1_root, sizeof(m->v1_root)) < 0)
			return -EINVAL;
	}
	return 0;
}

int dut_memcg_parse_mounts(const char *mountinfo, struct dut_memcg_mounts *ret)
{
	struct dut_memcg_mounts m = { 0 };
	const char *p = mountinfo;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		int r;

		if (end > p && (r = parse_line(p, end, &m)) < 0)
			return r;
		p = nl ? nl + 1 : end;
	}
	*ret = m;
	return 0;
}

int dut_memcg_self_path(const char *proc_cgroup, enum dut_memcg_kind kind, char *out, size_t len)
{
	const char *p = proc_cgroup;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *c1 = memchr(p, ':', (size_t)(end - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;

		if (c2) {
			const char *ctl = c1 + 1;
			size_t ctln = (size_t)(c2 - ctl);
			bool match = kind == DUT_MEMCG_V2 ? (ctln == 0 && c1 - p == 1 && *p == '0')
							  : has_option(ctl, ctln, "memory");

			if (match) {
				size_t n = (size_t)(end - c2 - 1);

				if (n + 1 > len)
					return -ENAMETOOLONG;
				memcpy(out, c2 + 1, n);
				out[n] = '\0';
				return 0;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return -ENOENT;
}

static bool good_name(const char *name)
{
	if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '_' || *c == '.' || *c == '-'))
			return false;
	return true;
}

int dut_memcg_child_dir(enum dut_memcg_kind kind, const struct dut_memcg_mounts *m,
			const char *self, const char *name, char *out, size_t len)
{
	int n;

	if (!good_name(name))
		return -EINVAL;
	if (kind == DUT_MEMCG_V2) {
		if (!m->v2_mountpoint[0])
			return -EINVAL;
		n = snprintf(out, len, "%s/dutlab/%s", m->v2_mountpoint, name);
	} else if (kind == DUT_MEMCG_V1) {
		size_t rl = strlen(m->v1_root);
		const char *rel = self;

		if (!m->v1_mountpoint[0] || self[0] != '/')
			return -EINVAL;
		/* self must lie under the mount's root ("/" is every path's root) */
		if (!(rl == 1 && m->v1_root[0] == '/')) {
			if (strncmp(self, m->v1_root, rl) != 0 || (self[rl] != '/' && self[rl] != '\0'))
				return -EINVAL;
			rel = self + rl;
		}
		while (*rel == '/')
			rel++;
		n = snprintf(out, len, "%s%s%s/%s", m->v1_mountpoint, *rel ? "/" : "", rel, name);
	} else {
		return -EINVAL;
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Absolute, no "", "." or ".." components, no trailing '/'. */
static bool normal_path(const char *p)
{
	if (p[0] != '/' || strlen(p) >= PATH_MAX)
		return false;
	while (*p) {
		size_t n;

		p++;
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
	}
	return true;
}

bool dut_memcg_dir_is_ours(const struct dut_memcg_mounts *m, const char *dir, const char *prefix)
{
	const char *base = strrchr(dir, '/');
	size_t ml;

	if (!normal_path(dir) || !base || strncmp(base + 1, prefix, strlen(prefix)) != 0 ||
	    !good_name(base + 1))
		return false;
	if (m->v1_mountpoint[0]) {
		ml = strlen(m->v1_mountpoint);
		if (strncmp(dir, m->v1_mountpoint, ml) == 0 && dir[ml] == '/')
			return true;
	}
	if (m->v2_mountpoint[0]) {
		ml = strlen(m->v2_mountpoint);
		if (strncmp(dir, m->v2_mountpoint, ml) == 0 && strncmp(dir + ml, "/dutlab/", 8) == 0 &&
		    base == dir + ml + 7)
			return true;
	}
	return false;
}

const char *dut_memcg_limit_file(enum dut_memcg_kind kind)
{
	return kind == DUT_MEMCG_V2 ? "memory.max" : "memory.limit_in_bytes";
}

const char *dut_memcg_procs_file(enum dut_memcg_kind kind)
{
	(void)kind;
	return "cgroup.procs";
}

const char *dut_memcg_peak_file(enum dut_memcg_kind kind)
{
	return kind == DUT_MEMCG_V2 ? "memory.peak" : "memory.max_usage_in_bytes";
}

const char *dut_memcg_usage_file(enum dut_memcg_kind kind)
{
	return kind == DUT_MEMCG_V2 ? "memory.current" : "memory.usage_in_bytes";
}

const char *dut_memcg_kind_name(enum dut_memcg_kind kind)
{
	return kind == DUT_MEMCG_V2 ? "cgroup v2" : kind == DUT_MEMCG_V1 ? "cgroup v1" : "none";
}
