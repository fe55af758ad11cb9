#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# /init of the QEMU test's initramfs (see run-qemu-test.sh): run dutprobe
# against the emulated NVMe namespaces, print one result line, power off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
. /etc/dutprobe-test.conf

echo "DUTPROBE-GUEST-BEGIN"
FAILS=""
fail() { echo "check failed: $*"; FAILS="${FAILS:+$FAILS; }$*"; }
# expect FILE REGEX WHAT
expect() { grep -Eq "$2" "$1" || fail "$3"; }

# What the kernel's NVMe driver said (timeouts, aborts, resets), and what
# the block layer holds in flight: tells "the device did not answer" from
# "dutprobe lost it".
nvme_report() {
	echo "--- guest kernel messages about nvme:"
	dmesg | grep -i nvme | tail -40
	for d in /sys/block/nvme*; do
		[ -f "$d/inflight" ] && echo "$d/inflight (reads writes): $(cat "$d/inflight")"
	done
	echo "---"
}

finish() {
	if [ -z "$FAILS" ]; then
		echo "DUTPROBE-QEMU: PASS ($RAN)"
	else
		echo "DUTPROBE-QEMU: FAIL: $FAILS"
	fi
	sync
	poweroff -f
	sleep 10
}

i=0
while [ ! -b /dev/nvme0n1 ] || [ ! -b /dev/nvme0n2 ]; do
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		ls /dev
		fail "/dev/nvme0n1 and /dev/nvme0n2 did not appear within 20 s"
		finish
	fi
	sleep 0.2
done
RAN="identify"

# --- identify, human table ---
for ns in 1 2; do
	out=/tmp/id$ns.txt
	echo "step: identify /dev/nvme0n$ns"
	if ! dutprobe identify /dev/nvme0n$ns >$out 2>&1; then
		cat $out
		fail "dutprobe identify /dev/nvme0n$ns exited $?"
		continue
	fi
	cat $out
	expect $out '^  model +QEMU NVMe Ctrl$' "nvme0n$ns: model is not 'QEMU NVMe Ctrl'"
	expect $out "^  serial +$SERIAL\$" "nvme0n$ns: serial is not $SERIAL"
	expect $out '^  firmware +[0-9]+\.[0-9]' "nvme0n$ns: no firmware revision (QEMU's version)"
	expect $out "^  namespace +$ns: " "nvme0n$ns: namespace id is not $ns"
	expect $out '^  temperature +50 C \(323 K\)$' "nvme0n$ns: SMART temperature is not QEMU's 323 K"
	expect $out '^  data written +[0-9]+ units' "nvme0n$ns: no SMART data units written"
	expect $out '^  volatile write cache +present' "nvme0n$ns: volatile write cache not reported"
done
expect /tmp/id1.txt '^  LBA format [0-9]+ +512 \+ 0 metadata bytes.*<- in use' \
	"nvme0n1: the LBA format in use is not 512 bytes"
expect /tmp/id2.txt '^  LBA format [0-9]+ +4096 \+ 0 metadata bytes.*<- in use' \
	"nvme0n2: the LBA format in use is not 4096 bytes"
expect /tmp/id2.txt '^  logical / physical block +4096 / 4096 bytes' \
	"nvme0n2: sysfs block sizes are not 4096"

# sysfs is real here: when the controller's PCI function has a PCIe link,
# identify must report it
pci=$(readlink -f /sys/class/nvme/nvme0/device)
if [ -f "$pci/current_link_speed" ]; then
	echo "guest sysfs: $pci: $(cat $pci/current_link_speed) x$(cat $pci/current_link_width)"
	expect /tmp/id1.txt '^  link +PCIe ' "nvme0n1: the PCIe link of $pci is not reported"
	expect /tmp/id1.txt '^  interface ceiling +[0-9]+ MB/s' "nvme0n1: no interface ceiling"
else
	echo "guest sysfs: $pci has no PCIe link attributes"
fi

# --- identify, JSON result document ---
echo "step: identify --json"
if dutprobe identify /dev/nvme0n2 --json /tmp/id2.json 2>/tmp/json.err; then
	expect /tmp/id2.json '"lba_bytes": *4096' "JSON: lba_bytes is not 4096"
	expect /tmp/id2.json '"model": *"QEMU NVMe Ctrl"' "JSON: model missing"
	expect /tmp/id2.json '"schema": *"dutlab-result"' "JSON: not a dutlab-result document"
else
	cat /tmp/json.err
	fail "dutprobe identify --json exited non-zero"
fi

# --- the probe-io subcommands, when this dutprobe has them ---
dutprobe --help >/tmp/help.txt 2>&1
has() { grep -Eq "^ +$1( |\$)" /tmp/help.txt; }
# dutprobe's stall timeout is 20 s, and it stops waiting another 20 s after
# declaring a stall; a process whose I/O never completes cannot exit, so
# the guest waits at most this long for one step before it gives up.
STEP_BUDGET=${STEP_BUDGET:-90}
alive() { [ -d /proc/$1 ] && ! grep -q '^State:[[:space:]]*Z' /proc/$1/status 2>/dev/null; }
# io_step NAME OUT CMD...: run CMD with output in OUT; on a failure or when
# it does not finish, print the output and the NVMe report and power off.
io_step() {
	name=$1 out=$2
	shift 2
	echo "step: $name"
	"$@" >"$out" 2>&1 &
	pid=$!
	t=0
	while alive $pid; do
		if [ $t -ge $STEP_BUDGET ]; then
			tail -20 "$out"
			echo "process state: $(grep '^State:' /proc/$pid/status 2>/dev/null)"
			nvme_report
			fail "$name did not finish within ${STEP_BUDGET}s"
			finish
		fi
		sleep 1
		t=$((t + 1))
	done
	wait $pid
	rc=$?
	if [ $rc != 0 ]; then
		tail -20 "$out"
		nvme_report
		fail "$name exited $rc after ${t}s"
		finish
	fi
	# a stall is a failure even if the step went on to succeed
	if grep -q 'stalled' "$out"; then
		grep 'stalled' "$out" | head -5
		nvme_report
		fail "$name printed a stall"
		finish
	fi
	echo "$name: ${t}s"
}
if has trim; then
	RAN="$RAN trim"
	# 1 MiB of 0xab, discard it, read it back: QEMU with discard=unmap
	# deallocates and reads zeroes (DLFEAT = 1)
	echo "step: trim (write the pattern)"
	dd if=/dev/zero bs=65536 count=16 2>/dev/null | tr '\000' '\253' |
		dd of=/dev/nvme0n2 bs=65536 conv=fsync 2>/dev/null
	io_step "dutprobe trim" /tmp/trim.txt \
		dutprobe trim --destructive --stall-timeout $STALL --offset 0 --length 1M /dev/nvme0n2
	echo "step: trim (read back)"
	echo 3 >/proc/sys/vm/drop_caches
	nonzero=$(dd if=/dev/nvme0n2 bs=65536 count=16 2>/dev/null | tr -d '\000' | wc -c)
	[ "$nonzero" = 0 ] || fail "trim: $nonzero bytes of the trimmed 1 MiB are not zero"
else
	echo "optional: trim not in 'dutprobe --help': skipped"
fi
REPEAT=${REPEAT:-1}
for cmd in bench slc; do
	if has $cmd; then
		RAN="$RAN $cmd"
		rep=1
		while [ $rep -le $REPEAT ]; do
			suffix=
			[ $REPEAT = 1 ] || suffix=" (run $rep of $REPEAT)"
			io_step "dutprobe $cmd --quick$suffix" /tmp/$cmd.txt \
				dutprobe $cmd --quick --destructive --stall-timeout $STALL /dev/nvme0n1
			rep=$((rep + 1))
		done
		tail -5 /tmp/$cmd.txt
	else
		echo "optional: $cmd not in 'dutprobe --help': skipped"
	fi
done
echo "ran: $RAN"
finish
