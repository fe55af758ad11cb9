/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive inside a USB enclosure, reached through smartmontools.
 *
 *   usb_bridge.c       pure: USB ids -> bridge name, inner interface, the smartctl
 *                      device types (-d) to try, in order
 *   smartctl_decode.c  pure: smartctl -j text -> struct dp_inner_drive; the argv
 *   inner.c            the attempts, through a struct dp_exec_ops (no syscalls)
 *   exec_linux.c       the real dp_exec_ops: lib/spawn with an argv, no shell,
 *                      stdin /dev/null, stdout/stderr captured and bounded, a timeout
 *   render_inner.c     human rows and the "bridge"/"inner_drive" JSON objects
 *
 * smartctl is only ever run as "smartctl -j -a [-d TYPE] DEVICE": -a reads the
 * identity, health and logs and changes nothing on the drive.
 */
#ifndef DUTPROBE_INNER_H
#define DUTPROBE_INNER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/identify/nvme_types.h"

/* ---------------- bridge table (usb_bridge.c, pure) ---------------- */

#define DP_BRIDGE_MAX_TYPES 6

struct dp_usb_bridge_model {
	uint16_t vid, pid;
	/* bcdDevice values this row is limited to (0-terminated); none = any */
	uint16_t bcd[4];
	const char *chip;            /* "ASMedia ASM2362" */
	const char *inner;           /* "NVMe", "SATA" or "NVMe or SATA" */
	const char *passthrough;     /* what can reach the inner drive (for the note) */
	/* smartctl -d types to try in order, NULL-terminated; "" = no -d (smartctl's auto) */
	const char *dtypes[DP_BRIDGE_MAX_TYPES];
};

/* The row for vid:pid (and bcdDevice; 0 = unknown), or NULL. */
const struct dp_usb_bridge_model *dp_usb_bridge_lookup(uint16_t vid, uint16_t pid, uint16_t bcd);
/* The whole table (for tests of its invariants). */
const struct dp_usb_bridge_model *dp_usb_bridge_table(size_t *ret_n);
/*
 * The smartctl device types to try for a bridge (m may be NULL: not in the
 * table): the row's list, else auto, sat, sntasmedia, sntrealtek, sntjmicron.
 * Returns the count written to ret (at most max).
 */
size_t dp_usb_bridge_plan(const struct dp_usb_bridge_model *m, const char **ret, size_t max);
/* "JMicron vendor SCSI-to-NVMe passthrough" for "sntjmicron"; "" unknown */
const char *dp_smartctl_type_desc(const char *dtype);

/* ---------------- smartctl JSON (smartctl_decode.c, pure) ---------------- */

#define DP_SMARTCTL_MAX_MSGS 4
#define DP_ATA_MAX_ATTRS 40

struct dp_ata_attr {
	unsigned id;
	char name[40];
	unsigned value, worst, thresh;
	uint64_t raw;
	char raw_string[48];
	char when_failed[16];        /* "", "now", "past" */
	bool prefailure;
};

struct dp_inner_drive {
	int exit_status;             /* smartctl.exit_status; -1 = absent */
	char dev_type[32];           /* device.type: "sntjmicron", "sat", ... */
	char protocol[16];           /* device.protocol: "NVMe", "ATA", "SCSI"; "" = not opened */
	char info_name[160];
	unsigned nmessages;          /* smartctl.messages[].string (the first few) */
	char messages[DP_SMARTCTL_MAX_MSGS][256];

	bool have_identity;          /* a model or serial number came back */
	char model[128], serial[64], firmware[64], model_family[128];
	uint64_t capacity_bytes;     /* user_capacity.bytes, else nvme_total_capacity; 0 = unknown */
	uint32_t logical_block_bytes;
	int rotation_rpm;            /* ATA rotation_rate: 0 = SSD; -1 = not reported */
	bool have_smart_status, smart_passed;
	bool have_temperature;
	int temperature_c;
	bool have_power_on_hours;
	uint64_t power_on_hours;
	bool have_power_cycles;
	uint64_t power_cycles;

	bool have_nvme_health;       /* nvme_smart_health_information_log */
	struct dp_nvme_smart nvme;
	unsigned nattrs;             /* ata_smart_attributes.table */
	bool attrs_truncated;
	struct dp_ata_attr attrs[DP_ATA_MAX_ATTRS];
};

/*
 * Decode smartctl -j output.  Returns 0 when text is a complete JSON object
 * with a "smartctl" member (whatever smartctl's verdict: see exit_status,
 * messages, have_identity); -EBADMSG when it is not JSON or is cut short,
 * -EPROTO when it is JSON but not smartctl's.  *ret is written only on 0.
 */
int dp_smartctl_decode(const char *text, size_t len, struct dp_inner_drive *ret);
/*
 * Did this answer come from the drive behind the bridge?  True when it
 * carries a model or serial and speaks NVMe or ATA (a SCSI answer is the
 * bridge's own INQUIRY).  Otherwise why (smartctl's messages) goes to buf.
 */
bool dp_smartctl_reached_drive(const struct dp_inner_drive *d, char *why, size_t len);
/*
 * argv for one attempt: PROG -j -a [-d DTYPE] DEVICE, NULL-terminated, in
 * ret[DP_SMARTCTL_ARGV_MAX] (pointers into the arguments).  Only these
 * read-only options are ever built.
 */
#define DP_SMARTCTL_ARGV_MAX 8
void dp_smartctl_argv(const char *prog, const char *dtype, const char *device,
		      const char *ret[DP_SMARTCTL_ARGV_MAX]);

/* ---------------- running a program (ops; exec_linux.c) ---------------- */

enum dp_exec_outcome {
	DP_EXEC_EXITED = 0,          /* status = exit code */
	DP_EXEC_SIGNALLED,           /* status = signal number */
	DP_EXEC_TIMED_OUT,           /* killed after timeout_ms */
	DP_EXEC_OUTPUT_TOO_BIG,      /* killed when stdout passed max_out_bytes */
};

struct dp_exec_result {
	enum dp_exec_outcome outcome;
	int status;
	char *out;                   /* stdout, NUL-terminated (malloc'd) */
	size_t out_len;
	char *err;                   /* stderr, at most max_err_bytes kept (malloc'd) */
	size_t err_len;
};

struct dp_exec_limits {
	unsigned timeout_ms;
	size_t max_out_bytes, max_err_bytes;
};

struct dp_exec_ops {
	const char *name;
	/*
	 * Run argv[0] (looked up on PATH when it has no slash) with argv, no
	 * shell.  0 when it was started (ret filled: free with
	 * dp_exec_result_free()); -ENOENT when there is no such program,
	 * other -errno when it could not be started.
	 */
	int (*run)(void *ctx, const char *const argv[], const struct dp_exec_limits *lim,
		   struct dp_exec_result *ret);
};

extern const struct dp_exec_ops dp_exec_spawn_ops;
void dp_exec_result_free(struct dp_exec_result *r);

/* ---------------- the attempts (inner.c) ---------------- */

#define DP_INNER_MAX_ATTEMPTS DP_BRIDGE_MAX_TYPES

struct dp_smartctl_attempt {
	char dtype[24];              /* "" = no -d (smartctl's auto detection) */
	int err;                     /* 0, or -errno: -ETIME, -EFBIG, -EBADMSG, -EPROTO, ... */
	int exit_status;             /* smartctl's, -1 = none (killed, not decoded) */
	bool ok;                     /* reached the inner drive */
	char message[512];           /* why not (smartctl's messages, stderr, our error) */
};

enum dp_inner_state {
	DP_INNER_NOT_TRIED = 0,      /* not a USB-attached disk */
	DP_INNER_OK,                 /* attempts[used] reached the drive */
	DP_INNER_FAILED,             /* every attempt failed (see attempts) */
	DP_INNER_NO_SMARTCTL,        /* smartctl is not installed */
	DP_INNER_SKIPPED,            /* not run (see reason) */
};

struct dp_inner_probe {
	enum dp_inner_state state;
	char smartctl[PATH_MAX];     /* the program run ("smartctl" = found on PATH) */
	char device[PATH_MAX];       /* what smartctl was given */
	char reason[512];            /* NO_SMARTCTL / SKIPPED: why; FAILED: a summary */
	unsigned nattempts;
	struct dp_smartctl_attempt attempts[DP_INNER_MAX_ATTEMPTS];
	int used;                    /* index of the attempt that worked, -1 */
	struct dp_inner_drive drive; /* valid when state == DP_INNER_OK */
};

struct dp_inner_env {
	const struct dp_exec_ops *ops;
	void *ctx;
	const char *smartctl;        /* program: "smartctl" (PATH) or a path */
	struct dp_exec_limits limits;
};

/* exec_linux.c: dp_exec_spawn_ops, $DUTPROBE_SMARTCTL or "smartctl", 20 s, 1 MiB of output. */
void dp_inner_env_default(struct dp_inner_env *env);
/*
 * Ask smartctl about the drive behind the bridge m (NULL = not in the table)
 * at device, type after type until one reaches the drive.  Never fails as a
 * whole: the outcome is in ret->state.  -ENOMEM only.
 */
int dp_inner_query(const struct dp_inner_env *env, const struct dp_usb_bridge_model *m,
		   const char *device, struct dp_inner_probe *ret);

#endif
