#!/bin/bash
# dutprobe on loop devices (direct I/O): every test, the --destructive rule,
# the signature refusal and --force, the mounted-device refusal, and a block
# size that is not a multiple of the logical block size.  Root only.
DUTPROBE=$1
. "$(dirname "$0")/probe-test-lib.sh"
need_root
need_jq
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 (e2fsprogs) is not installed"

L=$(new_loop 128M) || fail "cannot set up a loop device"
LOOPS+=("$L")

# identify on a direct-I/O loop device: the backing file, and no link.
run 0 "$DUTPROBE" identify "$L" --json "$WORK/identify.json"
json_check "$WORK/identify.json" '.target.block_device.loop.direct_io == true and (.target.block_device.loop.backing_file | startswith("'"$WORK"'/img.")) and .target.link.kind == "none"' "identify: loop device"
run 0 "$DUTPROBE" identify "$L"
expect_msg "loop device over $WORK/img."

# Writing without --destructive is refused and nothing is written.
dd if=/dev/urandom of="$WORK/mark" bs=4096 count=1 status=none
dd if="$WORK/mark" of="$L" bs=4096 count=1 oflag=direct status=none
for cmd in "bench --quick --rows SEQ1M_Q8_W" "slc --quick" "fill --quick" "trim"; do
	run 1 "$DUTPROBE" $cmd "$L"
	expect_msg "add --destructive"
done
cmp -s -n 4096 "$WORK/mark" "$L" || fail "a refused command changed the device"
# Reads need no flag.
run 0 "$DUTPROBE" bench "$L" --quick --read-only --rows "RND4K Q8 R" --reps 1

# Every test with --destructive.
run 0 "$DUTPROBE" bench "$L" --quick --destructive --json "$WORK/bench.json"
json_check "$WORK/bench.json" '.target.kind == "block device" and (.phases | length) == 6' "bench on loop"
run 0 "$DUTPROBE" slc "$L" --quick --destructive --span 64M --window 4M
expect_msg "span discarded first"
run 0 "$DUTPROBE" fill "$L" --quick --destructive --span 32M --levels 50%,100% --qd 2 --max-rounds 5
run 0 "$DUTPROBE" trim "$L" --destructive --offset 4M --length 4M
expect_msg "with BLKDISCARD"

# Held open exclusively by another program (here a writing dutprobe, which
# opens with O_EXCL): refused even with --force; the holder is stopped by SIGINT.
"$DUTPROBE" bench "$L" --destructive --rows "RND4K Q1 W" --time 60s --warmup 0 --reps 1 >/dev/null 2>&1 &
HOLDER=$!
PIDS+=("$HOLDER")
for ((i = 0; i < 50; i++)); do
	[ -n "$(find /proc/$HOLDER/fd -lname "$L" 2>/dev/null)" ] && break
	sleep 0.1
done
sleep 0.3
run 1 "$DUTPROBE" trim "$L" --destructive --force
kill -INT "$HOLDER"
wait "$HOLDER"
PIDS=()
expect_msg "is held open exclusively by another program; refusing to write"

# A filesystem signature: refused, then allowed with --force.
mkfs.ext4 -q -F "$L" || fail "mkfs.ext4"
run 1 "$DUTPROBE" trim "$L" --destructive
expect_msg "ext2/3/4 filesystem (signature at byte 1080); refusing to write (add --force"
run 0 "$DUTPROBE" trim "$L" --destructive --force
expect_msg "discarded"

# Mounted: refused even with --force, and the message names the mount point.
mkfs.ext4 -q -F "$L" || fail "mkfs.ext4"
M=$WORK/mnt
mkdir "$M" && mount "$L" "$M" || fail "mount"
MOUNTS+=("$M")
echo keep > "$M/file" && sync
run 1 "$DUTPROBE" slc "$L" --quick --destructive
expect_msg "is mounted at $M (ext4); refusing to write"
run 1 "$DUTPROBE" bench "$L" --quick --destructive --force --rows "RND4K W"
expect_msg "is mounted at $M"
umount "$M"
MOUNTS=()
# The filesystem survived the refusals.
mount -o ro "$L" "$M" && MOUNTS+=("$M") || fail "mount after refusals"
[ "$(cat "$M/file")" = keep ] || fail "file on the refused device changed"
umount "$M"
MOUNTS=()

# A partition table on a whole device: refused (signature); a mounted partition
# of it: refused even with --force.
img=$WORK/parted.img
truncate -s 64M "$img" || fail "truncate"
# One MBR entry by hand (no fdisk needed): type 0x83, LBA 2048, 40960 sectors.
printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\xa0\x00\x00' |
	dd of="$img" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$img" bs=1 seek=510 conv=notrunc status=none
P=$(losetup --direct-io=on -P -f --show "$img") || fail "losetup -P"
LOOPS+=("$P")
run 1 "$DUTPROBE" trim "$P" --destructive
expect_msg "MBR partition table"
udevadm settle 2>/dev/null
# Kernels without MSDOS partition parsing (this CI's) make no p1 from -P;
# partx reads the table in user space and adds the partition with BLKPG.
if [ ! -b "${P}p1" ] && command -v partx >/dev/null; then
	partx -a "$P" 2>/dev/null
	udevadm settle 2>/dev/null
fi
if [ -b "${P}p1" ]; then
	mkfs.ext4 -q -F "${P}p1" && mount "${P}p1" "$M" && MOUNTS+=("$M") || fail "mount ${P}p1"
	run 1 "$DUTPROBE" trim "$P" --destructive --force
	expect_msg "its partition /dev/$(basename "$P")p1 is mounted at $M"
	umount "$M"
	MOUNTS=()
else
	fail "no partition device ${P}p1 after losetup -P and partx -a: mounted-partition check cannot run"
fi

# --size larger than the device, and a span past its end: refused before any I/O.
run 2 "$DUTPROBE" bench "$L" --size 1G --quick --read-only
expect_msg "--size 1 GiB is larger than $L (128 MiB)"
run 2 "$DUTPROBE" bench "$L" --quick --read-only --span 256M
expect_msg "reach past the end of $L"

# Logical block size 4096: a 2 KiB row is refused before any I/O.
L4=$(new_loop 32M 4096) || fail "cannot set up a 4 KiB-sector loop device"
LOOPS+=("$L4")
run 2 "$DUTPROBE" bench "$L4" --quick --rows "RND2K Q1 R"
expect_msg "block size 2048 bytes is not a multiple of the logical block size 4096"
run 0 "$DUTPROBE" bench "$L4" --quick --rows "RND4K Q1 R" --reps 1
echo "PASS"
