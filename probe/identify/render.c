/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Renderers of struct dp_identity: a human table (two columns) and the
 * "target" object of a result document.  Both only read the struct.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"
#include "probe/identify/render_json.h"
#include "probe/identify/render_util.h"

/* ---------------- human ---------------- */


static void human_blockdev(FILE *f, const struct dp_blockdev *bd)
{
	char a[96], b[96];

	fprintf(f, "Block device\n");
	if (bd->stack[0])
		dp_row(f, "stacked", "%s -> %s", bd->stack, bd->name);
	if (bd->is_partition)
		dp_row(f, "partition", "%s = partition %u of %s, starts at %s", bd->name, bd->partno,
		    bd->disk, dp_fmt_iec(bd->part_start_bytes, a, sizeof(a)));
	dp_row(f, "disk", "%s (%u:%u)", bd->disk, bd->disk_major, bd->disk_minor);
	if (bd->is_partition)
		dp_row(f, "partition size", "%s", dp_fmt_iec(bd->size_bytes, a, sizeof(a)));
	dp_row(f, "disk size", "%s", dp_fmt_iec(bd->disk_size_bytes, a, sizeof(a)));
	if (bd->vendor[0] || bd->model[0])
		dp_row(f, "vendor / model", "%s%s%s", bd->vendor, bd->vendor[0] ? " " : "", bd->model);
	if (bd->serial[0])
		dp_row(f, "serial", "%s", bd->serial);
	if (bd->firmware[0])
		dp_row(f, "firmware", "%s", bd->firmware);
	dp_row(f, "rotational", "%s", bd->rotational < 0 ? "unknown" :
	    bd->rotational ? "yes (spinning disk, or a device that says so)" : "no");
	dp_row(f, "logical / physical block", "%" PRIu32 " / %" PRIu32 " bytes",
	    bd->logical_block_bytes, bd->physical_block_bytes);
	dp_row(f, "minimum / optimal I/O", "%" PRIu64 " / %" PRIu64 " bytes%s", bd->minimum_io_bytes,
	    bd->optimal_io_bytes, bd->optimal_io_bytes ? "" : " (0 = not reported)");
	dp_row(f, "scheduler", "%s", bd->scheduler[0] ? bd->scheduler : "unknown");
	dp_row(f, "write cache", "%s", bd->write_cache[0] ? bd->write_cache : "unknown");
	if (bd->discard_max_bytes)
		dp_row(f, "discard", "yes: up to %s per request, granularity %s",
		    dp_fmt_iec(bd->discard_max_bytes, a, sizeof(a)),
		    dp_fmt_iec(bd->discard_granularity_bytes, b, sizeof(b)));
	else
		dp_row(f, "discard", "no (discard_max_bytes = 0)");
	if (bd->is_loop) {
		dp_row(f, "loop backing file", "%s", bd->loop_backing[0] ? bd->loop_backing : "(none)");
		dp_row(f, "loop direct I/O", "%s", bd->loop_dio < 0 ? "unknown" : bd->loop_dio ? "on" : "off");
	}
}

static void human_link(FILE *f, const struct dp_link *l)
{
	fprintf(f, "Link\n");
	dp_row(f, "link", "%s", l->desc);
	if (l->ceiling_bytes_per_s > 0)
		dp_row(f, "interface ceiling", "%.0f MB/s", l->ceiling_bytes_per_s / 1e6);
	else
		dp_row(f, "interface ceiling", "unknown");
	dp_row(f, "ceiling basis", "%s", l->basis);
	if (l->kind == DP_LINK_USB) {
		const struct dp_usb_link *u = &l->usb;
		dp_row(f, "USB bridge", "%04x:%04x %s%s%s%s%s", u->vid, u->pid, u->manufacturer,
		    u->manufacturer[0] ? " " : "", u->product, u->model ? " = " : "",
		    u->model ? u->model->chip : "");
		dp_row(f, "USB driver", "%s", u->driver[0] ? u->driver : "unknown");
	}
}

static void human_nvme(FILE *f, const struct dp_nvme_info *n)
{
	char a[96], b[96], c[96], err[512];
	const struct dp_nvme_ctrl *ct = &n->ctrl;
	const struct dp_nvme_ns *ns = &n->ns;
	const struct dp_nvme_smart *s = &n->smart;

	fprintf(f, "NVMe (%s)\n", n->dev_path);
	if (n->q_ctrl.err)
		dp_row(f, "controller", "%s", dp_nvme_query_text("identify controller", &n->q_ctrl, err, sizeof(err)));
	else {
		dp_row(f, "model", "%s", ct->mn);
		dp_row(f, "serial", "%s", ct->sn);
		dp_row(f, "firmware", "%s", ct->fr);
		dp_row(f, "PCI vendor id", "0x%04x (subsystem 0x%04x)", ct->vid, ct->ssvid);
		dp_row(f, "NVMe version", "%u.%u.%u", ct->ver >> 16, (ct->ver >> 8) & 0xff, ct->ver & 0xff);
		if (ct->tnvmcap_bytes.value)
			dp_row(f, "total capacity", "%s", dp_fmt_iec(ct->tnvmcap_bytes.value, a, sizeof(a)));
		dp_row(f, "namespaces", "%" PRIu32, ct->nn);
		dp_row(f, "volatile write cache", "%s", !ct->vwc_present ? "not present" :
		    n->q_vwc.err ? dp_nvme_query_text("present; get features 06h", &n->q_vwc, err, sizeof(err)) :
		    n->vwc_enabled ? "present, enabled" : "present, disabled");
		dp_row(f, "deallocate / write zeroes", "%s / %s", ct->dsm_supported ? "yes" : "no",
		    ct->write_zeroes_supported ? "yes" : "no");
	}
	if (n->q_nsid.err)
		dp_row(f, "namespace", "%s", dp_nvme_query_text("namespace id", &n->q_nsid, err, sizeof(err)));
	else if (n->q_ns.err)
		dp_row(f, "namespace", "%s", dp_nvme_query_text("identify namespace", &n->q_ns, err, sizeof(err)));
	else {
		dp_row(f, "namespace", "%" PRIu32 ": %" PRIu64 " blocks = %s", ns->nsid, ns->nsze,
		    dp_fmt_iec(ns->size_bytes, a, sizeof(a)));
		for (unsigned i = 0; i < ns->nlbaf; i++) {
			char key[32];
			if (!ns->lbaf[i].data_bytes)
				continue;
			snprintf(key, sizeof(key), "LBA format %u", i);
			dp_row(f, key, "%" PRIu64 " + %u metadata bytes, rel. perf %u%s",
			    ns->lbaf[i].data_bytes, ns->lbaf[i].metadata_bytes, ns->lbaf[i].rel_perf,
			    i == ns->in_use ? "  <- in use" : "");
		}
		dp_row(f, "deallocated blocks read", "%s", ns->dealloc_reads_zeroes ? "zeroes" :
		    (ns->dlfeat & 7) == 2 ? "ones (0xff)" : "not reported");
	}
	if (n->q_smart.err) {
		dp_row(f, "SMART / health", "%s", dp_nvme_query_text("SMART log", &n->q_smart, err, sizeof(err)));
		return;
	}
	if (s->critical_warning == 0)
		dp_row(f, "critical warnings", "none");
	for (unsigned bit = 0; bit < 8; bit++) {
		if (!(s->critical_warning & (1u << bit)))
			continue;
		const char *name = dp_nvme_crit_warning_name(bit);
		dp_row(f, "critical warning", "bit %u: %s", bit, name ? name : "reserved bit set");
	}
	if (s->temperature_k)
		dp_row(f, "temperature", "%d C (%u K)", s->temperature_c, s->temperature_k);
	dp_row(f, "spare / threshold", "%u%% / %u%%", s->avail_spare_pct, s->spare_thresh_pct);
	dp_row(f, "percent used", "%u%%", s->percent_used);
	dp_row(f, "data read", "%s units = %s", dp_counter_text(s->data_units_read, a, sizeof(a)),
	    dp_fmt_iec(s->bytes_read.value, b, sizeof(b)));
	dp_row(f, "data written", "%s units = %s", dp_counter_text(s->data_units_written, a, sizeof(a)),
	    dp_fmt_iec(s->bytes_written.value, b, sizeof(b)));
	dp_row(f, "host read / write cmds", "%s / %s", dp_counter_text(s->host_reads, a, sizeof(a)),
	    dp_counter_text(s->host_writes, b, sizeof(b)));
	dp_row(f, "power-on hours", "%s", dp_counter_text(s->power_on_hours, a, sizeof(a)));
	dp_row(f, "power cycles", "%s", dp_counter_text(s->power_cycles, a, sizeof(a)));
	dp_row(f, "unsafe shutdowns", "%s", dp_counter_text(s->unsafe_shutdowns, a, sizeof(a)));
	dp_row(f, "media errors", "%s", dp_counter_text(s->media_errors, a, sizeof(a)));
	dp_row(f, "error log entries", "%s", dp_counter_text(s->error_log_entries, c, sizeof(c)));
}

int dp_render_human(const struct dp_identity *id, void *ctx)
{
	FILE *f = ctx;
	char a[96];

	fprintf(f, "Target\n");
	dp_row(f, "path", "%s", id->target);
	dp_row(f, "kind", "%s", id->kind == DP_TARGET_FILE ? "regular file" :
	    id->kind == DP_TARGET_DIRECTORY ? "directory" :
	    id->kind == DP_TARGET_PARTITION ? "partition" : "block device");
	if (id->kind == DP_TARGET_FILE || id->kind == DP_TARGET_DIRECTORY) {
		if (id->kind == DP_TARGET_FILE)
			dp_row(f, "file size", "%s", dp_fmt_iec(id->file_size_bytes, a, sizeof(a)));
		dp_row(f, "file system", "%s", id->fs_type[0] ? id->fs_type : "unknown");
		if (id->mountpoint[0])
			dp_row(f, "mounted at", "%s (from %s)", id->mountpoint, id->fs_source);
	}
	if (id->through[0])
		dp_row(f, "through", "%s", id->through);
	if (id->have_dev) {
		human_blockdev(f, &id->dev);
		human_link(f, &id->dev.link);
	}
	if (id->have_nvme)
		human_nvme(f, &id->nvme);
	if (id->have_dev || id->have_nvme) {
		struct dp_atomic at;
		char t[256];

		dp_atomic_decide(id, &at);
		dp_atomic_text(&at, 8192, t, sizeof(t));
		fprintf(f, "Atomicity\n");
		dp_row(f, "power-fail atomic write", "%s", t);
		if (at.normal_bytes)
			dp_row(f, "atomic write (normal)", "%" PRIu64 " bytes", at.normal_bytes);
		dp_row(f, "kernel untorn writes", "%s", at.kernel_unit_max_bytes ?
		    dp_fmt_iec(at.kernel_unit_max_bytes, a, sizeof(a)) : "none (RWF_ATOMIC not offered)");
	}
	if (id->have_dev && id->dev.link.kind == DP_LINK_USB)
		dp_render_human_inner(f, &id->dev.link.usb, &id->inner);
	for (unsigned i = 0; i < id->nnotes; i++)
		fprintf(f, "%s%s\n", i == 0 ? "Notes\n  - " : "  - ", id->notes[i]);
	return ferror(f) ? -EIO : 0;
}

/* ---------------- JSON ---------------- */

static int json_blockdev(json_object *o, const struct dp_blockdev *bd)
{
	json_object *p;
	int r;

	ADD(o, "name", STR(bd->name));
	ADD(o, "disk", STR(bd->disk));
	ADD(o, "major", U64(bd->major));
	ADD(o, "minor", U64(bd->minor));
	ADD(o, "sysfs_path", STR(bd->disk_syspath));
	ADD_OR_NULL(o, "stack", bd->stack[0], STR(bd->stack));
	if (bd->is_partition) {
		ADD(o, "partition", p = json_object_new_object());
		ADD(p, "number", U64(bd->partno));
		ADD(p, "start_bytes", U64(bd->part_start_bytes));
		ADD(p, "size_bytes", U64(bd->size_bytes));
	}
	ADD(o, "size_bytes", U64(bd->size_bytes));
	ADD(o, "disk_size_bytes", U64(bd->disk_size_bytes));
	ADD(o, "vendor", STR(bd->vendor));
	ADD(o, "model", STR(bd->model));
	ADD(o, "serial", STR(bd->serial));
	ADD(o, "firmware", STR(bd->firmware));
	ADD_OR_NULL(o, "rotational", bd->rotational >= 0, BOOL(bd->rotational));
	ADD(o, "logical_block_bytes", U64(bd->logical_block_bytes));
	ADD(o, "physical_block_bytes", U64(bd->physical_block_bytes));
	ADD(o, "minimum_io_bytes", U64(bd->minimum_io_bytes));
	ADD(o, "optimal_io_bytes", U64(bd->optimal_io_bytes));
	ADD(o, "scheduler", STR(bd->scheduler));
	ADD(o, "write_cache", STR(bd->write_cache));
	ADD(o, "discard_max_bytes", U64(bd->discard_max_bytes));
	ADD(o, "atomic_write_unit_max_bytes", U64(bd->atomic_write_unit_max_bytes));
	ADD(o, "discard_granularity_bytes", U64(bd->discard_granularity_bytes));
	ADD(o, "is_nvme", BOOL(bd->is_nvme));
	if (bd->is_loop) {
		ADD(o, "loop", p = json_object_new_object());
		ADD(p, "backing_file", STR(bd->loop_backing));
		ADD_OR_NULL(p, "direct_io", bd->loop_dio >= 0, BOOL(bd->loop_dio));
	}
	return 0;
}

static const char *link_kind_name(enum dp_link_kind k)
{
	switch (k) {
	case DP_LINK_NONE: return "none";
	case DP_LINK_VIRTUAL: return "virtual";
	case DP_LINK_PCIE: return "pcie";
	case DP_LINK_SATA: return "sata";
	case DP_LINK_USB: return "usb";
	case DP_LINK_UNKNOWN:
	default: return "unknown";
	}
}

static int json_link(json_object *o, const struct dp_link *l)
{
	json_object *p;
	int r;

	ADD(o, "kind", STR(link_kind_name(l->kind)));
	ADD(o, "description", STR(l->desc));
	ADD(o, "ceiling_bytes_per_s", DBL(l->ceiling_bytes_per_s));
	ADD(o, "ceiling_basis", STR(l->basis));
	ADD(o, "limited_by_host_controller", BOOL(l->upstream_limits));
	if (l->pcie.present) {
		ADD(o, "pcie", p = json_object_new_object());
		ADD(p, "address", STR(l->pcie.addr));
		ADD(p, "speed_gts", DBL(l->pcie.cur_gts));
		ADD(p, "width", U64(l->pcie.cur_width));
		ADD(p, "max_speed_gts", DBL(l->pcie.max_gts));
		ADD(p, "max_width", U64(l->pcie.max_width));
	}
	if (l->kind == DP_LINK_SATA) {
		ADD(o, "sata", p = json_object_new_object());
		ADD(p, "link", STR(l->sata.name));
		ADD(p, "speed_gbps", DBL(l->sata.gbps));
	}
	if (l->kind == DP_LINK_USB) {
		char id[16];
		snprintf(id, sizeof(id), "%04x:%04x", l->usb.vid, l->usb.pid);
		ADD(o, "usb", p = json_object_new_object());
		ADD(p, "device", STR(l->usb.dev));
		ADD(p, "id", STR(id));
		ADD(p, "manufacturer", STR(l->usb.manufacturer));
		ADD(p, "product", STR(l->usb.product));
		ADD(p, "speed_mbps", U64(l->usb.speed_mbps));
		ADD(p, "lanes", U64(l->usb.lanes));
		ADD(p, "driver", STR(l->usb.driver));
		ADD_OR_NULL(p, "bridge_chip", l->usb.model, STR(l->usb.model->chip));
		ADD_OR_NULL(p, "inner_interface", l->usb.model, STR(l->usb.model->inner));
	}
	return 0;
}

static int json_query(json_object *errs, const char *what, const struct dp_nvme_query *q)
{
	char msg[512];

	if (!q->tried || (!q->err && !q->status))
		return 0;
	dp_nvme_query_text(what, q, msg, sizeof(msg));
	return json_object_array_add(errs, STR(msg)) < 0 ? -ENOMEM : 0;
}

static int json_nvme(json_object *o, const struct dp_nvme_info *n)
{
	json_object *c, *ns, *s, *errs, *a;
	int r;

	ADD(o, "device", STR(n->dev_path));
	ADD(o, "errors", errs = json_object_new_array());
	if ((r = json_query(errs, "namespace id", &n->q_nsid)) < 0 ||
	    (r = json_query(errs, "identify controller", &n->q_ctrl)) < 0 ||
	    (r = json_query(errs, "identify namespace", &n->q_ns)) < 0 ||
	    (r = json_query(errs, "SMART log", &n->q_smart)) < 0 ||
	    (r = json_query(errs, "get features volatile write cache", &n->q_vwc)) < 0)
		return r;
	if (!n->q_ctrl.err) {
		char vid[8];
		snprintf(vid, sizeof(vid), "%04x", n->ctrl.vid);
		ADD(o, "controller", c = json_object_new_object());
		ADD(c, "vendor_id", STR(vid));
		ADD(c, "model", STR(n->ctrl.mn));
		ADD(c, "serial", STR(n->ctrl.sn));
		ADD(c, "firmware", STR(n->ctrl.fr));
		ADD(c, "version", U64(n->ctrl.ver));
		ADD(c, "total_capacity_bytes", U64(n->ctrl.tnvmcap_bytes.value));
		ADD(c, "namespaces", U64(n->ctrl.nn));
		ADD(c, "volatile_write_cache_present", BOOL(n->ctrl.vwc_present));
		ADD_OR_NULL(c, "volatile_write_cache_enabled", n->ctrl.vwc_present && !n->q_vwc.err, BOOL(n->vwc_enabled));
		ADD(c, "deallocate_supported", BOOL(n->ctrl.dsm_supported));
		ADD(c, "write_zeroes_supported", BOOL(n->ctrl.write_zeroes_supported));
		ADD(c, "awun", U64(n->ctrl.awun));
		ADD(c, "awupf", U64(n->ctrl.awupf));
	}
	if (!n->q_nsid.err && !n->q_ns.err) {
		ADD(o, "namespace", ns = json_object_new_object());
		ADD(ns, "nsid", U64(n->ns.nsid));
		ADD(ns, "size_blocks", U64(n->ns.nsze));
		ADD(ns, "capacity_blocks", U64(n->ns.ncap));
		ADD(ns, "used_blocks", U64(n->ns.nuse));
		ADD(ns, "size_bytes", U64(n->ns.size_bytes));
		ADD(ns, "lba_format_in_use", U64(n->ns.in_use));
		ADD(ns, "lba_bytes", U64(n->ns.in_use < n->ns.nlbaf ? n->ns.lbaf[n->ns.in_use].data_bytes : 0));
		ADD(ns, "deallocated_reads_zeroes", BOOL(n->ns.dealloc_reads_zeroes));
		ADD(ns, "atomic_params", BOOL(n->ns.natomic));
		ADD(ns, "nawun", U64(n->ns.nawun));
		ADD(ns, "nawupf", U64(n->ns.nawupf));
		ADD(ns, "lba_formats", a = json_object_new_array());
		for (unsigned i = 0; i < n->ns.nlbaf; i++) {
			json_object *f = json_object_new_object();
			if (!f || json_object_array_add(a, f) < 0) {
				json_object_put(f);
				return -ENOMEM;
			}
			ADD(f, "index", U64(i));
			ADD(f, "data_bytes", U64(n->ns.lbaf[i].data_bytes));
			ADD(f, "metadata_bytes", U64(n->ns.lbaf[i].metadata_bytes));
			ADD(f, "relative_performance", U64(n->ns.lbaf[i].rel_perf));
			ADD(f, "in_use", BOOL(i == n->ns.in_use));
		}
	}
	if (!n->q_smart.err) {
		const struct dp_nvme_smart *sm = &n->smart;
		ADD(o, "smart", s = json_object_new_object());
		ADD(s, "temperature_k", U64(sm->temperature_k));
		if ((r = dp_json_nvme_health(s, sm)) < 0)
			return r;
	}
	return 0;
}

int dp_render_json(const struct dp_identity *id, void *ctx)
{
	json_object *o = ctx, *p, *notes;
	int r;

	ADD(o, "path", STR(id->target));
	ADD(o, "kind", STR(id->kind == DP_TARGET_FILE ? "file" :
			   id->kind == DP_TARGET_DIRECTORY ? "directory" :
			   id->kind == DP_TARGET_PARTITION ? "partition" : "disk"));
	if (id->through[0])
		ADD(o, "through", STR(id->through));
	if (id->kind == DP_TARGET_FILE || id->kind == DP_TARGET_DIRECTORY) {
		ADD(o, "file", p = json_object_new_object());
		ADD(p, "size_bytes", U64(id->file_size_bytes));
		ADD(p, "fs_type", STR(id->fs_type));
		ADD(p, "mountpoint", STR(id->mountpoint));
		ADD(p, "fs_source", STR(id->fs_source));
	}
	if (id->have_dev) {
		ADD(o, "block_device", p = json_object_new_object());
		if ((r = json_blockdev(p, &id->dev)) < 0)
			return r;
		ADD(o, "link", p = json_object_new_object());
		if ((r = json_link(p, &id->dev.link)) < 0)
			return r;
		if (id->dev.link.kind == DP_LINK_USB && id->inner.state != DP_INNER_NOT_TRIED &&
		    (r = dp_render_json_inner(o, &id->dev.link.usb, &id->inner)) < 0)
			return r;
	}
	if (id->have_nvme) {
		ADD(o, "nvme", p = json_object_new_object());
		if ((r = json_nvme(p, &id->nvme)) < 0)
			return r;
	}
	if (id->have_dev || id->have_nvme) {
		struct dp_atomic at;

		dp_atomic_decide(id, &at);
		ADD(o, "atomic_write", p = json_object_new_object());
		ADD(p, "power_fail_bytes", U64(at.power_fail_bytes));
		ADD(p, "normal_bytes", U64(at.normal_bytes));
		ADD(p, "kernel_unit_max_bytes", U64(at.kernel_unit_max_bytes));
		ADD(p, "source", STR(dp_atomic_source_name(at.source)));
	}
	ADD(o, "notes", notes = json_object_new_array());
	for (unsigned i = 0; i < id->nnotes; i++)
		if (json_object_array_add(notes, STR(id->notes[i])) < 0)
			return -ENOMEM;
	return 0;
}
