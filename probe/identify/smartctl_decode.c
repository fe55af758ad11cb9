/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smartctl -j text -> struct dp_inner_drive (pure: json-c only).
 *
 * The members read (smartmontools 7.x JSON format 1.0):
 *   smartctl.exit_status, smartctl.messages[].string
 *   device.type / .protocol / .info_name  (absent when the open failed)
 *   model_name, model_family, serial_number, firmware_version,
 *   user_capacity.bytes, nvme_total_capacity, logical_block_size, rotation_rate
 *   smart_status.passed, temperature.current, power_on_time.hours, power_cycle_count
 *   nvme_smart_health_information_log.*   (NVMe)
 *   ata_smart_attributes.table[]          (ATA)
 * smartctl writes counters that do not fit a double exactly as a number
 * plus KEY_s, a decimal string: KEY_s wins when present, and a value of 2^64
 * or more saturates (as the libnvme path does).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"
#include "probe/identify/inner.h"

DUT_DEFINE_FREEP(json_object *, json_object_put)
DUT_DEFINE_FREEP(struct json_tokener *, json_tokener_free)

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static json_object *path2(json_object *o, const char *a, const char *b)
{
	return member(member(o, a), b);
}

static void get_str(json_object *o, const char *key, char *dst, size_t len)
{
	json_object *v = member(o, key);

	if (v && json_object_is_type(v, json_type_string))
		dp_strlcpy(dst, json_object_get_string(v), len);
}

static bool get_int(json_object *v, int64_t *ret)
{
	if (!v || !json_object_is_type(v, json_type_int))
		return false;
	*ret = json_object_get_int64(v);
	return true;
}

/* A non-negative counter: KEY_s, else KEY as an integer, else a (huge) double. */
static bool get_counter(json_object *o, const char *key, struct dp_counter *ret)
{
	char skey[96];
	json_object *v;

	snprintf(skey, sizeof(skey), "%s_s", key);
	v = member(o, skey);
	if (v && json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		char *end;
		unsigned long long u;

		errno = 0;
		u = strtoull(s, &end, 10);
		if (end != s && *end == '\0' && s[0] != '-') {
			ret->saturated = errno == ERANGE;
			ret->value = ret->saturated ? UINT64_MAX : u;
			return true;
		}
	}
	v = member(o, key);
	if (!v)
		return false;
	if (json_object_is_type(v, json_type_int)) {
		/*
		 * json-c keeps values above INT64_MAX as uint64 and clamps those
		 * above UINT64_MAX to it: UINT64_MAX without KEY_s means "at least".
		 */
		if (json_object_get_int64(v) < 0 && json_object_get_uint64(v) == 0)
			return false;
		ret->value = json_object_get_uint64(v);
		ret->saturated = ret->value == UINT64_MAX;
		return true;
	}
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);

		if (!(d >= 0))
			return false;
		ret->saturated = d >= 18446744073709551616.0;
		ret->value = ret->saturated ? UINT64_MAX : (uint64_t)d;
		return true;
	}
	return false;
}

static bool get_u64(json_object *o, const char *key, uint64_t *ret)
{
	struct dp_counter c;

	if (!get_counter(o, key, &c))
		return false;
	*ret = c.value;
	return true;
}

static unsigned get_small(json_object *o, const char *key, unsigned max)
{
	uint64_t v;

	return get_u64(o, key, &v) && v <= max ? (unsigned)v : 0;
}

static void decode_messages(json_object *sc, struct dp_inner_drive *d)
{
	json_object *msgs = member(sc, "messages");
	size_t n;

	if (!msgs || !json_object_is_type(msgs, json_type_array))
		return;
	n = json_object_array_length(msgs);
	for (size_t i = 0; i < n && d->nmessages < DP_SMARTCTL_MAX_MSGS; i++) {
		json_object *s = member(json_object_array_get_idx(msgs, i), "string");

		if (s && json_object_is_type(s, json_type_string))
			dp_strlcpy(d->messages[d->nmessages++], json_object_get_string(s),
				   sizeof(d->messages[0]));
	}
}

static void decode_nvme_health(json_object *h, struct dp_inner_drive *d)
{
	struct dp_nvme_smart *s = &d->nvme;
	int64_t t;

	if (!h || !json_object_is_type(h, json_type_object))
		return;
	d->have_nvme_health = true;
	s->critical_warning = (uint8_t)get_small(h, "critical_warning", 0xff);
	if (get_int(member(h, "temperature"), &t) && t > -273 && t < 1000) {
		s->temperature_c = (int)t;
		s->temperature_k = (unsigned)(t + 273);
	}
	s->avail_spare_pct = get_small(h, "available_spare", 255);
	s->spare_thresh_pct = get_small(h, "available_spare_threshold", 255);
	s->percent_used = get_small(h, "percentage_used", 255);
	get_counter(h, "data_units_read", &s->data_units_read);
	get_counter(h, "data_units_written", &s->data_units_written);
	s->bytes_read = dp_counter_mul(s->data_units_read, 512000);
	s->bytes_written = dp_counter_mul(s->data_units_written, 512000);
	get_counter(h, "host_reads", &s->host_reads);
	get_counter(h, "host_writes", &s->host_writes);
	get_counter(h, "controller_busy_time", &s->ctrl_busy_minutes);
	get_counter(h, "power_cycles", &s->power_cycles);
	get_counter(h, "power_on_hours", &s->power_on_hours);
	get_counter(h, "unsafe_shutdowns", &s->unsafe_shutdowns);
	get_counter(h, "media_errors", &s->media_errors);
	get_counter(h, "num_err_log_entries", &s->error_log_entries);
	s->warning_temp_minutes = get_small(h, "warning_temp_time", UINT32_MAX);
	s->critical_temp_minutes = get_small(h, "critical_comp_time", UINT32_MAX);
}

static void decode_ata_attrs(json_object *table, struct dp_inner_drive *d)
{
	size_t n;

	if (!table || !json_object_is_type(table, json_type_array))
		return;
	n = json_object_array_length(table);
	for (size_t i = 0; i < n; i++) {
		json_object *row = json_object_array_get_idx(table, i);
		struct dp_ata_attr *a;
		json_object *v;

		if (!member(row, "id"))
			continue;
		if (d->nattrs >= DP_ATA_MAX_ATTRS) {
			d->attrs_truncated = true;
			break;
		}
		a = &d->attrs[d->nattrs++];
		a->id = get_small(row, "id", 255);
		get_str(row, "name", a->name, sizeof(a->name));
		a->value = get_small(row, "value", 255);
		a->worst = get_small(row, "worst", 255);
		a->thresh = get_small(row, "thresh", 255);
		get_str(row, "when_failed", a->when_failed, sizeof(a->when_failed));
		get_u64(member(row, "raw"), "value", &a->raw);
		get_str(member(row, "raw"), "string", a->raw_string, sizeof(a->raw_string));
		v = path2(row, "flags", "prefailure");
		a->prefailure = v && json_object_get_boolean(v);
	}
}

static void decode_drive(json_object *root, struct dp_inner_drive *d)
{
	json_object *v;
	int64_t i;
	uint64_t u;

	get_str(root, "model_name", d->model, sizeof(d->model));
	get_str(root, "model_family", d->model_family, sizeof(d->model_family));
	get_str(root, "serial_number", d->serial, sizeof(d->serial));
	get_str(root, "firmware_version", d->firmware, sizeof(d->firmware));
	d->have_identity = d->model[0] || d->serial[0];
	if (get_u64(member(root, "user_capacity"), "bytes", &u))
		d->capacity_bytes = u;
	else if (get_u64(root, "nvme_total_capacity", &u))
		d->capacity_bytes = u;
	d->logical_block_bytes = get_small(root, "logical_block_size", 1u << 24);
	if (get_int(member(root, "rotation_rate"), &i) && i >= 0 && i < 100000)
		d->rotation_rpm = (int)i;
	if ((v = path2(root, "smart_status", "passed")) && json_object_is_type(v, json_type_boolean)) {
		d->have_smart_status = true;
		d->smart_passed = json_object_get_boolean(v);
	}
	if (get_int(path2(root, "temperature", "current"), &i) && i > -273 && i < 1000) {
		d->have_temperature = true;
		d->temperature_c = (int)i;
	}
	d->have_power_on_hours = get_u64(member(root, "power_on_time"), "hours", &d->power_on_hours);
	d->have_power_cycles = get_u64(root, "power_cycle_count", &d->power_cycles);
	decode_nvme_health(member(root, "nvme_smart_health_information_log"), d);
	decode_ata_attrs(path2(root, "ata_smart_attributes", "table"), d);
	/* older smartctl put the NVMe figures only in the health log */
	if (d->have_nvme_health) {
		if (!d->have_temperature && d->nvme.temperature_k) {
			d->have_temperature = true;
			d->temperature_c = d->nvme.temperature_c;
		}
		if (!d->have_power_on_hours) {
			d->have_power_on_hours = true;
			d->power_on_hours = d->nvme.power_on_hours.value;
		}
		if (!d->have_power_cycles) {
			d->have_power_cycles = true;
			d->power_cycles = d->nvme.power_cycles.value;
		}
	}
}

int dp_smartctl_decode(const char *text, size_t len, struct dp_inner_drive *ret)
{
	_cleanup_(json_tokener_freep) struct json_tokener *tok = json_tokener_new();
	_cleanup_(json_object_putp) json_object *root = NULL;
	_cleanup_free_ struct dp_inner_drive *d = NULL;
	json_object *sc, *dev;
	int64_t status;

	if (!tok)
		return -ENOMEM;
	if (len > INT32_MAX)
		return -EFBIG;
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success)
		return -EBADMSG;  /* not JSON, or cut short (json_tokener_continue) */
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++)
		if (text[i] != ' ' && text[i] != '\n' && text[i] != '\t' && text[i] != '\r')
			return -EBADMSG;
	sc = member(root, "smartctl");
	if (!sc || !json_object_is_type(sc, json_type_object))
		return -EPROTO;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->exit_status = get_int(member(sc, "exit_status"), &status) && status >= 0 &&
			 status <= 255 ? (int)status : -1;
	d->rotation_rpm = -1;
	decode_messages(sc, d);
	dev = member(root, "device");
	get_str(dev, "type", d->dev_type, sizeof(d->dev_type));
	get_str(dev, "protocol", d->protocol, sizeof(d->protocol));
	get_str(dev, "info_name", d->info_name, sizeof(d->info_name));
	decode_drive(root, d);
	memcpy(ret, d, sizeof(*d));
	return 0;
}

static void join_messages(const struct dp_inner_drive *d, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < d->nmessages && n + 1 < len; i++) {
		int w;

		/* smartctl's list of every -d type it knows says nothing about this device */
		if (strncmp(d->messages[i], "=======> VALID ARGUMENTS", 24) == 0)
			continue;
		w = snprintf(buf + n, len - n, "%s%s", n ? "; " : "", d->messages[i]);
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

bool dp_smartctl_reached_drive(const struct dp_inner_drive *d, char *why, size_t len)
{
	char msgs[400];

	join_messages(d, msgs, sizeof(msgs));
	if (d->have_identity && (strcmp(d->protocol, "NVMe") == 0 || strcmp(d->protocol, "ATA") == 0))
		return true;
	if (d->have_identity && strcmp(d->protocol, "SCSI") == 0)
		snprintf(why, len, "smartctl answered as a SCSI device: that is the bridge's own "
			 "INQUIRY (%s), not the drive inside%s%s", d->model, msgs[0] ? "; " : "", msgs);
	else if (msgs[0])
		snprintf(why, len, "%s", msgs);
	else if (!d->protocol[0])
		snprintf(why, len, "smartctl did not open the device (exit status %d, no message)",
			 d->exit_status);
	else
		snprintf(why, len, "smartctl opened it as %s but returned no model or serial number "
			 "(exit status %d)", d->protocol, d->exit_status);
	return false;
}

void dp_smartctl_argv(const char *prog, const char *dtype, const char *device,
		      const char *ret[DP_SMARTCTL_ARGV_MAX])
{
	size_t n = 0;

	ret[n++] = prog;
	ret[n++] = "-j";   /* JSON */
	ret[n++] = "-a";   /* identity, health, attributes, logs: reads only */
	if (dtype && dtype[0]) {
		ret[n++] = "-d";
		ret[n++] = dtype;
	}
	ret[n++] = device;
	ret[n] = NULL;
}
