#!/bin/bash
# dutprobe's stall watchdog against a device that stops answering: a file on
# a dutfs mount whose shaping rules give every read of it a 4 s latency.
#   1. --stall-timeout 1s: the run ends with the stall as its error (exit 1,
#      human and JSON), well before the reads would have completed on their
#      own, and the mount is still usable afterwards.
#   2. --stall-timeout 30s: the same slow reads complete; a slow device is
#      not a stalled one (exit 0).
#   4. A loop device over that file: the signature read before writing to it
#      gives up after --stall-timeout 1s and refuses with a message, where it
#      used to sleep until the device answered and then write (#19).
# Needs root and /dev/fuse (the dutfs mount).
DUTPROBE=$1
DUTFS=$2
. "$(dirname "$0")/probe-test-lib.sh"
need_jq
[ "$(id -u)" = 0 ] || skip "needs root (dutfs mount)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -x "$DUTFS" ] || { echo "harness error: dutfs not found at '$DUTFS'"; exit 99; }

B=$WORK/backing
M=$WORK/mnt
mkdir -p "$B" "$M"
head -c $((8 << 20)) /dev/urandom >"$B/img" || fail "write the image"
cat >"$WORK/rules.ini" <<-'EOF'
[model stuck]
type = fixed
read_latency = 4s
write_latency = 0
[rule img]
path = img
op = read
model = stuck
EOF
MOUNTS+=("$M")
timeout 30 "$DUTFS" "$B" "$M" --view syscall --shape "$WORK/rules.ini" || fail "mount dutfs over $B"
awk -v m="$M" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo || fail "$M is not mounted"

# 1. A stall: no completion for 1 s.  The engine declares it at 1-1.25 s,
#    cancels, gives up waiting ~1 s later; exiting then waits for the 4 s reads.
t0=$(date +%s%N)
run 1 timeout 60 "$DUTPROBE" bench "$M/img" --rows "RND4K Q4T1 R" --time 10s --warmup 0 --reps 1 \
	--stall-timeout 1s --json "$WORK/stall.json"
t1=$(date +%s%N)
expect_msg "the device stalled"
expect_msg "--stall-timeout"
json_check "$WORK/stall.json" '.phases[0].extra.error | test("stalled")' "stall: the JSON row names the stall"
ms=$(( (t1 - t0) / 1000000 ))
echo "stalled run ended after $ms ms (reads take 4 s; the row asked for 10 s)"
[ "$ms" -lt 9000 ] || fail "the stalled run took $ms ms: the watchdog did not stop it"
# The mount still serves reads once the slow requests are answered.
timeout 30 dd if="$M/img" of=/dev/null bs=4k count=1 iflag=direct status=none ||
	fail "the mount does not serve reads after the stall"

# 2. A slow device: each read takes 4 s, under the 30 s stall timeout.
run 0 timeout 60 "$DUTPROBE" bench "$M/img" --rows "RND4K Q2T1 R" --time 1s --warmup 0 --reps 1 \
	--stall-timeout 30s --json "$WORK/slow.json"
json_check "$WORK/slow.json" '(.phases[0].extra.error // "") == "" and .phases[0].latency.io.count == 2 and .phases[0].latency.io.p50 >= 3900000000' "slow: two 4 s reads, no error"
# 3. A bad value is refused before anything runs.
run 2 "$DUTPROBE" bench "$M/img" --stall-timeout soon
expect_msg "--stall-timeout"

# 4. The signature read of a block device that does not answer.  A buffered
#    loop device over the slow file (it holds the mount: detached before the
#    mount goes); udev's probe of the new device fills the caches, so they are
#    dropped before dutprobe reads.
SLOW_LOOP=
trap '[ -z "$SLOW_LOOP" ] || losetup -d "$SLOW_LOOP"; cleanup' EXIT
SLOW_LOOP=$(losetup -f --show "$M/img") || fail "losetup over $M/img"
command -v udevadm >/dev/null && timeout 30 udevadm settle
blockdev --flushbufs "$SLOW_LOOP" || fail "blockdev --flushbufs $SLOW_LOOP"
dd if="$M/img" iflag=nocache count=0 status=none || fail "drop the page cache of $M/img"
t0=$(date +%s%N)
run 1 timeout 60 "$DUTPROBE" bench "$SLOW_LOOP" --rows "RND4K Q1T1 W" --time 1s --warmup 0 --reps 1 \
	--destructive --stall-timeout 1s
t1=$(date +%s%N)
expect_msg "did not answer a read of its first 128 KiB within 1 s"
expect_msg "refusing to write"
echo "signature check of a device that does not answer: refused after $(( (t1 - t0) / 1000000 )) ms" \
	"(the process exits once the abandoned read returns)"
losetup -d "$SLOW_LOOP" && SLOW_LOOP=
echo "PASS"
