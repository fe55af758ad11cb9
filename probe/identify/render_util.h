/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Formatting helpers shared by render.c and render_inner.c (defined in render_util.c,
 * the NVMe health object in render_inner.c). */
#ifndef DUTPROBE_RENDER_UTIL_H
#define DUTPROBE_RENDER_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "probe/identify/nvme_types.h"

/* "931.51 GiB (1000204886016 B)" */
char *dp_fmt_iec(uint64_t bytes, char *buf, size_t len);
/* One two-column row of the human table. */
void dp_row(FILE *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "1234", or ">= 18446744073709551615" when saturated */
const char *dp_counter_text(struct dp_counter c, char *buf, size_t len);
/* o[key] = c.value; key appended to the array sat when the counter saturated. */
int dp_json_counter(json_object *o, json_object *sat, const char *key, struct dp_counter c);

/* The NVMe SMART/health log's members of s (critical warnings, temperature in
 * Celsius or null, spare, wear, the counters with their saturation list):
 * the drive's own log and the one smartctl read behind a USB bridge alike. */
int dp_json_nvme_health(json_object *s, const struct dp_nvme_smart *sm);

#endif
