#!/bin/bash
# dutprobe identify on a directory and a file of a file system mounted from a
# loop device over an image file: the target is known by the disk that holds
# the image (walked through the loop device, with a note saying so), not
# refused; a loop device named itself stays the loop device.  Root only.
DUTPROBE=$1
. "$(dirname "$0")/probe-test-lib.sh"
need_root
need_jq
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 (e2fsprogs) is not installed"

L=$(new_loop 64M) || fail "cannot set up a loop device"
LOOPS+=("$L")
mkfs.ext4 -q "$L" || fail "mkfs.ext4 $L"
mkdir -p "$WORK/mnt"
mount "$L" "$WORK/mnt" || fail "mount $L"
MOUNTS+=("$WORK/mnt")
echo data >"$WORK/mnt/file"
# the disk that holds the image file (the backing file lives in $WORK)
disk=$(lsblk -no PKNAME "$(df --output=source "$WORK" | tail -1)" 2>/dev/null)
[ -n "$disk" ] || disk=$(basename "$(df --output=source "$WORK" | tail -1)")

for t in "$WORK/mnt" "$WORK/mnt/file"; do
	run 0 "$DUTPROBE" identify "$t" --json "$WORK/id.json"
	json_check "$WORK/id.json" '(.target.kind == "directory" or .target.kind == "file") and (.target.through | startswith("'"$(basename "$L")"' (over '"$WORK"'/img."))' "identify $t: through the loop device"
	json_check "$WORK/id.json" '.target.block_device.name == "'"$disk"'" or .target.block_device.disk == "'"$disk"'"' "identify $t: the disk $disk that holds the image"
	run 0 "$DUTPROBE" identify "$t"
	expect_msg "is a loop device over $WORK/img."
done
run 0 "$DUTPROBE" identify "$L" --json "$WORK/id.json"
json_check "$WORK/id.json" '.target.block_device.loop.backing_file | startswith("'"$WORK"'/img.")' "identify $L: the loop device itself"
echo "PASS"
