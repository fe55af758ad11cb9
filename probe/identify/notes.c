/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Explanations for the reader, built from facts (pure).
 */
#include <stdio.h>
#include <string.h>

#include "probe/identify/ident.h"

/* Copy tmpl to buf with every "/dev/DEV" naming the real device. */
static void replace_dev(const char *tmpl, const char *devname, char *buf, size_t len)
{
	size_t n = 0;

	while (*tmpl && n + 1 < len) {
		if (strncmp(tmpl, "/dev/DEV", 8) == 0) {
			int w = snprintf(buf + n, len - n, "/dev/%s", devname);
			if (w < 0 || (size_t)w >= len - n)
				break;
			n += (size_t)w;
			tmpl += 8;
		} else {
			buf[n++] = *tmpl++;
		}
	}
	buf[n] = '\0';
}

void dp_usb_bridge_note(const struct dp_usb_link *u, const char *devname,
			const struct dp_inner_probe *inner, char *buf, size_t len)
{
	const struct dp_usb_bridge_model *m = u->model;
	char who[192], what[640];
	const char *inner_if = m ? m->inner : NULL;
	bool uas = strcmp(u->driver, "uas") == 0;
	size_t n;

	if (m)
		snprintf(who, sizeof(who), "%s (%04x:%04x, a USB-to-%s bridge)", m->chip, u->vid,
			 u->pid, m->inner);
	else
		snprintf(who, sizeof(who), "\"%s%s%s\" (%04x:%04x, bridge chip not in dutprobe's table)",
			 u->manufacturer, u->manufacturer[0] && u->product[0] ? " " : "",
			 u->product, u->vid, u->pid);

	if (inner && inner->state == DP_INNER_OK) {
		const struct dp_smartctl_attempt *a = &inner->attempts[inner->used];
		const char *desc = dp_smartctl_type_desc(a->dtype);

		n = (size_t)snprintf(buf, len,
			"/dev/%s sits behind a USB bridge: %s, driven by %s. The vendor, model and "
			"serial under \"Block device\" come from the bridge's SCSI INQUIRY answer; "
			"those under \"Inner drive\" are the drive's own, read by smartctl -d %s "
			"(%s) through the bridge.", devname, who,
			uas ? "uas (USB Attached SCSI)" : u->driver[0] ? u->driver : "an unknown driver",
			a->dtype[0] ? a->dtype : "auto", desc);
		goto out;
	}
	if (inner && inner->state == DP_INNER_NO_SMARTCTL) {
		snprintf(what, sizeof(what), "What could work: apt-get install smartmontools, then "
			 "dutprobe identify asks smartctl through the bridge; otherwise put the drive "
			 "in an internal slot.");
	} else if (inner && inner->state == DP_INNER_FAILED) {
		snprintf(what, sizeof(what), "smartctl %s (see \"Inner drive\"); otherwise put the "
			 "drive in an internal slot.", inner->reason);
	} else if (m) {
		char cmds[256];

		replace_dev(m->passthrough, devname, cmds, sizeof(cmds));
		snprintf(what, sizeof(what), "What could work: %s; otherwise put the drive in an "
			 "internal slot.", cmds);
	}
	else
		snprintf(what, sizeof(what),
			 "What could work: smartctl -d sat -a /dev/%s (SATA bridges), or the vendor "
			 "SCSI-to-NVMe passthroughs of ASMedia/JMicron/Realtek NVMe bridges: "
			 "smartctl -d sntasmedia, -d sntjmicron, -d sntrealtek; otherwise put the "
			 "drive in an internal slot.", devname);

	n = (size_t)snprintf(buf, len,
		"/dev/%s sits behind a USB bridge: %s, driven by %s. The host speaks SCSI to the "
		"bridge, which translates to %s: the vendor, model and serial the kernel shows come "
		"from the bridge's SCSI INQUIRY answer (the bridge's or enclosure's strings), not "
		"from the drive inside, and %s are not passed through as such, so the inner drive's "
		"model, firmware and health are not visible here. %s",
		devname, who, uas ? "uas (USB Attached SCSI)" :
		u->driver[0] ? u->driver : "an unknown driver",
		!inner_if ? "the drive's own protocol" :
		strcmp(inner_if, "NVMe") == 0 ? "NVMe commands" :
		strcmp(inner_if, "SATA") == 0 ? "ATA commands" : "NVMe or ATA commands",
		inner_if && strcmp(inner_if, "SATA") == 0 ? "ATA IDENTIFY/SMART commands" :
			"NVMe admin commands (identify, SMART log)",
		what);
out:
	if (n < len && strcmp(u->driver, "usb-storage") == 0)
		snprintf(buf + n, len - n, " The usb-storage driver (Bulk-Only Transport) runs one "
			 "command at a time: no queueing, so random-I/O rates are far below what "
			 "the drive can do (UAS would queue).");
}
