#!/bin/bash
# Image targets are only files dutlab made or blank ones, never reached
# through a symbolic link (issue #27, finding 1): a link planted by an
# unprivileged user in a directory it owns must not make `dutlab run` (nor
# its --dry-run) extend, attach or format the root file it points at; a
# file with a filesystem or other data not made by dutlab is refused; a
# hard link, a FIFO are refused; an image the stage made is reused.
#   test-stage-image-safety.sh STAGE_DRIVER DUTLAB
# Root only (loop devices, mkfs): exit 77 with the reason otherwise.
set -u

driver=${1:?usage: test-stage-image-safety.sh STAGE_DRIVER DUTLAB}
dutlab=${2:?usage: test-stage-image-safety.sh STAGE_DRIVER DUTLAB}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (loop devices, mkfs, mount)"
[ -e /dev/loop-control ] || skip "no /dev/loop-control (kernel without loop devices)"
export PATH=$PATH:/usr/sbin:/sbin
for p in mkfs.ext4 losetup setpriv sha256sum; do
	command -v $p >/dev/null || skip "$p is not installed"
done
id nobody >/dev/null 2>&1 || skip "no user nobody"

work=$(mktemp -d /tmp/dutlab-image-safety.XXXXXX) || exit 99
chmod 755 "$work"
cleanup() {
	awk -v w="$work" 'index($5, w) == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	find "$work" -type f 2>/dev/null | while read -r f; do
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

# A root file the attacker wants destroyed, and a directory the attacker (nobody) owns.
mkdir -p "$work/etc" "$work/shared"
printf 'root-only=secret\n' >"$work/etc/victim.conf"
chmod 600 "$work/etc/victim.conf"
chown nobody "$work/shared"
fingerprint() { echo "$(stat -c '%s %Y' "$1") $(sha256sum <"$1")"; }
victim_before=$(fingerprint "$work/etc/victim.conf")
victim_ok() { # WHAT
	local now
	now=$(fingerprint "$work/etc/victim.conf")
	[ "$now" = "$victim_before" ] || fail "$1: the victim changed: $victim_before -> $now"
	[ -z "$(losetup -j "$work/etc/victim.conf")" ] || fail "$1: the victim is attached: $(losetup -j "$work/etc/victim.conf")"
}
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

as_nobody ln -s "$work/etc/victim.conf" "$work/shared/disk.img" || { echo "harness: ln as nobody"; exit 99; }

# --- the stage API: check (the dry-run's call) and prepare
out=$("$driver" check --type image --path "$work/shared/disk.img" --size $((64 * MiB)) --fs ext4-ordered \
	--mnt-root "$mnt")
grep -q 'refused: ELOOP: .*disk.img is a symbolic link' <<<"$out" && pass "check: image that is a symlink refused" ||
	fail "check of a symlink image: $out"
out=$("$driver" cycle --type image --path "$work/shared/disk.img" --size $((64 * MiB)) --fs ext4-ordered \
	--mnt-root "$mnt")
grep -q 'refused: ELOOP: .*disk.img is a symbolic link' <<<"$out" && pass "prepare: image that is a symlink refused" ||
	fail "prepare of a symlink image: $out"
victim_ok "symlink image (stage)"

# a link further up the path
as_nobody ln -s "$work/etc" "$work/shared/up" || exit 99
out=$("$driver" cycle --type image --path "$work/shared/up/victim.conf" --size $((64 * MiB)) --fs none)
grep -q 'refused: ELOOP: .*"up" on the way is a symbolic link' <<<"$out" &&
	pass "prepare: a symlinked directory in the path refused" || fail "symlinked directory: $out"
victim_ok "symlinked directory"

# --- dutlab run and its --dry-run on the same experiment (no PostgreSQL: a raw identify)
cat >"$work/shared.ini" <<INI
[experiment]
name = image-safety
[target disk]
type = image
path = shared/disk.img
size = 64M
[step id]
type = identify
raw = yes
INI
out=$("$dutlab" run "$work/shared.ini" --dry-run --out "$work/run-dry" 2>&1)
rc=$?
# (--dry-run exits 1 when the run would be refused, as the run does)
if [ "$rc" -eq 1 ] && grep -q 'cannot run: .*disk.img is a symbolic link' <<<"$out" && grep -q 'a run would be refused' <<<"$out" &&
   ! grep -q 'checks passed' <<<"$out"; then
	pass "dutlab run --dry-run: symlink image refused"
else
	fail "dutlab run --dry-run on a symlink image: exit $rc: $out"
fi
out=$("$dutlab" run "$work/shared.ini" --out "$work/run-real" 2>&1)
rc=$?
[ $rc -ne 0 ] && grep -q 'disk.img is a symbolic link' <<<"$out" && pass "dutlab run: symlink image refused" ||
	fail "dutlab run on a symlink image: exit $rc: $(tail -5 <<<"$out")"
victim_ok "symlink image (dutlab run)"

# follow-symlinks = yes lets the link through, but not onto a file with data:
# the victim is still refused by the content rule (the run's dry-run says so)
sed 's/^size = 64M$/size = 64M\nfollow-symlinks = yes/' "$work/shared.ini" >"$work/follow.ini"
out=$("$dutlab" run "$work/follow.ini" --dry-run --out "$work/run-follow" 2>&1)
rc=$?
if [ "$rc" -eq 1 ] && ! grep -q 'is a symbolic link' <<<"$out" && grep -q 'cannot run: .*not made by dutlab\|cannot run: .*holds data' <<<"$out"; then
	pass "follow-symlinks = yes: the link is followed, the victim's data still refused"
else
	fail "follow-symlinks = yes on a link to the victim: exit $rc: $out"
fi
victim_ok "symlink image with follow-symlinks"

# --- existing files dutlab did not make
cp /dev/null "$work/fs.img" && truncate -s $((64 * MiB)) "$work/fs.img" && mkfs.ext4 -q -F "$work/fs.img" ||
	exit 99
fs_before=$(fingerprint "$work/fs.img")
for cmd in check cycle; do
	out=$("$driver" $cmd --type image --path "$work/fs.img" --size $((64 * MiB)) --fs ext4-ordered --mnt-root "$mnt")
	grep -q 'refused: EEXIST: .*not made by dutlab and carries data: ext2/3/4 filesystem' <<<"$out" &&
		pass "$cmd: a foreign ext4 image refused" || fail "$cmd of a foreign ext4 image: $out"
done
[ "$(fingerprint "$work/fs.img")" = "$fs_before" ] || fail "the foreign ext4 image changed"
head -c $MiB /dev/urandom >"$work/data.img"
out=$("$driver" check --type image --path "$work/data.img" --size $((64 * MiB)) --fs none)
grep -q 'refused: EEXIST: .*holds data (a non-zero byte at offset' <<<"$out" &&
	pass "a file with data and no signature refused" || fail "file with data: $out"
ln "$work/data.img" "$work/hard.img"
out=$("$driver" check --type image --path "$work/hard.img" --size $((64 * MiB)) --fs none)
grep -q 'refused: EMLINK: .*2 names' <<<"$out" && pass "a hard-linked file refused" || fail "hard link: $out"
mkfifo "$work/fifo.img"
out=$(timeout 20 "$driver" cycle --type image --path "$work/fifo.img" --size $((64 * MiB)) --fs none)
grep -q 'refused: EINVAL: .*not a regular file' <<<"$out" && pass "a FIFO refused without hanging" || fail "fifo: $out"

# a blank file the attacker owns (it could rewrite the filesystem while it is mounted)
as_nobody truncate -s $((64 * MiB)) "$work/shared/own.img" || exit 99
out=$("$driver" check --type image --path "$work/shared/own.img" --size $((64 * MiB)) --fs ext4-ordered --mnt-root "$mnt")
grep -q 'refused: EPERM: .*belongs to another user' <<<"$out" && pass "a blank image another user owns refused" ||
	fail "image owned by nobody: $out"
truncate -s $((64 * MiB)) "$work/gw.img" && chmod 666 "$work/gw.img"
out=$("$driver" check --type image --path "$work/gw.img" --size $((64 * MiB)) --fs none)
grep -q 'refused: EPERM: .*writable by group or others' <<<"$out" && pass "a world-writable image refused" ||
	fail "world-writable image: $out"

# --- what dutlab may use: a blank file, then its own image again
truncate -s $((64 * MiB)) "$work/blank.img"
for round in 1 2; do
	out=$("$driver" cycle --type image --path "$work/blank.img" --size $((64 * MiB)) --fs ext4-ordered --mnt-root "$mnt")
	[ $? -eq 0 ] && grep -q '^teardown=ok' <<<"$out" && pass "blank image, round $round: staged" ||
		fail "blank image round $round: $out"
done
out=$("$driver" cycle --type image --path "$work/new.img" --size $((64 * MiB)) --fs ext4-ordered --mnt-root "$mnt")
out2=$("$driver" cycle --type image --path "$work/new.img" --size $((64 * MiB)) --fs ext4-ordered --mnt-root "$mnt")
grep -q '^teardown=ok' <<<"$out" && grep -q '^teardown=ok' <<<"$out2" &&
	pass "an image the stage created is reused" || fail "reuse of the stage's image: $out / $out2"
# the user's explicit word: links allowed (the spec's follow_symlinks)
ln -s "$work/new.img" "$work/link.img"
out=$("$driver" check --type image --path "$work/link.img" --size $((64 * MiB)) --fs ext4-ordered --mnt-root "$mnt" \
	--follow-symlinks)
grep -q '^ok' <<<"$out" && pass "follow_symlinks: a link to dutlab's image accepted" || fail "follow_symlinks: $out"
out=$("$driver" check --type image --path "$work/shared/disk.img" --size $((64 * MiB)) --fs none --follow-symlinks)
grep -q 'refused: EEXIST: .*not made by dutlab' <<<"$out" &&
	pass "follow_symlinks: a link to a root file is still refused by its contents" || fail "follow to victim: $out"
victim_ok "the end"

echo "$fails failure(s)"
[ $fails -eq 0 ]
