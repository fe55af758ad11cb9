#!/bin/bash
# Every dutprobe test on a regular file under /var/tmp, with --quick, checking
# the human output and the JSON result document.  Needs no root.
DUTPROBE=$1
. "$(dirname "$0")/probe-test-lib.sh"
need_jq

F=$WORK/target
# bench: a fresh (sparse) file is laid out before the reads, and says so.
run 0 "$DUTPROBE" bench "$F" --size 96M --quick --json "$WORK/bench.json"
expect_msg "had holes: wrote all 64 MiB of the span first"
for row in "SEQ1M Q8T1 R" "SEQ1M Q8T1 W" "RND4K Q32T1 R" "RND4K Q32T1 W" "RND4K Q1T1 R" "RND4K Q1T1 W"; do
	expect_msg "$row"
done
json_check "$WORK/bench.json" '.tool.name == "dutprobe" and .target.kind == "file"' "bench: tool/target"
json_check "$WORK/bench.json" '[.phases[].name] == ["SEQ1M Q8T1 R","SEQ1M Q8T1 W","RND4K Q32T1 R","RND4K Q32T1 W","RND4K Q1T1 R","RND4K Q1T1 W"]' "bench: one phase per row"
json_check "$WORK/bench.json" 'all(.phases[]; .metrics.iops.value > 0 and .latency.io.count > 0 and .latency.io.p99 >= .latency.io.p50 and (.extra.reps_iops | length) == 2)' "bench: figures per row"
json_check "$WORK/bench.json" '.config.laid_out_bytes == 67108864' "bench: layout recorded"
json_check "$WORK/bench.json" '.target.link_ceiling_bytes_per_s as $c | all(.phases[]; .extra.cache_not_device == ($c > 0 and .metrics.bw_max.value > $c))' "bench: cache flag iff above the ceiling"
# The file is laid out now: a second read-only run does not write it again.
run 0 "$DUTPROBE" bench "$F" --quick --rows "rnd4k-q4-t2-read" --time 200ms --reps 1
case "$OUT" in *"had holes"*) fail "bench laid out a span that had no holes" ;; esac
expect_msg "RND4K Q4T2 R"
# The engine's other modes: SQPOLL, unregistered file and buffers.
run 0 "$DUTPROBE" bench "$F" --quick --rows "RND4K Q8 R,SEQ128K Q2 W" --reps 1 --sqpoll --no-fixed-files --no-fixed-bufs --json "$WORK/sqpoll.json"
json_check "$WORK/sqpoll.json" '.config.sqpoll == true and .config.fixed_files == false and .config.fixed_bufs == false and all(.phases[]; .metrics.iops.value > 0)' "bench: sqpoll, no registration"

# identify on a file: the file, its filesystem, and the device under it.
run 0 "$DUTPROBE" identify "$F"
expect_msg "regular file"
expect_msg "Block device"
run 0 "$DUTPROBE" identify "$F" --json "$WORK/identify.json"
json_check "$WORK/identify.json" '.target.kind == "file" and (.target.block_device.name | length) > 0 and (.target.link.kind | length) > 0' "identify: file and its device"

# slc: a throughput series per window and per slice; a knee or the reason for none.
run 0 "$DUTPROBE" slc "$F" --quick --span 64M --window 4M --json "$WORK/slc.json"
expect_msg "estimated write cache"
json_check "$WORK/slc.json" '.phases[0].name == "write" and .phases[0].metrics.bytes_written.value == 67108864' "slc: bytes written"
json_check "$WORK/slc.json" '(.phases[0].series.per_window.rows | length) >= 15 and (.phases[0].series.per_slice.rows | length) >= 1' "slc: series"
json_check "$WORK/slc.json" '(.phases[0].extra.knees | length) > 0 or (.phases[0].extra.no_knee_reason | length) > 0' "slc: knee or reason"
run 0 "$DUTPROBE" slc "$F" --quick --span 32M --window 4M --idle 200ms
expect_msg "idle, writing again"

# fill: levels ascending, IOPS per QD, relative to the fullest level.
run 0 "$DUTPROBE" fill "$F" --quick --span 64M --levels 50%,25% --qd 1,4 --max-rounds 5 --ss iops:50% --json "$WORK/fill.json"
expect_msg "steady state: iops:50%@5"
json_check "$WORK/fill.json" '[.phases[].name] == ["level_25%","level_50%"]' "fill: levels sorted"
json_check "$WORK/fill.json" 'all(.phases[]; .metrics.iops_qd1.value > 0 and .metrics.iops_qd4.value > 0)' "fill: IOPS per QD"
json_check "$WORK/fill.json" '.phases[1].extra.by_queue_depth[0].rel_to_fullest == 1' "fill: fullest level is 1x"
json_check "$WORK/fill.json" 'all(.phases[].extra.by_queue_depth[]; .rounds >= 1 and .rounds <= 5)' "fill: rounds capped"

# "cache, not device": the filesystem's device seen through a fixture sysfs
# tree (DUTPROBE_SYSFS_ROOT) as a USB 1.1 stick, whose ceiling is 1.5 MB/s;
# O_DIRECT 1 MiB reads of a file on any disk here run far above that.
FIX=$(dirname "$0")/identify/fixtures/sys
[ -d "$FIX" ] || { echo "harness error: no fixture tree at $FIX"; exit 99; }
cp -a "$FIX" "$WORK/sys" || fail "copy the fixture tree"
DEVNUM=$(stat -c '%Hd:%Ld' "$F") || fail "stat $F"
rm -f "$WORK/sys/dev/block/$DEVNUM"
ln -s "$(readlink "$WORK/sys/dev/block/8:48")" "$WORK/sys/dev/block/$DEVNUM" || fail "fixture link"
for s in $(find "$WORK/sys/devices" -path '*/usb1/1-4/speed' -o -path '*/usb1/speed'); do echo 12 >"$s"; done
DUTPROBE_SYSFS_ROOT=$WORK/sys run 0 "$DUTPROBE" bench "$F" --quick --rows "SEQ1M Q8 R" --reps 1 --json "$WORK/usb.json"
expect_msg "link: USB 1.1 full speed (12 Mbit/s)"
expect_msg "<- cache, not device"
expect_msg '"cache, not device": faster than the link can carry'
json_check "$WORK/usb.json" '.target.link_ceiling_bytes_per_s == 1500000 and .phases[0].extra.cache_not_device == true' "bench: flagged above a 1.5 MB/s ceiling"

# Ctrl-C (SIGINT) stops a run cleanly: the partial figures are printed and
# written, and the exit status says it was interrupted.
# interrupt SECONDS JSON CMD...: run CMD in the background, SIGINT after SECONDS;
# it must end within 10 s.  Sets OUT and STATUS.
interrupt() {
	local after=$1 json=$2 pid i
	shift 2
	"$@" --json "$json" >"$WORK/int.out" 2>&1 &
	pid=$!
	sleep "$after"
	kill -INT "$pid"
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		wait "$pid"
		fail "still running 10 s after SIGINT: $*"
	fi
	wait "$pid"
	STATUS=$?
	OUT=$(cat "$WORK/int.out")
}
interrupt 1.5 "$WORK/int-bench.json" "$DUTPROBE" bench "$F" --rows "RND4K Q1 R" --time 60s --warmup 0 --reps 3
[ "$STATUS" = 1 ] || { echo "$OUT"; fail "bench after SIGINT: exit status $STATUS, want 1"; }
expect_msg "interrupted: rows above are partial"
expect_msg "RND4K Q1T1 R"
json_check "$WORK/int-bench.json" '.config.interrupted == true and .phases[0].extra.ios > 0 and .phases[0].duration_ns < 30000000000' "bench: partial row after SIGINT"
interrupt 2 "$WORK/int-slc.json" "$DUTPROBE" slc "$F" --quick --span 16M --window 4M --idle 60s
[ "$STATUS" = 1 ] || { echo "$OUT"; fail "slc after SIGINT: exit status $STATUS, want 1"; }
expect_msg "interrupted: figures above are partial"
json_check "$WORK/int-slc.json" '.config.interrupted == true and .phases[0].metrics.bytes_written.value > 0' "slc: partial pass after SIGINT"

# trim: a punched hole shows as fewer allocated blocks.
before=$(stat -c %b "$F")
run 0 "$DUTPROBE" trim "$F" --offset 1M --length 8M
expect_msg "discarded 8 MiB at offset 1048576 with punch hole"
after=$(stat -c %b "$F")
[ "$after" -lt "$before" ] || fail "trim: $before blocks before, $after after"
echo "PASS"
