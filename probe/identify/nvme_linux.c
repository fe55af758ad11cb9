/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NVMe commands through libnvme on an fd the caller opened by path (libnvme
 * 1.3's nvme_open() only takes /dev/nvme<N>[n<M>] names).  Every libnvme call
 * is one ioctl on fd and returns 0, a positive NVMe status, or -1 with errno;
 * here that becomes 0 / -errno with the status as a separate out-parameter.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nvme/ioctl.h>
#include <nvme/types.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"
#include "probe/identify/nvme.h"

static int nvme_result(int rc, uint16_t *ret_status)
{
	uint16_t st = 0;
	int r;

	if (rc == 0)
		r = 0;
	else if (rc > 0) {
		st = (uint16_t)rc;
		r = -EIO;
	} else
		r = errno ? -errno : -EIO;
	if (ret_status)
		*ret_status = st;
	return r;
}

static void query_done(struct dp_nvme_query *q, int rc)
{
	q->tried = true;
	q->err = nvme_result(rc, &q->status);
}

int dutprobe_nvme_get_nsid(int fd, uint32_t *ret_nsid)
{
	__u32 nsid = 0;
	int r;

	errno = 0;
	r = nvme_result(nvme_get_nsid(fd, &nsid), NULL);
	if (r < 0)
		return r;
	*ret_nsid = nsid;
	return 0;
}

void dp_nvme_collect(int fd, struct dp_nvme_info *info)
{
	/* identify data is 4 KiB; page-aligned buffers keep any driver happy */
	_cleanup_free_ void *buf = NULL;
	__u32 vwc = 0;
	int r;

	if (posix_memalign(&buf, 4096, 4096) != 0) {
		info->q_ctrl = (struct dp_nvme_query){ .tried = true, .err = -ENOMEM };
		return;
	}

	info->q_nsid.tried = true;
	info->q_nsid.err = dutprobe_nvme_get_nsid(fd, &info->nsid);

	memset(buf, 0, 4096);
	errno = 0;
	query_done(&info->q_ctrl, nvme_identify_ctrl(fd, buf));
	if (info->q_ctrl.err == 0)
		dp_nvme_decode_ctrl(buf, &info->ctrl);

	if (info->q_nsid.err == 0) {
		memset(buf, 0, 4096);
		errno = 0;
		query_done(&info->q_ns, nvme_identify_ns(fd, info->nsid, buf));
		if (info->q_ns.err == 0)
			dp_nvme_decode_ns(buf, info->nsid, &info->ns);
	}

	/* controller-wide log: every controller supports NSID FFFFFFFFh */
	memset(buf, 0, 4096);
	errno = 0;
	query_done(&info->q_smart, nvme_get_log_smart(fd, NVME_NSID_ALL, false, buf));
	if (info->q_smart.err == 0)
		dp_nvme_decode_smart(buf, &info->smart);

	/* Feature 06h is only defined when identify says a cache is present. */
	if (info->q_ctrl.err == 0 && info->ctrl.vwc_present) {
		errno = 0;
		r = nvme_get_features_volatile_wc(fd, NVME_GET_FEATURES_SEL_CURRENT, &vwc);
		query_done(&info->q_vwc, r);
		if (info->q_vwc.err == 0)
			info->vwc_enabled = vwc & 1;
	}
}

static int dsm_send(int fd, uint32_t nsid, const struct dutprobe_lba_range *ranges, size_t nr,
		    uint16_t *ret_status)
{
	struct nvme_dsm_range dsm[DUTPROBE_DSM_MAX_RANGES];
	__u32 result = 0;
	struct nvme_dsm_args args = {
		.result = &result,
		.dsm = dsm,
		.args_size = sizeof(args),
		.fd = fd,
		.timeout = NVME_DEFAULT_IOCTL_TIMEOUT,
		.nsid = nsid,
		.attrs = NVME_DSMGMT_AD,
		.nr_ranges = (__u16)nr,
	};

	memset(dsm, 0, sizeof(dsm));
	for (size_t i = 0; i < nr; i++) {
		dsm[i].cattr = 0;
		dsm[i].nlb = htole32(ranges[i].nlb);
		dsm[i].slba = htole64(ranges[i].slba);
	}
	errno = 0;
	return nvme_result(nvme_dsm(&args), ret_status);
}

int dutprobe_nvme_deallocate(int fd, uint32_t nsid, const struct dutprobe_lba_range *ranges,
			     size_t nr, uint16_t *ret_nvme_status)
{
	if (ret_nvme_status)
		*ret_nvme_status = 0;
	if (!ranges || nr == 0 || nsid == 0 || nsid == NVME_NSID_ALL)
		return -EINVAL;
	for (size_t i = 0; i < nr; i++)
		if (ranges[i].nlb == 0 || ranges[i].slba > UINT64_MAX - ranges[i].nlb)
			return -EINVAL;
	for (size_t done = 0; done < nr;) {
		size_t n = nr - done;
		int r;

		if (n > DUTPROBE_DSM_MAX_RANGES)
			n = DUTPROBE_DSM_MAX_RANGES;
		r = dsm_send(fd, nsid, ranges + done, n, ret_nvme_status);
		if (r < 0)
			return r;
		done += n;
	}
	return 0;
}

int dutprobe_nvme_deallocate_bytes(int fd, uint32_t nsid, uint32_t lba_bytes,
				   uint64_t offset, uint64_t length, uint16_t *ret_nvme_status)
{
	struct dutprobe_lba_range ranges[DUTPROBE_DSM_MAX_RANGES];
	uint64_t slba, nblocks;
	size_t nr = 0;
	int r;

	if (ret_nvme_status)
		*ret_nvme_status = 0;
	if (lba_bytes < 512 || (lba_bytes & (lba_bytes - 1)) || length == 0 ||
	    offset % lba_bytes || length % lba_bytes || offset > UINT64_MAX - length)
		return -EINVAL;
	slba = offset / lba_bytes;
	nblocks = length / lba_bytes;
	/* Fill up to 256 ranges per command; a huge extent takes several commands. */
	while (nblocks) {
		uint64_t n = nblocks < DUTPROBE_DSM_MAX_RANGE_LBAS ? nblocks : DUTPROBE_DSM_MAX_RANGE_LBAS;

		ranges[nr].slba = slba;
		ranges[nr].nlb = (uint32_t)n;
		nr++;
		slba += n;
		nblocks -= n;
		if (nr == DUTPROBE_DSM_MAX_RANGES || nblocks == 0) {
			r = dutprobe_nvme_deallocate(fd, nsid, ranges, nr, ret_nvme_status);
			if (r < 0)
				return r;
			nr = 0;
		}
	}
	return 0;
}
