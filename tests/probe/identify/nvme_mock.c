/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nvme/ioctl.h>

#include "tests/probe/identify/nvme_mock.h"

struct mock_state mock = { .fd = -1 };

int mock_begin(void)
{
	char path[] = "/tmp/dutprobe-nvme-mock-XXXXXX";
	int fd = mkstemp(path);

	memset(&mock, 0, sizeof(mock));
	mock.fd = -1;
	if (fd < 0)
		return -errno;
	unlink(path);
	mock.fd = fd;
	return fd;
}

void mock_expect_add(struct mock_expect e)
{
	if (mock.nexp < MOCK_MAX_EXPECT)
		mock.exp[mock.nexp++] = e;
}

int mock_end(void)
{
	int ok = mock.mismatch[0] == '\0' && mock.pos == mock.nexp;

	if (mock.mismatch[0] == '\0' && mock.pos != mock.nexp)
		snprintf(mock.mismatch, sizeof(mock.mismatch),
			 "%zu of %zu expected commands were sent", mock.pos, mock.nexp);
	if (mock.fd >= 0)
		close(mock.fd);
	mock.fd = -1;
	return ok;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	if (!mock.mismatch[0]) {
		va_start(ap, fmt);
		vsnprintf(mock.mismatch, sizeof(mock.mismatch), fmt, ap);
		va_end(ap);
	}
	errno = EINVAL;
	return -1;
}

static int passthru(const struct mock_expect *e, struct nvme_passthru_cmd *cmd, size_t idx)
{
	void *data = (void *)(uintptr_t)cmd->addr;

	if (cmd->opcode != e->opcode || cmd->nsid != e->nsid || cmd->cdw10 != e->cdw10 ||
	    cmd->cdw11 != e->cdw11 || cmd->data_len != e->data_len)
		return fail("command %zu: got opcode 0x%02x nsid 0x%x cdw10 0x%08x cdw11 0x%x "
			    "data_len %u, expected opcode 0x%02x nsid 0x%x cdw10 0x%08x cdw11 0x%x "
			    "data_len %u", idx, cmd->opcode, cmd->nsid, cmd->cdw10, cmd->cdw11,
			    cmd->data_len, e->opcode, e->nsid, e->cdw10, e->cdw11, e->data_len);
	if (cmd->data_len && !data)
		return fail("command %zu: data_len %u but no buffer", idx, cmd->data_len);
	/* opcode bit 0 set = host-to-controller data (DSM, write): capture it */
	if ((cmd->opcode & 1) && cmd->data_len) {
		mock.captured_len = cmd->data_len < MOCK_MAX_CAPTURE ? cmd->data_len : MOCK_MAX_CAPTURE;
		memcpy(mock.captured, data, mock.captured_len);
	}
	if (e->err) {
		errno = e->err;
		return -1;
	}
	if (e->page && cmd->data_len)
		memcpy(data, e->page, cmd->data_len);
	cmd->result = e->result;
	return e->status;
}

int ioctl(int fd, unsigned long req, ...)
{
	const struct mock_expect *e;
	void *arg;
	va_list ap;
	size_t idx;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (mock.fd < 0 || fd != mock.fd)
		return (int)syscall(SYS_ioctl, fd, req, arg);

	mock.calls++;
	idx = mock.pos;
	if (idx >= mock.nexp)
		return fail("unexpected command %zu: request 0x%lx", idx, req);
	e = &mock.exp[mock.pos++];
	if (req != e->req)
		return fail("command %zu: request 0x%lx, expected 0x%lx", idx, req, e->req);
	if (req == NVME_IOCTL_ID) {
		if (e->err) {
			errno = e->err;
			return -1;
		}
		return (int)e->result;
	}
	if (req == NVME_IOCTL_ADMIN_CMD || req == NVME_IOCTL_IO_CMD)
		return passthru(e, arg, idx);
	return fail("command %zu: request 0x%lx not modelled", idx, req);
}
