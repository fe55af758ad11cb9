/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devices.conf parser and matcher: pure code, see devconf.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/cleanup.h"
#include "udev/devconf.h"

static const char *const key_names[DEVCONF_NKEYS] = {
	[DEVCONF_SERIAL] = "serial",
	[DEVCONF_WWN] = "wwn",
	[DEVCONF_LOOP_BACKING] = "loop_backing",
};

const char *devconf_key_name(enum devconf_key key)
{
	return (unsigned)key < DEVCONF_NKEYS ? key_names[key] : "?";
}

static int fail(struct devconf_error *err, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct devconf_error *err, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = line;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int devconf_name_check(const char *name, const char **why)
{
	size_t len = strlen(name);
	const char *p;

	if (len == 0) {
		*why = "is empty";
		return -EINVAL;
	}
	if (len > DEVCONF_NAME_MAX) {
		*why = "is longer than 64 characters";
		return -EINVAL;
	}
	if (strchr(name, '/')) {
		*why = "contains a slash (it becomes the file name /dev/dut/<name>)";
		return -EINVAL;
	}
	if (strpbrk(name, " \t")) {
		*why = "contains a blank (udev links cannot hold one)";
		return -EINVAL;
	}
	for (p = name; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-')) {
			*why = "may contain only letters, digits, '.', '_' and '-'";
			return -EINVAL;
		}
	}
	if (name[0] == '.' || name[0] == '-') {
		*why = "must not start with '.' or '-'";
		return -EINVAL;
	}
	/* "<name>-part<N>" is the link of partition N of device <name>. */
	p = strstr(name, "-part");
	while (p) {
		const char *d = p + 5;

		if (*d >= '0' && *d <= '9') {
			while (*d >= '0' && *d <= '9')
				d++;
			if (*d == '\0') {
				*why = "ends in -part<N>, which is reserved for partition links";
				return -EINVAL;
			}
		}
		p = strstr(p + 1, "-part");
	}
	return 0;
}

static void entry_clear(struct devconf_entry *e)
{
	free(e->name);
	for (int k = 0; k < DEVCONF_NKEYS; k++)
		free(e->match[k]);
	memset(e, 0, sizeof(*e));
}

void devconf_free(struct devconf *conf)
{
	if (!conf)
		return;
	for (size_t i = 0; i < conf->n_entries; i++)
		entry_clear(&conf->entries[i]);
	free(conf->entries);
	free(conf);
}

DUT_DEFINE_FREEP(struct devconf *, devconf_free)

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool values_equal(enum devconf_key key, const char *a, const char *b)
{
	return key == DEVCONF_WWN ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

/*
 * Split one token off *pos (which points at a non-blank): "key=value" or
 * key="quoted value".  Writes NUL-terminated copies into key/val (both
 * DEVCONF_LINE_MAX + 1 bytes) and advances *pos past the token.
 */
static int next_token(const char **pos, const char *end, unsigned lineno,
		      char *key, char *val, struct devconf_error *err)
{
	const char *p = *pos, *start = p, *eq, *v, *vend;
	size_t klen;

	while (p < end && !is_blank(*p) && *p != '=' && *p != '"')
		p++;
	if (p == end || *p != '=') {
		while (p < end && !is_blank(*p))
			p++;
		return fail(err, lineno, "\"%.*s\" is not key=value", (int)(p - start), start);
	}
	eq = p;
	klen = (size_t)(eq - start);
	if (klen == 0)
		return fail(err, lineno, "\"=\" without a key before it");
	memcpy(key, start, klen);
	key[klen] = '\0';
	v = eq + 1;
	if (v < end && *v == '"') {
		v++;
		vend = memchr(v, '"', (size_t)(end - v));
		if (!vend)
			return fail(err, lineno, "the quoted value of %s has no closing '\"'", key);
		p = vend + 1;
		if (p < end && !is_blank(*p))
			return fail(err, lineno, "text right after the closing quote of %s", key);
	} else {
		vend = v;
		while (vend < end && !is_blank(*vend)) {
			if (*vend == '"')
				return fail(err, lineno, "a '\"' inside the value of %s (quote the whole value)", key);
			vend++;
		}
		p = vend;
	}
	memcpy(val, v, (size_t)(vend - v));
	val[vend - v] = '\0';
	*pos = p;
	return 0;
}

static int lookup_key(const char *key)
{
	for (int k = 0; k < DEVCONF_NKEYS; k++)
		if (strcmp(key, key_names[k]) == 0)
			return k;
	return -1;
}

/* Parse one line (without its newline) into *e; a blank line leaves e->line 0. */
static int parse_line(const char *p, const char *end, unsigned lineno,
		      struct devconf_entry *e, struct devconf_error *err)
{
	char key[DEVCONF_LINE_MAX + 1], val[DEVCONF_LINE_MAX + 1];
	int r;

	for (;;) {
		while (p < end && is_blank(*p))
			p++;
		if (p == end || *p == '#')
			break;
		r = next_token(&p, end, lineno, key, val, err);
		if (r < 0)
			return r;
		for (const char *c = val; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return fail(err, lineno, "the value of %s holds a control character", key);
		if (val[0] == '\0')
			return fail(err, lineno, "empty value for %s", key);

		char **slot;
		if (strcmp(key, "name") == 0) {
			const char *why;

			if (devconf_name_check(val, &why) < 0)
				return fail(err, lineno, "name \"%s\" %s", val, why);
			slot = &e->name;
		} else {
			int k = lookup_key(key);

			if (k < 0)
				return fail(err, lineno, "unknown key \"%s\" (known keys: name, serial, wwn, loop_backing)", key);
			if (k == DEVCONF_LOOP_BACKING && val[0] != '/')
				return fail(err, lineno, "loop_backing=%s is not an absolute path", val);
			slot = &e->match[k];
		}
		if (*slot)
			return fail(err, lineno, "%s given twice on one line", key);
		*slot = strdup(val);
		if (!*slot)
			return -ENOMEM;
		e->line = lineno;
	}
	if (e->line == 0)
		return 0;
	if (!e->name)
		return fail(err, lineno, "no name= on this line (every device needs name=<link name>)");
	for (int k = 0; k < DEVCONF_NKEYS; k++)
		if (e->match[k])
			return 0;
	return fail(err, lineno, "\"%s\" has no match key (give serial=, wwn= or loop_backing=)", e->name);
}

/* A name or a match value used twice would make two links fight or one device get two names. */
static int check_unique(const struct devconf *conf, const struct devconf_entry *e,
			struct devconf_error *err)
{
	for (size_t i = 0; i < conf->n_entries; i++) {
		const struct devconf_entry *o = &conf->entries[i];

		if (strcmp(o->name, e->name) == 0)
			return fail(err, e->line, "name \"%s\" is already used on line %u", e->name, o->line);
		for (int k = 0; k < DEVCONF_NKEYS; k++)
			if (e->match[k] && o->match[k] && values_equal(k, e->match[k], o->match[k]))
				return fail(err, e->line, "%s=%s already names \"%s\" on line %u",
					    key_names[k], e->match[k], o->name, o->line);
	}
	return 0;
}

int devconf_parse(const char *text, size_t len, struct devconf **ret,
		  struct devconf_error *err)
{
	_cleanup_(devconf_freep) struct devconf *conf = NULL;
	const char *p = text, *end = text + len;
	size_t cap = 0;
	unsigned lineno = 0;
	int r;

	if (memchr(text, '\0', len))
		return fail(err, 0, "contains a NUL byte (not a text file?)");
	conf = calloc(1, sizeof(*conf));
	if (!conf)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct devconf_entry e = { 0 };

		lineno++;
		if (eol > p && eol[-1] == '\r')
			eol--;
		if ((size_t)(eol - p) > DEVCONF_LINE_MAX)
			return fail(err, lineno, "line longer than %d bytes", DEVCONF_LINE_MAX);
		r = parse_line(p, eol, lineno, &e, err);
		if (r == 0 && e.line)
			r = check_unique(conf, &e, err);
		if (r == 0 && e.line && conf->n_entries == DEVCONF_ENTRIES_MAX)
			r = fail(err, lineno, "more than %d devices", DEVCONF_ENTRIES_MAX);
		if (r == 0 && e.line && conf->n_entries == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct devconf_entry *n = realloc(conf->entries, ncap * sizeof(*n));

			if (!n)
				r = -ENOMEM;
			else {
				conf->entries = n;
				cap = ncap;
			}
		}
		if (r < 0) {
			entry_clear(&e);
			return r;
		}
		if (e.line)
			conf->entries[conf->n_entries++] = e;
		p = nl ? nl + 1 : end;
	}
	*ret = TAKE_PTR(conf);
	return 0;
}

static bool known(const char *s)
{
	return s && *s;
}

static bool key_matches(enum devconf_key key, const char *want, const struct devconf_ids *ids)
{
	switch (key) {
	case DEVCONF_SERIAL:
		return (known(ids->serial_short) && strcmp(want, ids->serial_short) == 0) ||
		       (known(ids->serial) && strcmp(want, ids->serial) == 0);
	case DEVCONF_WWN:
		return (known(ids->wwn) && strcasecmp(want, ids->wwn) == 0) ||
		       (known(ids->wwn_ext) && strcasecmp(want, ids->wwn_ext) == 0);
	case DEVCONF_LOOP_BACKING:
		return known(ids->loop_backing) && strcmp(want, ids->loop_backing) == 0;
	default:
		return false;
	}
}

static bool entry_matches(const struct devconf_entry *e, const struct devconf_ids *ids)
{
	for (int k = 0; k < DEVCONF_NKEYS; k++)
		if (e->match[k] && !key_matches(k, e->match[k], ids))
			return false;
	return true;
}

int devconf_match(const struct devconf *conf, const struct devconf_ids *ids,
		  const struct devconf_entry **ret_entry,
		  const struct devconf_entry **ret_other)
{
	const struct devconf_entry *found = NULL;

	for (size_t i = 0; i < conf->n_entries; i++) {
		const struct devconf_entry *e = &conf->entries[i];

		if (!entry_matches(e, ids))
			continue;
		if (found) {
			*ret_entry = found;
			*ret_other = e;
			return -ENOTUNIQ;
		}
		found = e;
	}
	if (!found)
		return 0;
	*ret_entry = found;
	return 1;
}
