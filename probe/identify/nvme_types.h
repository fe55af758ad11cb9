/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NVMe SMART/health log values, shared by the libnvme path (nvme_decode.c)
 * and the smartctl path behind USB bridges (smartctl_decode.c).
 */
#ifndef DUTPROBE_NVME_TYPES_H
#define DUTPROBE_NVME_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/* A 128-bit little-endian counter from the SMART log, clamped to 64 bits. */
struct dp_counter {
	uint64_t value;
	bool saturated;        /* the device's value is >= 2^64 (value = UINT64_MAX) */
};

/* Critical warning bits of the SMART log (NVMe 1.4 fig. 194). */
enum {
	DP_CW_SPARE = 1 << 0,
	DP_CW_TEMPERATURE = 1 << 1,
	DP_CW_RELIABILITY = 1 << 2,
	DP_CW_READ_ONLY = 1 << 3,
	DP_CW_VOLATILE_BACKUP = 1 << 4,
	DP_CW_PMR_READ_ONLY = 1 << 5,
};

struct dp_nvme_smart {
	uint8_t critical_warning;
	unsigned temperature_k;       /* composite; 0 = not reported */
	int temperature_c;
	unsigned avail_spare_pct, spare_thresh_pct, percent_used;
	struct dp_counter data_units_read, data_units_written;  /* units of 512,000 bytes */
	struct dp_counter bytes_read, bytes_written;            /* units * 512,000 */
	struct dp_counter host_reads, host_writes;              /* commands */
	struct dp_counter ctrl_busy_minutes, power_cycles, power_on_hours;
	struct dp_counter unsafe_shutdowns, media_errors, error_log_entries;
	uint32_t warning_temp_minutes, critical_temp_minutes;
};

#endif
