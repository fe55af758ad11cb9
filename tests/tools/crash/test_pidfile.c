/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pid root kills comes from postmaster.pid, which postgres writes
 * (tools/crash/crash_sys.c crash_read_postmaster_pid): taken only when it
 * names a process called postgres that runs as the file's owner.  A planted
 * file naming root's process, or another user's, or a process of the right
 * user under another name, or a root-owned file, or a link, gives no pid.
 * Processes are run as user nobody (root only; otherwise the test passes
 * with what it can check and says so).
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cu_main.h"
#include "tools/crash/crash_sys.h"

static char dir[] = "/tmp/test-crash-pidfile.XXXXXX";

/* A sleeping child as uid (-1: ours), exec'ed as path (argv[0] = path). */
static pid_t sleeper(const char *path, uid_t uid, gid_t gid)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (uid != (uid_t)-1 && (setgid(gid) < 0 || setuid(uid) < 0))
			_exit(126);
		execl(path, path, "30", (char *)NULL);
		_exit(127);
	}
	usleep(100 * 1000);   /* past exec: /proc/PID/cmdline names path */
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void write_pidfile(pid_t pid, uid_t owner)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/postmaster.pid", dir);
	unlink(path);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "%d\n/var/lib/postgresql/data\n1700000000\n5432\n", (int)pid);
	fclose(f);
	if (owner != (uid_t)-1)
		CU_ASSERT(chown(path, owner, (gid_t)-1) == 0);
}

static void test_only_postgres_of_the_owner(void)
{
	struct passwd *pw = getpwnam("nobody");
	char pg[160], cmd[200];
	pid_t got = 0, mine, theirs, theirs_pg;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	CU_ASSERT_FATAL(chmod(dir, 0755) == 0);
	snprintf(pg, sizeof(pg), "%s/postgres", dir);
	snprintf(cmd, sizeof(cmd), "cp /bin/sleep '%s'", pg);
	CU_ASSERT_FATAL(system(cmd) == 0);

	/* no file, an empty one, garbage */
	CU_CHECK(crash_read_postmaster_pid(dir, &got) == -ENOENT, "no postmaster.pid");
	write_pidfile(0, (uid_t)-1);
	CU_CHECK(crash_read_postmaster_pid(dir, &got) == -ENODATA, "pid 0");

	if (geteuid() != 0 || !pw) {
		printf("\n  (not root or no user nobody: the owner checks are not exercised)\n");
		goto out;
	}
	/* root's own process, in a file root owns: root's file is not postgres's word */
	mine = sleeper(pg, (uid_t)-1, (gid_t)-1);
	write_pidfile(mine, 0);
	CU_CHECK(crash_read_postmaster_pid(dir, &got) == -ESRCH, "a root-owned postmaster.pid");
	/* nobody plants a file naming root's process called postgres */
	write_pidfile(mine, pw->pw_uid);
	CU_CHECK(crash_read_postmaster_pid(dir, &got) == -ESRCH, "a file of nobody's naming root's postgres");
	reap(mine);
	/* nobody's process, not called postgres */
	theirs = sleeper("/bin/sleep", pw->pw_uid, pw->pw_gid);
	write_pidfile(theirs, pw->pw_uid);
	CU_CHECK(crash_read_postmaster_pid(dir, &got) == -ESRCH, "nobody's sleep is not a postgres");
	/* nobody's postgres, named in nobody's file: that one is taken */
	theirs_pg = sleeper(pg, pw->pw_uid, pw->pw_gid);
	write_pidfile(theirs_pg, pw->pw_uid);
	got = 0;
	CU_CHECK(crash_read_postmaster_pid(dir, &got) == 0 && got == theirs_pg,
		 "the owner's own postgres process is the postmaster");
	/* the same pid through a link: not followed */
	{
		char path[128], other[128];

		snprintf(path, sizeof(path), "%s/postmaster.pid", dir);
		snprintf(other, sizeof(other), "%s/elsewhere", dir);
		CU_ASSERT(rename(path, other) == 0);
		CU_ASSERT(symlink(other, path) == 0);
		CU_CHECK(crash_read_postmaster_pid(dir, &got) < 0, "postmaster.pid as a symbolic link");
	}
	reap(theirs);
	reap(theirs_pg);
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

static const struct cu_test tests[] = {
	{ "only_postgres_of_the_owner", test_only_postgres_of_the_owner },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "crash_pidfile", .tests = tests };
