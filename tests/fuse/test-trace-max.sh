#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test of a bounded trace (dutfs --trace-max, docs/soak.md): a
# paced run of DUT_SOAK_SECONDS (default 120) through a real mount writes
# more than twice the bound of trace records; the test checks
#  - every second of the run, the trace's segments (trace.dtr, trace.dtr.N)
#    stay within --trace-max and there are at most --trace-segments of them;
#  - older segments were removed (the run rotated);
#  - the side file (trace.dtr.seconds) has a row for every second with I/O
#    and its per-class totals equal dutfs's live statistics (stats.json),
#    plus the records dutfs dropped;
#  - `dutlab report` over the segments says what was removed, its record
#    counts add up to the footer's, and its series covers the whole run;
#    `dutlab export` gives every kept record.
. "$(dirname "$0")/lib.sh"
DUT_TEST_NAME=trace-max
SECS=${DUT_SOAK_SECONDS:-120}
MAX=$((4 * 1024 * 1024))
DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}

dut_need_root
dut_need_dutfs
dut_need_prog jq jq
[ -x "$DUTLAB" ] || dut_skip "dutlab is not built at $DUTLAB"

dut_tmpdir
dut_mount "$T/backing" "$T/mnt" --view syscall --trace "$T/trace.dtr" --trace-max 4M \
	--trace-segments 4

trace_bytes() { # sum of the segment files (not the side file)
	local f sum=0 n=0
	for f in "$T"/trace.dtr "$T"/trace.dtr.[0-9]*; do
		[ -f "$f" ] || continue
		sum=$((sum + $(stat -c %s "$f")))
		n=$((n + 1))
	done
	echo "$sum $n"
}

# PostgreSQL-named files, so the records have classes (rel, wal) the side file must keep
D="$T/mnt/base/5/16384" W="$T/mnt/pg_wal/000000010000000000000001"
mkdir -p "$T/mnt/base/5" "$T/mnt/pg_wal" || die "cannot make directories on the mount"
dd if=/dev/urandom of="$D" bs=1M count=4 status=none conv=fsync \
	|| die "cannot write the data file on the mount"
# about 4,000 records a second (4 KiB reads of 512 bytes each, a write and an fsync):
# 120 s give about 480k records, 23 MB of trace into 4 MiB
max_seen=0 max_files=0 start=$SECONDS
for ((s = 0; s < SECS; s++)); do
	tick=$((start + s + 1))
	dd if="$D" of=/dev/null bs=512 count=4000 skip=$(( (s * 4000) % 4192 )) status=none \
		|| die "reads on the mount failed at second $s"
	dd if=/dev/zero of="$W" bs=4k count=4 seek=$((s % 64)) conv=notrunc,fsync status=none \
		|| die "writes on the mount failed at second $s"
	read -r b n < <(trace_bytes)
	[ "$b" -gt "$max_seen" ] && max_seen=$b
	[ "$n" -gt "$max_files" ] && max_files=$n
	while [ "$SECONDS" -lt "$tick" ]; do sleep 0.05; done
done
sleep 0.2 # stats.json is a snapshot of at most 50 ms
cp "$T/mnt/.dutfs/stats.json" "$T/stats.json" || die "cannot read stats.json"
jq -e '.trace.max_bytes == 4194304 and .trace.rotations >= 2' "$T/stats.json" >/dev/null \
	|| die "stats.json does not show the bound and the rotations: $(jq -c .trace "$T/stats.json")"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount or SIGKILL to stop"
read -r b n < <(trace_bytes)
[ "$b" -gt "$max_seen" ] && max_seen=$b
say "segments: at most $max_seen bytes in $max_files files during the run (bound $MAX); at the end $b in $n"
[ "$max_seen" -le "$MAX" ] || die "the segments took $max_seen bytes, over --trace-max $MAX"
[ "$max_files" -le 4 ] || die "$max_files segment files, over --trace-segments 4"
[ -f "$T/trace.dtr.1" ] && die "segment 1 is still there: the trace did not rotate away old segments"
ls "$T"/trace.dtr.[0-9]* >/dev/null 2>&1 || die "no older segment: the trace never rotated"

# the side file: every second, totals per class and kind against dutfs's statistics
S="$T/trace.dtr.seconds"
[ -s "$S" ] || die "no side file $S"
head -1 "$S" | grep -qx '# dutlab trace seconds 2' || die "the side file has no header: $(head -1 "$S")"
tail -1 "$S" | grep -q '^# end' || die "the side file has no end line (dutfs did not close it)"
# Reads in (nearly) every second from the first to the last: a loaded machine can
# hold one iteration's fsync past the next tick, so a second may have none; that
# no record was lost is the per-class totals check below.
read -r rows span < <(awk -F'\t' '$2 == "all" && $3 == "read" { n++; if (min == "" || $1 < min) min = $1;
	if ($1 > max) max = $1 } END { print n + 0, (n ? max - min + 1 : 0) }' "$S")
[ "$span" -ge "$((SECS - 1))" ] && [ "$rows" -ge "$((SECS * 9 / 10))" ] \
	|| die "the side file has reads in $rows seconds spanning $span, the run read for $SECS"
dropped=$("$DUTLAB" report --json - "$T/trace.dtr" | jq -r '.target.records_dropped') \
	|| die "dutlab report --json failed"
awk -F'\t' '!/^#/ && $1 != "sec" && $2 != "all" { print $2 "." $3, $4, $5, $6 }' "$S" |
	sort | awk '{ o[$1] += $2; b[$1] += $3; e[$1] += $4 } END { for (k in o) print k, o[k], b[k], e[k] }' |
	sort >"$T/side.txt"
jq -r '.classes | to_entries[] | .key as $c | .value | to_entries[] |
	"\($c).\(.key) \(.value.ops) \(.value.bytes) \(.value.errors)"' "$T/stats.json" | sort >"$T/stats.txt"
side_ops=$(awk '{ s += $2 } END { print s + 0 }' "$T/side.txt")
stat_ops=$(awk '{ s += $2 } END { print s + 0 }' "$T/stats.txt")
say "side file: $side_ops read/write/sync records; stats.json: $stat_ops; dropped: $dropped"
grep -q '^rel\.read ' "$T/stats.txt" && grep -q '^wal\.write ' "$T/stats.txt" \
	|| die "stats.json has no rel reads or wal writes: $(cat "$T/stats.txt")"
[ "$((side_ops + dropped))" -eq "$stat_ops" ] \
	|| die "side file $side_ops + dropped $dropped != stats.json $stat_ops"
if [ "$dropped" -eq 0 ]; then
	diff "$T/stats.txt" "$T/side.txt" >&2 || die "per class and kind, the side file and stats.json differ (above)"
fi

# the report over the segments
"$DUTLAB" report "$T/trace.dtr" >"$T/report.txt" || die "dutlab report failed on the rotated trace"
grep -q '^  rotated:    --trace-max 4.0 MiB in 4 segments; read segments ' "$T/report.txt" \
	|| die "the report does not say the trace was rotated: $(head -5 "$T/report.txt")"
grep -q 'were removed with their [0-9]* records' "$T/report.txt" \
	|| die "the report does not say what was removed"
grep -q '^Whole run per [0-9]* s (side file' "$T/report.txt" || die "the report has no per-second series"
"$DUTLAB" report --json "$T/report.json" "$T/trace.dtr" >/dev/null || die "dutlab report --json failed"
jq -e --argjson secs "$SECS" '.target as $t | $t.rotation.records_removed > 0
	and $t.rotation.records_removed + $t.records == $t.records_written
	and $t.rotation.side_file_seconds >= $secs * 9 / 10' "$T/report.json" >/dev/null \
	|| die "the report's counts do not add up: $(jq -c '.target | del(.rotation.series)' "$T/report.json")"
series_ops=$(jq '[.target.rotation.series[] | .read.ops + .write.ops + .sync.ops] | add' "$T/report.json")
[ "$series_ops" -eq "$side_ops" ] || die "the report's series has $series_ops records, the side file $side_ops"
# the side file's histograms: the whole run's percentiles cover every record, also removed ones
whole_ops=$(jq '[.target.rotation.whole_run[] | .ops] | add' "$T/report.json")
[ "$whole_ops" -eq "$side_ops" ] || die "the whole run's histograms hold $whole_ops records, the side file $side_ops"
jq -e '.target.rotation.side_file_version == 2 and .target.rotation.whole_run.read.p99_ns > 0
	and ([.target.rotation.series[] | select(.read.ops > 0) | .read.p99_ns > 0] | all)' \
	"$T/report.json" >/dev/null || die "the report has no p99 from the side file's histograms"
say "side file: $(stat -c %s "$S") bytes for $(jq .target.rotation.side_file_seconds "$T/report.json") s"
# dutlab export streams the segments as one trace
kept=$(jq '.target.records' "$T/report.json")
lines=$("$DUTLAB" export --format csv "$T/trace.dtr" | wc -l) || die "dutlab export failed on the rotated trace"
[ "$lines" -eq "$((kept + 1))" ] || die "dutlab export gave $lines lines for $kept kept records (+ a header)"
# each kept segment alone is a whole trace
for f in "$T"/trace.dtr.[0-9]*; do
	"$DUTLAB" report "$f" >/dev/null || die "segment $f alone is not a readable trace"
done
say "PASS"
