/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The FUSE-over-io_uring protocol (FUSE 7.42, Linux 6.14+), which the
 * <linux/fuse.h> of Debian 12 (7.38) predates.  Written for dutfs from the
 * kernel's description (Documentation/filesystems/fuse-io-uring.rst and the
 * semantics of include/uapi/linux/fuse.h); the layouts are checked below.
 *
 * The exchange, per ring entry (one entry = one request in flight):
 *  - the daemon sends IORING_OP_URING_CMD on /dev/fuse's fd, cmd_op
 *    DUTFS_FUSE_URING_CMD_REGISTER, addr = two iovecs (the header buffer,
 *    struct dutfs_fuse_uring_req_header, and the payload buffer), len = 2,
 *    and struct dutfs_fuse_uring_cmd_req (qid) in the SQE128's command
 *    area.  It completes when the kernel has put a request in the entry.
 *  - a request: in_out holds struct fuse_in_header (len = the whole
 *    request as /dev/fuse would deliver it), op_in the opcode's first
 *    argument (its fixed-size struct, when it has one), the payload buffer
 *    the remaining arguments one after the other (payload_sz bytes), and
 *    ring_ent_in_out.commit_id the id to answer with (the request's unique).
 *  - the reply: struct fuse_out_header in in_out, every output argument in
 *    the payload buffer with payload_sz set, then
 *    DUTFS_FUSE_URING_CMD_COMMIT_AND_FETCH with the commit id and qid; it
 *    completes with the entry's next request.
 *  - queues: one per possible CPU (qid = CPU number); the kernel queues a
 *    request on the queue of the CPU its caller runs on and uses the ring
 *    only once every queue has an entry.  Forgets, interrupts and
 *    notifications stay on /dev/fuse.
 *  - the kernel offers FUSE_OVER_IO_URING in INIT (flags2 bit 9) when the
 *    module parameter enable_uring is on; the daemon's INIT reply must ask
 *    for it, or REGISTER fails with EOPNOTSUPP.
 */
#ifndef DUTFS_URING_UAPI_H
#define DUTFS_URING_UAPI_H

#include <stddef.h>
#include <stdint.h>

/* First protocol minor with the ring (and with in_args[0] always the op header). */
#define DUTFS_FUSE_URING_MINOR 42u
/* INIT flags, 64-bit view (bits 32..63 travel in flags2) */
#define DUTFS_FUSE_INIT_EXT (1ull << 30)
#define DUTFS_FUSE_OVER_IO_URING (1ull << 41)

#define DUTFS_FUSE_URING_IN_OUT_HEADER_SZ 128u
#define DUTFS_FUSE_URING_OP_IN_OUT_SZ 128u

struct dutfs_fuse_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;   /* the kernel's id of the request in this entry */
	uint32_t payload_sz;  /* bytes valid in the payload buffer, either direction */
	uint32_t padding;     /* zero */
	uint64_t reserved;
};

struct dutfs_fuse_uring_req_header {
	char in_out[DUTFS_FUSE_URING_IN_OUT_HEADER_SZ]; /* fuse_in_header / fuse_out_header */
	char op_in[DUTFS_FUSE_URING_OP_IN_OUT_SZ];      /* the opcode's header struct */
	struct dutfs_fuse_uring_ent_in_out ring_ent_in_out;
};

enum dutfs_fuse_uring_cmd {
	DUTFS_FUSE_URING_CMD_INVALID = 0,
	DUTFS_FUSE_URING_CMD_REGISTER = 1,
	DUTFS_FUSE_URING_CMD_COMMIT_AND_FETCH = 2,
};

/* In the 80-byte command area of an SQE128. */
struct dutfs_fuse_uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};

_Static_assert(sizeof(struct dutfs_fuse_uring_ent_in_out) == 32, "fuse_uring_ent_in_out is 32 bytes");
_Static_assert(offsetof(struct dutfs_fuse_uring_req_header, ring_ent_in_out) == 256,
	       "the ring header's trailer follows two 128-byte areas");
_Static_assert(sizeof(struct dutfs_fuse_uring_req_header) == 288, "fuse_uring_req_header is 288 bytes");
_Static_assert(sizeof(struct dutfs_fuse_uring_cmd_req) == 24, "fuse_uring_cmd_req is 24 bytes");

#endif
