/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure parts of lib/spawn.h: wait statuses, capture buffers, envp and argv building. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/spawn.h"

int dut_wait_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void dut_wait_describe(int status, char *buf, size_t len)
{
	if (!len)
		return;
	if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 sigdescr_np(WTERMSIG(status)) ? sigdescr_np(WTERMSIG(status)) : "unknown");
	else
		snprintf(buf, len, "wait status 0x%x", (unsigned)status);
}

void dut_capture_append(struct dut_capture *c, const char *data, size_t n)
{
	size_t room;

	if (!c || !c->buf || c->cap == 0)
		return;
	room = c->cap - 1;
	if (c->len + n > room)
		c->over = true;
	if (!c->keep_tail) {
		size_t take = c->len < room ? room - c->len : 0;

		if (take > n)
			take = n;
		memcpy(c->buf + c->len, data, take);
		c->len += take;
	} else if (n >= room) {
		memcpy(c->buf, data + n - room, room);
		c->len = room;
	} else {
		size_t drop = c->len + n > room ? c->len + n - room : 0;

		memmove(c->buf, c->buf + drop, c->len - drop);
		memcpy(c->buf + c->len - drop, data, n);
		c->len = c->len - drop + n;
	}
	c->buf[c->len] = '\0';
}

/* Whether entry e sets the name that entry a sets ("NAME=..." both). */
static bool same_name(const char *e, const char *a)
{
	size_t n = strcspn(a, "=");

	return strncmp(e, a, n) == 0 && e[n] == '=';
}

char **dut_spawn_env(char *const env[], const char *const add[])
{
	size_t ne = 0, na = 0, k = 0;
	char **out;

	while (env && env[ne])
		ne++;
	while (add && add[na])
		na++;
	if (!(out = calloc(ne + na + 1, sizeof(*out))))
		return NULL;
	for (size_t i = 0; i < ne; i++) {
		bool replaced = false;

		for (size_t j = 0; j < na && !replaced; j++)
			replaced = same_name(env[i], add[j]);
		if (!replaced)
			out[k++] = env[i];
	}
	for (size_t j = 0; j < na; j++)
		out[k++] = (char *)add[j];
	out[k] = NULL;
	return out;
}

int dut_spawn_argv_as(const char *user, char *const argv[], char *out[], size_t n)
{
	static char runuser[] = "runuser", dash_u[] = "-u", dashdash[] = "--";
	size_t k = 0, argc = 0;

	while (argv[argc])
		argc++;
	if (argc + (user ? 4 : 0) + 1 > n)
		return -E2BIG;
	if (user) {
		out[k++] = runuser;
		out[k++] = dash_u;
		out[k++] = (char *)user;
		out[k++] = dashdash;
	}
	for (size_t i = 0; i < argc; i++)
		out[k++] = argv[i];
	out[k] = NULL;
	return 0;
}
