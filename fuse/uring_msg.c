/* SPDX-License-Identifier: GPL-2.0-or-later */
/* FUSE over io_uring, the pure part: see uring_msg.h. */
#include <errno.h>
#include <linux/fuse.h>
#include <string.h>

#include "fuse/uring_msg.h"

_Static_assert(sizeof(struct fuse_in_header) == DUTFS_URING_IN_HEADER_SZ, "fuse_in_header size");
_Static_assert(sizeof(struct fuse_out_header) == DUTFS_URING_OUT_HEADER_SZ, "fuse_out_header size");
_Static_assert(sizeof(struct fuse_write_in) + DUTFS_URING_IN_HEADER_SZ == DUTFS_URING_REQ_PREFIX,
	       "a WRITE's data starts at the prefix");
_Static_assert(sizeof(struct fuse_read_in) + DUTFS_URING_IN_HEADER_SZ == DUTFS_URING_REQ_PREFIX,
	       "a READ's header ends at the prefix");

_Static_assert(sizeof(struct dutfs_uring_out_header) == sizeof(struct fuse_out_header), "out header");

uint64_t dutfs_uring_req_unique(const struct dutfs_fuse_uring_req_header *hdr)
{
	struct fuse_in_header in;

	memcpy(&in, hdr->in_out, sizeof(in));
	return in.unique;
}

long dutfs_uring_req_build(const struct dutfs_fuse_uring_req_header *hdr, char *req,
			   size_t payload_cap)
{
	struct fuse_in_header in;
	uint32_t payload_sz = hdr->ring_ent_in_out.payload_sz;
	size_t op_sz;

	memcpy(&in, hdr->in_out, sizeof(in));
	/* in.len is the request as /dev/fuse would deliver it: header, op header, payload */
	if (payload_sz > payload_cap || in.len < DUTFS_URING_IN_HEADER_SZ + (uint64_t)payload_sz)
		return -EPROTO;
	op_sz = in.len - DUTFS_URING_IN_HEADER_SZ - payload_sz;
	if (op_sz > DUTFS_FUSE_URING_OP_IN_OUT_SZ)
		return -EPROTO;
	/* payload first: a header longer than 40 bytes covers its start */
	if (op_sz != DUTFS_URING_REQ_PREFIX - DUTFS_URING_IN_HEADER_SZ && payload_sz)
		memmove(req + DUTFS_URING_IN_HEADER_SZ + op_sz, req + DUTFS_URING_REQ_PREFIX, payload_sz);
	memcpy(req + DUTFS_URING_IN_HEADER_SZ, hdr->op_in, op_sz);
	memcpy(req, &in, sizeof(in));
	return (long)in.len;
}

uint64_t dutfs_uring_reply_unique(const struct iovec *iov, int count)
{
	struct fuse_out_header oh;

	if (count < 1 || iov[0].iov_len < sizeof(oh))
		return 0;
	memcpy(&oh, iov[0].iov_base, sizeof(oh));
	return oh.unique;
}

long dutfs_uring_reply_pack(const struct iovec *iov, int count,
			    struct dutfs_fuse_uring_req_header *hdr, char *payload, size_t payload_cap)
{
	size_t hdr_left = DUTFS_URING_OUT_HEADER_SZ, hdr_off = 0, pay = 0;

	for (int i = 0; i < count; i++) {
		const char *p = iov[i].iov_base;
		size_t n = iov[i].iov_len;

		if (hdr_left) {
			size_t k = n < hdr_left ? n : hdr_left;

			memcpy(hdr->in_out + hdr_off, p, k);
			hdr_off += k;
			hdr_left -= k;
			p += k;
			n -= k;
		}
		if (n > payload_cap - pay)
			return -EMSGSIZE;
		/* data read straight into the entry (dutfs_transport_reply_buf) is in place already */
		if (p != payload + pay)
			memcpy(payload + pay, p, n);
		pay += n;
	}
	if (hdr_left)
		return -EPROTO;
	/* the kernel takes the output arguments' size from payload_sz, not from the header */
	hdr->ring_ent_in_out.payload_sz = (uint32_t)pay;
	hdr->ring_ent_in_out.padding = 0;
	return (long)(DUTFS_URING_OUT_HEADER_SZ + pay);
}

int dutfs_uring_init_parse(const void *buf, size_t len, struct dutfs_uring_init_offer *ret)
{
	struct fuse_in_header in;
	struct fuse_init_in ii;
	uint64_t flags;

	if (len < sizeof(in))
		return -EPROTO;
	memcpy(&in, buf, sizeof(in));
	if (in.opcode != FUSE_INIT)
		return 0;
	memset(&ii, 0, sizeof(ii));
	/* an old kernel's fuse_init_in is shorter (no flags2): what is missing is zero */
	if (len < sizeof(in) + 16)
		return -EPROTO;
	memcpy(&ii, (const char *)buf + sizeof(in),
	       len - sizeof(in) < sizeof(ii) ? len - sizeof(in) : sizeof(ii));
	flags = ii.flags;
	if (flags & DUTFS_FUSE_INIT_EXT)
		flags |= (uint64_t)ii.flags2 << 32;
	*ret = (struct dutfs_uring_init_offer){
		.unique = in.unique, .major = ii.major, .minor = ii.minor,
		.uring = (flags & DUTFS_FUSE_OVER_IO_URING) != 0,
	};
	return 1;
}

int dutfs_uring_init_check(const struct dutfs_uring_init_offer *o)
{
	if (o->major != 7 || o->minor < DUTFS_FUSE_URING_MINOR)
		return -EPROTONOSUPPORT;
	return o->uring ? 0 : -EOPNOTSUPP;
}

int dutfs_uring_init_reply_ask(struct iovec *iov, int count)
{
	struct fuse_init_out *o;

	/* libfuse sends the header and its fuse_init_out as two iovecs */
	if (count < 2 || iov[0].iov_len != sizeof(struct fuse_out_header) ||
	    iov[1].iov_len < offsetof(struct fuse_init_out, flags2) + sizeof(o->flags2))
		return -EPROTO;
	o = iov[1].iov_base;
	o->flags |= (uint32_t)DUTFS_FUSE_INIT_EXT;
	o->flags2 |= (uint32_t)(DUTFS_FUSE_OVER_IO_URING >> 32);
	return 0;
}

unsigned dutfs_uring_cpu_count(const char *list)
{
	unsigned long max = 0, n = 0;
	bool any = false, in_num = false;

	for (const char *p = list; ; p++) {
		if (*p >= '0' && *p <= '9') {
			n = n * 10 + (unsigned long)(*p - '0');
			in_num = true;
			if (n > 65535)
				return 0;
			continue;
		}
		if (in_num) {
			if (n > max || !any)
				max = n > max ? n : max;
			any = true;
			in_num = false;
			n = 0;
		}
		if (*p == '\0' || *p == '\n')
			break;
		if (*p != '-' && *p != ',')
			return 0;
	}
	return any ? (unsigned)max + 1 : 0;
}
