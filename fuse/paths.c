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
