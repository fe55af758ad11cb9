#!/bin/bash
# Stacked block devices (issue #27, finding 2): a loop device takes no
# holder or exclusive claim on the device it is backed by, so a filesystem
# mounted on /dev/loopB over /dev/loopA did not stop
# `dutprobe --destructive --force /dev/loopA`.  Now the stack is walked:
# a mounted loop over the device (also through another, deleted node of
# it), a mounted device under a loop target, a mounted loop over a
# partition, and a loop over the device held by another writer: all are
# refused, naming the stack, and the mounted filesystems survive.  Root only.
DUTPROBE=$1
. "$(dirname "$0")/probe-test-lib.sh"
need_root
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 (e2fsprogs) is not installed"

M=$WORK/mnt
mkdir -p "$M"
# umount first, then detach (the cleanup of the lib detaches in order: upper loops first)
mount_keep() { # DEV: mkfs, mount on $M, write a file
	mkfs.ext4 -q -F "$1" || fail "mkfs.ext4 $1"
	mount "$1" "$M" || fail "mount $1"
	MOUNTS+=("$M")
	echo keep >"$M/file" && sync
}
unmount_check() {
	[ "$(cat "$M/file")" = keep ] || fail "the mounted filesystem changed"
	umount "$M" || fail "umount $M"
	MOUNTS=()
}

A=$(new_loop 64M) || fail "cannot set up a loop device"
# loop over loop: B's backing file is A's device node
B=$(losetup -f --show "$A") || fail "losetup over $A"
LOOPS=("$B" "$A")
mount_keep "$B"
run 1 "$DUTPROBE" trim "$A" --destructive --force
expect_msg "$B (a loop device over $A) is mounted at $M (ext4); refusing to write"
run 1 "$DUTPROBE" bench "$A" --quick --destructive --force --rows "RND4K W"
expect_msg "$B (a loop device over $A) is mounted at $M"
# the reverse: writing B would write A's blocks too (here A is free, B mounted: B itself)
unmount_check

# B mounted is under nothing; now A mounted and B over it: writing B writes A's blocks
mount_keep "$A"
run 1 "$DUTPROBE" trim "$B" --destructive --force
expect_msg "$A (the backing device of $B) is mounted at $M (ext4)"
unmount_check
losetup -d "$B"
LOOPS=("$A")

# the backing node is another node of A, deleted before the mount: lo_rdevice still tells
mknod "$WORK/node" b "$((0x$(stat -c %t "$A")))" "$((0x$(stat -c %T "$A")))" || fail "mknod"
C=$(losetup -f --show "$WORK/node") || fail "losetup over $WORK/node"
LOOPS=("$C" "$A")
rm "$WORK/node"
grep -q '(deleted)' "/sys/block/${C#/dev/}/loop/backing_file" || fail "the backing node is not shown deleted"
mount_keep "$C"
run 1 "$DUTPROBE" trim "$A" --destructive --force
expect_msg "$C (a loop device over $A) is mounted at $M"
unmount_check

# held open exclusively by a writer on the loop over A (a dutprobe bench on C)
"$DUTPROBE" bench "$C" --destructive --force --rows "RND4K Q1 W" --time 60s --warmup 0 --reps 1 >/dev/null 2>&1 &
HOLDER=$!
PIDS+=("$HOLDER")
for ((i = 0; i < 50; i++)); do
	[ -n "$(find /proc/$HOLDER/fd -lname "$C" 2>/dev/null)" ] && break
	sleep 0.1
done
sleep 0.3
run 1 "$DUTPROBE" trim "$A" --destructive --force
kill -INT "$HOLDER"
wait "$HOLDER"
PIDS=()
expect_msg "$C (a loop device over $A) is held open exclusively by another program"
losetup -d "$C"
LOOPS=("$A")

# nothing stacked any more: allowed
run 0 "$DUTPROBE" trim "$A" --destructive --force
expect_msg "discarded"

# a loop over a partition of the device, mounted: refused on the whole device.
img=$WORK/parted.img
truncate -s 64M "$img" || fail "truncate"
printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\xa0\x00\x00' |
	dd of="$img" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$img" bs=1 seek=510 conv=notrunc status=none
P=$(losetup --direct-io=on -P -f --show "$img") || fail "losetup -P"
LOOPS=("$P" "$A")
udevadm settle 2>/dev/null
if [ ! -b "${P}p1" ] && command -v partx >/dev/null; then
	partx -a "$P" 2>/dev/null
	udevadm settle 2>/dev/null
fi
[ -b "${P}p1" ] || fail "no partition device ${P}p1 after losetup -P and partx -a"
D=$(losetup -f --show "${P}p1") || fail "losetup over ${P}p1"
LOOPS=("$D" "$P" "$A")
mount_keep "$D"
run 1 "$DUTPROBE" trim "$P" --destructive --force
expect_msg "$D (a loop device over ${P}p1, a partition of $P) is mounted at $M"
unmount_check
echo "PASS"
