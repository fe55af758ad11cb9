/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json-c helpers of the identify renderers (render.c, render_inner.c).
 * ADD() and ADD_OR_NULL() return -ENOMEM from the calling function, which
 * declares `int r`.
 */
#ifndef DUTPROBE_RENDER_JSON_H
#define DUTPROBE_RENDER_JSON_H

#include <errno.h>

#include <json-c/json.h>

static inline int dp_json_add(json_object *o, const char *key, json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

#define ADD(o, k, v) do { if ((r = dp_json_add((o), (k), (v))) < 0) return r; } while (0)
#define STR(s) json_object_new_string(s)
#define U64(v) json_object_new_uint64(v)
#define I64(v) json_object_new_int64(v)
#define BOOL(v) json_object_new_boolean(v)
#define DBL(v) json_object_new_double(v)
/* JSON null when cond is false (json-c represents null as a NULL member) */
#define ADD_OR_NULL(o, k, cond, v)                                              \
	do {                                                                     \
		if (cond)                                                        \
			ADD((o), (k), (v));                                      \
		else if (json_object_object_add((o), (k), NULL) < 0)             \
			return -ENOMEM;                                          \
	} while (0)

#endif
