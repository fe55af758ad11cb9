#!/bin/bash
# 61-dutlab.rules under `udevadm test` on a real loop device: a listed image
# gets /dev/dut/<name>, group dutlab mode 0660 and scheduler "none"; an
# unlisted one, a missing file, a bad file and a remove event get nothing.
#
# udevadm test (systemd 252) does not only print: it creates the links,
# changes the node's owner and mode and writes /run/udev.  So every run
# happens in a private mount namespace with its own tmpfs /dev and /run:
# nothing of the host's /dev, /run/udev or rules directories changes, and a
# running udevd never sees the test rule.  The one real write is the
# scheduler of our own loop device, which the test checks.
# Root only; exit 77 with the reason without root, losetup, udevadm, unshare.
HELPER=$1
RULES_IN=$2
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$HELPER" ] || { echo "harness error: dut-udev-match not found at '$HELPER'"; exit 99; }
[ -r "$RULES_IN" ] || { echo "harness error: rules template not found at '$RULES_IN'"; exit 99; }

[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mount namespace)"
command -v losetup >/dev/null || skip "losetup (util-linux) is not installed"
[ -e /dev/loop-control ] || skip "no loop device support (/dev/loop-control missing)"
command -v udevadm >/dev/null || skip "udevadm is not installed (apt-get install udev)"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
unshare --mount --propagation private true 2>/dev/null ||
	skip "cannot create a private mount namespace; refusing to let udevadm test change the real /dev"

WORK=$(mktemp -d /var/tmp/dutlab-udev-rules.XXXXXX) || exit 99
LOOP=
GROUP_CREATED=
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$GROUP_CREATED" ] && groupdel dutlab 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Installation creates the group (docs/udev.md); a test run creates it if missing and removes it after.
if ! getent group dutlab >/dev/null; then
	groupadd --system dutlab || fail "groupadd --system dutlab"
	GROUP_CREATED=1
fi
GID=$(getent group dutlab | cut -d: -f3)

truncate -s 8M "$WORK/dut.img" || fail "truncate"
LOOP=$(losetup -f --show "$WORK/dut.img") || fail "cannot set up a loop device"
KNAME=$(basename "$LOOP")
SYS=/sys/class/block/$KNAME
SYSDEV=$(readlink -f "$SYS")
read -r MAJ MIN < <(tr ':' ' ' <"$SYS/dev")
BACKING=$(cat "$SYS/loop/backing_file")   # the kernel's spelling of the path
NAME=dut-test-$$

# The rule under test is the template with the paths meson substitutes at install.
CONF=$WORK/devices.conf
sed -e "s|@HELPER@|$HELPER|g" -e "s|@DEVICES_CONF@|$CONF|g" "$RULES_IN" >"$WORK/61-dutlab-test.rules"
! grep -q '@[A-Z_]*@' "$WORK/61-dutlab-test.rules" || fail "a placeholder of $RULES_IN was not substituted"

# A scheduler other than none first, so that the rule's write can be seen.
OTHER_SCHED=$(tr -d '[]' <"$SYS/queue/scheduler" | tr ' ' '\n' | grep -v -x -e none -e '' | head -n1)
set_sched() { [ -n "$OTHER_SCHED" ] && echo "$OTHER_SCHED" >"$SYS/queue/scheduler"; }
sched_now() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$SYS/queue/scheduler"; }

# udevadm_test ACTION: run it in the private namespace; output in $WORK/out,
# and a last line "STATE link=<target of /dev/dut/NAME> perm=<group>:<mode>".
udevadm_test() {
	unshare --mount --propagation private -- bash -c '
		set -e
		rules=$1 action=$2 sysdev=$3 node=$4 maj=$5 min=$6 name=$7
		mount -t tmpfs -o mode=0755 dutlab-test-dev /dev
		mknod -m 666 /dev/null c 1 3
		mknod -m 666 /dev/zero c 1 5
		mknod -m 666 /dev/urandom c 1 9
		mknod -m 600 "$node" b "$maj" "$min"
		mount -t tmpfs -o mode=0755 dutlab-test-run /run
		mkdir -p /run/udev/rules.d
		cp "$rules" /run/udev/rules.d/
		set +e
		udevadm test --action="$action" "$sysdev" 2>&1
		echo "udevadm exit status $?"
		echo "STATE link=$(readlink "/dev/dut/$name") perm=$(stat -c %G:%a "$node")"
	' bash "$WORK/61-dutlab-test.rules" "$1" "$SYSDEV" "$LOOP" "$MAJ" "$MIN" "$NAME" >"$WORK/out" 2>&1
}
has() { grep -qF -- "$1" "$WORK/out"; }
expect() { has "$1" || { cat "$WORK/out"; fail "$2: udevadm test output lacks \"$1\""; }; }
expect_not() { ! has "$1" || { cat "$WORK/out"; fail "$2: udevadm test output has \"$1\""; }; }

# 1. The image is listed: link, group, mode and scheduler.
printf '# test\nname=other serial=NOT-THIS-ONE\nname=%s loop_backing="%s"\n' "$NAME" "$BACKING" >"$CONF"
set_sched
udevadm_test add
expect "udevadm exit status 0" "listed"
expect "DUT_NAME=$NAME" "listed"
expect "LINK 'dut/$NAME'" "listed"
grep -q "^DEVLINKS=.*/dev/dut/$NAME\( \|\$\)" "$WORK/out" || { cat "$WORK/out"; fail "listed: DEVLINKS lacks /dev/dut/$NAME"; }
expect "61-dutlab-test.rules:" "listed"
grep -q "61-dutlab-test.rules:[0-9]* GROUP $GID\$" "$WORK/out" || { cat "$WORK/out"; fail "listed: no GROUP $GID (dutlab) from the rule"; }
grep -q "61-dutlab-test.rules:[0-9]* MODE 0660\$" "$WORK/out" || { cat "$WORK/out"; fail "listed: no MODE 0660 from the rule"; }
expect "ATTR '$SYSDEV/queue/scheduler' writing 'none'" "listed"
# systemd 252 applies what it computes: check the effect too when it says so.
if has "Setting permissions $LOOP,"; then
	expect "Setting permissions $LOOP, uid=0, gid=$GID, mode=0660" "listed"
	expect "STATE link=../$KNAME perm=dutlab:660" "listed"
	[ "$(sched_now)" = none ] || fail "listed: scheduler is $(sched_now) after the rule, want none"
	applied=applied
else
	applied="computed (this udevadm does not apply them)"
fi
echo "listed: /dev/dut/$NAME, dutlab 0660, scheduler none $applied"

# 2. Not listed: nothing of ours; the default block rules still apply.
printf 'name=%s loop_backing=%s.other\n' "$NAME" "$BACKING" >"$CONF"
set_sched
udevadm_test add
expect "udevadm exit status 0" "unlisted"
expect_not "DUT_NAME=" "unlisted"
expect_not "dut/$NAME" "unlisted"
expect_not "MODE 0660" "unlisted"
expect_not "writing 'none'" "unlisted"
expect "STATE link= perm=disk:660" "unlisted"
[ -z "$OTHER_SCHED" ] || [ "$(sched_now)" = "$OTHER_SCHED" ] || fail "unlisted: scheduler changed to $(sched_now)"
echo "unlisted: untouched"

# 3. No config file: no match, and the helper succeeds quietly.
rm -f "$CONF"
udevadm_test add
expect_not "DUT_NAME=" "no config"
expect_not "dut/$NAME" "no config"
expect_not "failed with exit code" "no config"
echo "no config: untouched"

# 4. A bad line: the helper's message names file:line, nothing is marked.
printf 'name=%s loop_backing=%s\nname=x colour=blue\n' "$NAME" "$BACKING" >"$CONF"
udevadm_test add
expect "devices.conf:2: unknown key" "bad config"
expect "failed with exit code 1" "bad config"
expect_not "DUT_NAME=" "bad config"
expect_not "dut/$NAME" "bad config"
echo "bad config: refused, message logged"

# 5. Remove events are skipped by the guard: the helper does not run.
printf 'name=%s loop_backing=%s\n' "$NAME" "$BACKING" >"$CONF"
udevadm_test remove
expect "udevadm exit status 0" "remove"
expect_not "$HELPER" "remove"
expect_not "dut/$NAME" "remove"
echo "remove: helper not run"
echo "PASS"
