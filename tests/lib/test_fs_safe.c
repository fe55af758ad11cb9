/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fs_safe: the root-side file operations refuse planted symbolic links,
 * wrong owners and shared directories, on real files in a temporary
 * directory.  The owner checks need root to chown a file to another user;
 * without root those asserts are skipped (the link checks still run).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/fs_safe.h"
#include "tests/cu_main.h"

#define NOBODY_UID 65534

static char dir[256];

static const char *at(const char *name)
{
	static char p[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static int make_dir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/dut-fs-safe-XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void)
{
	return dut_remove_tree(dir) < 0 ? -1 : 0;
}

static void put(const char *name, const char *data)
{
	_cleanup_close_ int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, data, strlen(data)) == (ssize_t)strlen(data));
}

static char *get(const char *path)
{
	static char buf[256];
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static void test_open_refuses_links_in_any_component(void)
{
	_cleanup_close_ int fd = -1;

	CU_ASSERT_FATAL(mkdir(at("real"), 0755) == 0);
	put("real/file", "data");
	CU_ASSERT_FATAL(symlink("real", at("linkdir")) == 0);
	CU_ASSERT_FATAL(symlink("real/file", at("linkfile")) == 0);

	fd = dut_open_regular(at("real/file"), DUT_ANY_OWNER, NULL);
	CU_CHECK(fd >= 0, "a plain file opens: %d", fd);
	CU_CHECK(dut_open_regular(at("linkfile"), DUT_ANY_OWNER, NULL) == -ELOOP,
		 "a link as the last component is refused");
	CU_CHECK(dut_open_regular(at("linkdir/file"), DUT_ANY_OWNER, NULL) == -ELOOP,
		 "a link in the middle is refused");
	CU_CHECK(dut_open_regular(at("real"), DUT_ANY_OWNER, NULL) == -EINVAL,
		 "a directory is not a regular file");
	CU_CHECK(dut_open_nofollow(at("x"), O_WRONLY | O_CREAT) == -EINVAL,
		 "O_CREAT is refused");
}

static void test_owner_is_checked_on_the_descriptor(void)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;

	put("owned", "mine");
	CU_CHECK(dut_read_file_owned(at("owned"), geteuid(), 100, &buf, &len) == 0 &&
		 len == 4 && !strcmp(buf, "mine"), "the caller's own file is read");
	CU_CHECK(dut_read_file_owned(at("owned"), geteuid(), 2, &(char *){ NULL }, &len) == -EFBIG,
		 "a file over max_bytes is refused");
	if (geteuid() != 0)
		return;
	CU_ASSERT_FATAL(chown(at("owned"), NOBODY_UID, -1) == 0);
	CU_CHECK(dut_read_file_owned(at("owned"), 0, 100, &(char *){ NULL }, &len) == -EPERM,
		 "a file owned by nobody is refused when root is expected");
}

static void test_write_replaces_a_planted_link_and_leaves_its_target(void)
{
	_cleanup_close_ int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	put("victim", "secret");
	CU_ASSERT_FATAL(chmod(at("victim"), 0600) == 0);
	CU_ASSERT_FATAL(symlink(at("victim"), at("standby.signal")) == 0);
	CU_CHECK(dut_write_file_at(dirfd, "standby.signal", "new", 3, 0640, (uid_t)-1, (gid_t)-1) == 0,
		 "the write succeeds");
	CU_CHECK(!strcmp(get(at("victim")), "secret"), "the link's target is untouched");
	CU_CHECK(lstat(at("standby.signal"), &st) == 0 && S_ISREG(st.st_mode) &&
		 (st.st_mode & 07777) == 0640, "the name is now a regular file with mode 0640");
	CU_CHECK(!strcmp(get(at("standby.signal")), "new"), "with the new content");
	CU_CHECK(stat(at("victim"), &st) == 0 && (st.st_mode & 07777) == 0600,
		 "the victim's mode is unchanged");
	CU_CHECK(dut_write_file_at(dirfd, "a/b", "x", 1, 0600, (uid_t)-1, (gid_t)-1) == -EINVAL,
		 "a name with a slash is refused");
	if (geteuid() == 0) {
		CU_CHECK(dut_write_file_at(dirfd, "given", "x", 1, 0600, NOBODY_UID, (gid_t)-1) == 0 &&
			 stat(at("given"), &st) == 0 && st.st_uid == NOBODY_UID,
			 "the new file is given to its owner with fchown");
	}
}

static void test_copy_refuses_a_linked_source(void)
{
	put("log", "log line\n");
	CU_ASSERT_FATAL(symlink(at("victim2"), at("loglink")) == 0);
	put("victim2", "root only");
	CU_CHECK(dut_copy_file_safe(at("loglink"), DUT_ANY_OWNER, at("copy1"), 0600, 1024) == -ELOOP,
		 "a linked source is refused");
	CU_CHECK(access(at("copy1"), F_OK) < 0, "and nothing is written");
	CU_CHECK(dut_copy_file_safe(at("log"), DUT_ANY_OWNER, at("copy2"), 0600, 4) == 0 &&
		 !strcmp(get(at("copy2")), "log "), "a large source is cut at max_bytes");

	/* a synthetic file reports st_size 0 (like dutfs's stats.json): read to the end */
	char proc[64];
	const char *got;

	snprintf(proc, sizeof(proc), "/proc/%d/status", (int)getpid());
	CU_CHECK(dut_copy_file_safe(proc, DUT_ANY_OWNER, at("copy3"), 0600, 1 << 20) == 0 &&
		 (got = get(at("copy3"))) && strstr(got, "Name:") == got,
		 "a file whose st_size is 0 is copied whole");
}

static void test_remove_tree_does_not_follow_links(void)
{
	CU_ASSERT_FATAL(mkdir(at("keep"), 0755) == 0);
	put("keep/precious", "x");
	CU_ASSERT_FATAL(mkdir(at("tree"), 0755) == 0);
	CU_ASSERT_FATAL(mkdir(at("tree/sub"), 0755) == 0);
	put("tree/sub/f", "y");
	CU_ASSERT_FATAL(symlink(at("keep"), at("tree/sub/link")) == 0);
	CU_ASSERT_FATAL(symlink(at("keep"), at("tree/link2")) == 0);
	CU_CHECK(dut_remove_tree(at("tree")) == 0, "the tree is removed");
	CU_CHECK(access(at("tree"), F_OK) < 0, "it is gone");
	CU_CHECK(access(at("keep/precious"), F_OK) == 0, "what its links pointed at stays");
	CU_CHECK(dut_remove_tree(at("not-there")) == 0, "a missing tree is success");
	CU_ASSERT_FATAL(symlink(at("keep"), at("toplink")) == 0);
	CU_CHECK(dut_remove_tree(at("toplink")) == 0 && access(at("keep/precious"), F_OK) == 0,
		 "a link named as the tree is removed as a link");
}

static void test_private_dir_rules(void)
{
	char bad[512];
	struct stat st;

	CU_CHECK(dut_ensure_private_dir(at("p/q"), 0755, bad, sizeof(bad)) == 0,
		 "missing components are created: %s", bad);
	CU_CHECK(stat(at("p/q"), &st) == 0 && (st.st_mode & 07777) == 0755, "with the mode asked");
	CU_ASSERT_FATAL(chmod(at("p/q"), 0777) == 0);
	CU_CHECK(dut_ensure_private_dir(at("p/q"), 0755, bad, sizeof(bad)) == -EACCES &&
		 !strcmp(bad, at("p/q")), "a world-writable last component is refused: %s", bad);
	CU_ASSERT_FATAL(chmod(at("p/q"), 0755) == 0);
	CU_ASSERT_FATAL(chmod(at("p"), 0777) == 0);
	CU_CHECK(dut_ensure_private_dir(at("p/q"), 0755, bad, sizeof(bad)) == -EACCES,
		 "a world-writable parent without the sticky bit is refused");
	CU_ASSERT_FATAL(chmod(at("p"), 01777) == 0);
	CU_CHECK(dut_ensure_private_dir(at("p/q"), 0755, bad, sizeof(bad)) == 0,
		 "a sticky world-writable parent (like /tmp) is fine");
	CU_ASSERT_FATAL(symlink(at("p/q"), at("p/l")) == 0);
	CU_CHECK(dut_ensure_private_dir(at("p/l"), 0755, bad, sizeof(bad)) == -ELOOP,
		 "a link as the directory is refused");
	CU_CHECK(dut_ensure_private_dir(at("p/l/r"), 0755, bad, sizeof(bad)) == -ELOOP &&
		 !strcmp(bad, at("p/l")), "a link in the middle is refused and named: %s", bad);
	CU_CHECK(dut_ensure_private_dir("relative/dir", 0755, NULL, 0) == -EINVAL,
		 "a relative path is refused");
	if (geteuid() != 0)
		return;
	CU_ASSERT_FATAL(mkdir(at("p/theirs"), 0755) == 0 && chown(at("p/theirs"), NOBODY_UID, -1) == 0);
	CU_CHECK(dut_ensure_private_dir(at("p/theirs"), 0755, bad, sizeof(bad)) == -EPERM,
		 "a directory another user made first is refused");
	CU_CHECK(dut_ensure_private_dir(at("p/theirs/x"), 0755, bad, sizeof(bad)) == -EPERM &&
		 !strcmp(bad, at("p/theirs")), "and so is anything below it");
	CU_CHECK(access(at("p/theirs/x"), F_OK) < 0, "without creating anything there");
}

static void test_messages_name_the_rule(void)
{
	CU_CHECK(strstr(dut_fs_safe_strerror(-ELOOP), "symbolic link") != NULL, "ELOOP");
	CU_CHECK(strstr(dut_fs_safe_strerror(-EPERM), "another user") != NULL, "EPERM");
	CU_CHECK(strstr(dut_fs_safe_strerror(-EACCES), "group or others") != NULL, "EACCES");
}

static const struct cu_test tests[] = {
	{ "open_refuses_links_in_any_component", test_open_refuses_links_in_any_component },
	{ "owner_is_checked_on_the_descriptor", test_owner_is_checked_on_the_descriptor },
	{ "write_replaces_a_planted_link_and_leaves_its_target",
	  test_write_replaces_a_planted_link_and_leaves_its_target },
	{ "copy_refuses_a_linked_source", test_copy_refuses_a_linked_source },
	{ "remove_tree_does_not_follow_links", test_remove_tree_does_not_follow_links },
	{ "private_dir_rules", test_private_dir_rules },
	{ "messages_name_the_rule", test_messages_name_the_rule },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = {
	.name = "fs_safe", .init = make_dir, .cleanup = remove_dir, .tests = tests,
};
