#!/bin/sh
# Run one libFuzzer target for a bounded time from its seed corpus.
# usage: run-fuzz.sh FUZZER SEED_DIR
set -eu
fuzzer=$1
seeds=$2
secs=${DUT_FUZZ_SECONDS:-15}
keep=$(pwd)   # crash inputs are kept here (meson runs tests in the build directory)
work=$(mktemp -d "${TMPDIR:-/tmp}/dutfuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
if [ -d "$seeds" ]; then
	cp -r "$seeds"/. "$work/corpus/"
fi
echo "fuzzing $(basename "$fuzzer") for ${secs}s (seeds: $seeds)"
cd "$work"
# Not exec: the EXIT trap must still remove the work directory.  -error_exitcode:
# libFuzzer exits 77 on a crash by default, which meson reads as a skip.
rc=0
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 \
	-artifact_prefix="$keep/$(basename "$fuzzer")-" -print_final_stats=1 "$work/corpus" || rc=$?
[ $rc -eq 0 ] || echo "fuzzer failed (exit $rc); the input that broke it is $keep/$(basename "$fuzzer")-*"
exit $rc
