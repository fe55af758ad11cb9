/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FUSE over io_uring, the pure part (no syscalls; unit-tested in
 * tests/fuse/unit/test_uring_msg.c): turning a ring entry's request into
 * the byte stream /dev/fuse would have delivered, so that libfuse's
 * fuse_session_process_buf dispatches it; packing libfuse's reply (the
 * iovecs of its writev) back into the entry; reading and answering the
 * INIT negotiation.
 *
 * Request buffer layout (one per entry): the kernel writes the payload
 * (the arguments after the opcode's header) at req + DUTFS_URING_REQ_PREFIX,
 * and the request is rebuilt in front of it: fuse_in_header at req, the
 * opcode's header right after.  For READ and WRITE (a 40-byte header, as
 * fuse_in_header) nothing moves, so a WRITE's data is never copied; other
 * opcodes move their (small) payload to follow their header.
 */
#ifndef DUTFS_URING_MSG_H
#define DUTFS_URING_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "fuse/uring_uapi.h"

#define DUTFS_URING_IN_HEADER_SZ 40u   /* sizeof(struct fuse_in_header) */
#define DUTFS_URING_OUT_HEADER_SZ 16u  /* sizeof(struct fuse_out_header) */
/* in_header + fuse_read_in / fuse_write_in: where the kernel's payload starts */
#define DUTFS_URING_REQ_PREFIX 80u
/* room a request buffer needs besides the payload (the largest op header moves it) */
#define DUTFS_URING_REQ_SLACK (DUTFS_URING_IN_HEADER_SZ + DUTFS_FUSE_URING_OP_IN_OUT_SZ)

/* struct fuse_out_header, for the transport's own error replies */
struct dutfs_uring_out_header {
	uint32_t len;
	int32_t error;
	uint64_t unique;
};

/* The unique of the request in an entry (its fuse_in_header). */
uint64_t dutfs_uring_req_unique(const struct dutfs_fuse_uring_req_header *hdr);

/*
 * Rebuild the request of a ring entry in req (req + DUTFS_URING_REQ_PREFIX
 * holds the payload the kernel wrote; req has payload_cap +
 * DUTFS_URING_REQ_SLACK bytes).  Returns the request's length, or -EPROTO
 * when the header does not add up (length, payload size, header size).
 */
long dutfs_uring_req_build(const struct dutfs_fuse_uring_req_header *hdr, char *req,
			   size_t payload_cap);

/* The unique of a reply (its fuse_out_header); 0 when the iovecs are too short. */
uint64_t dutfs_uring_reply_unique(const struct iovec *iov, int count);

/*
 * Copy a reply (fuse_out_header, then the output arguments) into an entry:
 * the header into hdr->in_out, the rest into payload with
 * ring_ent_in_out.payload_sz.  An argument that already sits where it
 * belongs in payload (a READ's data read into the entry) is not copied.
 * Returns the reply's length, or -EMSGSIZE
 * when it does not fit the payload, -EPROTO when it has no header.
 */
long dutfs_uring_reply_pack(const struct iovec *iov, int count,
			    struct dutfs_fuse_uring_req_header *hdr, char *payload, size_t payload_cap);

/* What the kernel said in its INIT request. */
struct dutfs_uring_init_offer {
	uint64_t unique;
	uint32_t major, minor;
	bool uring;              /* FUSE_OVER_IO_URING offered */
};

/* 1 and ret filled if buf is an INIT request, 0 if another request, -EPROTO if truncated. */
int dutfs_uring_init_parse(const void *buf, size_t len, struct dutfs_uring_init_offer *ret);

/*
 * The protocol check: 0 when the kernel can run the ring (7.42 or later,
 * and it offered FUSE_OVER_IO_URING), else -EPROTONOSUPPORT (too old) or
 * -EOPNOTSUPP (not offered: enable_uring off).
 */
int dutfs_uring_init_check(const struct dutfs_uring_init_offer *o);

/*
 * Ask for the ring in libfuse's INIT reply (flags2 |= FUSE_OVER_IO_URING >> 32,
 * flags |= FUSE_INIT_EXT), in place.  -EPROTO when the iovecs do not hold
 * a whole fuse_init_out after the header.
 */
int dutfs_uring_init_reply_ask(struct iovec *iov, int count);

/*
 * Queues the kernel makes: one per possible CPU.  list is the content of
 * /sys/devices/system/cpu/possible ("0-1", "0", "0-3,8-11"): the highest
 * CPU number plus one, or 0 when it cannot be read.
 */
unsigned dutfs_uring_cpu_count(const char *list);

#endif
