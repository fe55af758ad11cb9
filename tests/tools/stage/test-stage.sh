#!/bin/bash
# Integration test of target staging (tools/run/stage) through stage-driver:
# images on loop devices with ext4 (ordered, journal), xfs and btrfs, a
# directory, an image with filesystem none, a loop device standing in for a
# block device; and the refusals (mounted, attached, no destructive flag,
# not enough space) and the undo of a failed prepare.
#   test-stage.sh STAGE_DRIVER
# Root only (loop devices, mkfs, mount): exit 77 with the reason otherwise.
set -u

driver=${1:?usage: test-stage.sh STAGE_DRIVER}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (loop devices, mkfs, mount)"
[ -e /dev/loop-control ] || skip "no /dev/loop-control (kernel without loop devices)"
for p in mkfs.ext4 mkfs.xfs mkfs.btrfs losetup; do
	PATH=$PATH:/usr/sbin:/sbin command -v $p >/dev/null || skip "$p is not installed (tools/setup installs it)"
done
export PATH=$PATH:/usr/sbin:/sbin

work=$(mktemp -d /var/tmp/dutlab-stage.XXXXXX) || exit 99
my_loops=()
cleanup() {
	# everything mounted under the work directory, deepest first
	awk -v w="$work" '$5 ~ "^"w {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	for l in "${my_loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	for f in "$work"/*.img "$work"/small/*.img; do
		[ -e "$f" ] || continue
		for l in $(losetup -j "$f" -O NAME -n 2>/dev/null); do losetup -d "$l"; done
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fails=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
MiB=$((1 << 20))
mnt="$work/mnt"

# nothing of ours mounted under $work/mnt, and no loop device on image $1
assert_clean() {
	local what=$1 img=${2:-}
	if grep -q " $mnt/" /proc/self/mountinfo; then fail "$what: still mounted: $(grep " $mnt/" /proc/self/mountinfo)"; fi
	if [ -n "$img" ] && [ -n "$(losetup -j "$img")" ]; then fail "$what: loop still attached: $(losetup -j "$img")"; fi
	if [ -d "$mnt" ] && [ -n "$(ls -A "$mnt")" ]; then fail "$what: mountpoint left behind: $(ls -A "$mnt")"; fi
}

# cycle NAME FS SIZE_MIB [want-in-mount-line]: prepare, write, teardown; twice (the
# second prepare reuses the image the first created)
cycle_image() {
	local fs=$1 size=$(($2 * MiB)) want=$3 img="$work/$1.img" out
	for round in 1 2; do
		out=$("$driver" cycle --type image --path "$img" --size $size --fs "$fs" --mnt-root "$mnt" \
			--need $((8 * MiB)))
		local rc=$?
		if [ $rc -ne 0 ]; then fail "$fs round $round: exit $rc: $out"; return; fi
		grep -q '^wrote=' <<<"$out" || fail "$fs round $round: nothing written: $out"
		grep -q '^teardown=ok' <<<"$out" || fail "$fs round $round: teardown: $out"
		grep -q '^device=/dev/loop' <<<"$out" || fail "$fs round $round: no loop device: $out"
		grep '^mount=' <<<"$out" | grep -q -- "$want" || fail "$fs round $round: mount line lacks '$want': $out"
		assert_clean "$fs round $round" "$img"
	done
	[ "$(stat -c %s "$img")" -eq $size ] || fail "$fs: image is $(stat -c %s "$img") bytes, want $size"
	[ $fails -eq 0 ] && pass "$fs: prepare, write+fsync, teardown, twice on $img ($2 MiB)"
}

cycle_image ext4-ordered 160 ' - ext4 .*data=ordered'
cycle_image ext4-journal 160 ' - ext4 .*data=journal'
cycle_image xfs 320 ' - xfs '
cycle_image btrfs 160 ' - btrfs '

# remove-created-image: the image the stage created goes at teardown
out=$("$driver" cycle --type image --path "$work/gone.img" --size $((160 * MiB)) --fs ext4-ordered \
	--mnt-root "$mnt" --remove-created-image)
if [ $? -eq 0 ] && [ ! -e "$work/gone.img" ]; then pass "remove-created-image removes the image it created"
else fail "remove-created-image: $out; $(ls -l "$work/gone.img" 2>&1)"; fi
# ... but never one the user had
out=$("$driver" cycle --type image --path "$work/ext4-ordered.img" --size $((160 * MiB)) --fs ext4-ordered \
	--mnt-root "$mnt" --remove-created-image)
if [ $? -eq 0 ] && [ -e "$work/ext4-ordered.img" ]; then pass "remove-created-image keeps the user's image"
else fail "remove-created-image deleted a user's image: $out"; fi

# a busy filesystem: teardown gives up after its retries and says what to do;
# the loop device then detaches by itself at the user's umount (autoclear)
out=$("$driver" cycle --type image --path "$work/busy.img" --size $((64 * MiB)) --fs ext4-ordered \
	--mnt-root "$mnt" --busy)
busy_mnt=$(sed -n 's/^dir=//p' <<<"$out")
if grep -q "^teardown failed: EBUSY: cannot unmount $busy_mnt .*umount $busy_mnt" <<<"$out" &&
   grep -q " $busy_mnt " /proc/self/mountinfo; then
	umount "$busy_mnt" && rmdir "$busy_mnt"
	for i in $(seq 30); do [ -z "$(losetup -j "$work/busy.img")" ] && break; sleep 0.1; done
	[ -z "$(losetup -j "$work/busy.img")" ] && pass "busy teardown: EBUSY with the mountpoint; loop gone after umount" ||
		fail "busy teardown: loop still attached after umount: $(losetup -j "$work/busy.img")"
else
	fail "busy teardown: $out"
fi
assert_clean "busy" "$work/busy.img"

# directory target (filesystem none)
out=$("$driver" cycle --type directory --path "$work/dir/a/b" --fs none)
if [ $? -eq 0 ] && [ -f "$work/dir/a/b/stage-test.dat" ]; then pass "directory: mkdir -p and used as is"
else fail "directory: $out"; fi
out=$("$driver" check --type directory --path "$work/dir" --fs ext4-ordered --mnt-root "$mnt")
grep -q 'refused: EINVAL: .*is a directory' <<<"$out" && pass "directory with a filesystem: refused" ||
	fail "directory with a filesystem: $out"

# image, filesystem none: a raw loop device, detached afterwards
out=$("$driver" cycle --type image --path "$work/raw.img" --size $((64 * MiB)) --fs none)
if [ $? -eq 0 ] && grep -q '^device=/dev/loop' <<<"$out" && grep -q '^dir=$' <<<"$out"; then
	pass "image with filesystem none: a loop device, no directory"
else fail "image with filesystem none: $out"; fi
assert_clean "raw image" "$work/raw.img"

# a loop device of our own stands in for a block device
truncate -s $((160 * MiB)) "$work/dev.img"
dev=$(losetup -f --show "$work/dev.img") || { fail "losetup"; exit 1; }
my_loops+=("$dev")
out=$("$driver" check --type device --path "$dev" --fs ext4-ordered --mnt-root "$mnt")
grep -q 'refused: EPERM: .*destructive = yes' <<<"$out" && pass "device without destructive: refused" ||
	fail "device without destructive: $out"
out=$("$driver" check --type image --path "$work/dev.img" --size $((160 * MiB)) --fs ext4-ordered --mnt-root "$mnt")
grep -q "refused: EBUSY: .*attached to $dev" <<<"$out" && pass "image attached to a loop device: refused" ||
	fail "attached image: $out"
out=$("$driver" cycle --type device --path "$dev" --destructive --fs xfs --mnt-root "$mnt")
grep -q 'refused: ENOSPC: .*xfs needs at least 300 MiB' <<<"$out" && pass "device too small for xfs: refused" ||
	fail "small device for xfs: $out"
out=$("$driver" cycle --type device --path "$dev" --destructive --fs ext4-writeback --mnt-root "$mnt" \
	--mount-options noatime,commit=30)
if [ $? -eq 0 ] && grep -q '^mount=.* rw,nosuid,nodev,noatime.* - ext4 .*commit=30,data=writeback' <<<"$out" &&
   grep -q "^mkfs=.*mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $dev\$" <<<"$out" &&
   grep -q '^mount_options=data=writeback,noatime,commit=30$' <<<"$out"; then
	pass "device with destructive = yes: mkfs, mount (nosuid,nodev), write, teardown"
else fail "device cycle: $out"; fi
assert_clean "device cycle"
for fs in ext4 btrfs; do
	mkfs.$fs -q -F "$dev" >/dev/null 2>&1 || mkfs.$fs -q -f "$dev" >/dev/null 2>&1
	mkdir -p "$work/m-$fs" && mount "$dev" "$work/m-$fs" || { fail "mount $fs by hand"; continue; }
	out=$("$driver" check --type device --path "$dev" --destructive --fs ext4-ordered --mnt-root "$mnt")
	grep -q "refused: EBUSY: .*mounted at $work/m-$fs" <<<"$out" && pass "mounted $fs device: refused" ||
		fail "mounted $fs device: $out"
	umount "$work/m-$fs"
done
# a partition mounted with btrfs (0:N in mountinfo): found by its /dev name.
# One MBR entry by hand (no sfdisk needed): type 0x83, LBA 2048, 407552 sectors.
truncate -s $((200 * MiB)) "$work/part.img"
printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\x38\x06\x00' |
	dd of="$work/part.img" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$work/part.img" bs=1 seek=510 conv=notrunc status=none
pdev=$(losetup -f -P --show "$work/part.img") && my_loops+=("$pdev")
for i in $(seq 20); do [ -b "${pdev}p1" ] && break; sleep 0.1; done
if [ ! -b "${pdev}p1" ]; then
	# e.g. a kernel without CONFIG_MSDOS_PARTITION (the test machines' kernel)
	echo "note: the kernel made no partition of $pdev; partition case not run"
elif mkfs.btrfs -q -f "${pdev}p1" >/dev/null 2>&1 && mkdir -p "$work/m-part" &&
   mount "${pdev}p1" "$work/m-part"; then
	out=$("$driver" check --type device --path "$pdev" --destructive --fs ext4-ordered --mnt-root "$mnt")
	grep -q "refused: EBUSY: .*its partition ${pdev}p1 is mounted at $work/m-part (btrfs)" <<<"$out" &&
		pass "device with a btrfs-mounted partition: refused, naming it" || fail "mounted partition: $out"
	umount "$work/m-part"
else
	fail "could not set up a partitioned loop device with btrfs (${pdev:-none})"
fi
out=$("$driver" check --type device --path "$work/dev.img" --destructive --fs ext4-ordered --mnt-root "$mnt")
grep -q 'refused: ENOTBLK' <<<"$out" && pass "a regular file as a device: refused" || fail "file as device: $out"

# not enough space: a 64 MiB tmpfs
mkdir -p "$work/small" && mount -t tmpfs -o size=64m tmpfs "$work/small" || { fail "tmpfs"; exit 1; }
out=$("$driver" check --type image --path "$work/small/big.img" --size $((128 * MiB)) --fs ext4-ordered --mnt-root "$mnt")
grep -q "refused: ENOSPC: .*needs 128 MiB in $work/small, which has only 64 MiB free" <<<"$out" &&
	pass "image larger than its filesystem's free space: refused" || fail "image space: $out"
[ ! -e "$work/small/big.img" ] || fail "check created the image"
out=$("$driver" check --type directory --path "$work/small/d" --need $((100 * MiB)))
grep -q "refused: ENOSPC: .*has only 64 MiB free" <<<"$out" && pass "directory need > free: refused" ||
	fail "directory space: $out"
out=$("$driver" check --type image --path "$work/x.img" --size $((160 * MiB)) --fs ext4-ordered \
	--mnt-root "$mnt" --need $((200 * MiB)))
grep -q "refused: ENOSPC: .*the image is only 160 MiB" <<<"$out" && pass "need > image size: refused" ||
	fail "need > image: $out"
out=$("$driver" cycle --type image --path "$work/x.img" --size $((160 * MiB)) --fs ext4-ordered \
	--mnt-root "$mnt" --need $((158 * MiB)))
grep -q "refused: ENOSPC: .*the new ext4-ordered on /dev/loop[0-9]* has .* free" <<<"$out" &&
	pass "need > free space after mkfs: refused and undone" || fail "need after mkfs: $out"
[ ! -e "$work/x.img" ] || fail "the image created by a failed prepare is still there"
assert_clean "need after mkfs" "$work/x.img"

# a failed mkfs undoes everything: a created image goes, an extended one shrinks back
out=$("$driver" cycle --type image --path "$work/bad.img" --size $((160 * MiB)) --fs ext4-ordered \
	--mkfs-options "-O no_such_feature" --mnt-root "$mnt")
grep -q 'refused: EIO: .*mkfs.ext4 .*failed (exit status' <<<"$out" && [ ! -e "$work/bad.img" ] &&
	pass "failed mkfs: refused with its output, created image removed" || fail "failed mkfs: $out"
truncate -s $((100 * MiB)) "$work/user.img"
out=$("$driver" cycle --type image --path "$work/user.img" --size $((160 * MiB)) --fs ext4-ordered \
	--mkfs-options "-O no_such_feature" --mnt-root "$mnt")
[ "$(stat -c %s "$work/user.img")" -eq $((100 * MiB)) ] && pass "failed prepare: the user's image is back to its size" ||
	fail "user image size after a failed prepare: $(stat -c %s "$work/user.img") ($out)"
assert_clean "failed mkfs" "$work/user.img"
out=$("$driver" check --type image --path "$work/q.img" --size $((160 * MiB)) --fs xfs \
	--mkfs-options "-L 'a b'" --mnt-root "$mnt")
grep -q 'refused: EINVAL: .*quotes' <<<"$out" && pass "quoted mkfs-options: refused" || fail "quotes: $out"
out=$("$driver" check --type image --path "$work/q.img" --size $((160 * MiB)) --fs ext4-journal \
	--mount-options "noatime,data=ordered" --mnt-root "$mnt")
grep -q 'refused: EINVAL: .*data=ordered' <<<"$out" && pass "data= in mount-options: refused" || fail "data=: $out"

# a missing mkfs names its Debian package (the search path narrowed by the test seam)
for pair in ext4-ordered:e2fsprogs xfs:xfsprogs btrfs:btrfs-progs; do
	out=$(DUT_STAGE_PROGRAM_PATH=$work/no-such-dir "$driver" check --type image --path "$work/m.img" \
		--size $((320 * MiB)) --fs "${pair%%:*}" --mnt-root "$mnt")
	grep -q "refused: ENOENT: .*apt-get install ${pair#*:}" <<<"$out" &&
		pass "missing mkfs for ${pair%%:*}: refused, naming ${pair#*:}" || fail "missing mkfs: $out"
done

echo "$fails failure(s)"
[ $fails -eq 0 ]
