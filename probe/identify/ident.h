/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal model of 'dutprobe identify': one result struct (struct
 * dp_identity) filled by the measuring code, read by the human and JSON
 * renderers.  Layers:
 *
 *   nvme_decode.c   pure: identify controller/namespace and SMART pages -> structs
 *   sysfs_parse.c   pure: sysfs value parsing, mountinfo
 *   inner.h         the drive behind a USB bridge (bridge table, smartctl)
 *   link.c          pure: interface ceilings (the rate table) and link text
 *   sysfs_linux.c   reads files under the sysfs root (DUTPROBE_SYSFS_ROOT)
 *   nvme_linux.c    libnvme commands on an fd
 *   identify.c      target -> dp_identity (stat, open, combine)
 *   render.c        human table and JSON
 *   cmd.c           the 'identify' subcommand
 */
#ifndef DUTPROBE_IDENT_H
#define DUTPROBE_IDENT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "probe/identify/inner.h"
#include "probe/identify/nvme_types.h"

struct nvme_id_ctrl;
struct nvme_id_ns;
struct nvme_smart_log;

/* ---------------- NVMe ---------------- */

struct dp_nvme_ctrl {
	uint16_t vid, ssvid;
	char sn[21], mn[41], fr[9];   /* trailing blanks removed */
	uint32_t ver;                 /* e.g. 0x00010400 = 1.4 */
	struct dp_counter tnvmcap_bytes;  /* 0 = not reported */
	bool vwc_present;
	uint32_t nn;                  /* number of namespaces */
	uint8_t mdts;
	bool dsm_supported;           /* ONCS bit 2 */
	bool write_zeroes_supported;  /* ONCS bit 3 */
	uint16_t awun, awupf;         /* atomic write unit normal / power fail, 0's based, in LBAs */
};

#define DP_NVME_MAX_LBAF 64
struct dp_nvme_lbaf {
	uint64_t data_bytes;          /* 2^LBADS; 0 when LBADS is out of range */
	uint16_t metadata_bytes;
	uint8_t rel_perf;             /* 0 best .. 3 degraded */
};

struct dp_nvme_ns {
	uint32_t nsid;
	uint64_t nsze, ncap, nuse;    /* in logical blocks */
	unsigned nlbaf;               /* number of formats (NLBAF + 1) */
	unsigned in_use;              /* index of the format in use (FLBAS) */
	struct dp_nvme_lbaf lbaf[DP_NVME_MAX_LBAF];
	uint64_t size_bytes;          /* nsze * data_bytes of the format in use */
	uint8_t dlfeat;
	bool dealloc_reads_zeroes;    /* DLFEAT bits 2:0 = 001b */
	bool natomic;                 /* NSFEAT bit 1: NAWUN/NAWUPF apply instead of AWUN/AWUPF */
	uint16_t nawun, nawupf;       /* 0's based, in LBAs */
};

/* Outcome of one NVMe command: both 0 = ok. */
struct dp_nvme_query {
	bool tried;
	int err;                      /* -errno (ioctl failed), or -EIO with status */
	uint16_t status;              /* NVMe status when the controller answered != 0 */
};

struct dp_nvme_info {
	char dev_path[PATH_MAX];      /* what was opened */
	struct dp_nvme_query q_nsid, q_ctrl, q_ns, q_smart, q_vwc;
	uint32_t nsid;
	struct dp_nvme_ctrl ctrl;
	struct dp_nvme_ns ns;
	struct dp_nvme_smart smart;
	bool vwc_enabled;
};

/* nvme_decode.c (pure) */
void dp_nvme_decode_ctrl(const struct nvme_id_ctrl *id, struct dp_nvme_ctrl *ret);
void dp_nvme_decode_ns(const struct nvme_id_ns *id, uint32_t nsid, struct dp_nvme_ns *ret);
void dp_nvme_decode_smart(const struct nvme_smart_log *log, struct dp_nvme_smart *ret);
struct dp_counter dp_counter_from_le128(const uint8_t le[16]);
struct dp_counter dp_counter_mul(struct dp_counter c, uint64_t factor);
/* Name of critical-warning bit (0..7), NULL for reserved bits. */
const char *dp_nvme_crit_warning_name(unsigned bit);
/* "NVMe status 0x4002 (Invalid Field in Command, do not retry)" into buf. */
char *dp_nvme_status_text(uint16_t status, char *buf, size_t len);
/* "identify namespace: NVMe status 0x4002 (...)" / "...: Inappropriate ioctl ..." */
char *dp_nvme_query_text(const char *what, const struct dp_nvme_query *q, char *buf, size_t len);

/* nvme_linux.c: run every query on fd; fills info, never fails as a whole. */
void dp_nvme_collect(int fd, struct dp_nvme_info *info);

/* ---------------- links ---------------- */

enum dp_link_kind {
	DP_LINK_UNKNOWN = 0,
	DP_LINK_NONE,        /* loop, ram, nbd: no physical link */
	DP_LINK_VIRTUAL,     /* virtio, xen: paravirtual */
	DP_LINK_PCIE,
	DP_LINK_SATA,
	DP_LINK_USB,
};

struct dp_pcie_link {
	bool present;
	char addr[32];               /* 0000:01:00.0 */
	double cur_gts, max_gts;     /* GT/s per lane; 0 = unknown */
	unsigned cur_width, max_width;
};

struct dp_sata_link {
	char name[32];               /* link3 */
	double gbps;                 /* 0 = unknown / link down */
};

struct dp_usb_link {
	char dev[32];                /* 2-1 */
	uint16_t vid, pid;
	uint16_t bcd;                /* bcdDevice (the bridge firmware's release); 0 = unknown */
	char manufacturer[64], product[64], serial[64];
	unsigned speed_mbps;
	unsigned lanes;              /* rx_lanes; 0 = unknown */
	char version[8];             /* bcdUSB as the kernel prints it, "3.20" */
	char driver[16];             /* uas / usb-storage */
	const struct dp_usb_bridge_model *model;  /* NULL when not in our table */
};

struct dp_link {
	enum dp_link_kind kind;
	struct dp_pcie_link pcie;    /* the device's own PCIe link, or the host controller's */
	struct dp_sata_link sata;
	struct dp_usb_link usb;
	double ceiling_bytes_per_s;  /* 0 = unknown */
	bool upstream_limits;        /* the host controller's PCIe link is the lower ceiling */
	char desc[192];              /* "PCIe 3.0 x4" */
	char basis[256];             /* how the ceiling was computed */
};

/* link.c (pure) */
double dp_pcie_lane_bytes_per_s(double gts);
double dp_sata_bytes_per_s(double gbps);
double dp_usb_bytes_per_s(unsigned speed_mbps, unsigned lanes, const char **ret_name,
			  const char **ret_encoding);
const char *dp_pcie_gen_name(double gts);
/* Fill desc, basis and ceiling_bytes_per_s from the kind-specific facts. */
void dp_link_finish(struct dp_link *l, const char *loop_backing);

/* ---------------- block devices ---------------- */

struct dp_blockdev {
	char name[64];               /* the target's block device: sdb1 */
	char disk[64];               /* its whole disk: sdb (== name if not a partition) */
	bool is_partition;
	unsigned partno;
	unsigned major, minor;       /* of name */
	unsigned disk_major, disk_minor;
	char disk_syspath[PATH_MAX]; /* /devices/.../block/sdb, relative to the sysfs root */
	char stack[256];             /* "dm-0 -> sda2" when we walked down device-mapper slaves */

	uint64_t size_bytes;         /* of name (the partition if one) */
	uint64_t part_start_bytes;
	uint64_t disk_size_bytes;
	char vendor[64], model[128], serial[64], firmware[64];
	int rotational;              /* -1 unknown */
	uint32_t logical_block_bytes, physical_block_bytes;
	uint64_t optimal_io_bytes, minimum_io_bytes;
	char scheduler[32];          /* the one in [brackets] */
	char write_cache[32];        /* "write back" / "write through" */
	uint64_t discard_max_bytes, discard_granularity_bytes;
	uint64_t atomic_write_unit_max_bytes;  /* queue/atomic_write_unit_max_bytes; 0 = none */
	bool is_loop;
	char loop_backing[PATH_MAX];
	int loop_dio;                /* -1 unknown */
	bool is_nvme;
	char nvme_ctrl[32];          /* nvme0 */
	struct dp_link link;
};

/* sysfs_parse.c (pure) */
int dp_parse_u64(const char *s, uint64_t *ret);
int dp_parse_int(const char *s, int *ret);
int dp_parse_hex16(const char *s, uint16_t *ret);
/* "[mq-deadline] kyber none" -> "mq-deadline"; "none" (no brackets) -> "none" */
int dp_parse_scheduler(const char *s, char *buf, size_t len);
/* "8.0 GT/s PCIe", "8 GT/s", "Unknown" -> 8.0 / -EINVAL */
int dp_parse_link_speed_gts(const char *s, double *ret);
/* "6.0 Gbps", "<unknown>" -> 6.0 / -EINVAL */
int dp_parse_sata_spd(const char *s, double *ret);
/* "259:0" */
int dp_parse_devnum(const char *s, unsigned *ret_major, unsigned *ret_minor);
void dp_strip(char *s);  /* trailing white space and newline */
/* Copy src into dst[len], truncating; always NUL-terminated when len > 0. */
size_t dp_strlcpy(char *dst, const char *src, size_t len);
/* statfs f_type -> "ext4", "xfs", ...; NULL if unknown */
const char *dp_fs_magic_name(unsigned long magic);

/* sysfs_linux.c: everything below reads under the sysfs root */
const char *dp_sysfs_root(void);  /* $DUTPROBE_SYSFS_ROOT or /sys */
int dp_sysfs_blockdev_by_name(const char *root, const char *name, struct dp_blockdev *ret);
int dp_sysfs_blockdev_by_devnum(const char *root, unsigned major, unsigned minor,
				struct dp_blockdev *ret);

/* ---------------- the whole identity ---------------- */

enum dp_target_kind { DP_TARGET_DISK, DP_TARGET_PARTITION, DP_TARGET_FILE, DP_TARGET_DIRECTORY };

#define DP_MAX_NOTES 8
struct dp_identity {
	char target[PATH_MAX];
	enum dp_target_kind kind;
	/* regular files and directories */
	char fs_type[32], mountpoint[PATH_MAX], fs_source[PATH_MAX];
	/* the loop devices walked down to reach dev: "loop0 (over /var/tmp/x.img) -> vda" */
	char through[512];
	uint64_t file_size_bytes;
	bool have_dev;
	struct dp_blockdev dev;
	bool have_nvme;
	struct dp_nvme_info nvme;
	/* a disk behind a USB bridge: what smartctl said about the drive inside */
	struct dp_inner_probe inner;
	unsigned nnotes;
	char notes[DP_MAX_NOTES][1024]; /* explanations for the reader (USB bridge, ...) */
};

/*
 * identify.c: returns 0, or -errno with a message in err (len errlen).
 * inner_env: how to run smartctl for a disk behind a USB bridge (NULL = the
 * defaults of dp_inner_env_default()).
 */
int dp_identify(const char *target, const struct dp_inner_env *inner_env, struct dp_identity *ret,
		char *err, size_t errlen);
void dp_identity_add_note(struct dp_identity *id, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * The USB bridge explanation (pure; identify.c adds it as a note); inner:
 * what smartctl reached through the bridge (NULL = not asked).
 */
void dp_usb_bridge_note(const struct dp_usb_link *u, const char *devname,
			const struct dp_inner_probe *inner, char *buf, size_t len);

/*
 * atomic.c (pure): the largest write the device keeps whole across a power
 * loss.  NVMe: (NAWUPF + 1) logical blocks when the namespace reports its
 * own (NSFEAT bit 1), else (AWUPF + 1) of the controller; then the
 * kernel's atomic_write_unit_max_bytes; then one logical block, which is
 * all a device promises when it reports nothing.
 */
enum dp_atomic_source {
	DP_ATOMIC_NONE, DP_ATOMIC_NVME_NS, DP_ATOMIC_NVME_CTRL, DP_ATOMIC_KERNEL, DP_ATOMIC_ASSUMED_LBA,
};
struct dp_atomic {
	uint64_t power_fail_bytes;     /* 0 = unknown */
	uint64_t normal_bytes;         /* NVMe AWUN/NAWUN; 0 = not reported */
	uint64_t kernel_unit_max_bytes;
	enum dp_atomic_source source;
};
void dp_atomic_decide(const struct dp_identity *id, struct dp_atomic *ret);
/* "nvme-namespace", "nvme-controller", "kernel", "logical-block", "unknown" */
const char *dp_atomic_source_name(enum dp_atomic_source s);
/* "4096 bytes (NVMe controller AWUPF): 8 KiB PostgreSQL pages can tear ..." */
void dp_atomic_text(const struct dp_atomic *a, uint32_t page_bytes, char *buf, size_t len);

/* render.c */
struct dp_renderer {
	const char *name;
	int (*render)(const struct dp_identity *id, void *ctx);
};
int dp_render_human(const struct dp_identity *id, void *ctx /* FILE * */);
/* Fill obj (the result document's target object) with the identity. */
int dp_render_json(const struct dp_identity *id, void *ctx /* json_object * */);
/* render_inner.c: the "Inner drive" section; the "bridge" and "inner_drive" objects */
void dp_render_human_inner(FILE *f, const struct dp_usb_link *u, const struct dp_inner_probe *p);
int dp_render_json_inner(json_object *o, const struct dp_usb_link *u, const struct dp_inner_probe *p);

#endif
