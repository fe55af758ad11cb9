#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dutprobe against an emulated NVMe controller under QEMU (TCG only).
#
#   run-qemu-test.sh DUTPROBE_BINARY
#
# Boots Debian's cloud kernel (NVMe built in) with an initramfs of static
# busybox + DUTPROBE_BINARY + the shared libraries ldd lists, and one NVMe
# controller with two namespaces: nsid 1 with 512-byte LBAs, nsid 2 with
# 4 KiB LBAs.  The guest's /init runs the checks and prints one line,
# "DUTPROBE-QEMU: PASS" or "DUTPROBE-QEMU: FAIL: why", to the serial
# console, then powers off.  The verdict comes from the serial log (QEMU's
# exit status carries none).
#
# Always: 'identify' on both namespaces (model "QEMU NVMe Ctrl", our serial,
# firmware, LBA format in use 512 / 4096, SMART with QEMU's fixed 323 K) and
# its JSON document.  When 'DUTPROBE --help' lists them: trim (then the
# trimmed range must read back as zeroes), bench --quick, slc --quick.
#
# One boot, no retry: a guest that stalls or fails fails the test, with the
# guest's last step and its NVMe kernel messages (README.md, issue #19).
#
# Environment: QEMU (default qemu-system-x86_64), DUTLAB_QEMU_CACHE (kernel
# cache, default /var/tmp/dutlab-qemu-cache), QEMU_TIMEOUT (seconds, 180),
# QEMU_SMP (the -smp value, default 1,maxcpus=2; QEMU_SMP=1 is the old
# configuration that loses doorbells, for showing that the test catches it),
# QEMU_STEP_BUDGET (seconds the guest gives one dutprobe step, 90; a small
# value shows the failure report), QEMU_REPEAT (run bench and slc this many
# times in the one boot, 1; more makes a rare stall likely, raise
# QEMU_TIMEOUT with it), KEEP_QEMU_LOG=1 keeps the work directory.
# Exit: 0 pass, 1 fail, 77 skip (no QEMU, busybox-static, cpio, or kernel).
set -eu

SERIAL=DUTLAB-QEMU-SN1
skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

[ $# -eq 1 ] || { echo "usage: $0 DUTPROBE_BINARY" >&2; exit 99; }
DUTPROBE=$1
[ -x "$DUTPROBE" ] || { echo "$DUTPROBE: not an executable" >&2; exit 99; }
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${QEMU_TIMEOUT:-180}
# One vCPU, but room for a second.  QEMU 7.2's TCG elides the guest's memory
# barriers when the machine can never have more than one vCPU (-smp 1), and
# the NVMe shadow-doorbell handshake between the guest driver and the
# emulated controller then races: commands sit in the submission queue and
# the controller is never told (about 1 boot in 5 stalled).  With
# maxcpus=2 the barriers are kept (and the guest gets an NVMe I/O queue per
# possible CPU, two); measured: 0 stalls (README.md).
SMP=${QEMU_SMP:-1,maxcpus=2}
CACHE=${DUTLAB_QEMU_CACHE:-/var/tmp/dutlab-qemu-cache}

command -v "$QEMU" >/dev/null 2>&1 || skip "$QEMU not found (apt-get install qemu-system-x86)"
command -v cpio >/dev/null 2>&1 || skip "cpio not found (apt-get install cpio)"
BUSYBOX=/bin/busybox
[ -x $BUSYBOX ] || skip "$BUSYBOX not found (apt-get install busybox-static)"
if ldd $BUSYBOX >/dev/null 2>&1; then
	skip "$BUSYBOX is dynamically linked; the initramfs needs busybox-static"
fi

# --- the kernel: Debian's cloud flavour, extracted without installing ---
kernel_fetch() {
	mkdir -p "$CACHE"
	(
		flock 9
		if ls "$CACHE"/root/boot/vmlinuz-* >/dev/null 2>&1; then
			exit 0
		fi
		cd "$CACHE"
		command -v apt-get >/dev/null 2>&1 || { echo "apt-get not available"; exit 2; }
		# the metapackage depends on the versioned package that holds vmlinuz
		pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		      awk '/Depends: linux-image-[0-9].*-cloud-amd64/ { print $2; exit }')
		[ -n "$pkg" ] || { echo "apt-cache knows no linux-image-cloud-amd64 (apt-get update?)"; exit 2; }
		rm -f ./*.deb
		if ! apt-get download linux-image-cloud-amd64 "$pkg" >download.log 2>&1; then
			echo "apt-get download linux-image-cloud-amd64 $pkg failed: $(tail -1 download.log)"
			exit 2
		fi
		rm -rf root.new && mkdir root.new
		for deb in ./linux-image-*.deb; do dpkg -x "$deb" root.new; done
		ls root.new/boot/vmlinuz-* >/dev/null 2>&1 || { echo "no vmlinuz in $pkg"; exit 2; }
		rm -rf root && mv root.new root
	) 9>"$CACHE/.lock"
}
if ! why=$(kernel_fetch); then
	skip "no kernel: $why"
fi
KERNEL=$(ls "$CACHE"/root/boot/vmlinuz-* | head -1)

WORK=$(mktemp -d /tmp/dutprobe-qemu.XXXXXX)
QEMU_PID=
cleanup() {
	[ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null || true
	if [ "${KEEP_QEMU_LOG:-0}" = 1 ]; then
		echo "work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT INT TERM

# --- initramfs ---
R=$WORK/initramfs
mkdir -p "$R"/bin "$R"/sbin "$R"/proc "$R"/sys "$R"/dev "$R"/tmp "$R"/etc
cp $BUSYBOX "$R"/bin/busybox
cp "$DUTPROBE" "$R"/bin/dutprobe
# shared libraries, at the paths the binary asks for (incl. the loader)
ldd "$DUTPROBE" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | while read -r lib; do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
cp "$(dirname "$0")/guest-init.sh" "$R"/init
chmod +x "$R"/init "$R"/bin/dutprobe
# STALL: under the kernel's 30 s NVMe I/O timeout, so dutprobe names a stall
# before the driver starts aborting and resetting (which did not heal it).
printf 'SERIAL=%s\nSTALL=20s\nSTEP_BUDGET=%s\nREPEAT=%s\n' "$SERIAL" "${QEMU_STEP_BUDGET:-90}" \
	"${QEMU_REPEAT:-1}" > "$R"/etc/dutprobe-test.conf
(cd "$R" && find . | cpio -o -H newc --quiet) | gzip -1 > "$WORK"/initramfs.gz

# --- drives: sparse images, discard passed to the image (discard=unmap) ---
LOG=$WORK/serial.log
rm -f "$WORK"/ns1.img "$WORK"/ns2.img "$LOG"
truncate -s 320M "$WORK"/ns1.img
truncate -s 64M "$WORK"/ns2.img
echo "booting $(basename "$KERNEL") under QEMU TCG (-smp $SMP, timeout ${TIMEOUT}s), dutprobe = $DUTPROBE"
start=$(date +%s)
timeout --kill-after=10 "$TIMEOUT" "$QEMU" \
	-accel tcg -cpu max -m 512 -smp "$SMP" -M q35 \
	-nographic -no-reboot -nic none -monitor none -serial "file:$LOG" \
	-kernel "$KERNEL" -initrd "$WORK"/initramfs.gz \
	-append "console=ttyS0 panic=-1 rdinit=/init quiet loglevel=3" \
	-drive file="$WORK"/ns1.img,id=d1,format=raw,if=none,discard=unmap \
	-drive file="$WORK"/ns2.img,id=d2,format=raw,if=none,discard=unmap \
	-device pcie-root-port,id=rp0,bus=pcie.0,chassis=1,slot=1 \
	-device nvme,id=c0,serial=$SERIAL,bus=rp0 \
	-device nvme-ns,drive=d1,bus=c0,nsid=1 \
	-device nvme-ns,drive=d2,bus=c0,nsid=2,logical_block_size=4096,physical_block_size=4096 \
	</dev/null >"$WORK"/qemu.out 2>&1 &
QEMU_PID=$!
wait $QEMU_PID && rc=0 || rc=$?
QEMU_PID=
echo "QEMU ran $(( $(date +%s) - start ))s (exit status $rc)"
# the guest's own output, without the kernel's boot noise
tr -d '\r' < "$LOG" | sed -n '/DUTPROBE-GUEST-BEGIN/,/^DUTPROBE-QEMU:/p'

last=$(tr -d '\r' < "$LOG" | grep '^step: ' | tail -1 || true)
last=${last#step: }
# The guest prints its NVMe kernel messages itself when a step fails; when
# it never got that far, the console holds what the kernel printed.
nvme_console() {
	echo "--- NVMe lines on the guest's console:"
	tr -d '\r' < "$LOG" | grep -i 'nvme' | grep -v '^step: ' | tail -40 || echo "(none)"
}
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	tail -20 "$LOG" | tr -d '\r'
	nvme_console
	die "the guest did not finish within ${TIMEOUT}s (-smp $SMP); last step: ${last:-none, before the first step}"
fi
verdict=$(tr -d '\r' < "$LOG" | grep '^DUTPROBE-QEMU: ' | tail -1 || true)
case "$verdict" in
"DUTPROBE-QEMU: PASS"*) exit 0 ;;
"DUTPROBE-QEMU: FAIL"*) die "${verdict#DUTPROBE-QEMU: FAIL: } (-smp $SMP; last step: ${last:-none})" ;;
*)
	cat "$WORK"/qemu.out
	tail -30 "$LOG" | tr -d '\r'
	nvme_console
	die "no result line on the serial console (QEMU exit status $rc; -smp $SMP; last step: ${last:-none})"
	;;
esac
