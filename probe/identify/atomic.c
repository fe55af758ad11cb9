/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "probe/identify/ident.h"

/* (value + 1) logical blocks; 0 when the block size is unknown. */
static uint64_t lbas(uint16_t zero_based, uint64_t lba_bytes)
{
	return ((uint64_t)zero_based + 1) * lba_bytes;
}

void dp_atomic_decide(const struct dp_identity *id, struct dp_atomic *ret)
{
	struct dp_atomic a;

	memset(&a, 0, sizeof(a));
	if (id->have_dev)
		a.kernel_unit_max_bytes = id->dev.atomic_write_unit_max_bytes;
	if (id->have_nvme && !id->nvme.q_ctrl.err && !id->nvme.q_ns.err && !id->nvme.q_nsid.err) {
		const struct dp_nvme_ns *ns = &id->nvme.ns;
		uint64_t lba = ns->in_use < ns->nlbaf ? ns->lbaf[ns->in_use].data_bytes : 0;

		if (lba && ns->natomic) {
			a.power_fail_bytes = lbas(ns->nawupf, lba);
			a.normal_bytes = lbas(ns->nawun, lba);
			a.source = DP_ATOMIC_NVME_NS;
		} else if (lba) {
			a.power_fail_bytes = lbas(id->nvme.ctrl.awupf, lba);
			a.normal_bytes = lbas(id->nvme.ctrl.awun, lba);
			a.source = DP_ATOMIC_NVME_CTRL;
		}
	}
	if (!a.source && a.kernel_unit_max_bytes) {
		a.power_fail_bytes = a.kernel_unit_max_bytes;
		a.source = DP_ATOMIC_KERNEL;
	}
	if (!a.source && id->have_dev && id->dev.logical_block_bytes) {
		a.power_fail_bytes = id->dev.logical_block_bytes;
		a.source = DP_ATOMIC_ASSUMED_LBA;
	}
	*ret = a;
}

const char *dp_atomic_source_name(enum dp_atomic_source s)
{
	switch (s) {
	case DP_ATOMIC_NVME_NS:
		return "nvme-namespace";
	case DP_ATOMIC_NVME_CTRL:
		return "nvme-controller";
	case DP_ATOMIC_KERNEL:
		return "kernel";
	case DP_ATOMIC_ASSUMED_LBA:
		return "logical-block";
	default:
		return "unknown";
	}
}

void dp_atomic_text(const struct dp_atomic *a, uint32_t page_bytes, char *buf, size_t len)
{
	static const char *const from[] = {
		[DP_ATOMIC_NVME_NS] = "NVMe namespace NAWUPF",
		[DP_ATOMIC_NVME_CTRL] = "NVMe controller AWUPF",
		[DP_ATOMIC_KERNEL] = "the kernel's atomic_write_unit_max_bytes",
		[DP_ATOMIC_ASSUMED_LBA] = "assumed: one logical block, nothing larger is reported",
	};

	if (!a->source || !a->power_fail_bytes) {
		snprintf(buf, len, "unknown (no NVMe identify and no block device)");
		return;
	}
	snprintf(buf, len, "%" PRIu64 " bytes (%s): %u KiB PostgreSQL pages %s", a->power_fail_bytes,
		 from[a->source], page_bytes / 1024,
		 a->power_fail_bytes >= page_bytes && a->power_fail_bytes % page_bytes == 0 ?
		 "cannot tear at a power loss" : "can tear at a power loss: keep full_page_writes on");
}
