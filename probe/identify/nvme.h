/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NVMe commands dutprobe sends through libnvme on an fd opened by path.
 *
 * Error convention: functions return 0 or -errno.  When the controller
 * answered with a non-zero NVMe status, they return -EIO and write the
 * status (as libnvme returns it: DNR bit 14, SCT bits 10:8, SC bits 7:0,
 * e.g. 0x4002 = Invalid Field in Command, do not retry) to *ret_nvme_status;
 * on any other error *ret_nvme_status is 0.  ret_nvme_status may be NULL.
 */
#ifndef DUTPROBE_NVME_H
#define DUTPROBE_NVME_H

#include <stddef.h>
#include <stdint.h>

/* NVMe limits for one Dataset Management command. */
#define DUTPROBE_DSM_MAX_RANGES 256
#define DUTPROBE_DSM_MAX_RANGE_LBAS UINT32_MAX

struct dutprobe_lba_range {
	uint64_t slba;     /* first logical block */
	uint32_t nlb;      /* number of logical blocks (not 0's-based), >= 1 */
};

/* The namespace id behind an NVMe namespace fd (NVME_IOCTL_ID). */
int dutprobe_nvme_get_nsid(int fd, uint32_t *ret_nsid);

/*
 * Dataset Management, attribute Deallocate (AD), for nr ranges.  More than
 * DUTPROBE_DSM_MAX_RANGES ranges are sent as several commands, in order;
 * the first failure stops.  Ranges with nlb == 0 are rejected (-EINVAL).
 */
int dutprobe_nvme_deallocate(int fd, uint32_t nsid, const struct dutprobe_lba_range *ranges,
			     size_t nr, uint16_t *ret_nvme_status);

/*
 * Deallocate a byte extent: offset and length must be multiples of lba_bytes
 * (-EINVAL otherwise); the extent is split into ranges of at most
 * DUTPROBE_DSM_MAX_RANGE_LBAS blocks.
 */
int dutprobe_nvme_deallocate_bytes(int fd, uint32_t nsid, uint32_t lba_bytes,
				   uint64_t offset, uint64_t length, uint16_t *ret_nvme_status);

#endif
