/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An ioctl() mock for NVMe passthrough, linked into the test executable.
 * libnvme.so calls ioctl() through its PLT, so this definition interposes
 * it for calls from libnvme (no LD_PRELOAD).  It answers only for the one
 * fd a test registered (a regular file the test opened); every other fd
 * goes to the real system call.
 *
 * A test lists the commands it expects, in order; the mock compares each
 * command with the next expectation (ioctl request, opcode, nsid, cdw10,
 * cdw11, data_len), fills the data buffer from the expectation's page,
 * and answers with the expectation's NVMe status or errno.
 */
#ifndef DUT_TEST_NVME_MOCK_H
#define DUT_TEST_NVME_MOCK_H

#include <stddef.h>
#include <stdint.h>

#define MOCK_MAX_EXPECT 16
#define MOCK_MAX_CAPTURE 8192

struct mock_expect {
	unsigned long req;        /* NVME_IOCTL_ID / NVME_IOCTL_ADMIN_CMD / NVME_IOCTL_IO_CMD */
	uint8_t opcode;
	uint32_t nsid, cdw10, cdw11, data_len;
	const void *page;         /* copied into the command's buffer (data_len bytes) */
	uint32_t result;          /* CQE dword 0 (get features), or the nsid for NVME_IOCTL_ID */
	uint16_t status;          /* inject: the controller answers this status */
	int err;                  /* inject: ioctl fails with this errno */
};

struct mock_state {
	int fd;                   /* the fd the mock answers for; -1 = none */
	struct mock_expect exp[MOCK_MAX_EXPECT];
	size_t nexp, pos;
	unsigned calls;
	char mismatch[512];       /* first mismatch, "" when all matched */
	uint8_t captured[MOCK_MAX_CAPTURE] __attribute__((aligned(8)));  /* data the host sent in the last write-direction command */
	size_t captured_len;
};

extern struct mock_state mock;

/* Open a fresh temporary file and make the mock answer for it. */
int mock_begin(void);
void mock_expect_add(struct mock_expect e);
/* Close the fd; returns 1 when every expectation was met exactly, else 0 (reason in mock.mismatch). */
int mock_end(void);

#endif
