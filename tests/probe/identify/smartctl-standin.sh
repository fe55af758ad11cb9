#!/bin/sh
# A stand-in for smartctl, for tests (no hardware): put it on PATH as
# "smartctl".  It accepts only what dutprobe may send (-j, -a, -d TYPE and one
# device) and refuses anything else with exit 64, so an option that could
# write never passes unnoticed.  For "-d TYPE" (TYPE "auto" without -d) it
# prints the fixture SMARTCTL_STANDIN_MAP names ("auto=unknown-bridge.json
# sntjmicron=nvme-sntjmicron.json", files in SMARTCTL_STANDIN_DIR) and exits
# with that fixture's smartctl.exit_status; any other type fails as a
# passthrough the bridge does not speak (exit 2).  Each call's arguments are
# appended to SMARTCTL_STANDIN_LOG when set.
: "${SMARTCTL_STANDIN_DIR:?}"
[ -z "${SMARTCTL_STANDIN_LOG:-}" ] || echo "$*" >> "$SMARTCTL_STANDIN_LOG"

type=auto
dev=
json=0
all=0
while [ $# -gt 0 ]; do
	case $1 in
	-j) json=1 ;;
	-a) all=1 ;;
	-d) [ $# -ge 2 ] || { echo "smartctl stand-in: -d needs a type" >&2; exit 64; }
	    type=$2; shift ;;
	/*) [ -z "$dev" ] || { echo "smartctl stand-in: two devices ($dev, $1)" >&2; exit 64; }
	    dev=$1 ;;
	*) echo "smartctl stand-in: refusing option '$1' (dutprobe may only send -j -a -d TYPE DEVICE)" >&2
	   exit 64 ;;
	esac
	shift
done
[ "$json" = 1 ] && [ "$all" = 1 ] && [ -n "$dev" ] || {
	echo "smartctl stand-in: expected -j -a [-d TYPE] DEVICE" >&2
	exit 64
}

fixture=
for pair in ${SMARTCTL_STANDIN_MAP:-}; do
	[ "${pair%%=*}" = "$type" ] && fixture=${pair#*=}
done
if [ -n "$fixture" ]; then
	cat "$SMARTCTL_STANDIN_DIR/$fixture" || exit 99
	status=$(sed -n 's/^ *"exit_status": \([0-9]*\).*/\1/p' "$SMARTCTL_STANDIN_DIR/$fixture" | head -n 1)
	exit "${status:-0}"
fi
cat <<JSON
{
  "json_format_version": [1, 0],
  "smartctl": {
    "version": [7, 3],
    "messages": [
      {
        "string": "Read NVMe Identify Controller failed: scsi error unsupported scsi opcode (stand-in: no fixture for -d $type)",
        "severity": "error"
      }
    ],
    "exit_status": 2
  },
  "device": {
    "name": "$dev",
    "info_name": "$dev",
    "type": "$type",
    "protocol": "NVMe"
  }
}
JSON
exit 2
