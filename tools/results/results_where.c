/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The filters of dutlab results compare (--where KEY=VALUE), as JSON for the schema (pure). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/results/results.h"

/* The keys of a list of values; the schema's dutlab.run_metrics_where() reads the same names. */
static const char *const list_keys[] = {
	"experiment", "config", "step", "phase", "metric", "unit",
	"host", "model", "firmware", "filesystem", "run",
};
static const char *const time_keys[] = { "since", "until" };

static bool in(const char *k, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(k, v[i]) == 0)
			return true;
	return false;
}

/* YYYY-MM-DD, then anything PostgreSQL reads as a timestamp (it checks the rest). */
static bool date_like(const char *s)
{
	static const char shape[] = "dddd-dd-dd";

	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	return true;
}

int results_where_add(json_object *f, const char *arg, struct dut_error *err)
{
	const char *eq = strchr(arg, '=');
	char key[32];
	json_object *a;
	size_t kl;

	if (!eq || eq == arg) {
		dut_error_set(err, "--where \"%s\": expected KEY=VALUE (host=db1, metric=tps, since=2026-11-01)", arg);
		return -EINVAL;
	}
	kl = (size_t)(eq - arg);
	snprintf(key, sizeof(key), "%.*s", (int)(kl < sizeof(key) ? kl : sizeof(key) - 1), arg);
	if (kl >= sizeof(key) || (!in(key, list_keys, DUT_ARRAY_SIZE(list_keys)) &&
				  !in(key, time_keys, DUT_ARRAY_SIZE(time_keys)))) {
		dut_error_set(err, "--where \"%s\": unknown key \"%.*s\" (experiment, config, step, phase, metric, "
			      "unit, host, model, firmware, filesystem, run, since, until)", arg, (int)kl, arg);
		return -EINVAL;
	}
	if (in(key, time_keys, DUT_ARRAY_SIZE(time_keys))) {
		if (json_object_object_get_ex(f, key, NULL)) {
			dut_error_set(err, "--where %s= is given twice (one start and one end at most)", key);
			return -EINVAL;
		}
		if (!date_like(eq + 1)) {
			dut_error_set(err, "--where \"%s\": %s takes a date or a timestamp (2026-11-01, "
				      "2026-11-01T08:00:00Z)", arg, key);
			return -EINVAL;
		}
		return json_object_object_add(f, key, json_object_new_string(eq + 1)) < 0 ? -ENOMEM : 0;
	}
	if (!json_object_object_get_ex(f, key, &a)) {
		if (!(a = json_object_new_array()) || json_object_object_add(f, key, a) < 0)
			return -ENOMEM;
	}
	return json_object_array_add(a, json_object_new_string(eq + 1)) < 0 ? -ENOMEM : 0;
}

void results_where_text(json_object *f, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	json_object_object_foreach(f, k, v) {
		if (o >= len)
			break;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "; " : "", k);
		if (json_object_is_type(v, json_type_string)) {
			if (o < len)
				o += (size_t)snprintf(buf + o, len - o, " %s", json_object_get_string(v));
			continue;
		}
		for (size_t i = 0; i < json_object_array_length(v) && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s\"%s\"", i ? " or " : " = ",
					      json_object_get_string(json_object_array_get_idx(v, i)));
	}
	if (!o)
		snprintf(buf, len, "every run");
}
