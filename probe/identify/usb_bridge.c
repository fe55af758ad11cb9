/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * USB bridges we can name from vid:pid (and bcdDevice where one id covers
 * two chips), what sits behind them, and which smartctl device types reach
 * the drive.  Pure: no I/O.
 *
 * smartctl's -d sntasmedia / sntjmicron / sntrealtek wrap NVMe admin
 * commands (identify, get log page) in the chips' vendor SCSI commands; -d sat
 * sends ATA commands in SCSI ATA PASS-THROUGH.  sntjmicron's wrapper is an ATA
 * PASS-THROUGH(12) whose protocol field reads, to a SATA bridge, as "ATA
 * hardware reset" (smartmontools' drivedb warns about this for JMicron's
 * USB-to-SATA adapters that reuse the JMS583 id): so it is never tried on a
 * bridge known to be SATA, and on a bridge we do not know only after sat has
 * failed (a bridge that does not speak SAT does not act on the reset either).
 */
#include <string.h>

#include "lib/cleanup.h"
#include "probe/identify/inner.h"

#define NVME_ASMEDIA "ASMedia vendor SCSI-to-NVMe passthrough: smartctl -d sntasmedia -a /dev/DEV"
#define NVME_JMICRON "JMicron vendor SCSI-to-NVMe passthrough: smartctl -d sntjmicron -a /dev/DEV"
#define NVME_REALTEK "Realtek vendor SCSI-to-NVMe passthrough: smartctl -d sntrealtek -a /dev/DEV"
#define SATA_SAT "SCSI/ATA Translation passthrough (SAT ATA PASS-THROUGH): smartctl -d sat -a /dev/DEV, hdparm -I /dev/DEV"

/* First match wins: rows limited to some bcdDevice values come before the general row. */
static const struct dp_usb_bridge_model usb_bridges[] = {
	{ 0x174c, 0x2362, { 0 }, "ASMedia ASM2362", "NVMe", NVME_ASMEDIA, { "sntasmedia" } },
	{ 0x174c, 0x2364, { 0 }, "ASMedia ASM2364", "NVMe", NVME_ASMEDIA, { "sntasmedia" } },
	{ 0x174c, 0x2463, { 0 }, "ASMedia ASM2464PD", "NVMe", NVME_ASMEDIA, { "sntasmedia" } },
	/* JMicron USB-to-SATA adapters that ship with the JMS583's default id */
	{ 0x152d, 0x0583, { 0x0414, 0x3202, 0x9128, 0 }, "JMicron USB-to-SATA (JMS583 id)", "SATA",
	  SATA_SAT, { "sat" } },
	{ 0x152d, 0x0583, { 0 }, "JMicron JMS583", "NVMe", NVME_JMICRON, { "sntjmicron" } },
	{ 0x152d, 0xa583, { 0 }, "JMicron JMS583", "NVMe", NVME_JMICRON, { "sntjmicron" } },
	{ 0x152d, 0x0586, { 0 }, "JMicron JMS586", "NVMe", NVME_JMICRON, { "sntjmicron" } },
	/* dual mode: sat first, so sntjmicron only runs once SAT has been refused */
	{ 0x152d, 0x0581, { 0 }, "JMicron JMS581", "NVMe or SATA",
	  "SAT for a SATA drive, JMicron's SCSI-to-NVMe passthrough for NVMe: smartctl -d sat / -d sntjmicron -a /dev/DEV",
	  { "sat", "sntjmicron" } },
	{ 0x0bda, 0x9210, { 0 }, "Realtek RTL9210", "NVMe", NVME_REALTEK, { "sntrealtek" } },
	{ 0x0bda, 0x9211, { 0 }, "Realtek RTL9211", "NVMe or SATA",
	  "Realtek's SCSI-to-NVMe passthrough for NVMe, SAT for SATA: smartctl -d sntrealtek / -d sat -a /dev/DEV",
	  { "sntrealtek", "sat" } },
	{ 0x0bda, 0x9220, { 0 }, "Realtek RTL9220", "NVMe or SATA",
	  "Realtek's SCSI-to-NVMe passthrough for NVMe, SAT for SATA: smartctl -d sntrealtek / -d sat -a /dev/DEV",
	  { "sntrealtek", "sat" } },
	{ 0x0bda, 0x9201, { 0 }, "Realtek RTL9201", "SATA", SATA_SAT, { "sat" } },
	{ 0x174c, 0x55aa, { 0 }, "ASMedia ASM1051E/ASM1053E/ASM1153E", "SATA", SATA_SAT, { "sat" } },
	{ 0x152d, 0x0578, { 0 }, "JMicron JMS578", "SATA", SATA_SAT, { "sat" } },
	{ 0x152d, 0x0567, { 0 }, "JMicron JMS567", "SATA", SATA_SAT, { "sat" } },
};

/* Not in the table: smartctl's own detection (its drive database knows more ids), then each type. */
static const char *const unknown_plan[] = { "", "sat", "sntasmedia", "sntrealtek", "sntjmicron" };

static bool bcd_matches(const struct dp_usb_bridge_model *m, uint16_t bcd)
{
	if (!m->bcd[0])
		return true;
	for (size_t i = 0; i < DUT_ARRAY_SIZE(m->bcd) && m->bcd[i]; i++)
		if (m->bcd[i] == bcd)
			return true;
	return false;
}

const struct dp_usb_bridge_model *dp_usb_bridge_lookup(uint16_t vid, uint16_t pid, uint16_t bcd)
{
	for (size_t i = 0; i < DUT_ARRAY_SIZE(usb_bridges); i++)
		if (usb_bridges[i].vid == vid && usb_bridges[i].pid == pid &&
		    bcd_matches(&usb_bridges[i], bcd))
			return &usb_bridges[i];
	return NULL;
}

const struct dp_usb_bridge_model *dp_usb_bridge_table(size_t *ret_n)
{
	*ret_n = DUT_ARRAY_SIZE(usb_bridges);
	return usb_bridges;
}

size_t dp_usb_bridge_plan(const struct dp_usb_bridge_model *m, const char **ret, size_t max)
{
	size_t n = 0;

	if (m) {
		for (size_t i = 0; i < DP_BRIDGE_MAX_TYPES && m->dtypes[i] && n < max; i++)
			ret[n++] = m->dtypes[i];
		return n;
	}
	for (size_t i = 0; i < DUT_ARRAY_SIZE(unknown_plan) && n < max; i++)
		ret[n++] = unknown_plan[i];
	return n;
}

const char *dp_smartctl_type_desc(const char *dtype)
{
	static const struct { const char *type, *desc; } d[] = {
		{ "", "smartctl's own detection (its drive database of USB ids)" },
		{ "sat", "SCSI/ATA Translation (ATA PASS-THROUGH)" },
		{ "sntasmedia", "ASMedia vendor SCSI-to-NVMe passthrough" },
		{ "sntjmicron", "JMicron vendor SCSI-to-NVMe passthrough" },
		{ "sntrealtek", "Realtek vendor SCSI-to-NVMe passthrough" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(d); i++)
		if (strcmp(d[i].type, dtype) == 0)
			return d[i].desc;
	return "";
}
