#!/bin/sh
# Run one libFuzzer target for a bounded time from its seed corpus.
# usage: run-fuzz.sh FUZZER SEED_DIR
set -eu
fuzzer=$1
seeds=$2
secs=${DUT_FUZZ_SECONDS:-15}
work=$(mktemp -d "${TMPDIR:-/tmp}/dutfuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
if [ -d "$seeds" ]; then
	cp -r "$seeds"/. "$work/corpus/"
fi
echo "fuzzing $(basename "$fuzzer") for ${secs}s (seeds: $seeds)"
cd "$work"
exec "$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 "$work/corpus"
