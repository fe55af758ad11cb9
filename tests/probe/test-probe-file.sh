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
# The file is laid out now: a second read-only run does not write it again.
run 0 "$DUTPROBE" bench "$F" --quick --rows "rnd4k-q4-t2-read" --time 200ms --reps 1
case "$OUT" in *"had holes"*) fail "bench laid out a span that had no holes" ;; esac
expect_msg "RND4K Q4T2 R"

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

# trim: a punched hole shows as fewer allocated blocks.
before=$(stat -c %b "$F")
run 0 "$DUTPROBE" trim "$F" --offset 1M --length 8M
expect_msg "discarded 8 MiB at offset 1048576 with punch hole"
after=$(stat -c %b "$F")
[ "$after" -lt "$before" ] || fail "trim: $before blocks before, $after after"
echo "PASS"
