/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/settings.h"

const char *const pgl_setting_names[] = {
	"server_version",
	"block_size",
	"wal_block_size",
	"data_checksums",
	"shared_buffers",
	"wal_level",
	"wal_buffers",
	"max_wal_size",
	"min_wal_size",
	"fsync",
	"synchronous_commit",
	"full_page_writes",
	"wal_sync_method",
	"checkpoint_timeout",
	"checkpoint_completion_target",
	"effective_io_concurrency",
	"random_page_cost",
	"max_connections",
	"autovacuum",
	"huge_pages",
	/* PostgreSQL 18's asynchronous I/O (17: io_combine_limit); null before */
	"io_method",
	"io_workers",
	"io_combine_limit",
};
const size_t pgl_setting_count = sizeof(pgl_setting_names) / sizeof(pgl_setting_names[0]);

void pgl_settings_init(struct pgl_settings *st)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < pgl_setting_count && i < sizeof(st->s) / sizeof(st->s[0]); i++)
		st->s[st->n++].name = pgl_setting_names[i];
}

static struct pgl_setting *find(const struct pgl_settings *st, const char *name)
{
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->s[i].name, name) == 0)
			return (struct pgl_setting *)&st->s[i];
	return NULL;
}

int pgl_settings_set(struct pgl_settings *st, const char *name, const char *setting,
		     const char *unit)
{
	struct pgl_setting *s = find(st, name);

	if (!s)
		return 0;
	snprintf(s->setting, sizeof(s->setting), "%s", setting ? setting : "");
	snprintf(s->unit, sizeof(s->unit), "%s", unit ? unit : "");
	s->present = true;
	return 0;
}

const struct pgl_setting *pgl_settings_get(const struct pgl_settings *st, const char *name)
{
	const struct pgl_setting *s = find(st, name);

	return s && s->present ? s : NULL;
}

int pgl_settings_block_size(const struct pgl_settings *st, uint32_t *ret)
{
	const struct pgl_setting *s = pgl_settings_get(st, "block_size");
	char *end;
	unsigned long v;

	if (!s)
		return -ENOENT;
	errno = 0;
	v = strtoul(s->setting, &end, 10);
	if (errno || end == s->setting || *end || v == 0 || v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

/* Unit strings of pg_settings: memory "B" "kB" "8kB" "MB" ..., time "ms" "s" "min". */
static int unit_bytes(const char *unit, uint64_t *ret)
{
	static const struct { const char *suffix; uint64_t mult; } suffixes[] = {
		{ "B", 1 }, { "kB", 1024 }, { "MB", 1024 * 1024 },
		{ "GB", 1024ull * 1024 * 1024 }, { "TB", 1024ull * 1024 * 1024 * 1024 },
	};
	char *end;
	unsigned long long n = 1;

	if (unit[0] >= '0' && unit[0] <= '9') {
		n = strtoull(unit, &end, 10);
		unit = end;
	}
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (strcmp(unit, suffixes[i].suffix) == 0) {
			*ret = n * suffixes[i].mult;
			return 0;
		}
	}
	return -EINVAL;
}

static int unit_ms(const char *unit, uint64_t *ret)
{
	if (strcmp(unit, "ms") == 0)
		*ret = 1;
	else if (strcmp(unit, "s") == 0)
		*ret = 1000;
	else if (strcmp(unit, "min") == 0)
		*ret = 60000;
	else
		return -EINVAL;
	return 0;
}

/* PostgreSQL's own style: the largest unit that divides the value exactly. */
static void pretty_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const names[] = { "B", "kB", "MB", "GB", "TB" };
	unsigned i = 0;

	while (i + 1 < sizeof(names) / sizeof(names[0]) && b >= 1024 && b % 1024 == 0) {
		b /= 1024;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)b, names[i]);
}

static void pretty_ms(uint64_t ms, char *buf, size_t len)
{
	if (ms >= 60000 && ms % 60000 == 0)
		snprintf(buf, len, "%llumin", (unsigned long long)(ms / 60000));
	else if (ms >= 1000 && ms % 1000 == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ms / 1000));
	else
		snprintf(buf, len, "%llums", (unsigned long long)ms);
}

void pgl_setting_pretty(const struct pgl_setting *s, char *buf, size_t len)
{
	uint64_t mult;
	long long v;
	char *end;

	if (!s || !s->present) {
		snprintf(buf, len, "(not reported)");
		return;
	}
	errno = 0;
	v = strtoll(s->setting, &end, 10);
	if (!s->unit[0] || errno || end == s->setting || *end) {
		snprintf(buf, len, "%s", s->setting);
		return;
	}
	if (v < 0) { /* -1 = "automatic" (wal_buffers) or disabled */
		snprintf(buf, len, "%s (%s)", s->setting, s->unit);
		return;
	}
	if (unit_bytes(s->unit, &mult) == 0)
		pretty_bytes((uint64_t)v * mult, buf, len);
	else if (unit_ms(s->unit, &mult) == 0)
		pretty_ms((uint64_t)v * mult, buf, len);
	else
		snprintf(buf, len, "%s %s", s->setting, s->unit);
}

void pgl_settings_print(const struct pgl_settings *st, FILE *out)
{
	for (size_t i = 0; i < st->n; i++) {
		char v[160];

		pgl_setting_pretty(&st->s[i], v, sizeof(v));
		fprintf(out, "  %-30s %s\n", st->s[i].name, v);
	}
}

json_object *pgl_settings_to_json(const struct pgl_settings *st)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	for (size_t i = 0; i < st->n; i++) {
		const struct pgl_setting *s = &st->s[i];
		json_object *e;
		char v[160];

		if (!s->present) {
			json_object_object_add(o, s->name, NULL);
			continue;
		}
		e = json_object_new_object();
		if (!e) {
			json_object_put(o);
			return NULL;
		}
		pgl_setting_pretty(s, v, sizeof(v));
		json_object_object_add(e, "setting", json_object_new_string(s->setting));
		json_object_object_add(e, "unit", s->unit[0] ? json_object_new_string(s->unit) : NULL);
		json_object_object_add(e, "value", json_object_new_string(v));
		json_object_object_add(o, s->name, e);
	}
	return o;
}
