/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure checks of state files and --set, and the authentication files: see cluster_check.h. */
#include <errno.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/memcg.h"
#include "pgload/cluster_check.h"

static bool is_ctl(unsigned char ch)
{
	return ch < 0x20 || ch == 0x7f;
}

bool pgl_path_is_normal(const char *path)
{
	const char *p = path;

	if (path[0] != '/' || strlen(path) >= PATH_MAX)
		return false;
	if (!path[1])
		return true;
	while (*p) {
		size_t n;

		p++;                         /* the '/' */
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;        /* "//", trailing '/', "." or ".." */
		for (size_t i = 0; i < n; i++)
			if (is_ctl((unsigned char)p[i]))
				return false;
		p += n;
	}
	return true;
}

int pgl_path_normalize(const char *cwd, const char *in, char *out, size_t len)
{
	char tmp[2 * PATH_MAX + 2];
	size_t o = 0;
	const char *p;

	if (!in[0] || len < 2)
		return -EINVAL;
	if (in[0] == '/')
		snprintf(tmp, sizeof(tmp), "%s", in);
	else if (!cwd || cwd[0] != '/')
		return -EINVAL;
	else
		snprintf(tmp, sizeof(tmp), "%s/%s", cwd, in);
	p = tmp;
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;         /* the '/' before the dropped component */
		} else {
			if (o + 1 + n + 1 > len)
				return -ENAMETOOLONG;
			out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return o >= PATH_MAX ? -ENAMETOOLONG : 0;
}

bool pgl_socket_dir_is_valid(const char *path)
{
	static const char prefix[] = "/tmp/pgload-";
	const size_t plen = sizeof(prefix) - 1;

	if (strncmp(path, prefix, plen) != 0 || strlen(path) != plen + 6)
		return false;
	for (size_t i = plen; i < plen + 6; i++) {
		char ch = path[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
			return false;
	}
	return true;
}

bool pgl_passfile_is_valid(const char *path, const char *secrets_dir)
{
	size_t dlen = strlen(secrets_dir);
	const char *name = path + dlen + 1;

	if (!pgl_path_is_normal(secrets_dir) || strncmp(path, secrets_dir, dlen) != 0 ||
	    path[dlen] != '/' || strlen(name) != 16 + strlen(".pgpass") || strcmp(name + 16, ".pgpass"))
		return false;
	for (unsigned i = 0; i < 16; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	return true;
}

bool pgl_simple_name_is_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 63)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

int pgl_state_check(const struct pgl_cluster *c, const char *secrets_dir, char *why, size_t len)
{
#define BAD(...) do { snprintf(why, len, __VA_ARGS__); return -EINVAL; } while (0)
	if (!pgl_socket_dir_is_valid(c->socket_dir))
		BAD("socket_dir \"%.200s\" is not /tmp/pgload-XXXXXX", c->socket_dir);
	if (!pgl_path_is_normal(c->bindir))
		BAD("bindir \"%.200s\" is not an absolute path without . or .. components", c->bindir);
	if (c->port < 1 || c->port > 65535)
		BAD("port %d is not in 1..65535", c->port);
	if (c->wal_dir[0] && !pgl_path_is_normal(c->wal_dir))
		BAD("wal_dir \"%.200s\" is not an absolute path without . or .. components", c->wal_dir);
	if (c->ntablespaces > PGL_MAX_TABLESPACES)
		BAD("more than %d tablespaces", PGL_MAX_TABLESPACES);
	for (unsigned i = 0; i < c->ntablespaces; i++) {
		if (!pgl_simple_name_is_valid(c->ts[i].name))
			BAD("tablespace name \"%.64s\" is not [a-z0-9_]", c->ts[i].name);
		if (!pgl_path_is_normal(c->ts[i].location))
			BAD("tablespace %s: location \"%.200s\" is not an absolute path without . or .. "
			    "components", c->ts[i].name, c->ts[i].location);
	}
	if (c->passfile[0] && !pgl_passfile_is_valid(c->passfile, secrets_dir))
		BAD("passfile \"%.200s\" is not a file pgload makes in %s", c->passfile, secrets_dir);
	if (c->sb.is_standby) {
		if (!pgl_path_is_normal(c->sb.primary_pgdata))
			BAD("standby.primary_pgdata \"%.200s\" is not an absolute path without . or .. "
			    "components", c->sb.primary_pgdata);
		if (!pgl_simple_name_is_valid(c->sb.app_name))
			BAD("standby.application_name \"%.64s\" is not [a-z0-9_]", c->sb.app_name);
		if (c->sb.slot[0] && !pgl_simple_name_is_valid(c->sb.slot))
			BAD("standby.slot \"%.64s\" is not [a-z0-9_]", c->sb.slot);
	}
	return 0;
#undef BAD
}

int pgl_state_check_memcg(const struct pgl_cluster *c, const struct dut_memcg_mounts *m, char *why,
			  size_t len)
{
	const char *base = strrchr(c->memcg_dir, '/');

	if (c->memory_bytes && c->memory_bytes < DUT_MEMCG_MIN_BYTES) {
		snprintf(why, len, "memory_bytes %llu is below the smallest budget (%llu MiB)",
			 (unsigned long long)c->memory_bytes, DUT_MEMCG_MIN_BYTES >> 20);
		return -EINVAL;
	}
	if (!c->memcg_dir[0])
		return 0;
	if (!base || strlen(base + 1) != 7 + 16 || strncmp(base + 1, "pgload-", 7) != 0 ||
	    strspn(base + 8, "0123456789abcdef") != 16 || !dut_memcg_dir_is_ours(m, c->memcg_dir, "pgload-")) {
		snprintf(why, len, "memory_cgroup \"%.200s\" is not a cgroup pgload makes (pgload-<16 hex "
			 "digits> below a memory cgroup mount)", c->memcg_dir);
		return -EINVAL;
	}
	return 0;
}

uint64_t pgl_memory_default_shared_buffers(uint64_t budget_bytes)
{
	uint64_t sb = (budget_bytes / 4) & ~((1ull << 20) - 1);

	return sb > (128ull << 20) ? 128ull << 20 : sb;
}

int pgl_memory_check(uint64_t budget_bytes, uint64_t shared_buffers_bytes, char *why, size_t len)
{
	uint64_t need = shared_buffers_bytes + PGL_MEMORY_MARGIN_BYTES;

	if (need < DUT_MEMCG_MIN_BYTES)
		need = DUT_MEMCG_MIN_BYTES;
	if (budget_bytes >= need)
		return 0;
	snprintf(why, len, "a memory budget of %llu MiB is too small for shared_buffers = %llu MiB: the "
		 "server needs shared_buffers + %llu MiB (backends, caches, some page cache), so at least "
		 "%llu MiB; give a larger --memory or a smaller --set shared_buffers=",
		 (unsigned long long)(budget_bytes >> 20), (unsigned long long)(shared_buffers_bytes >> 20),
		 PGL_MEMORY_MARGIN_BYTES >> 20, (unsigned long long)((need + (1ull << 20) - 1) >> 20));
	return -EINVAL;
}

int pgl_set_check(const char *spec, char *why, size_t len)
{
	const char *eq = strchr(spec, '=');
	size_t nlen = eq ? (size_t)(eq - spec) : 0;

	if (!eq || nlen == 0) {
		snprintf(why, len, "expected NAME=VALUE");
		return -EINVAL;
	}
	for (size_t i = 0; i < nlen; i++) {
		char ch = spec[i];
		bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';

		if (!letter && !(i > 0 && ((ch >= '0' && ch <= '9') || ch == '.'))) {
			snprintf(why, len, "NAME \"%.*s\" is not a setting name (letters, digits, _ and ., "
				 "starting with a letter or _)", (int)(nlen > 64 ? 64 : nlen), spec);
			return -EINVAL;
		}
	}
	for (const char *p = eq + 1; *p; p++) {
		if (is_ctl((unsigned char)*p)) {
			snprintf(why, len, "the value of %.*s holds a control character (0x%02x; a newline "
				 "would start another setting): give it on one line", (int)(nlen > 64 ? 64 : nlen),
				 spec, (unsigned char)*p);
			return -EINVAL;
		}
	}
	return 0;
}

int pgl_hba_text(bool tcp, char *buf, size_t len)
{
	int n = snprintf(buf, len,
		"# Written by pgload cluster init.  Only OS users root and postgres (pg_ident.conf,\n"
		"# map " PGL_IDENT_MAP ") connect, as role postgres, over the private socket directory;\n"
		"# TCP (cluster init --listen-tcp) needs the password in pgload's passfile.\n"
		"# TYPE  DATABASE     USER  ADDRESS       METHOD\n"
		"local   all          all                 peer map=" PGL_IDENT_MAP "\n"
		"local   replication  all                 peer map=" PGL_IDENT_MAP "\n"
		"%s",
		tcp ? "host    all          all   127.0.0.1/32  scram-sha-256\n" : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int pgl_ident_text(const char *const os_users[], char *buf, size_t len)
{
	size_t used;
	int n = snprintf(buf, len, "# Written by pgload cluster init: who may be role postgres.\n"
			 "# MAPNAME  SYSTEM-USERNAME  PG-USERNAME\n");

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	used = (size_t)n;
	for (unsigned i = 0; os_users[i]; i++) {
		for (const char *p = os_users[i]; *p; p++)
			if (is_ctl((unsigned char)*p) || *p == ' ' || *p == '"' || *p == '#')
				return -EINVAL;
		n = snprintf(buf + used, len - used, "%-8s %-16s postgres\n", PGL_IDENT_MAP, os_users[i]);
		if (n < 0 || (size_t)n >= len - used)
			return -ENAMETOOLONG;
		used += (size_t)n;
	}
	return 0;
}

char *pgl_settings_text(const char *const sets[], unsigned nsets, const char *header)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	fputs(header, m);
	for (unsigned i = 0; i < nsets; i++) {
		const char *eq = strchr(sets[i], '=');

		fprintf(m, "%.*s = '", (int)(eq - sets[i]), sets[i]);
		for (const char *p = eq + 1; *p; p++)
			fputs(*p == '\'' ? "''" : *p == '\\' ? "\\\\" : (char[]){ *p, 0 }, m);
		fputs("'\n", m);
	}
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
