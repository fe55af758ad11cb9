/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/shape/fault.h"
#include "lib/splitmix.h"
#include "lib/units.h"

static const struct { const char *name; int err; } errnos[] = {
	{ "EIO", EIO },       { "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT },     { "EROFS", EROFS },
	{ "EFBIG", EFBIG },   { "EAGAIN", EAGAIN }, { "EINTR", EINTR },       { "EACCES", EACCES },
	{ "EPERM", EPERM },   { "ENOMEM", ENOMEM }, { "EBUSY", EBUSY },       { "ETIMEDOUT", ETIMEDOUT },
	{ "ENXIO", ENXIO },   { "ENODEV", ENODEV }, { "EMFILE", EMFILE },     { "ENFILE", ENFILE },
	{ "EBADF", EBADF },   { "EINVAL", EINVAL }, { "ESTALE", ESTALE },     { "ENOLCK", ENOLCK },
};

int shape_errno_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		if (strcmp(errnos[i].name, name) == 0)
			return errnos[i].err;
	}
	return 0;
}

const char *shape_errno_name(int err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		if (errnos[i].err == err)
			return errnos[i].name;
	}
	return "?";
}

static const char *const type_names[] = {
	[SHAPE_FAULT_ERROR] = "error", [SHAPE_FAULT_SHORT] = "short",
	[SHAPE_FAULT_CRASH] = "crash", [SHAPE_FAULT_UNSYNCED] = "unsynced",
};

const char *shape_fault_type_name(enum shape_fault_type t)
{
	return (unsigned)t < sizeof(type_names) / sizeof(type_names[0]) ? type_names[t] : "?";
}

uint64_t shape_rng_next(uint64_t *state)
{
	return dut_splitmix64(state);
}

double shape_rng_unit(uint64_t *state)
{
	return (double)(shape_rng_next(state) >> 11) * 0x1p-53;
}

void shape_fault_params_init(struct shape_fault_params *p)
{
	memset(p, 0, sizeof(*p));
	p->probability = -1;
	p->seed = 1;
	p->keep_pct = -1;
	p->lose_pct = -1;
	p->torn = SHAPE_TORN_NONE;
}

/* Keys and the fault types they belong to (bit per type; 0xf = every type but unsynced). */
static const struct { const char *key; unsigned types; const char *what; } fault_keys[] = {
	{ "type", 0xf, "error, short, crash or unsynced" },
	{ "errno", 1u << SHAPE_FAULT_ERROR, "the error to return, such as EIO or ENOSPC" },
	{ "offset", 0x7, "start of the byte range that triggers the fault" },
	{ "length", 0x7, "length of that range" },
	{ "nth", 0x7, "fire on the Nth matching request only" },
	{ "every", 0x7, "fire on every Nth matching request" },
	{ "probability", 0x7, "chance of firing per matching request" },
	{ "seed", 0xf, "seed of the random stream" },
	{ "keep", 1u << SHAPE_FAULT_SHORT, "bytes to transfer: a size or a percentage" },
	{ "lose", 1u << SHAPE_FAULT_UNSYNCED, "chance each unsynced extent is lost at a crash" },
	{ "torn", 1u << SHAPE_FAULT_UNSYNCED, "none, prefix or random: what survives of writes in flight" },
	{ "sector", 1u << SHAPE_FAULT_UNSYNCED, "atomic write unit: 512 to 64k, a power of two" },
	{ "grain", 1u << SHAPE_FAULT_UNSYNCED, "draw the loss per piece of this size: 512 to 1M, a power of two" },
};

static int parse_u64(const char *key, const char *value, uint64_t min, uint64_t *ret,
		     struct dut_error *err)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end || errno || v < min) {
		dut_error_set(err, "%s: expected a whole number >= %llu, found \"%s\"", key,
			      (unsigned long long)min, value);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int parse_pct(const char *key, const char *value, bool zero_ok, double *ret,
		     struct dut_error *err)
{
	double d;

	if (dut_parse_percent(value, &d, NULL) < 0 || (!zero_ok && d <= 0)) {
		dut_error_set(err, "%s: expected a percentage %s 0%% to 100%% such as \"1%%\", found \"%s\"",
			      key, zero_ok ? "from" : "above", value);
		return -EINVAL;
	}
	*ret = d;
	return 0;
}

static int set_value(struct shape_fault_params *p, const char *key, const char *value,
		     struct dut_error *err)
{
	struct dut_error e2;
	uint64_t u;

	if (strcmp(key, "type") == 0) {
		for (unsigned t = 0; t < sizeof(type_names) / sizeof(type_names[0]); t++) {
			if (strcmp(value, type_names[t]) == 0) {
				p->type = (enum shape_fault_type)t;
				p->type_set = true;
				return 0;
			}
		}
		dut_error_set(err, "type: expected error, short, crash or unsynced, found \"%s\"", value);
		return -EINVAL;
	}
	if (strcmp(key, "errno") == 0) {
		p->err = shape_errno_from_name(value);
		if (!p->err) {
			dut_error_set(err, "errno: expected an error name such as EIO, ENOSPC or EDQUOT, found \"%s\"", value);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "offset") == 0 || strcmp(key, "length") == 0) {
		if (dut_parse_size(value, &u, &e2) < 0) {
			dut_error_set(err, "%s: expected a size such as \"8k\", found \"%s\"", key, value);
			return -EINVAL;
		}
		if (key[0] == 'o')
			p->range_off = u;
		else if (u == 0) {
			dut_error_set(err, "length: a range of 0 bytes can never match, found \"%s\"", value);
			return -EINVAL;
		} else
			p->range_len = u;
		p->has_range = true;
		return 0;
	}
	if (strcmp(key, "nth") == 0)
		return parse_u64(key, value, 1, &p->nth, err);
	if (strcmp(key, "every") == 0)
		return parse_u64(key, value, 1, &p->every, err);
	if (strcmp(key, "seed") == 0)
		return parse_u64(key, value, 0, &p->seed, err);
	if (strcmp(key, "probability") == 0) {
		double d;

		if (parse_pct(key, value, false, &d, err) < 0)
			return -EINVAL;
		p->probability = d / 100;
		return 0;
	}
	if (strcmp(key, "keep") == 0) {
		if (strchr(value, '%'))
			return parse_pct(key, value, true, &p->keep_pct, err);
		if (dut_parse_size(value, &p->keep_bytes, NULL) < 0) {
			dut_error_set(err, "keep: expected a size such as \"4k\" or a percentage such as \"50%%\", found \"%s\"", value);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "lose") == 0)
		return parse_pct(key, value, true, &p->lose_pct, err);
	if (strcmp(key, "torn") == 0) {
		static const char *const torn[] = { "none", "prefix", "random" };

		for (unsigned t = 0; t < 3; t++) {
			if (strcmp(value, torn[t]) == 0) {
				p->torn = (enum shape_torn)t;
				return 0;
			}
		}
		dut_error_set(err, "torn: expected none, prefix or random, found \"%s\"", value);
		return -EINVAL;
	}
	if (strcmp(key, "grain") == 0) {
		if (dut_parse_size(value, &u, NULL) < 0 || u < 512 || u > 1048576 || (u & (u - 1))) {
			dut_error_set(err, "grain: expected a power of two from 512 to 1M, found \"%s\"", value);
			return -EINVAL;
		}
		p->grain = u;
		return 0;
	}
	/* sector */
	if (dut_parse_size(value, &u, NULL) < 0 || u < 512 || u > 65536 || (u & (u - 1))) {
		dut_error_set(err, "sector: expected a power of two from 512 to 64k, found \"%s\"", value);
		return -EINVAL;
	}
	p->sector = (uint32_t)u;
	return 0;
}

int shape_fault_param_set(struct shape_fault_params *p, const char *key, const char *value,
			  struct dut_error *err)
{
	char keys[300] = "";
	size_t used = 0;

	for (size_t i = 0; i < sizeof(fault_keys) / sizeof(fault_keys[0]); i++) {
		if (strcmp(fault_keys[i].key, key) == 0)
			return set_value(p, key, value, err);
	}
	for (size_t i = 0; i < sizeof(fault_keys) / sizeof(fault_keys[0]); i++)
		used += (size_t)snprintf(keys + used, sizeof(keys) - used, "%s%s", i ? ", " : "",
					 fault_keys[i].key);
	dut_error_set(err, "unknown key \"%s\" in a fault (expected one of: %s)", key, keys);
	return -ENOENT;
}

int shape_fault_params_check(const struct shape_fault_params *p, struct dut_error *err)
{
	bool trig = p->has_range || p->nth || p->every || p->probability >= 0;

	if (!p->type_set) {
		dut_error_set(err, "missing key type (error, short, crash or unsynced)");
		return -EINVAL;
	}
	if (p->type == SHAPE_FAULT_ERROR && !p->err) {
		dut_error_set(err, "missing key errno: an error fault needs the error to return (EIO, ENOSPC, ...)");
		return -EINVAL;
	}
	if (p->type != SHAPE_FAULT_ERROR && p->err) {
		dut_error_set(err, "errno belongs to faults of type error, not %s", shape_fault_type_name(p->type));
		return -EINVAL;
	}
	if (p->type == SHAPE_FAULT_SHORT && p->keep_pct < 0 && !p->keep_bytes) {
		dut_error_set(err, "missing key keep: a short fault needs the bytes to transfer (\"4k\" or \"50%%\")");
		return -EINVAL;
	}
	if (p->type != SHAPE_FAULT_SHORT && (p->keep_pct >= 0 || p->keep_bytes)) {
		dut_error_set(err, "keep belongs to faults of type short");
		return -EINVAL;
	}
	if (p->type == SHAPE_FAULT_UNSYNCED && trig) {
		dut_error_set(err, "an unsynced fault acts at a crash: offset, length, nth, every and "
			      "probability do not apply (use a crash fault to trigger the crash)");
		return -EINVAL;
	}
	if (p->type != SHAPE_FAULT_UNSYNCED && (p->lose_pct >= 0 || p->sector || p->torn || p->grain)) {
		dut_error_set(err, "lose, torn, sector and grain belong to faults of type unsynced");
		return -EINVAL;
	}
	if (p->nth && p->every) {
		dut_error_set(err, "nth and every exclude each other");
		return -EINVAL;
	}
	if (p->has_range && !p->range_len) {
		dut_error_set(err, "offset needs length (the byte range [offset, offset + length))");
		return -EINVAL;
	}
	if (p->has_range && p->range_off + p->range_len < p->range_off) {
		dut_error_set(err, "offset + length overflows");
		return -EINVAL;
	}
	return 0;
}

int shape_fault_new(const char *name, unsigned line, const struct shape_fault_params *p,
		    struct shape_fault **ret)
{
	struct shape_fault *f = calloc(1, sizeof(*f));

	if (!f || !(f->name = strdup(name))) {
		free(f);
		return -ENOMEM;
	}
	f->line = line;
	f->p = *p;
	if (f->p.type == SHAPE_FAULT_UNSYNCED) {
		if (f->p.lose_pct < 0)
			f->p.lose_pct = 100;
		if (!f->p.sector)
			f->p.sector = 512;
	}
	f->rng = p->seed;
	pthread_mutex_init(&f->lock, NULL);
	*ret = f;
	return 0;
}

void shape_fault_free(struct shape_fault *f)
{
	if (!f)
		return;
	pthread_mutex_destroy(&f->lock);
	free(f->name);
	free(f);
}

static bool has_byte_range(enum shape_op op)
{
	return op == SHAPE_OP_READ || op == SHAPE_OP_WRITE || op == SHAPE_OP_PUNCH_HOLE ||
	       op == SHAPE_OP_FALLOCATE;
}

static uint64_t short_len(const struct shape_fault_params *p, uint64_t len)
{
	uint64_t keep = p->keep_pct >= 0 ? (uint64_t)((double)len * p->keep_pct / 100) : p->keep_bytes;

	return keep < len ? keep : len - 1;
}

bool shape_fault_decide(struct shape_fault *f, const struct shape_req *r,
			struct shape_fault_effect *ret)
{
	const struct shape_fault_params *p = &f->p;
	bool fire = true;

	if (p->type == SHAPE_FAULT_UNSYNCED)
		return false;
	if (p->type == SHAPE_FAULT_SHORT && (!shape_op_is_data(r->op) || r->len < 2))
		return false;
	if (p->has_range) {
		if (!has_byte_range(r->op) || r->len == 0)
			return false;
		if (!(r->offset < p->range_off + p->range_len && r->offset + r->len > p->range_off))
			return false;
	}
	pthread_mutex_lock(&f->lock);
	f->seen++;
	if (p->nth && f->seen != p->nth)
		fire = false;
	if (p->every && f->seen % p->every)
		fire = false;
	/* draw for every counted request, so decision k depends only on k */
	if (p->probability >= 0 && !(shape_rng_unit(&f->rng) < p->probability))
		fire = false;
	if (fire)
		f->fired++;
	pthread_mutex_unlock(&f->lock);
	if (!fire)
		return false;

	ret->err = 0;
	ret->len = r->len;
	ret->crash = false;
	switch (p->type) {
	case SHAPE_FAULT_ERROR:
		ret->err = -p->err;
		break;
	case SHAPE_FAULT_SHORT:
		ret->len = short_len(p, r->len);
		break;
	case SHAPE_FAULT_CRASH:
		ret->crash = true;
		ret->err = -EIO;
		break;
	case SHAPE_FAULT_UNSYNCED:
		break;
	}
	return true;
}
