#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: dutfs's transports (fuse/uring.h, issue #24).
#
#     test-uring.sh SUBTEST [dev|uring]
#
#     ring-used       --transport uring: the requests travel on the ring (stats.json
#                     ring_requests), data read and written through it is right, the
#                     start-up line, stats.json and the trace header name the transport
#     fallback-noparam  a kernel without the ring (no enable_uring parameter: a fake
#                     parameter directory) falls back to /dev/fuse and says why
#     fallback-off    enable_uring off: --transport auto falls back and leaves it off;
#                     --transport uring (root) turns it on and says so
#     fallback-notoffered  dutfs believes enable_uring is on but the kernel's INIT
#                     does not offer the ring: falls back, says why
#     sigterm         SIGTERM under load, with replies held by a shaping delay:
#                     the daemon exits, the held replies reach the reader, nothing hangs
#     umount          umount under load ends the daemon (ENOTCONN on the ring)
#     crash           SIGKILL under load: the kernel aborts, the reader gets an error,
#                     the mount can be unmounted; nothing hangs
#     param-kept      lib.sh's dut_keep_enable_uring, on a stand-in parameter file:
#                     a -uring test that fails or is killed puts back the value it
#                     found; of overlapping tests the last one to end does
#
# The teardown subtests run on the transport given (default uring).  Every
# subtest keeps the real enable_uring as it found it (dut_keep_enable_uring:
# dutfs --transport uring turns it on, the fallback subtests set it).
# DUTFS_FUSE_PARAMS_DIR is dutfs's seam for the parameter directory.
. "$(dirname "$0")/lib.sh"

SUB=${1:?usage: test-uring.sh SUBTEST [dev|uring]}
TR=${2:-uring}
DUT_TEST_NAME="uring-$SUB-$TR"
REAL_PARAM=/sys/module/fuse/parameters/enable_uring

dut_need_root
dut_need_dutfs
dut_need_prog jq jq
[ -e "$REAL_PARAM" ] || [ "${SUB#fallback-noparam}" != "$SUB" ] ||
	dut_skip "this kernel has no FUSE over io_uring ($REAL_PARAM missing)"

[ "$SUB" = param-kept ] || dut_keep_enable_uring
dut_tmpdir
B=$T/backing
M=$T/mnt
mkdir -p "$B" "$M"
# these subtests choose the transport themselves
unset DUTFS_TRANSPORT

# Mount like dut_mount, keeping dutfs's stderr (the start-up line) in $T/err.
mount_keep() { # dutfs options...
	dut_defer "dut_umount '$M'"
	timeout 30 "$DUTFS" "$B" "$M" --pidfile "$M.pid" "$@" 2>"$T/err" \
		|| die "dutfs $* failed (exit $?): $(cat "$T/err")"
	dut_is_mounted "$M" || die "dutfs returned 0 but $M is not mounted"
	say "start-up: $(cat "$T/err")"
}
stats() { jq -r "$1" "$M/.dutfs/stats.json"; }
set_real_param() { # Y|N (put back at exit: dut_keep_enable_uring above)
	echo "$1" >"$REAL_PARAM" || die "cannot write $REAL_PARAM"
}
# A -uring test on the stand-in $T/params/enable_uring (state files in $T):
# it turns the parameter on as dutfs would, holds it SECONDS, then exits
# CODE.  Its shell's pid goes to $T/child.pid.
uring_child() { # SECONDS CODE
	T=$T DUTFS_TRANSPORT=uring DUT_URING_PARAM=$T/params/enable_uring DUT_URING_STATE=$T/state \
		DUT_TEST_NAME="child-$1-$2" bash -c '. "$0/lib.sh"; echo $$ >"$T/child.pid"
			echo Y >"$DUT_URING_PARAM"; sleep "$1" & dut_defer "kill $! 2>/dev/null"; wait $!; exit "$2"' \
		"$(dirname "$0")" "$1" "$2"
}
fake_param() { cat "$T/params/enable_uring"; }
# A reader of 4 KiB O_DIRECT blocks until it fails; its pid in LOAD.
start_load() {
	head -c 8388608 /dev/urandom >"$B/f"
	( while dd if="$M/f" of=/dev/null bs=4k iflag=direct 2>/dev/null; do :; done ) &
	LOAD=$!
	dut_defer "kill $LOAD 2>/dev/null"
	sleep 1
	kill -0 "$LOAD" 2>/dev/null || die "the reader ended before the test began"
}
# PID ends within SECONDS, or fail with WHAT
must_end() { # PID SECONDS WHAT
	dut_wait_pid "$1" "$2" || die "$3 still running after $2 s"
}

case $SUB in
ring-used)
	head -c 3145728 /dev/urandom >"$B/data"
	mount_keep --transport uring --trace "$T/t.dtr"
	grep -q "transport uring" "$T/err" || die "start-up line does not say transport uring"
	[ "$(stats .transport.name)" = uring ] || die "stats.json: transport $(stats .transport.name): $(stats .transport.fallback_reason)"
	cmp "$B/data" "$M/data" || die "buffered read through the ring differs"
	dd if="$M/data" of="$T/direct" bs=64k iflag=direct 2>/dev/null || die "O_DIRECT read failed"
	cmp "$B/data" "$T/direct" || die "O_DIRECT read through the ring differs"
	head -c 1048576 /dev/urandom >"$T/w"
	dd if="$T/w" of="$M/w" bs=16k oflag=direct conv=fsync 2>/dev/null || die "O_DIRECT write + fsync failed"
	mkdir "$M/d" && mv "$M/w" "$M/d/w2" && ln -s w2 "$M/d/l" && [ "$(readlink "$M/d/l")" = w2 ] ||
		die "namespace ops failed"
	cmp "$T/w" "$M/d/l" || die "written data differs"
	n=$(stats .transport.ring_requests)
	reads=$(stats .requests.read)
	say "ring_requests $n, reads $reads, queues $(stats .transport.queues)"
	[ "$n" -gt 100 ] || die "only $n requests came over the ring"
	[ "$(stats .transport.ring_errors)" = 0 ] || die "ring errors: $(stats .transport.ring_errors)"
	# per queue (CPU): one count per queue, adding up to ring_requests
	[ "$(stats '.transport.queue_requests | length')" = "$(stats .transport.queues)" ] ||
		die "stats.json queue_requests $(stats '.transport.queue_requests | tostring') for $(stats .transport.queues) queues"
	[ "$(stats '.transport.queue_requests | add')" -ge "$n" ] ||
		die "queue_requests $(stats '.transport.queue_requests | tostring') do not add up to ring_requests $n"
	dut_umount "$M" || die "unmount had to be forced"
	cmp "$T/w" "$B/d/w2" || die "the backing file differs from what was written"
	grep -aq "transport" "$T/t.dtr" && grep -aq "uring" "$T/t.dtr" || die "the trace header does not name the transport"
	;;
fallback-noparam)
	mkdir "$T/params"
	DUTFS_FUSE_PARAMS_DIR=$T/params mount_keep --transport uring
	grep -q "transport dev (uring requested; falling back to /dev/fuse: this kernel has no FUSE over io_uring" "$T/err" ||
		die "start-up line does not give the fallback and its reason"
	[ "$(stats .transport.name)" = dev ] || die "stats.json transport $(stats .transport.name)"
	stats .transport.fallback_reason | grep -q "CONFIG_FUSE_IO_URING" || die "stats.json has no reason"
	echo ok >"$M/x" && [ "$(cat "$M/x")" = ok ] || die "I/O after the fallback failed"
	;;
fallback-off)
	set_real_param Y
	mkdir "$T/params"
	echo N >"$T/params/enable_uring"
	DUTFS_FUSE_PARAMS_DIR=$T/params mount_keep --transport auto
	grep -q "falling back to /dev/fuse: the fuse module's enable_uring is off" "$T/err" ||
		die "auto with enable_uring off: no fallback reason in the start-up line"
	[ "$(cat "$T/params/enable_uring")" = N ] || die "--transport auto turned enable_uring on"
	[ "$(stats .transport.name)" = dev ] || die "auto with enable_uring off: transport $(stats .transport.name)"
	dut_umount "$M" || die "unmount had to be forced"
	DUTFS_FUSE_PARAMS_DIR=$T/params mount_keep --transport uring
	[ "$(cat "$T/params/enable_uring")" = Y ] || die "--transport uring as root did not turn enable_uring on"
	grep -q "dutfs turned the fuse module's enable_uring on" "$T/err" || die "the start-up line does not say dutfs turned it on"
	[ "$(stats .transport.name)" = uring ] || die "transport $(stats .transport.name): $(stats .transport.fallback_reason)"
	;;
fallback-notoffered)
	set_real_param N
	mkdir "$T/params"
	echo Y >"$T/params/enable_uring"
	DUTFS_FUSE_PARAMS_DIR=$T/params mount_keep --transport uring
	grep -q "falling back to /dev/fuse: the kernel did not offer FUSE_OVER_IO_URING" "$T/err" ||
		die "no 'not offered' reason in the start-up line"
	[ "$(stats .transport.name)" = dev ] || die "transport $(stats .transport.name)"
	echo ok >"$M/x" && [ "$(cat "$M/x")" = ok ] || die "I/O after the fallback failed"
	;;
sigterm)
	# replies held 1.5 s by the timer thread when SIGTERM comes
	printf '[model slow]\ntype = fixed\nread_latency = 1500ms\nwrite_latency = 0\n[rule s]\npath = slow*\nop = read\nmodel = slow\n' >"$T/r.ini"
	head -c 65536 /dev/urandom >"$B/slow1"
	mount_keep --transport "$TR" --shape "$T/r.ini"
	[ "$TR" != uring ] || [ "$(stats .transport.name)" = uring ] || die "not on the ring: $(stats .transport.fallback_reason)"
	pid=$(cat "$M.pid")
	start_load
	held=()
	for i in 1 2 3 4; do
		dd if="$M/slow1" of="$T/held$i" bs=4k count=1 iflag=direct 2>/dev/null &
		held+=($!)
	done
	sleep 0.5
	kill -TERM "$pid"
	must_end "$pid" 15 "dutfs after SIGTERM"
	must_end "$LOAD" 15 "the reader after SIGTERM"
	for p in "${held[@]}"; do
		wait "$p" || die "a read held by the model did not get its reply at shutdown"
	done
	for i in 1 2 3 4; do
		cmp -n 4096 "$T/held$i" "$B/slow1" || die "held read $i returned the wrong data"
	done
	! dut_is_mounted "$M" || die "$M is still mounted after SIGTERM"
	;;
umount)
	mount_keep --transport "$TR"
	[ "$TR" != uring ] || [ "$(stats .transport.name)" = uring ] || die "not on the ring: $(stats .transport.fallback_reason)"
	pid=$(cat "$M.pid")
	start_load
	timeout 20 umount -l "$M" || die "umount -l failed"
	kill "$LOAD" 2>/dev/null
	must_end "$LOAD" 15 "the reader after the unmount"
	must_end "$pid" 15 "dutfs after the unmount"
	;;
crash)
	mount_keep --transport "$TR"
	[ "$TR" != uring ] || [ "$(stats .transport.name)" = uring ] || die "not on the ring: $(stats .transport.fallback_reason)"
	pid=$(cat "$M.pid")
	start_load
	kill -KILL "$pid"
	must_end "$pid" 15 "dutfs after SIGKILL"
	must_end "$LOAD" 15 "the reader after the daemon's crash"
	out=$(stat "$M/f" 2>&1) && die "stat on a crashed mount succeeded: $out"
	say "after the crash: $out"
	timeout 20 umount "$M" || die "cannot unmount the crashed mount"
	rm -f "$M.pid"
	;;
param-kept)
	mkdir "$T/params"
	echo N >"$T/params/enable_uring"
	uring_child 0 1 && die "the failing child exited 0"
	[ "$(fake_param)" = N ] || die "a failing -uring test left enable_uring at $(fake_param), found N"
	# overlapping: A holds 3 s; B starts later and ends first, failing
	uring_child 3 0 &
	a=$!
	sleep 1
	uring_child 0 1
	[ "$(fake_param)" = Y ] || die "the first of two overlapping tests to end turned enable_uring off under the other"
	wait "$a" || die "the longer child failed"
	[ "$(fake_param)" = N ] || die "the last of two overlapping tests left enable_uring at $(fake_param), found N"
	# killed (SIGTERM, as meson's timeout does): the cleanup stack still runs
	rm -f "$T/child.pid"
	uring_child 30 0 &
	a=$!
	for _ in $(seq 50); do [ -s "$T/child.pid" ] && break; sleep 0.1; done
	[ "$(fake_param)" = Y ] || die "the child did not start"
	kill -TERM "$(cat "$T/child.pid")"
	must_end "$a" 10 "a -uring test after SIGTERM"
	[ "$(fake_param)" = N ] || die "a -uring test killed by SIGTERM left enable_uring at $(fake_param)"
	# what a SIGKILLed test leaves (no cleanup): its record and its pid file, the pid gone
	true &
	dead=$!
	wait "$dead"
	echo Y >"$T/state.saved"
	: >"$T/state.users/$dead"
	uring_child 0 0 || die "the passing child failed"
	[ "$(fake_param)" = N ] || die "a stale recorded value ($(cat "$T/state.saved" 2>/dev/null)) was put back"
	[ ! -e "$T/state.saved" ] || die "the last test left $T/state.saved"
	[ -z "$(ls "$T/state.users")" ] || die "pid files left: $(ls "$T/state.users")"
	;;
*)
	echo "test-uring.sh: unknown subtest $SUB" >&2
	exit 99
	;;
esac
say "ok"
