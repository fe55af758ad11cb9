/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cleanup stack of a repetition (pure): each acquired resource (a
 * staged target, a dutfs mount, a running cluster) pushes its undo action;
 * the normal teardown, a failed step and Ctrl-C unwind it the same way,
 * last in first out, so a mount is released only after the cluster on it
 * has stopped, and a loop device only after the mount on it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/run/runner.h"

int run_cleanup_push(struct run_cleanup *c, const char *label, run_undo_fn fn, void *arg,
		     void (*free_arg)(void *))
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		struct run_undo *items = realloc(c->items, cap * sizeof(*items));

		if (!items) {
			/* the caller still owns arg: undo right away rather than leak the resource */
			return -ENOMEM;
		}
		c->items = items;
		c->cap = cap;
	}
	snprintf(c->items[c->n].label, sizeof(c->items[c->n].label), "%s", label);
	c->items[c->n].fn = fn;
	c->items[c->n].arg = arg;
	c->items[c->n].free_arg = free_arg;
	c->n++;
	return 0;
}

unsigned run_cleanup_unwind(struct run_cleanup *c,
			    void (*report)(const char *label, int ret, const struct dut_error *err, void *ctx),
			    void *ctx)
{
	unsigned failed = 0;

	while (c->n) {
		struct run_undo u = c->items[--c->n];
		struct dut_error err = { "" };
		int r = u.fn(u.arg, &err);

		if (r < 0)
			failed++;
		if (report)
			report(u.label, r, &err, ctx);
		if (u.free_arg)
			u.free_arg(u.arg);
	}
	return failed;
}

void run_cleanup_free(struct run_cleanup *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].free_arg)
			c->items[i].free_arg(c->items[i].arg);
	free(c->items);
	c->items = NULL;
	c->n = c->cap = 0;
}
