/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/paths.h"

bool dutfs_name_ok(const char *name)
{
	size_t n;

	if (!name || !*name)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	n = strnlen(name, NAME_MAX + 1);
	if (n > NAME_MAX)
		return false;
	return memchr(name, '/', n) == NULL;
}

int dutfs_pnode_set(struct dutfs_pnode *n, struct dutfs_pnode *parent, const char *name)
{
	char *copy = strdup(name);

	if (!copy)
		return -ENOMEM;
	free(n->name);
	n->name = copy;
	n->parent = parent;
	return 0;
}

void dutfs_pnode_clear(struct dutfs_pnode *n)
{
	free(n->name);
	n->name = NULL;
	n->parent = NULL;
}

int dutfs_pnode_path(const struct dutfs_pnode *n, char *buf, size_t size)
{
	size_t total = 0;
	unsigned depth = 0;
	char *end;

	if (size == 0)
		return -ENAMETOOLONG;
	for (const struct dutfs_pnode *p = n; p->parent; p = p->parent) {
		if (++depth > DUTFS_PNODE_MAX_DEPTH)
			return -ELOOP;
		total += strlen(p->name) + (total ? 1 : 0);
	}
	if (total + 1 > size)
		return -ENAMETOOLONG;
	end = buf + total;
	*end = '\0';
	for (const struct dutfs_pnode *p = n; p->parent; p = p->parent) {
		size_t l = strlen(p->name);

		if (end != buf + total)
			*--end = '/';
		end -= l;
		memcpy(end, p->name, l);
	}
	return 0;
}

bool dutfs_pnode_below(const struct dutfs_pnode *n, const struct dutfs_pnode *anc)
{
	unsigned depth = 0;

	for (const struct dutfs_pnode *p = n->parent; p; p = p->parent) {
		if (p == anc)
			return true;
		if (++depth > DUTFS_PNODE_MAX_DEPTH)
			return false;
	}
	return false;
}

bool dutfs_path_within(const char *path, const char *dir)
{
	size_t dl = strlen(dir);

	if (dl == 1 && dir[0] == '/')
		return path[0] == '/';
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	return !strncmp(path, dir, dl) && (path[dl] == '\0' || path[dl] == '/');
}

/* Decode the mountinfo field [s, e) into out (size >= e - s + 1). */
static void unescape(const char *s, const char *e, char *out)
{
	while (s < e) {
		if (s[0] == '\\' && e - s >= 4 && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

int dutfs_mountinfo_has(const char *mi, size_t len, const char *path)
{
	return dutfs_mountinfo_find(mi, len, path, NULL, 0);
}

int dutfs_mountinfo_find(const char *mi, size_t len, const char *path, char *devid,
			 size_t devid_size)
{
	const char *p = mi, *end = mi + len;
	char field[PATH_MAX * 4 + 1];
	int found = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *f, *fe;
		int k;

		if (!eol)
			eol = end;
		if (eol == p) { /* blank line */
			p = eol + 1;
			continue;
		}
		/* fields: id parent major:minor root mountpoint ... */
		const char *dev = NULL;

		f = p;
		for (k = 0; k < 4; k++) {
			f = memchr(f, ' ', (size_t)(eol - f));
			if (!f)
				return -EINVAL;
			f++;
			if (k == 1)
				dev = f;
		}
		fe = memchr(f, ' ', (size_t)(eol - f));
		if (!fe)
			return -EINVAL;
		if ((size_t)(fe - f) >= sizeof(field))
			return -EINVAL;
		unescape(f, fe, field);
		if (!strcmp(field, path)) {
			/* the last line wins: it is the mount on top */
			const char *de = memchr(dev, ' ', (size_t)(eol - dev));

			found = 1;
			if (devid && devid_size && de) {
				size_t n = (size_t)(de - dev) < devid_size - 1 ? (size_t)(de - dev) : devid_size - 1;

				memcpy(devid, dev, n);
				devid[n] = '\0';
			}
		}
		p = eol + 1;
	}
	return found;
}
