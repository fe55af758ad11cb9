#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Service-time accuracy of the fixed, bandwidth and queue models, measured
# with fio (O_DIRECT) through a dutfs mount in the syscall view.  One mount;
# the rules send each directory to one model:
#
#   plain/      no rule: the FUSE round trip of this machine, printed only
#   fixed/      fixed, read_latency 20 ms, write_latency 30 ms
#               fio 4 KiB random reads, then writes, QD1 (psync):
#               clat min >= the latency (the model never replies early) and
#               clat median within 10% of the latency; the mean is printed
#   bw/         bandwidth, rate 20 MB/s (one bucket), burst 1 MiB
#               fio 128 KiB sequential reads, then writes, QD1, after a 1 s
#               ramp (the full bucket's burst is not counted): bandwidth
#               within 10% of the rate
#   queue/      queue, 4 channels, 40 ms per request
#               fio 4 KiB random reads at QD1 (psync) and QD8 (libaio):
#               QD1 IOPS within 10% of 1/latency = 25, QD8 IOPS within 10%
#               of channels/latency = 100, QD8/QD1 within 10% of 4.  QD1
#               IOPS is 1 / the mean latency, stalls included (at 20 ms it
#               came out 44.5 for 50 on a busy afternoon), hence 40 ms.
#
# Every expected figure is computed below from the same variables that write
# the rules file.  What comes on top of a model's delay (the FUSE round trip,
# waking the timer thread and fio) is additive, and on the shared 2-core
# machine it was 0.15-0.44 ms at the median and 0.4-1.9 ms on average for
# an unshaped 4 KiB read: 25% of a 2 ms latency, 1-2% of 20 ms.  Hence
# latencies of tens of milliseconds.  The machine also stalls now and then
# (other work's I/O and CPU: single requests of 100 ms and more, seen as a
# write mean of 38.9 ms for 30 ms with a median of 30.3 ms), so:
#   - latency is judged by its median and its minimum, not its mean;
#   - IOPS and bandwidth are the median of fio's 1 s windows
#     (--log_avg_msec=1000), not the average over the run, so that one
#     stalled second does not decide.
# 10% then still catches a model that is wrong by its own arithmetic.
. "$(dirname "$0")/lib-shape.sh"
DUT_TEST_NAME=shape-accuracy

FIX_READ_MS=20
FIX_WRITE_MS=30
BW_BYTES_PER_S=20000000   # "20MB/s": MB = 10^6 (docs/shaping.md)
Q_CHANNELS=4
Q_LATENCY_MS=40
TOL=10                    # percent
RUNTIME=6                 # seconds per fio job: 6 one-second windows

shape_need_dutfs
dut_need_prog fio fio
dut_need_prog jq jq
fio --enghelp 2>/dev/null | grep -qw libaio || dut_skip "this fio has no libaio engine"

dut_tmpdir
cat >"$T/rules.ini" <<EOF
[model fixed]
type = fixed
read_latency = ${FIX_READ_MS}ms
write_latency = ${FIX_WRITE_MS}ms

[model bw]
type = bandwidth
rate = $((BW_BYTES_PER_S / 1000000))MB/s
burst = 1M

[model four-channels]
type = queue
channels = $Q_CHANNELS
latency = ${Q_LATENCY_MS}ms

[rule fixed]
path = fixed/*
model = fixed

[rule bw]
path = bw/*
model = bw

[rule queue]
path = queue/*
model = four-channels
EOF

# The files are written in the backing directory before the mount, so that
# laying them out costs no shaped time.
for d in plain fixed bw queue; do
	mkdir -p "$T/backing/$d"
	dd if=/dev/urandom of="$T/backing/$d/f" bs=1M count=16 status=none || die "cannot write $T/backing/$d/f"
done
dut_mount "$T/backing" "$T/mnt" --view syscall --shape "$T/rules.ini"

# fio_json NAME FILE fio-options...: run one job, leave its JSON in $T/NAME.json
fio_json() {
	local name=$1 file=$2
	shift 2
	timeout $((RUNTIME + 60)) fio --name="$name" --filename="$file" --direct=1 --size=16M \
		--time_based --runtime="$RUNTIME" --norandommap --randrepeat=0 \
		--log_avg_msec=1000 --write_iops_log="$T/$name" --write_bw_log="$T/$name" \
		--output-format=json --output="$T/$name.json" "$@" >"$T/$name.err" 2>&1 \
		|| { cat "$T/$name.err" "$T/$name.json" >&2; die "fio $name failed"; }
}
jqf() { jq -r "$2" "$T/$1.json"; }
# The median of the 1 s windows of fio's iops or bw log (bw in KiB/s).
window_median() { # NAME iops|bw
	local f="$T/${1}_$2.1.log"
	[ -s "$f" ] || die "fio wrote no $2 log for $1 ($f)"
	awk -F', *' '{ print $2 }' "$f" | sort -g \
		| awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
windows() { awk -F', *' '{ printf "%s ", $2 }' "$T/${1}_$2.1.log"; }

# ---- the unshaped round trip, for the record ----
fio_json plain-read "$T/mnt/plain/f" --rw=randread --bs=4k --ioengine=psync
say "unshaped 4 KiB read at QD1 (the overhead on top of any model): $(jqf plain-read \
	'.jobs[0].read.clat_ns | "p50 \(.percentile["50.000000"] / 1e6) ms, mean \(.mean / 1e6 * 1000 | round / 1000) ms"')"

# ---- fixed ----
fio_json fixed-read "$T/mnt/fixed/f" --rw=randread --bs=4k --ioengine=psync
fio_json fixed-write "$T/mnt/fixed/f" --rw=randwrite --bs=4k --ioengine=psync
for dir in read write; do
	want_ms=$FIX_READ_MS
	[ $dir = write ] && want_ms=$FIX_WRITE_MS
	p50=$(jqf "fixed-$dir" ".jobs[0].$dir.clat_ns.percentile[\"50.000000\"] / 1e6")
	mean=$(jqf "fixed-$dir" ".jobs[0].$dir.clat_ns.mean / 1e6")
	min=$(jqf "fixed-$dir" ".jobs[0].$dir.clat_ns.min / 1e6")
	# 0.1%: fio's own timestamps against the daemon's
	expect_range "fixed $dir clat min (ms)" "$min" "$want_ms" 0.1 1000000
	expect_within "fixed $dir clat p50 (ms)" "$p50" "$want_ms" $TOL
	say "fixed $dir clat mean: $mean ms (not judged: it carries the machine's stalls)"
done

# ---- bandwidth ----
fio_json bw-read "$T/mnt/bw/f" --rw=read --bs=128k --ioengine=psync --ramp_time=1
fio_json bw-write "$T/mnt/bw/f" --rw=write --bs=128k --ioengine=psync --ramp_time=1
for dir in read write; do
	got=$(awk -v k="$(window_median "bw-$dir" bw)" 'BEGIN { printf "%.3f", k * 1024 / 1e6 }')
	say "bandwidth $dir, KiB/s per 1 s window: $(windows "bw-$dir" bw)"
	expect_within "bandwidth $dir (MB/s, median)" "$got" "$((BW_BYTES_PER_S / 1000000))" $TOL
done

# ---- queue ----
fio_json queue-qd1 "$T/mnt/queue/f" --rw=randread --bs=4k --ioengine=psync
fio_json queue-qd8 "$T/mnt/queue/f" --rw=randread --bs=4k --ioengine=libaio --iodepth=8
qd1=$(window_median queue-qd1 iops)
qd8=$(window_median queue-qd8 iops)
say "queue IOPS per 1 s window: QD1 $(windows queue-qd1 iops)/ QD8 $(windows queue-qd8 iops)"
expect_within "queue QD1 IOPS (median)" "$qd1" "$((1000 / Q_LATENCY_MS))" $TOL
expect_within "queue QD8 IOPS (median)" "$qd8" "$((Q_CHANNELS * 1000 / Q_LATENCY_MS))" $TOL
ratio=$(awk -v a="$qd8" -v b="$qd1" 'BEGIN { if (b > 0) printf "%.3f", a / b }')
expect_within "queue QD8/QD1 IOPS ratio" "$ratio" "$Q_CHANNELS" $TOL

# The engine saw the requests: each rule matched, and added delay.
shape_stats "$T/mnt" >"$T/shape.json" || die "no \"shape\" member in $T/mnt/.dutfs/stats.json"
for r in fixed bw queue; do
	m=$(jq -r --arg r "$r" '.rules[] | select(.name == $r) | .matched' "$T/shape.json")
	[ -n "$m" ] && [ "$m" -gt 0 ] || die "stats.json: rule $r matched ${m:-nothing} requests"
done
shape_finish
