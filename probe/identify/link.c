/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interface ceilings: the most a link can carry, in bytes/s of payload
 * after line encoding.  Protocol overhead above the physical layer (TLP
 * headers, FIS, UAS/BOT packets) costs another ~5-20%, so a device never
 * quite reaches these numbers; a measured rate ABOVE the ceiling cannot
 * have come from the device (page cache, drive-side cache reads of
 * duplicated data are still limited by the link, the host's are not).
 *
 *   link                 signalling      encoding     ceiling per lane / link
 *   PCIe 1.0             2.5 GT/s        8b/10b         250 MB/s per lane
 *   PCIe 2.0             5.0 GT/s        8b/10b         500 MB/s per lane
 *   PCIe 3.0             8.0 GT/s        128b/130b      984.6 MB/s per lane
 *   PCIe 4.0            16.0 GT/s        128b/130b     1969.2 MB/s per lane
 *   PCIe 5.0            32.0 GT/s        128b/130b     3938.5 MB/s per lane
 *   PCIe 6.0            64.0 GT/s        FLIT 242/256  7562.5 MB/s per lane
 *   SATA 1/2/3      1.5/3.0/6.0 Gbit/s   8b/10b      150/300/600 MB/s
 *   USB 1.1 full speed   12 Mbit/s       NRZI           1.5 MB/s (signalling rate)
 *   USB 2.0 high speed  480 Mbit/s       NRZI            60 MB/s (signalling rate;
 *                                                       ~40 MB/s in practice with BOT)
 *   USB 3.x Gen 1         5 Gbit/s       8b/10b         500 MB/s
 *   USB 3.2 Gen 1x2      10 Gbit/s       8b/10b        1000 MB/s (two lanes)
 *   USB 3.1 Gen 2        10 Gbit/s       128b/132b     1212 MB/s
 *   USB 3.2 Gen 2x2      20 Gbit/s       128b/132b     2424 MB/s
 *
 * USB 1.x/2.0 have no block code, so the signalling rate is the ceiling.
 * Behind a USB bridge the inner link (e.g. the bridge's PCIe 3.0 x2 to the
 * NVMe drive) is invisible; the USB link is the ceiling we can see.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"

#define MB 1e6

static const struct pcie_rate {
	double gts;
	const char *gen;
	const char *encoding;
	double lane_bytes_per_s;
} pcie_rates[] = {
	{ 2.5, "1.0", "8b/10b", 2.5e9 * 8 / 10 / 8 },
	{ 5.0, "2.0", "8b/10b", 5.0e9 * 8 / 10 / 8 },
	{ 8.0, "3.0", "128b/130b", 8.0e9 * 128 / 130 / 8 },
	{ 16.0, "4.0", "128b/130b", 16.0e9 * 128 / 130 / 8 },
	{ 32.0, "5.0", "128b/130b", 32.0e9 * 128 / 130 / 8 },
	{ 64.0, "6.0", "FLIT 242/256", 64.0e9 * 242 / 256 / 8 },
};

static const struct pcie_rate *pcie_rate_find(double gts)
{
	for (size_t i = 0; i < DUT_ARRAY_SIZE(pcie_rates); i++)
		if (fabs(pcie_rates[i].gts - gts) < 0.05)
			return &pcie_rates[i];
	return NULL;
}

double dp_pcie_lane_bytes_per_s(double gts)
{
	const struct pcie_rate *r = pcie_rate_find(gts);

	return r ? r->lane_bytes_per_s : 0;
}

const char *dp_pcie_gen_name(double gts)
{
	const struct pcie_rate *r = pcie_rate_find(gts);

	return r ? r->gen : NULL;
}

double dp_sata_bytes_per_s(double gbps)
{
	/* 8b/10b: 10 line bits per byte */
	if (gbps != 1.5 && gbps != 3.0 && gbps != 6.0)
		return 0;
	return gbps * 1e9 / 10;
}

double dp_usb_bytes_per_s(unsigned speed_mbps, unsigned lanes, const char **ret_name,
			  const char **ret_encoding)
{
	const char *name = NULL, *enc = NULL;
	double bps = 0;

	switch (speed_mbps) {
	case 1: /* the kernel prints 1.5 as "1.5", parsed as 1 */
		name = "USB 1.0 low speed (1.5 Mbit/s)", enc = "NRZI, no block code";
		bps = 1.5e6 / 8;
		break;
	case 12:
		name = "USB 1.1 full speed (12 Mbit/s)", enc = "NRZI, no block code";
		bps = 12e6 / 8;
		break;
	case 480:
		name = "USB 2.0 high speed (480 Mbit/s)", enc = "NRZI, no block code";
		bps = 480e6 / 8;
		break;
	case 5000:
		name = "USB 3.0 / 3.2 Gen 1 (5 Gbit/s)", enc = "8b/10b";
		bps = 5e9 * 8 / 10 / 8;
		break;
	case 10000:
		if (lanes == 2) {
			name = "USB 3.2 Gen 1x2 (10 Gbit/s)", enc = "8b/10b, two lanes";
			bps = 2 * 5e9 * 8 / 10 / 8;
		} else {
			name = "USB 3.1 Gen 2 (10 Gbit/s)", enc = "128b/132b";
			bps = 10e9 * 128 / 132 / 8;
		}
		break;
	case 20000:
		name = "USB 3.2 Gen 2x2 (20 Gbit/s)", enc = "128b/132b, two lanes";
		bps = 2 * 10e9 * 128 / 132 / 8;
		break;
	default:
		break;
	}
	if (ret_name)
		*ret_name = name;
	if (ret_encoding)
		*ret_encoding = enc;
	return bps;
}

static double pcie_link_bytes_per_s(const struct dp_pcie_link *p)
{
	return p->present && p->cur_width ? dp_pcie_lane_bytes_per_s(p->cur_gts) * p->cur_width : 0;
}

static void pcie_desc(const struct dp_pcie_link *p, char *buf, size_t len)
{
	const char *gen = dp_pcie_gen_name(p->cur_gts);
	const char *maxgen = dp_pcie_gen_name(p->max_gts);
	int n;

	if (gen)
		n = snprintf(buf, len, "PCIe %s x%u", gen, p->cur_width);
	else
		n = snprintf(buf, len, "PCIe (speed %.1f GT/s) x%u", p->cur_gts, p->cur_width);
	if (n < 0 || (size_t)n >= len)
		return;
	if ((p->max_gts > p->cur_gts + 0.05 || p->max_width > p->cur_width) && maxgen)
		snprintf(buf + n, len - (size_t)n, " (device capable of PCIe %s x%u)", maxgen,
			 p->max_width);
}

/* A host controller's PCIe link lower than the device link is the real ceiling. */
static void apply_upstream(struct dp_link *l, double own)
{
	double up = pcie_link_bytes_per_s(&l->pcie);
	char pd[96];
	size_t n;

	l->ceiling_bytes_per_s = own;
	if (up <= 0 || !(own <= 0 || up < own))
		return;
	pcie_desc(&l->pcie, pd, sizeof(pd));
	l->ceiling_bytes_per_s = up;
	l->upstream_limits = true;
	n = strlen(l->desc);
	snprintf(l->desc + n, sizeof(l->desc) - n, ", limited by the host controller's %s", pd);
	n = strlen(l->basis);
	snprintf(l->basis + n, sizeof(l->basis) - n,
		 "; the host controller %s sits on %s = %.0f MB/s, lower than the device link",
		 l->pcie.addr, pd, up / MB);
}

void dp_link_finish(struct dp_link *l, const char *loop_backing)
{
	const struct pcie_rate *pr;
	const char *name = NULL, *enc = NULL;
	double own;

	l->ceiling_bytes_per_s = 0;
	l->upstream_limits = false;
	switch (l->kind) {
	case DP_LINK_PCIE:
		pcie_desc(&l->pcie, l->desc, sizeof(l->desc));
		pr = pcie_rate_find(l->pcie.cur_gts);
		l->ceiling_bytes_per_s = pcie_link_bytes_per_s(&l->pcie);
		if (pr && l->pcie.cur_width)
			snprintf(l->basis, sizeof(l->basis),
				 "%.1f GT/s x%u lanes, %s encoding: %.1f MB/s per lane",
				 pr->gts, l->pcie.cur_width, pr->encoding, pr->lane_bytes_per_s / MB);
		else
			snprintf(l->basis, sizeof(l->basis), "link speed %.1f GT/s x%u not in the rate table",
				 l->pcie.cur_gts, l->pcie.cur_width);
		break;
	case DP_LINK_SATA:
		own = dp_sata_bytes_per_s(l->sata.gbps);
		if (l->sata.gbps > 0) {
			snprintf(l->desc, sizeof(l->desc), "SATA %.1f Gbps", l->sata.gbps);
			snprintf(l->basis, sizeof(l->basis), "%.1f Gbit/s, 8b/10b encoding",
				 l->sata.gbps);
		} else {
			snprintf(l->desc, sizeof(l->desc), "SATA (link speed unknown)");
			snprintf(l->basis, sizeof(l->basis), "%s reports no link speed",
				 l->sata.name[0] ? l->sata.name : "the ATA link");
		}
		apply_upstream(l, own);
		break;
	case DP_LINK_USB: {
		const struct dp_usb_link *u = &l->usb;
		char via[160];

		own = dp_usb_bytes_per_s(u->speed_mbps, u->lanes, &name, &enc);
		if (u->model)
			dp_strlcpy(via, u->model->chip, sizeof(via));
		else if (u->manufacturer[0] || u->product[0])
			snprintf(via, sizeof(via), "%s%s%s (%04x:%04x)", u->manufacturer,
				 u->manufacturer[0] && u->product[0] ? " " : "", u->product,
				 u->vid, u->pid);
		else
			snprintf(via, sizeof(via), "USB device %04x:%04x", u->vid, u->pid);
		if (name)
			snprintf(l->desc, sizeof(l->desc), "%s via %s", name, via);
		else
			snprintf(l->desc, sizeof(l->desc), "USB (%u Mbit/s) via %s", u->speed_mbps, via);
		if (u->driver[0]) {
			size_t n = strlen(l->desc);
			snprintf(l->desc + n, sizeof(l->desc) - n, ", %s", u->driver);
		}
		if (enc)
			snprintf(l->basis, sizeof(l->basis), "USB signalling %u Mbit/s%s, %s%s",
				 u->speed_mbps, u->lanes == 2 ? " (x2)" : "", enc,
				 u->speed_mbps <= 480 ? "; usb-storage (BOT) reaches ~40 MB/s in practice" :
				 "; UAS/BOT protocol overhead comes on top");
		else
			snprintf(l->basis, sizeof(l->basis), "USB speed %u Mbit/s not in the rate table",
				 u->speed_mbps);
		apply_upstream(l, own);
		break;
	}
	case DP_LINK_NONE:
		if (loop_backing && loop_backing[0])
			snprintf(l->desc, sizeof(l->desc), "loop device over %s: no link", loop_backing);
		else
			snprintf(l->desc, sizeof(l->desc), "virtual block device: no link");
		snprintf(l->basis, sizeof(l->basis),
			 "no physical link: rates are those of whatever lies underneath "
			 "(the backing file's file system and device, or memory)");
		break;
	case DP_LINK_VIRTUAL:
		snprintf(l->desc, sizeof(l->desc), "paravirtual (virtio/xen): no physical link");
		snprintf(l->basis, sizeof(l->basis),
			 "the hypervisor decides; the host's storage and cache are behind it");
		break;
	case DP_LINK_UNKNOWN:
	default:
		snprintf(l->desc, sizeof(l->desc), "unknown link");
		snprintf(l->basis, sizeof(l->basis),
			 "no PCIe, SATA or USB link found in the device's sysfs ancestry");
		break;
	}
}
