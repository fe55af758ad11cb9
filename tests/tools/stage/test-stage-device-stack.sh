#!/bin/bash
# A device target under a mounted stack (issue #27, finding 2): with a
# filesystem mounted on /dev/loopB over /dev/loopA, a device target on
# loopA is refused by the stage (check and prepare), by `dutlab run
# --dry-run` and by `dutlab run --yes`, naming the stack; the mounted
# filesystem survives.  Then, with nothing stacked, the same target is used.
#   test-stage-device-stack.sh STAGE_DRIVER DUTLAB
# Root only (loop devices, mkfs, mount): exit 77 with the reason otherwise.
set -u

driver=${1:?usage: test-stage-device-stack.sh STAGE_DRIVER DUTLAB}
dutlab=${2:?usage: test-stage-device-stack.sh STAGE_DRIVER DUTLAB}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (loop devices, mkfs, mount)"
[ -e /dev/loop-control ] || skip "no /dev/loop-control (kernel without loop devices)"
export PATH=$PATH:/usr/sbin:/sbin
for p in mkfs.ext4 losetup; do command -v $p >/dev/null || skip "$p is not installed"; done

work=$(mktemp -d /tmp/dutlab-device-stack.XXXXXX) || exit 99
chmod 755 "$work"
loops=()        # upper ones first
cleanup() {
	awk -v w="$work" 'index($5, w) == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fails=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mnt="$work/mnt"

truncate -s 160M "$work/a.img"
A=$(losetup -f --show "$work/a.img") || exit 99
loops=("$A")
B=$(losetup -f --show "$A") || exit 99
loops=("$B" "$A")
mkfs.ext4 -q -F "$B" && mkdir -p "$work/m" && mount "$B" "$work/m" || { echo "harness: mount $B"; exit 99; }
echo keep >"$work/m/file" && sync
survived() { [ "$(cat "$work/m/file" 2>/dev/null)" = keep ] || fail "$1: the filesystem on $B changed"; }

for cmd in check cycle; do
	out=$("$driver" $cmd --type device --path "$A" --destructive --fs ext4-ordered --mnt-root "$mnt")
	grep -q "refused: EBUSY: .*$B (a loop device over $A) is mounted at $work/m (ext4)" <<<"$out" &&
		pass "stage $cmd: device under a mounted loop refused, naming the stack" || fail "stage $cmd: $out"
	survived "stage $cmd"
done

cat >"$work/dev.ini" <<INI
[experiment]
name = device-stack
[target dev]
type = device
path = $A
destructive = yes
filesystem = ext4-ordered
[step id]
type = identify
INI
out=$("$dutlab" run "$work/dev.ini" --dry-run --out "$work/run-dry" 2>&1)
rc=$?
if [ "$rc" -eq 1 ] && grep -q "cannot run: .*$B (a loop device over $A) is mounted at" <<<"$out" && ! grep -q 'checks passed' <<<"$out"; then
	pass "dutlab run --dry-run: device under a mounted loop refused"
else
	fail "dutlab run --dry-run: exit $rc: $out"
fi
out=$("$dutlab" run "$work/dev.ini" --yes --out "$work/run-real" 2>&1)
rc=$?
[ $rc -ne 0 ] && grep -q "$B (a loop device over $A) is mounted at" <<<"$out" &&
	pass "dutlab run: device under a mounted loop refused" || fail "dutlab run: exit $rc: $(tail -5 <<<"$out")"
survived "dutlab run"

umount "$work/m"
losetup -d "$B"
loops=("$A")
out=$("$driver" cycle --type device --path "$A" --destructive --fs ext4-ordered --mnt-root "$mnt")
grep -q '^teardown=ok' <<<"$out" && pass "with nothing stacked the device is staged" || fail "free device: $out"

echo "$fails failure(s)"
[ $fails -eq 0 ]
