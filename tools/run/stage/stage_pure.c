/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Target staging, pure helpers: space arithmetic and its messages,
 * loop backing_file text,
 * paths.  See stage_pure.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "tools/run/stage/stage_pure.h"

uint64_t stage_image_missing_bytes(uint64_t size, uint64_t allocated)
{
	return size > allocated ? size - allocated : 0;
}

int stage_space_check(const struct stage_space_facts *f, char *msg, size_t msglen)
{
	char need[DUT_FMT_LEN], have[DUT_FMT_LEN], size[DUT_FMT_LEN], alloc[DUT_FMT_LEN];
	uint64_t missing, target_bytes = f->type == DUT_TARGET_IMAGE ? f->image_size : f->device_bytes;

	if (f->fs_name && f->type != DUT_TARGET_DIRECTORY && target_bytes < f->fs_min_bytes) {
		snprintf(msg, msglen, "%s %s is %s; %s needs at least %s; make it larger",
			 f->type == DUT_TARGET_IMAGE ? "image" : "device", f->path,
			 dut_format_size(target_bytes, size, sizeof(size)), f->fs_name,
			 dut_format_size(f->fs_min_bytes, need, sizeof(need)));
		return -ENOSPC;
	}
	switch (f->type) {
	case DUT_TARGET_DIRECTORY:
		if (f->need_bytes <= f->free_bytes)
			return 0;
		snprintf(msg, msglen, "directory %s: the configuration needs %s there, but %s has only %s free; "
			 "free some space or put the target on a larger filesystem", f->path,
			 dut_format_size(f->need_bytes, need, sizeof(need)), f->fs_dir,
			 dut_format_size(f->free_bytes, have, sizeof(have)));
		return -ENOSPC;
	case DUT_TARGET_IMAGE:
		if (f->need_bytes > f->image_size) {
			snprintf(msg, msglen, "image %s: the configuration needs %s, but the image is only %s; "
				 "make it larger (size = in its [target])", f->path,
				 dut_format_size(f->need_bytes, need, sizeof(need)),
				 dut_format_size(f->image_size, size, sizeof(size)));
			return -ENOSPC;
		}
		missing = stage_image_missing_bytes(f->image_size, f->image_allocated);
		if (missing <= f->free_bytes)
			return 0;
		if (f->image_allocated)
			snprintf(alloc, sizeof(alloc), " more");
		else
			alloc[0] = '\0';
		snprintf(msg, msglen, "image %s (%s) needs %s%s in %s, which has only %s free; free space there, "
			 "make the image smaller or put it on another filesystem", f->path,
			 dut_format_size(f->image_size, size, sizeof(size)),
			 dut_format_size(missing, need, sizeof(need)), alloc, f->fs_dir,
			 dut_format_size(f->free_bytes, have, sizeof(have)));
		return -ENOSPC;
	case DUT_TARGET_DEVICE:
		if (f->need_bytes <= f->device_bytes)
			return 0;
		snprintf(msg, msglen, "device %s: the configuration needs %s, but the device has only %s; "
			 "use a larger device", f->path, dut_format_size(f->need_bytes, need, sizeof(need)),
			 dut_format_size(f->device_bytes, size, sizeof(size)));
		return -ENOSPC;
	}
	snprintf(msg, msglen, "unknown target type %d", (int)f->type);
	return -EINVAL;
}

int stage_image_verdict(const struct stage_image_facts *f, char *msg, size_t msglen)
{
	static const char what_to_do[] = "refusing to format it (give the path of a new file, or delete this "
					 "one if its contents may go)";
	struct sig_hit hits[SIG_MAX_HITS];
	size_t nh;

	if (f->marked || f->size_bytes == 0)
		return 0;
	nh = f->head ? sig_detect(f->head, f->head_len, hits, SIG_MAX_HITS) : 0;
	if (nh) {
		snprintf(msg, msglen, "image %s was not made by dutlab and carries data: %s (signature at byte %llu); %s",
			 f->path, hits[0].name, (unsigned long long)hits[0].offset, what_to_do);
		return -EEXIST;
	}
	for (size_t i = 0; f->head && i < f->head_len; i++) {
		if (f->head[i]) {
			snprintf(msg, msglen, "image %s was not made by dutlab and holds data (a non-zero byte at "
				 "offset %zu; only an empty or all-zero file is taken over); %s", f->path, i, what_to_do);
			return -EEXIST;
		}
	}
	if (!f->head && f->size_bytes) {
		snprintf(msg, msglen, "image %s was not made by dutlab and its contents were not read; %s", f->path, what_to_do);
		return -EEXIST;
	}
	return 0;
}

char *stage_backing_file_path(const char *text, char *out, size_t len, bool *ret_deleted)
{
	static const char deleted[] = " (deleted)";
	size_t n = strcspn(text, "\n");
	bool del = false;

	if (n >= sizeof(deleted) - 1 && memcmp(text + n - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1) == 0) {
		n -= sizeof(deleted) - 1;
		del = true;
	}
	snprintf(out, len, "%.*s", (int)n, text);
	if (ret_deleted)
		*ret_deleted = del;
	return out;
}

char *stage_resolve_path(const char *base_dir, const char *path)
{
	char *r;

	if (path[0] == '/' || !base_dir || !*base_dir || strcmp(base_dir, ".") == 0)
		return strdup(path);
	if (asprintf(&r, "%s%s%s", base_dir, base_dir[strlen(base_dir) - 1] == '/' ? "" : "/", path) < 0)
		return NULL;
	return r;
}

char *stage_dirname(const char *path, char *out, size_t len)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')     /* trailing slashes */
		n--;
	while (n > 0 && path[n - 1] != '/')     /* the last component */
		n--;
	if (n == 0) {
		snprintf(out, len, ".");
		return out;
	}
	while (n > 1 && path[n - 1] == '/')     /* the slashes before it */
		n--;
	snprintf(out, len, "%.*s", (int)n, path);
	return out;
}

char *stage_mountpoint_template(const char *mnt_root, const char *target_name)
{
	char name[DUT_EXP_NAME_MAX + 1];
	size_t i;
	char *r;

	for (i = 0; target_name && target_name[i] && i < DUT_EXP_NAME_MAX; i++) {
		char c = target_name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '.' || c == '_' || c == '+' || c == '-';

		name[i] = ok ? c : '_';
	}
	name[i] = '\0';
	if (i == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		snprintf(name, sizeof(name), "target");
	if (asprintf(&r, "%s/%s-XXXXXX", mnt_root, name) < 0)
		return NULL;
	return r;
}
