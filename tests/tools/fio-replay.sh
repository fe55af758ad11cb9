#!/bin/sh
# Integration: dutlab export --format fio produces an iolog that fio really
# replays, with the traced number of reads, writes and syncs.
# usage: fio-replay.sh DUTLAB MKTRACE
set -eu
dutlab=$1
mktrace=$2
if ! command -v fio >/dev/null 2>&1; then
	echo "SKIP: fio is not installed (apt-get install fio)"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dutfio.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$mktrace" "$work/t.dtr"
"$dutlab" export "$work/t.dtr" --format fio --prefix "$work/data" -o "$work/iolog"
head -1 "$work/iolog" | grep -qx 'fio version 3 iolog'
# the replay target: files at least as large as the traced offsets
mkdir -p "$work/data/base/5" "$work/data/pg_wal"
truncate -s 1M "$work/data/base/5/16384" "$work/data/pg_wal/000000010000000000000001"

cd "$work"
fio --name=replay --read_iolog="$work/iolog" --output-format=json --output="$work/fio.json"
python3 - "$work/fio.json" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
got = (job["read"]["total_ios"], job["read"]["io_bytes"],
       job["write"]["total_ios"], job["write"]["io_bytes"], job["sync"]["lat_ns"]["N"])
want = (8, 8 * 8192, 10, 4 * 8192 + 6 * 16384, 2)
print("fio replayed reads/bytes, writes/bytes, syncs:", got)
if got != want:
    print("FAIL: want", want)
    sys.exit(1)
PY
# the phase filter: only the WAL writes of "run"
"$dutlab" export "$work/t.dtr" --format fio --phase run --ops write --prefix "$work/data" -o "$work/run.iolog"
test "$(grep -c ' write ' "$work/run.iolog")" -eq 6
test "$(grep -c ' read ' "$work/run.iolog" || true)" -eq 0
echo "PASS"
