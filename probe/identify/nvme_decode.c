/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoding of NVMe identify controller / identify namespace data and
 * the SMART / Health Information log page (NVMe base spec 1.4, figures 247,
 * 245 and 194).  No I/O: the buffers come from nvme_linux.c or from tests.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nvme/types.h>
#include <nvme/util.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"

/* Copy a space-padded ASCII field and drop the padding. */
static void copy_ascii(char *dst, size_t dstlen, const char *src, size_t srclen)
{
	size_t n = srclen < dstlen - 1 ? srclen : dstlen - 1;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : (c ? '?' : '\0');
	}
	dst[n] = '\0';
	/* a NUL inside the field ends it */
	dst[strnlen(dst, n)] = '\0';
	dp_strip(dst);
}

struct dp_counter dp_counter_from_le128(const uint8_t le[16])
{
	struct dp_counter c = { 0, false };

	for (int i = 8; i < 16; i++)
		if (le[i]) {
			c.value = UINT64_MAX;
			c.saturated = true;
			return c;
		}
	for (int i = 7; i >= 0; i--)
		c.value = (c.value << 8) | le[i];
	return c;
}

struct dp_counter dp_counter_mul(struct dp_counter c, uint64_t factor)
{
	struct dp_counter r = c;

	if (c.saturated)
		return r;
	if (factor && c.value > UINT64_MAX / factor) {
		r.value = UINT64_MAX;
		r.saturated = true;
	} else {
		r.value = c.value * factor;
	}
	return r;
}

void dp_nvme_decode_ctrl(const struct nvme_id_ctrl *id, struct dp_nvme_ctrl *ret)
{
	struct dp_nvme_ctrl c;
	uint16_t oncs = le16toh(id->oncs);

	memset(&c, 0, sizeof(c));
	c.vid = le16toh(id->vid);
	c.ssvid = le16toh(id->ssvid);
	copy_ascii(c.sn, sizeof(c.sn), id->sn, sizeof(id->sn));
	copy_ascii(c.mn, sizeof(c.mn), id->mn, sizeof(id->mn));
	copy_ascii(c.fr, sizeof(c.fr), id->fr, sizeof(id->fr));
	c.ver = le32toh(id->ver);
	c.tnvmcap_bytes = dp_counter_from_le128(id->tnvmcap);
	c.vwc_present = id->vwc & 1;
	c.nn = le32toh(id->nn);
	c.mdts = id->mdts;
	c.dsm_supported = oncs & NVME_CTRL_ONCS_DSM;
	c.write_zeroes_supported = oncs & NVME_CTRL_ONCS_WRITE_ZEROES;
	c.awun = le16toh(id->awun);
	c.awupf = le16toh(id->awupf);
	*ret = c;
}

void dp_nvme_decode_ns(const struct nvme_id_ns *id, uint32_t nsid, struct dp_nvme_ns *ret)
{
	struct dp_nvme_ns n;

	memset(&n, 0, sizeof(n));
	n.nsid = nsid;
	n.nsze = le64toh(id->nsze);
	n.ncap = le64toh(id->ncap);
	n.nuse = le64toh(id->nuse);
	/* NLBAF is 0's based; at most 64 formats (16 before NVMe 2.0). */
	n.nlbaf = (unsigned)id->nlbaf + 1;
	if (n.nlbaf > DP_NVME_MAX_LBAF)
		n.nlbaf = DP_NVME_MAX_LBAF;
	/* FLBAS bits 3:0 low index, bits 6:5 high index (NVMe 2.0) */
	n.in_use = (id->flbas & 0x0f) | ((id->flbas & 0x60) >> 1);
	for (unsigned i = 0; i < n.nlbaf; i++) {
		uint8_t ds = id->lbaf[i].ds;

		/* LBADS < 9 means the format is not supported; > 63 cannot be shifted */
		n.lbaf[i].data_bytes = (ds >= 9 && ds < 32) ? (UINT64_C(1) << ds) : 0;
		n.lbaf[i].metadata_bytes = le16toh(id->lbaf[i].ms);
		n.lbaf[i].rel_perf = id->lbaf[i].rp & 3;
	}
	if (n.in_use < n.nlbaf && n.lbaf[n.in_use].data_bytes) {
		uint64_t bs = n.lbaf[n.in_use].data_bytes;
		n.size_bytes = n.nsze > UINT64_MAX / bs ? UINT64_MAX : n.nsze * bs;
	}
	n.dlfeat = id->dlfeat;
	n.dealloc_reads_zeroes = (id->dlfeat & 7) == 1;
	n.natomic = id->nsfeat & NVME_NS_FEAT_NATOMIC;
	n.nawun = le16toh(id->nawun);
	n.nawupf = le16toh(id->nawupf);
	*ret = n;
}

void dp_nvme_decode_smart(const struct nvme_smart_log *log, struct dp_nvme_smart *ret)
{
	struct dp_nvme_smart s;

	memset(&s, 0, sizeof(s));
	s.critical_warning = log->critical_warning;
	s.temperature_k = (unsigned)log->temperature[0] | ((unsigned)log->temperature[1] << 8);
	s.temperature_c = s.temperature_k ? (int)s.temperature_k - 273 : 0;
	s.avail_spare_pct = log->avail_spare;
	s.spare_thresh_pct = log->spare_thresh;
	s.percent_used = log->percent_used;  /* may exceed 100 by design */
	s.data_units_read = dp_counter_from_le128(log->data_units_read);
	s.data_units_written = dp_counter_from_le128(log->data_units_written);
	/* one data unit = 1000 blocks of 512 bytes, rounded up by the device */
	s.bytes_read = dp_counter_mul(s.data_units_read, 512000);
	s.bytes_written = dp_counter_mul(s.data_units_written, 512000);
	s.host_reads = dp_counter_from_le128(log->host_reads);
	s.host_writes = dp_counter_from_le128(log->host_writes);
	s.ctrl_busy_minutes = dp_counter_from_le128(log->ctrl_busy_time);
	s.power_cycles = dp_counter_from_le128(log->power_cycles);
	s.power_on_hours = dp_counter_from_le128(log->power_on_hours);
	s.unsafe_shutdowns = dp_counter_from_le128(log->unsafe_shutdowns);
	s.media_errors = dp_counter_from_le128(log->media_errors);
	s.error_log_entries = dp_counter_from_le128(log->num_err_log_entries);
	s.warning_temp_minutes = le32toh(log->warning_temp_time);
	s.critical_temp_minutes = le32toh(log->critical_comp_time);
	*ret = s;
}

const char *dp_nvme_crit_warning_name(unsigned bit)
{
	static const char *const names[] = {
		"available spare below threshold",
		"temperature outside thresholds",
		"reliability degraded (media or internal errors)",
		"media placed in read-only mode",
		"volatile memory backup device failed",
		"persistent memory region read-only or unreliable",
	};

	return bit < DUT_ARRAY_SIZE(names) ? names[bit] : NULL;
}

char *dp_nvme_status_text(uint16_t status, char *buf, size_t len)
{
	/* libnvme's table knows the generic and command-specific codes */
	const char *what = nvme_status_to_string(status, false);
	/* libnvme appends a sentence after a colon: keep the name only */
	int n = what ? (int)strcspn(what, ":") : 7;

	snprintf(buf, len, "NVMe status 0x%04x (%.*s%s)", status, n, what ? what : "unknown",
		 (status & NVME_SC_DNR) ? ", do not retry" : "");
	return buf;
}

char *dp_nvme_query_text(const char *what, const struct dp_nvme_query *q, char *buf, size_t len)
{
	char st[160];

	if (!q->tried)
		snprintf(buf, len, "%s: not attempted", what);
	else if (q->status)
		snprintf(buf, len, "%s: the controller answered %s", what,
			 dp_nvme_status_text(q->status, st, sizeof(st)));
	else if (q->err == -ENOTTY || q->err == -EINVAL)
		snprintf(buf, len, "%s: the device does not accept NVMe passthrough ioctls (%s); "
			 "it is not an NVMe device node, or a bridge/driver hides NVMe",
			 what, strerror(-q->err));
	else if (q->err == -EACCES || q->err == -EPERM)
		snprintf(buf, len, "%s: %s (NVMe admin commands need root / CAP_SYS_ADMIN)",
			 what, strerror(-q->err));
	else if (q->err)
		snprintf(buf, len, "%s: %s", what, strerror(-q->err));
	else
		snprintf(buf, len, "%s: ok", what);
	return buf;
}
