/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuse/uring_msg.c: ring entry <-> /dev/fuse byte stream, INIT negotiation, CPU list. */
#include <errno.h>
#include <linux/fuse.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/uring_msg.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"

#define CAP 4096u

/* An entry as the kernel fills it: header, op header of op_sz bytes, payload. */
static void fill_entry(struct dutfs_fuse_uring_req_header *h, char *req, uint32_t opcode,
		       size_t op_sz, const char *payload, uint32_t payload_sz)
{
	struct fuse_in_header in = { .len = (uint32_t)(sizeof(in) + op_sz + payload_sz),
				     .opcode = opcode, .unique = 42, .nodeid = 7 };

	memset(h, 0, sizeof(*h));
	memcpy(h->in_out, &in, sizeof(in));
	for (size_t i = 0; i < op_sz; i++)
		h->op_in[i] = (char)(0xA0 + i);
	h->ring_ent_in_out.payload_sz = payload_sz;
	h->ring_ent_in_out.commit_id = 42;
	memcpy(req + DUTFS_URING_REQ_PREFIX, payload, payload_sz);
}

static void test_req_build(void)
{
	static const struct {
		const char *what;
		uint32_t opcode;
		size_t op_sz;
		const char *payload;
	} rows[] = {
		{ "WRITE: 40-byte header, data in place", FUSE_WRITE, 40, "data data data" },
		{ "READ: no payload", FUSE_READ, 40, "" },
		{ "LOOKUP: no header, a name", FUSE_LOOKUP, 0, "name" },
		{ "MKDIR: 8-byte header, a name", FUSE_MKDIR, 8, "dir" },
		{ "SETATTR: 88-byte header moves the payload forward", FUSE_SETATTR, 88, "" },
		{ "RENAME2: 16-byte header, two names", FUSE_RENAME2, 16, "a\0b" },
		{ "the largest header (128)", FUSE_CREATE, 128, "longer payload after it" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dutfs_fuse_uring_req_header h;
		_cleanup_free_ char *buf = calloc(1, CAP + DUTFS_URING_REQ_SLACK);
		uint32_t psz = (uint32_t)strlen(rows[i].payload) + (rows[i].opcode == FUSE_RENAME2 ? 2 : 0);
		struct fuse_in_header in;
		long len;

		fill_entry(&h, buf, rows[i].opcode, rows[i].op_sz, rows[i].payload, psz);
		len = dutfs_uring_req_build(&h, buf, CAP);
		CU_CHECK(len == (long)(40 + rows[i].op_sz + psz), "%s: length %ld", rows[i].what, len);
		memcpy(&in, buf, sizeof(in));
		CU_CHECK(in.opcode == rows[i].opcode && in.unique == 42 && in.nodeid == 7, "%s: header", rows[i].what);
		CU_CHECK(!memcmp(buf + 40, h.op_in, rows[i].op_sz), "%s: op header follows", rows[i].what);
		CU_CHECK(!memcmp(buf + 40 + rows[i].op_sz, rows[i].payload, psz), "%s: payload follows",
			 rows[i].what);
		CU_CHECK(dutfs_uring_req_unique(&h) == 42, "%s: unique", rows[i].what);
	}
}

static void test_req_build_refuses(void)
{
	struct dutfs_fuse_uring_req_header h;
	_cleanup_free_ char *buf = calloc(1, CAP + DUTFS_URING_REQ_SLACK);
	struct fuse_in_header in;

	fill_entry(&h, buf, FUSE_WRITE, 40, "x", 1);
	h.ring_ent_in_out.payload_sz = CAP + 1;
	CU_CHECK(dutfs_uring_req_build(&h, buf, CAP) == -EPROTO, "payload larger than the buffer");
	fill_entry(&h, buf, FUSE_WRITE, 40, "x", 1);
	h.ring_ent_in_out.payload_sz = 100;   /* more than in.len says */
	CU_CHECK(dutfs_uring_req_build(&h, buf, CAP) == -EPROTO, "payload longer than the request");
	fill_entry(&h, buf, FUSE_WRITE, 40, "x", 1);
	memcpy(&in, h.in_out, sizeof(in));
	in.len = 40 + 129 + 1;
	memcpy(h.in_out, &in, sizeof(in));
	CU_CHECK(dutfs_uring_req_build(&h, buf, CAP) == -EPROTO, "op header larger than op_in");
}

static void test_reply_pack(void)
{
	struct dutfs_fuse_uring_req_header h;
	char payload[64];
	struct fuse_out_header oh = { .len = 16 + 11, .error = 0, .unique = 42 };
	char a[] = "hello ", b[] = "world";
	struct iovec iov[3] = { { &oh, sizeof(oh) }, { a, 6 }, { b, 5 } };
	struct fuse_out_header got;
	char split[20];
	struct iovec siov[2] = { { split, 10 }, { split + 10, 10 } };

	memset(&h, 0, sizeof(h));
	CU_CHECK(dutfs_uring_reply_unique(iov, 3) == 42, "unique of a reply");
	CU_CHECK(dutfs_uring_reply_unique(iov, 0) == 0, "no iovecs: 0");
	CU_CHECK(dutfs_uring_reply_pack(iov, 3, &h, payload, sizeof(payload)) == 27, "length");
	memcpy(&got, h.in_out, sizeof(got));
	CU_CHECK(got.unique == 42 && got.len == 27, "header in in_out");
	CU_CHECK(h.ring_ent_in_out.payload_sz == 11 && !memcmp(payload, "hello world", 11), "payload");
	CU_CHECK(dutfs_uring_reply_pack(iov, 3, &h, payload, 10) == -EMSGSIZE, "too large");
	CU_CHECK(dutfs_uring_reply_pack(iov, 1, &h, payload, 10) == 16 && h.ring_ent_in_out.payload_sz == 0,
		 "an error reply has no payload");
	/* a header split over two iovecs */
	memcpy(split, &oh, sizeof(oh));
	memcpy(split + 16, "abcd", 4);
	CU_CHECK(dutfs_uring_reply_pack(siov, 2, &h, payload, sizeof(payload)) == 20 &&
		 h.ring_ent_in_out.payload_sz == 4 && !memcmp(payload, "abcd", 4), "split header");
	CU_CHECK(dutfs_uring_reply_pack(siov, 1, &h, payload, sizeof(payload)) == -EPROTO ||
		 h.ring_ent_in_out.payload_sz == 0, "short of a header");
}

/* A READ's data read into the entry's payload (dutfs_transport_reply_buf) stays where it is. */
static void test_reply_pack_in_place(void)
{
	struct dutfs_fuse_uring_req_header h;
	char payload[64];
	struct fuse_out_header oh = { .len = 16 + 11, .error = 0, .unique = 42 };
	char a[] = "hello ";
	struct iovec iov[3] = { { &oh, sizeof(oh) }, { a, 6 }, { payload + 6, 5 } };
	struct iovec whole[2] = { { &oh, sizeof(oh) }, { payload, 11 } };

	memset(&h, 0, sizeof(h));
	memcpy(payload, "......world", 11);
	CU_CHECK(dutfs_uring_reply_pack(iov, 3, &h, payload, sizeof(payload)) == 27 &&
		 h.ring_ent_in_out.payload_sz == 11 && !memcmp(payload, "hello world", 11),
		 "an argument in place after a copied one");
	memcpy(payload, "in the entry", 11);
	CU_CHECK(dutfs_uring_reply_pack(whole, 2, &h, payload, sizeof(payload)) == 27 &&
		 h.ring_ent_in_out.payload_sz == 11 && !memcmp(payload, "in the entr", 11),
		 "the whole reply in place");
	CU_CHECK(dutfs_uring_reply_pack(whole, 2, &h, payload, 10) == -EMSGSIZE,
		 "in place but larger than the payload");
}

static void test_init(void)
{
	struct {
		struct fuse_in_header in;
		struct fuse_init_in ii;
	} req;
	struct dutfs_uring_init_offer o;
	struct fuse_out_header oh = { .len = 16 + sizeof(struct fuse_init_out), .unique = 2 };
	struct fuse_init_out out = { .major = 7, .minor = 38, .flags = 1 };
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { &out, sizeof(out) } };
	static const struct {
		uint32_t minor, flags, flags2;
		int check;
	} rows[] = {
		{ 44, (uint32_t)DUTFS_FUSE_INIT_EXT, (uint32_t)(DUTFS_FUSE_OVER_IO_URING >> 32), 0 },
		{ 44, (uint32_t)DUTFS_FUSE_INIT_EXT, 0, -EOPNOTSUPP },
		/* flags2 means nothing without FUSE_INIT_EXT */
		{ 44, 0, (uint32_t)(DUTFS_FUSE_OVER_IO_URING >> 32), -EOPNOTSUPP },
		{ 41, (uint32_t)DUTFS_FUSE_INIT_EXT, (uint32_t)(DUTFS_FUSE_OVER_IO_URING >> 32), -EPROTONOSUPPORT },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		memset(&req, 0, sizeof(req));
		req.in = (struct fuse_in_header){ .len = sizeof(req), .opcode = FUSE_INIT, .unique = 2 };
		req.ii = (struct fuse_init_in){ .major = 7, .minor = rows[i].minor, .flags = rows[i].flags,
						.flags2 = rows[i].flags2 };
		CU_CHECK(dutfs_uring_init_parse(&req, sizeof(req), &o) == 1 && o.unique == 2, "row %zu parsed", i);
		CU_CHECK(dutfs_uring_init_check(&o) == rows[i].check, "row %zu: check %d", i,
			 dutfs_uring_init_check(&o));
	}
	req.in.opcode = FUSE_GETATTR;
	CU_CHECK(dutfs_uring_init_parse(&req, sizeof(req), &o) == 0, "not INIT");
	CU_CHECK(dutfs_uring_init_parse(&req, 10, &o) == -EPROTO, "truncated");
	CU_CHECK(dutfs_uring_init_reply_ask(iov, 2) == 0, "ask");
	CU_CHECK((out.flags & DUTFS_FUSE_INIT_EXT) && (out.flags & 1) &&
		 out.flags2 == (uint32_t)(DUTFS_FUSE_OVER_IO_URING >> 32), "the reply asks for the ring");
	CU_CHECK(dutfs_uring_init_reply_ask(iov, 1) == -EPROTO, "no fuse_init_out");
}

static void test_cpu_count(void)
{
	static const struct {
		const char *list;
		unsigned n;
	} rows[] = {
		{ "0-1\n", 2 }, { "0", 1 }, { "0-3,8-11", 12 }, { "0,2", 3 }, { "", 0 }, { "x", 0 },
		{ "0-99999999", 0 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++)
		CU_CHECK(dutfs_uring_cpu_count(rows[i].list) == rows[i].n, "\"%s\": %u", rows[i].list,
			 dutfs_uring_cpu_count(rows[i].list));
}

static const struct cu_test tests[] = {
	{ "req_build", test_req_build },
	{ "req_build_refuses", test_req_build_refuses },
	{ "reply_pack", test_reply_pack },
	{ "reply_pack_in_place", test_reply_pack_in_place },
	{ "init", test_init },
	{ "cpu_count", test_cpu_count },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dutfs-uring-msg", .tests = tests };
