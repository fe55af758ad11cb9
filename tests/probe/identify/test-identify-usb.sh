#!/bin/bash
# dutprobe identify on disks behind USB bridges, without hardware: a fake
# sysfs tree (DUTPROBE_SYSFS_ROOT) in a temp dir holds USB-attached disks,
# device nodes made with mknod point at them (never opened: experimental
# major 240), and a stand-in smartctl on PATH (smartctl-standin.sh) answers
# each -d type with a recorded fixture.  Checks the human table, the JSON
# document, and which smartctl calls were made.  Needs root (mknod) and jq.
#   test-identify-usb.sh DUTPROBE STANDIN
DUTPROBE=$1
STANDIN=$2
. "$(dirname "$0")/../probe-test-lib.sh"
[ -x "$STANDIN" ] || { echo "harness error: stand-in not found at '$STANDIN'"; exit 99; }
[ "$(id -u)" = 0 ] || skip "needs root (mknod of the fake device nodes)"
need_jq
FIX=${DUT_SOURCE_ROOT:-$(dirname "$0")/../../..}/tests/probe/identify/smartctl
[ -f "$FIX/nvme-sntjmicron.json" ] || { echo "harness error: no fixtures in $FIX"; exit 99; }

SYS=$WORK/sys
BIN=$WORK/bin
mkdir -p "$SYS" "$WORK/dev" "$BIN" "$WORK/empty" || exit 99
ln -s "$STANDIN" "$BIN/smartctl" || exit 99
mknod "$WORK/dev/probe-test" b 240 250 2>/dev/null || skip "mknod of a block device node is not allowed here"
rm -f "$WORK/dev/probe-test"

w() { mkdir -p "$SYS/$(dirname "$1")" && printf '%s\n' "$2" > "$SYS/$1"; }
# usb_disk NAME MINOR BUS VID PID BCD MANUFACTURER PRODUCT DRIVER: /dev/NAME = 240:MINOR
usb_disk() {
	local name=$1 minor=$2 bus=$3 vid=$4 pid=$5 bcd=$6 manuf=$7 product=$8 driver=$9
	local x=devices/pci0000:00/0000:00:14.0
	local u=$x/usb$bus/$bus-1 sd b
	w $x/vendor 0x8086
	w $x/class 0x0c0330
	w $x/usb$bus/idVendor 1d6b
	w $x/usb$bus/idProduct 0003
	w $x/usb$bus/speed 10000
	w $u/idVendor "$vid"
	w $u/idProduct "$pid"
	w $u/bcdDevice "$bcd"
	w $u/manufacturer "$manuf"
	w $u/product "$product"
	w $u/serial 0000000000000D7B
	w $u/speed 10000
	w $u/version " 3.20"
	w $u/rx_lanes 1
	mkdir -p "$SYS/$u/$bus-1:1.0" && ln -s "../../../../../../bus/usb/drivers/$driver" "$SYS/$u/$bus-1:1.0/driver"
	sd=$u/$bus-1:1.0/host$bus/target$bus:0:0/$bus:0:0:0
	w $sd/vendor "$manuf"
	w $sd/model "$product"
	w $sd/rev 0214
	b=$sd/block/$name
	w $b/dev "240:$minor"
	ln -s "../../../$bus:0:0:0" "$SYS/$b/device"
	w $b/size 1953525168
	w $b/queue/rotational 0
	w $b/queue/logical_block_size 512
	w $b/queue/physical_block_size 512
	w $b/queue/minimum_io_size 512
	w $b/queue/optimal_io_size 33553920
	w $b/queue/scheduler "[mq-deadline] none"
	w $b/queue/write_cache "write through"
	w $b/queue/discard_max_bytes 0
	w $b/queue/discard_granularity 0
	mkdir -p "$SYS/class/block" "$SYS/dev/block"
	ln -s "../../$b" "$SYS/class/block/$name"
	ln -s "../../$b" "$SYS/dev/block/240:$minor"
	mknod "$WORK/dev/$name" b 240 "$minor" || exit 99
}

usb_disk sdj 0 2 152d 0583 0214 JMicron "USB to PCIE Bridge" uas
usb_disk sda 16 3 174c 2362 0100 ASMedia ASM2362 uas
usb_disk sds 32 4 152d 0578 0204 JMicron "USB to ATA/ATAPI Bridge" uas
usb_disk sdu 48 5 1234 5678 0100 Generic "USB3.0 Enclosure" usb-storage
usb_disk sdr 64 6 0bda 9210 2100 Realtek RTL9210 uas

# a SATA disk on the same tree: no bridge, smartctl must not run
A=devices/pci0000:00/0000:00:17.0
w $A/vendor 0x8086
w $A/ata3/link3/ata_link/link3/sata_spd "6.0 Gbps"
B=$A/ata3/host2/target2:0:0/2:0:0:0/block/sdk
w $B/dev 240:80
w $B/size 976773168
w $B/queue/rotational 0
ln -s "../../$B" "$SYS/class/block/sdk"
ln -s "../../$B" "$SYS/dev/block/240:80"
mknod "$WORK/dev/sdk" b 240 80 || exit 99

LOG=$WORK/smartctl.log
export DUTPROBE_SYSFS_ROOT=$SYS SMARTCTL_STANDIN_DIR=$FIX SMARTCTL_STANDIN_LOG=$LOG
unset DUTPROBE_SMARTCTL

# identify DEV MAP: human table in $OUT, the document in $WORK/DEV.json, smartctl calls in $LOG
# (both runs must make the same smartctl calls; $LOG keeps the second's)
identify() {
	local dev=$1 human
	: > "$LOG"
	SMARTCTL_STANDIN_MAP=$2 PATH="$BIN:$PATH" run 0 "$DUTPROBE" identify "$WORK/dev/$dev"
	human=$OUT
	mv "$LOG" "$LOG.human"
	SMARTCTL_STANDIN_MAP=$2 PATH="$BIN:$PATH" run 0 "$DUTPROBE" identify "$WORK/dev/$dev" --json "$WORK/$dev.json"
	OUT=$human
	cmp -s "$LOG" "$LOG.human" || fail "$dev: the human and JSON runs called smartctl differently"
}
# jqe FILTER FILE
jqe() {
	jq -e "$1" "$2" >/dev/null || { echo "--- $2:"; jq '.target | {bridge, inner_drive}' "$2"; fail "$2: $1"; }
}
calls_are() {
	local want=$1 got
	got=$(sed 's/^/ /' "$LOG" | tr -d '\n')
	[ "$got" = "$want" ] || fail "smartctl calls:$got; want:$want"
}

# --- NVMe behind a JMicron JMS583: -d sntjmicron, one call per run ---
identify sdj "sntjmicron=nvme-sntjmicron.json"
echo "--- dutprobe identify on the JMS583 disk, smartctl = the stand-in (README and docs/dutprobe.md quote it):"
echo "$OUT"
expect_msg "Inner drive (behind the USB bridge, through smartctl)"
expect_msg "bridge                   152d:0583 JMicron JMS583 (USB to NVMe)"
expect_msg "passthrough              smartctl -d sntjmicron (JMicron vendor SCSI-to-NVMe passthrough) on $WORK/dev/sdj"
expect_msg "model                    INTEL SSDPEKKW256G7"
expect_msg "serial                   BTPY7123456A256D"
expect_msg "firmware                 PSF121C"
expect_msg "capacity                 238.47 GiB (256060514304 B)"
expect_msg "temperature              33 C"
expect_msg "percent used             7%"
expect_msg "data written             29981573 units = 13.96 TiB"
expect_msg "power-on hours           6021"
expect_msg "media errors             0"
expect_msg "critical warnings        none"
expect_msg 'those under "Inner drive" are the drive'"'"'s own, read by smartctl -d sntjmicron'
jqe '.target.link.kind == "usb"' "$WORK/sdj.json"
jqe '.target.bridge | .usb_id == "152d:0583" and .bcd_device == "0214" and .name == "JMicron JMS583"
     and .known and .inner_interface == "NVMe" and .state == "ok" and .passthrough == "sntjmicron"
     and (.attempts | length) == 1 and .attempts[0].argv[1:] == ["-j", "-a", "-d", "sntjmicron", "'"$WORK/dev/sdj"'"]' "$WORK/sdj.json"
jqe '.target.inner_drive | .protocol == "NVMe" and .model == "INTEL SSDPEKKW256G7"
     and .serial == "BTPY7123456A256D" and .firmware == "PSF121C" and .capacity_bytes == 256060514304
     and .temperature_c == 33 and .power_on_hours == 6021 and .smart_passed == true
     and .nvme_health.percent_used == 7 and .nvme_health.data_units_written == 29981573
     and .nvme_health.data_units_read == 14723381 and .nvme_health.media_errors == 0
     and .nvme_health.critical_warning == 0 and .ata_attributes == []' "$WORK/sdj.json"
calls_are " -j -a -d sntjmicron $WORK/dev/sdj"
echo "--- its JSON document's bridge and inner_drive:"
jq '.target | {bridge, inner_drive}' "$WORK/sdj.json"

# --- NVMe behind an ASMedia ASM2362: -d sntasmedia, a critical warning, a counter > 2^53 ---
identify sda "sntasmedia=nvme-sntasmedia.json"
expect_msg "passthrough              smartctl -d sntasmedia (ASMedia vendor SCSI-to-NVMe passthrough)"
expect_msg "model                    Samsung SSD 970 EVO Plus 1TB"
expect_msg "SMART overall            FAILED"
expect_msg "critical warning         bit 1: "
jqe '.target.bridge.name == "ASMedia ASM2362" and .target.bridge.passthrough == "sntasmedia"' "$WORK/sda.json"
jqe '.target.inner_drive.nvme_health | .critical_warning == 2 and (.critical_warnings | length) == 1
     and (.saturated | index("bytes_read")) != null' "$WORK/sda.json"
# jq reads numbers as doubles: check the exact value in the text
grep -Eq '"data_units_read": ?9007199254740993\b' "$WORK/sda.json" ||
	fail "data_units_read is not 9007199254740993 in $WORK/sda.json"
calls_are " -j -a -d sntasmedia $WORK/dev/sda"

# --- SATA drive behind a JMicron JMS578: -d sat, ATA attributes ---
identify sds "sat=sata-sat.json"
expect_msg "bridge                   152d:0578 JMicron JMS578 (USB to SATA)"
expect_msg "passthrough              smartctl -d sat (SCSI/ATA Translation (ATA PASS-THROUGH))"
expect_msg "model family             Samsung based SSDs"
expect_msg "model                    Samsung SSD 860 EVO 500GB"
expect_msg "rotation                 none (solid state)"
expect_msg "  9 Power_On_Hours"
expect_msg "raw 23417"
jqe '.target.inner_drive | .protocol == "ATA" and .model == "Samsung SSD 860 EVO 500GB"
     and .nvme_health == null and (.ata_attributes | length) == 14 and .power_on_hours == 23417
     and .power_cycles == 1287 and .temperature_c == 31
     and (.ata_attributes[] | select(.id == 5) | .prefailure and .threshold == 10)' "$WORK/sds.json"
calls_are " -j -a -d sat $WORK/dev/sds"

# --- an unknown bridge where nothing works: every type tried in turn, and why each failed ---
identify sdu "auto=unknown-bridge.json sat=failed-sat.json sntrealtek=unsupported-type.json"
expect_msg "bridge                   1234:5678 not in dutprobe's table"
expect_msg "result                   inner drive not reached on $WORK/dev/sdu (tried -d auto, -d sat, -d sntasmedia, -d sntrealtek, -d sntjmicron: each failed)"
expect_msg "tried -d auto            failed (exit status 1): /dev/sdc: Unknown USB bridge [0x1234:0x5678 (0x100)]"
expect_msg "tried -d sat             failed (exit status 2): Read Device Identity failed"
expect_msg "tried -d sntrealtek      failed (exit status 1): /dev/sdc: Unknown SNT device type 'sntrealtek'"
expect_msg "tried -d sntjmicron      failed (exit status 2): Read NVMe Identify Controller failed"
expect_msg "The usb-storage driver (Bulk-Only Transport)"
jqe '.target.bridge | .known == false and .name == null and .state == "failed" and .passthrough == null
     and ([.attempts[].device_type] == ["auto", "sat", "sntasmedia", "sntrealtek", "sntjmicron"])
     and ([.attempts[].reached_drive] | any | not) and .attempts[0].argv[1:] == ["-j", "-a", "'"$WORK/dev/sdu"'"]' "$WORK/sdu.json"
jqe '.target.inner_drive == null' "$WORK/sdu.json"
calls_are " -j -a $WORK/dev/sdu -j -a -d sat $WORK/dev/sdu -j -a -d sntasmedia $WORK/dev/sdu -j -a -d sntrealtek $WORK/dev/sdu -j -a -d sntjmicron $WORK/dev/sdu"

# --- a known bridge whose passthrough fails (an smartctl older than 7.2 lacks sntrealtek) ---
identify sdr "sntrealtek=unsupported-type.json"
expect_msg "result                   inner drive not reached on $WORK/dev/sdr (tried -d sntrealtek: failed)"
expect_msg "Unknown SNT device type 'sntrealtek'"
jqe '.target.bridge.state == "failed" and .target.bridge.name == "Realtek RTL9210"
     and (.target.bridge.attempts | length) == 1 and .target.bridge.attempts[0].exit_status == 1' "$WORK/sdr.json"

# --- smartctl not installed: a clear line, identify still succeeds ---
: > "$LOG"
PATH=$WORK/empty run 0 "$DUTPROBE" identify "$WORK/dev/sdj"
expect_msg "smartctl                 smartctl is not installed (no smartctl on PATH): apt-get install smartmontools"
expect_msg "vendor / model           JMicron USB to PCIE Bridge"   # the bridge's INQUIRY is still shown
expect_msg "What could work: apt-get install smartmontools"
PATH=$WORK/empty run 0 "$DUTPROBE" identify "$WORK/dev/sdj" --json "$WORK/none.json"
jqe '.target.bridge.state == "smartctl_missing" and .target.inner_drive == null
     and (.target.bridge.reason | contains("apt-get install smartmontools"))' "$WORK/none.json"
[ ! -s "$LOG" ] || fail "the stand-in ran although it is not on PATH"

# --- not behind USB: smartctl is not run, no bridge objects ---
: > "$LOG"
PATH="$BIN:$PATH" run 0 "$DUTPROBE" identify "$WORK/dev/sdk" --json "$WORK/sdk.json"
jqe '.target.link.kind == "sata" and (.target | has("bridge") | not) and (.target | has("inner_drive") | not)' "$WORK/sdk.json"
PATH="$BIN:$PATH" run 0 "$DUTPROBE" identify "$WORK/dev/sdk"
case "$OUT" in *"Inner drive"*) fail "an Inner drive section for a SATA disk" ;; esac
[ ! -s "$LOG" ] || fail "smartctl ran for a disk that is not behind USB: $(cat "$LOG")"

# --- the real smartctl, when installed, on the same nodes: they have no driver (major
# 240), so every open fails; its own JSON must come through as the reasons ---
REAL=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v smartctl || true)
if [ -n "$REAL" ] && [ "$(readlink -f "$REAL")" != "$(readlink -f "$STANDIN")" ]; then
	DUTPROBE_SMARTCTL=$REAL run 0 "$DUTPROBE" identify "$WORK/dev/sdu" --json "$WORK/real.json"
	jqe '.target.bridge | .state == "failed" and .smartctl == "'"$REAL"'" and (.attempts | length) == 5
	     and all(.attempts[]; .exit_status >= 1 and (.message | length) > 0 and (.reached_drive | not))' "$WORK/real.json"
	DUTPROBE_SMARTCTL=$REAL run 0 "$DUTPROBE" identify "$WORK/dev/sdj"
	expect_msg "tried -d sntjmicron      failed (exit status 2): Smartctl open device: $WORK/dev/sdj [USB NVMe JMicron] failed"
	echo "real smartctl ($REAL): every type refused with its own message, as expected"
else
	echo "real smartctl not installed: its part skipped"
fi

echo "PASS: identify behind USB bridges (JMS583, ASM2362, JMS578/sat, unknown bridge, RTL9210 failing, no smartctl, SATA)"
