/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive behind a USB bridge (struct dp_inner_probe): the human "Inner
 * drive" section and the result document's "bridge" and "inner_drive"
 * objects.  Both only read the struct.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "probe/identify/ident.h"
#include "probe/identify/inner.h"
#include "probe/identify/render_json.h"
#include "probe/identify/render_util.h"

static const char *state_name(enum dp_inner_state s)
{
	switch (s) {
	case DP_INNER_OK: return "ok";
	case DP_INNER_FAILED: return "failed";
	case DP_INNER_NO_SMARTCTL: return "smartctl_missing";
	case DP_INNER_SKIPPED: return "skipped";
	case DP_INNER_NOT_TRIED:
	default: return "not_tried";
	}
}

static const char *dtype_label(const char *dtype)
{
	return dtype[0] ? dtype : "auto";
}

/* ---------------- human ---------------- */

static void human_attempt(FILE *f, const struct dp_smartctl_attempt *a)
{
	char key[40];

	snprintf(key, sizeof(key), "tried -d %s", dtype_label(a->dtype));
	if (a->exit_status >= 0)
		dp_row(f, key, "%s (exit status %d): %s", a->ok ? "reached the drive" : "failed",
		       a->exit_status, a->message[0] ? a->message : "no message");
	else
		dp_row(f, key, "failed: %s", a->message);
}

static void human_nvme_health(FILE *f, const struct dp_nvme_smart *s)
{
	char a[96], b[96];

	if (s->critical_warning == 0)
		dp_row(f, "critical warnings", "none");
	for (unsigned bit = 0; bit < 8; bit++) {
		const char *name = dp_nvme_crit_warning_name(bit);

		if (s->critical_warning & (1u << bit))
			dp_row(f, "critical warning", "bit %u: %s", bit, name ? name : "reserved bit set");
	}
	dp_row(f, "percent used", "%u%%", s->percent_used);
	dp_row(f, "spare / threshold", "%u%% / %u%%", s->avail_spare_pct, s->spare_thresh_pct);
	dp_row(f, "data read", "%s units = %s", dp_counter_text(s->data_units_read, a, sizeof(a)),
	       dp_fmt_iec(s->bytes_read.value, b, sizeof(b)));
	dp_row(f, "data written", "%s units = %s", dp_counter_text(s->data_units_written, a, sizeof(a)),
	       dp_fmt_iec(s->bytes_written.value, b, sizeof(b)));
	dp_row(f, "unsafe shutdowns", "%s", dp_counter_text(s->unsafe_shutdowns, a, sizeof(a)));
	dp_row(f, "media errors", "%s", dp_counter_text(s->media_errors, a, sizeof(a)));
	dp_row(f, "error log entries", "%s", dp_counter_text(s->error_log_entries, a, sizeof(a)));
}

static void human_ata_attrs(FILE *f, const struct dp_inner_drive *d)
{
	for (unsigned i = 0; i < d->nattrs; i++) {
		const struct dp_ata_attr *at = &d->attrs[i];
		char key[64];

		snprintf(key, sizeof(key), "%3u %s", at->id, at->name);
		dp_row(f, key, "%u (worst %u, threshold %u%s), raw %s%s%s", at->value, at->worst,
		       at->thresh, at->prefailure ? ", pre-fail" : "",
		       at->raw_string[0] ? at->raw_string : "?",
		       at->when_failed[0] ? ", FAILED " : "", at->when_failed);
	}
	if (d->attrs_truncated)
		dp_row(f, "...", "more attributes than dutprobe keeps (%d)", DP_ATA_MAX_ATTRS);
}

static void human_drive(FILE *f, const struct dp_inner_drive *d)
{
	char a[96];

	dp_row(f, "protocol", "%s", d->protocol);
	if (d->model_family[0])
		dp_row(f, "model family", "%s", d->model_family);
	dp_row(f, "model", "%s", d->model[0] ? d->model : "(not reported)");
	dp_row(f, "serial", "%s", d->serial[0] ? d->serial : "(not reported)");
	dp_row(f, "firmware", "%s", d->firmware[0] ? d->firmware : "(not reported)");
	dp_row(f, "capacity", "%s", d->capacity_bytes ? dp_fmt_iec(d->capacity_bytes, a, sizeof(a)) :
	       "not reported");
	if (d->rotation_rpm > 0)
		dp_row(f, "rotation", "%d rpm", d->rotation_rpm);
	else if (d->rotation_rpm == 0)
		dp_row(f, "rotation", "none (solid state)");
	if (d->have_smart_status)
		dp_row(f, "SMART overall", "%s", d->smart_passed ? "passed" : "FAILED");
	if (d->have_temperature)
		dp_row(f, "temperature", "%d C", d->temperature_c);
	if (d->have_power_on_hours)
		dp_row(f, "power-on hours", "%" PRIu64, d->power_on_hours);
	if (d->have_power_cycles)
		dp_row(f, "power cycles", "%" PRIu64, d->power_cycles);
	if (d->have_nvme_health)
		human_nvme_health(f, &d->nvme);
	if (d->nattrs)
		human_ata_attrs(f, d);
	if (d->exit_status > 0)
		dp_row(f, "smartctl exit status", "%d%s%s", d->exit_status,
		       d->nmessages ? ": " : "", d->nmessages ? d->messages[0] : "");
}

void dp_render_human_inner(FILE *f, const struct dp_usb_link *u, const struct dp_inner_probe *p)
{
	const struct dp_usb_bridge_model *m = u->model;

	if (p->state == DP_INNER_NOT_TRIED)
		return;
	fprintf(f, "Inner drive (behind the USB bridge, through smartctl)\n");
	dp_row(f, "bridge", "%04x:%04x %s%s%s%s", u->vid, u->pid,
	       m ? m->chip : "not in dutprobe's table", m ? " (USB to " : "", m ? m->inner : "",
	       m ? ")" : "");
	switch (p->state) {
	case DP_INNER_NO_SMARTCTL:
		dp_row(f, "smartctl", "%s", p->reason);
		return;
	case DP_INNER_SKIPPED:
		dp_row(f, "smartctl", "not run: %s", p->reason);
		return;
	case DP_INNER_FAILED:
		dp_row(f, "result", "inner drive not reached on %s (%s)", p->device, p->reason);
		for (unsigned i = 0; i < p->nattempts; i++)
			human_attempt(f, &p->attempts[i]);
		return;
	case DP_INNER_OK: {
		const struct dp_smartctl_attempt *a = &p->attempts[p->used];
		const char *desc = dp_smartctl_type_desc(a->dtype);

		dp_row(f, "passthrough", "smartctl -d %s%s%s%s on %s%s%s", dtype_label(a->dtype),
		       desc[0] ? " (" : "", desc, desc[0] ? ")" : "", p->device,
		       !a->dtype[0] && p->drive.dev_type[0] ? ", detected as -d " : "",
		       !a->dtype[0] ? p->drive.dev_type : "");
		for (int i = 0; i < p->used; i++)
			human_attempt(f, &p->attempts[i]);
		human_drive(f, &p->drive);
		return;
	}
	case DP_INNER_NOT_TRIED:
		return;
	}
}

/* ---------------- JSON ---------------- */

static int json_attempts(json_object *arr, const struct dp_inner_probe *p)
{
	for (unsigned i = 0; i < p->nattempts; i++) {
		const struct dp_smartctl_attempt *a = &p->attempts[i];
		const char *argv[DP_SMARTCTL_ARGV_MAX];
		json_object *o = json_object_new_object(), *av;
		int r;

		if (!o || json_object_array_add(arr, o) < 0) {
			json_object_put(o);
			return -ENOMEM;
		}
		ADD(o, "device_type", STR(dtype_label(a->dtype)));
		ADD(o, "argv", av = json_object_new_array());
		dp_smartctl_argv(p->smartctl, a->dtype, p->device, argv);
		for (size_t k = 0; argv[k]; k++)
			if (json_object_array_add(av, STR(argv[k])) < 0)
				return -ENOMEM;
		ADD_OR_NULL(o, "exit_status", a->exit_status >= 0, I64(a->exit_status));
		ADD(o, "reached_drive", BOOL(a->ok));
		ADD_OR_NULL(o, "error", a->err, STR(strerror(-a->err)));
		ADD(o, "message", STR(a->message));
	}
	return 0;
}

int dp_json_nvme_health(json_object *s, const struct dp_nvme_smart *sm)
{
	json_object *w, *sat;
	int r;

	ADD(s, "critical_warning", U64(sm->critical_warning));
	ADD(s, "critical_warnings", w = json_object_new_array());
	for (unsigned bit = 0; bit < 8; bit++) {
		const char *name = dp_nvme_crit_warning_name(bit);

		if ((sm->critical_warning & (1u << bit)) &&
		    json_object_array_add(w, STR(name ? name : "reserved bit")) < 0)
			return -ENOMEM;
	}
	ADD_OR_NULL(s, "temperature_c", sm->temperature_k, I64(sm->temperature_c));
	ADD(s, "available_spare_pct", U64(sm->avail_spare_pct));
	ADD(s, "spare_threshold_pct", U64(sm->spare_thresh_pct));
	ADD(s, "percent_used", U64(sm->percent_used));
	ADD(s, "saturated", sat = json_object_new_array());
	if ((r = dp_json_counter(s, sat, "data_units_read", sm->data_units_read)) < 0 ||
	    (r = dp_json_counter(s, sat, "data_units_written", sm->data_units_written)) < 0 ||
	    (r = dp_json_counter(s, sat, "bytes_read", sm->bytes_read)) < 0 ||
	    (r = dp_json_counter(s, sat, "bytes_written", sm->bytes_written)) < 0 ||
	    (r = dp_json_counter(s, sat, "host_read_commands", sm->host_reads)) < 0 ||
	    (r = dp_json_counter(s, sat, "host_write_commands", sm->host_writes)) < 0 ||
	    (r = dp_json_counter(s, sat, "controller_busy_minutes", sm->ctrl_busy_minutes)) < 0 ||
	    (r = dp_json_counter(s, sat, "power_cycles", sm->power_cycles)) < 0 ||
	    (r = dp_json_counter(s, sat, "power_on_hours", sm->power_on_hours)) < 0 ||
	    (r = dp_json_counter(s, sat, "unsafe_shutdowns", sm->unsafe_shutdowns)) < 0 ||
	    (r = dp_json_counter(s, sat, "media_errors", sm->media_errors)) < 0 ||
	    (r = dp_json_counter(s, sat, "error_log_entries", sm->error_log_entries)) < 0)
		return r;
	return 0;
}

static int json_drive(json_object *o, const struct dp_inner_drive *d, const char *used_type)
{
	json_object *p, *arr;
	int r;

	ADD(o, "device_type", STR(d->dev_type[0] ? d->dev_type : used_type));
	ADD(o, "protocol", STR(d->protocol));
	ADD(o, "model", STR(d->model));
	ADD(o, "model_family", STR(d->model_family));
	ADD(o, "serial", STR(d->serial));
	ADD(o, "firmware", STR(d->firmware));
	ADD(o, "capacity_bytes", U64(d->capacity_bytes));
	ADD(o, "logical_block_bytes", U64(d->logical_block_bytes));
	ADD_OR_NULL(o, "rotation_rpm", d->rotation_rpm >= 0, I64(d->rotation_rpm));
	ADD_OR_NULL(o, "smart_passed", d->have_smart_status, BOOL(d->smart_passed));
	ADD_OR_NULL(o, "temperature_c", d->have_temperature, I64(d->temperature_c));
	ADD_OR_NULL(o, "power_on_hours", d->have_power_on_hours, U64(d->power_on_hours));
	ADD_OR_NULL(o, "power_cycles", d->have_power_cycles, U64(d->power_cycles));
	ADD(o, "smartctl_exit_status", I64(d->exit_status));
	if (d->have_nvme_health) {
		ADD(o, "nvme_health", p = json_object_new_object());
		if ((r = dp_json_nvme_health(p, &d->nvme)) < 0)
			return r;
	} else if (json_object_object_add(o, "nvme_health", NULL) < 0) {
		return -ENOMEM;
	}
	ADD(o, "ata_attributes", arr = json_object_new_array());
	for (unsigned i = 0; i < d->nattrs; i++) {
		const struct dp_ata_attr *at = &d->attrs[i];

		p = json_object_new_object();
		if (!p || json_object_array_add(arr, p) < 0) {
			json_object_put(p);
			return -ENOMEM;
		}
		ADD(p, "id", U64(at->id));
		ADD(p, "name", STR(at->name));
		ADD(p, "value", U64(at->value));
		ADD(p, "worst", U64(at->worst));
		ADD(p, "threshold", U64(at->thresh));
		ADD(p, "raw", U64(at->raw));
		ADD(p, "raw_string", STR(at->raw_string));
		ADD(p, "prefailure", BOOL(at->prefailure));
		ADD(p, "when_failed", STR(at->when_failed));
	}
	ADD(o, "ata_attributes_truncated", BOOL(d->attrs_truncated));
	return 0;
}

int dp_render_json_inner(json_object *o, const struct dp_usb_link *u, const struct dp_inner_probe *p)
{
	const struct dp_usb_bridge_model *m = u->model;
	json_object *b, *arr, *d;
	char id[16], bcd[8];
	int r;

	snprintf(id, sizeof(id), "%04x:%04x", u->vid, u->pid);
	snprintf(bcd, sizeof(bcd), "%04x", u->bcd);
	ADD(o, "bridge", b = json_object_new_object());
	ADD(b, "usb_id", STR(id));
	ADD(b, "bcd_device", STR(bcd));
	ADD(b, "known", BOOL(m != NULL));
	ADD_OR_NULL(b, "name", m, STR(m->chip));
	ADD_OR_NULL(b, "inner_interface", m, STR(m->inner));
	ADD(b, "state", STR(state_name(p->state)));
	ADD(b, "smartctl", STR(p->smartctl));
	ADD(b, "device", STR(p->device));
	ADD_OR_NULL(b, "passthrough", p->state == DP_INNER_OK,
		    STR(dtype_label(p->attempts[p->used < 0 ? 0 : p->used].dtype)));
	ADD_OR_NULL(b, "reason", p->state != DP_INNER_OK && p->reason[0], STR(p->reason));
	ADD(b, "attempts", arr = json_object_new_array());
	if ((r = json_attempts(arr, p)) < 0)
		return r;
	if (p->state != DP_INNER_OK)
		return json_object_object_add(o, "inner_drive", NULL) < 0 ? -ENOMEM : 0;
	ADD(o, "inner_drive", d = json_object_new_object());
	return json_drive(d, &p->drive, p->attempts[p->used].dtype);
}
