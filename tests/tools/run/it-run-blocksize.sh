#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# PostgreSQL built with 16 kB blocks (issue #26), end to end:
#   refusals  dutlab pg build refuses a block size PostgreSQL does not accept
#             (exit 2), a major no Debian suite offers (exit 3), and a cached
#             build whose recorded configure options differ (exit 4); the
#             runner refuses a configuration whose build is missing (naming
#             the command) while --dry-run says so and how long it takes
#   build     dutlab pg build --major 15 --block-size 16kB: built once per
#             machine into /var/lib/dutlab/pg/15-bs16k (the first time takes
#             15-25 min on 2 cores; later runs reuse it), listed by pg list
#   run       [matrix] block_size = 8kB, 16kB through dutfs (view syscall,
#             traced): pgload creates the cluster, a tpcb-like load and run
#             and a DSS SF 0.01 load; the manifest names the block size and
#             bindir of each configuration, the server says SHOW block_size
#             (the pgbench result documents), the relation map records it, every
#             traced request to a relation file is whole blocks of it, and
#             the report's per-relation bytes are whole blocks
here=$(cd "$(dirname "$0")" && pwd)
. "$here/it-lib.sh"
CACHE=/var/lib/dutlab/pg
unset DUT_PG_CACHE

# ---- refusals of dutlab pg build ----
want() { # NAME RC TEXT CMD...: CMD exits RC and says TEXT
	local name=$1 rc=$2 text=$3 got
	shift 3
	"$@" >"$WORK/$name.out" 2>&1
	got=$?
	sed 's/^/    /' "$WORK/$name.out"
	[ "$got" -eq "$rc" ] || fail "$name: exited $got, expected $rc"
	grep -qF -- "$text" "$WORK/$name.out" || fail "$name: no \"$text\""
}
want bs3k 2 "block size '3kB' is not one PostgreSQL accepts: it takes 1 kB, 2 kB, 4 kB, 8 kB, 16 kB, 32 kB" \
	"$DUTLAB" pg build --major 15 --block-size 3kB
want bs64k 2 "it takes 1 kB, 2 kB, 4 kB, 8 kB, 16 kB, 32 kB" "$DUTLAB" pg build --block-size 64kB
want wal128k 2 "WAL block size '128kB' is not one PostgreSQL accepts" "$DUTLAB" pg build --wal-block-size 128kB
want major9 2 "is not a PostgreSQL major dutlab supports" "$DUTLAB" pg build --major 9
# a cached build with other options: refused, not rebuilt over
mkdir -p "$WORK/cache/15-bs16k/bin"
printf 'major=15\nversion=15.0\nsuite=bookworm\nblock_size_kb=16\nwal_block_size_kb=8\nconfigure=--prefix=/elsewhere --with-blocksize=16\nbuild_seconds=1\n' \
	>"$WORK/cache/15-bs16k/dutlab-build.conf"
want differs 4 "the cached build $WORK/cache/15-bs16k was configured with" \
	env DUT_PG_CACHE="$WORK/cache" "$DUTLAB" pg build --major 15 --block-size 16kB
grep -qF -- "--prefix=$WORK/cache/15-bs16k --with-blocksize=16 --with-wal-blocksize=8" "$WORK/differs.out" ||
	fail "differs: the options asked for are not shown"
[ "$(cat "$WORK/cache/15-bs16k/dutlab-build.conf" | grep -c elsewhere)" -eq 1 ] || fail "differs: the cached build was touched"
# a cached build whose server looks for its modules (plpgsql, dict_snowball) outside it
# (Debian's patches point pkglibdir at /usr/lib/postgresql/<major>/lib; builds from before
# the fix installed none): refused, not reused
k18=$WORK/cache/18-bs8k
mkdir -p "$k18/bin"
printf '#!/bin/sh\necho "postgres (PostgreSQL) 18.0 (stub)"\n' >"$k18/bin/postgres"
printf '#!/bin/sh\n[ "$1" = --pkglibdir ] && echo /nonexistent/18/lib\n' >"$k18/bin/pg_config"
chmod 755 "$k18/bin/postgres" "$k18/bin/pg_config"
printf 'major=18\nversion=18.0\nsuite=forky\nblock_size_kb=8\nwal_block_size_kb=8\nconfigure=--prefix=%s --with-blocksize=8 --with-wal-blocksize=8 --without-icu --with-lz4 --with-zstd --with-readline --with-zlib --disable-nls --with-liburing\nbuild_seconds=1\n' \
	"$k18" >"$k18/dutlab-build.conf"
want nomodules 4 "looks for its modules in /nonexistent/18/lib, which has none" \
	env DUT_PG_CACHE="$WORK/cache" "$DUTLAB" pg build --major 18
# a major no suite has: the private deb-src list is asked (the network); 16 is in none of
# bookworm, trixie, forky, sid
"$DUTLAB" pg build --major 16 >"$WORK/major16.out" 2>&1
rc=$?
sed 's/^/    /' "$WORK/major16.out"
if [ "$rc" -eq 1 ] && grep -q "apt-get update of the private deb-src list failed" "$WORK/major16.out"; then
	echo "note: the Debian archive is not reachable: the major refusal is not checked"
else
	[ "$rc" -eq 3 ] || fail "major16: exited $rc, expected 3"
	grep -qE "no suite of 'bookworm trixie forky sid' has the source package postgresql-16 \(majors offered: .*15 .*17" \
		"$WORK/major16.out" || fail "major16: the message does not name what is offered"
fi
# the system's apt configuration and lists are not what the build used
! ls /var/lib/apt/lists/ 2>/dev/null | grep -q '_source_Sources' || fail "the system's apt lists have deb-src indexes"

# ---- the build (cached per machine) ----
t0=$(date +%s)
"$DUTLAB" pg build --major 15 --block-size 16kB >"$WORK/build.out" 2>"$WORK/build.err" ||
	{ tail -30 "$WORK/build.err"; fail "dutlab pg build --major 15 --block-size 16kB failed"; }
took=$(( $(date +%s) - t0 ))
tail -3 "$WORK/build.err" | sed 's/^/    /'
[ "$(cat "$WORK/build.out")" = "$CACHE/15-bs16k/bin" ] || fail "pg build printed $(cat "$WORK/build.out")"
echo "ok: 15 with 16 kB blocks in $CACHE/15-bs16k ($took s now, $(sed -n 's/^build_seconds=//p' "$CACHE/15-bs16k/dutlab-build.conf") s to build)"
"$DUTLAB" pg build --major 15 --block-size 16k >/dev/null 2>"$WORK/again.err" || fail "the second pg build failed"
grep -q "reusing $CACHE/15-bs16k" "$WORK/again.err" || fail "the second pg build did not reuse the cache: $(cat "$WORK/again.err")"
# its modules are its own (built with 16 kB blocks), not Debian's: no warning on reuse
! grep -q "warning" "$WORK/again.err" || fail "the reused build warns: $(cat "$WORK/again.err")"
[ "$("$CACHE/15-bs16k/bin/pg_config" --pkglibdir)" = "$CACHE/15-bs16k/lib/postgresql" ] &&
	[ -f "$CACHE/15-bs16k/lib/postgresql/plpgsql.so" ] ||
	fail "the build's modules are not in it (pkglibdir $("$CACHE/15-bs16k/bin/pg_config" --pkglibdir)): dutlab pg build --major 15 --block-size 16kB --rebuild"
want buildhelp 0 "usage: dutlab pg build" "$DUTLAB" pg build --help
"$DUTLAB" pg list >"$WORK/list.out" || fail "pg list failed"
grep -qE "^15-bs16k +15\.[0-9]+-[^ ]+ +bookworm +16kB +8kB " "$WORK/list.out" || fail "pg list: $(cat "$WORK/list.out")"
[ "$("$DUTLAB" pg list --json | jq -r '.[] | select(.key == "15-bs16k") | .block_size_kb')" = 16 ] ||
	fail "pg list --json has no 15-bs16k with 16 kB blocks"
grep -q -- "--with-blocksize=16" "$CACHE/15-bs16k/dutlab-build.conf" || fail "the configure options are not recorded"
[ ! -e "$CACHE/15-bs16k/share/doc" ] && [ ! -e "$CACHE/15-bs16k/share/man" ] || fail "the build installed documentation"

# ---- the runner: a missing build ----
cat >"$WORK/missing.ini" <<INI
[experiment]
name = missing
[target work]
type = directory
path = $WORK/data
[postgres]
block_size = 32kB
[step load]
type = oltp-init
scale = 1
INI
mkdir -p "$WORK/data" "$WORK/empty"
DUT_PG_CACHE=$WORK/empty "$DUTLAB" run "$WORK/missing.ini" --dry-run >"$WORK/missing-dry.out" 2>&1 ||
	{ cat "$WORK/missing-dry.out"; fail "the dry run of a missing build failed"; }
grep -qE "PostgreSQL 15 with 32 kB blocks, 8 kB WAL blocks is not built in $WORK/empty/15-bs32k: \`dutlab pg build --major 15 --block-size 32kB\` makes it \(about 15 min on a 2-core machine; no build here was timed yet\)" \
	"$WORK/missing-dry.out" || fail "dry run: $(cat "$WORK/missing-dry.out")"
DUT_PG_CACHE=$WORK/empty "$DUTLAB" run "$WORK/missing.ini" --out "$WORK/missing-run" >"$WORK/missing-run.out" 2>&1 &&
	fail "a run with a missing build started"
grep -qF "PostgreSQL 15 with 32 kB blocks and 8 kB WAL blocks is not built ($WORK/empty/15-bs32k has no dutlab-build.conf): run \`dutlab pg build --major 15 --block-size 32kB\` first" \
	"$WORK/missing-run.out" || fail "the run's refusal: $(cat "$WORK/missing-run.out")"
echo "ok: a missing build is refused by the run and listed by the dry run"
# a cache of stubs: version = 17 (not installed) takes the build 17-bs8k; a build whose
# record is not what its name says is refused
fake=$WORK/fakecache
stub() { # KEY VERSION MAJOR BS
	mkdir -p "$fake/$1/bin"
	for p in initdb pg_ctl postgres pg_dump pg_restore; do
		printf '#!/bin/sh\necho "%s (PostgreSQL) %s (stub)"\n' "$p" "$2" >"$fake/$1/bin/$p"
		chmod 755 "$fake/$1/bin/$p"
	done
	printf 'major=%s\nversion=%s\nsuite=trixie\nblock_size_kb=%s\nwal_block_size_kb=8\nconfigure=x\nbuild_seconds=600\n' \
		"$3" "$2" "$4" >"$fake/$1/dutlab-build.conf"
}
stub 17-bs8k 17.12 17 8
stub 15-bs32k 15.18 15 16
sed 's/^block_size = 32kB$/version = 17/' "$WORK/missing.ini" >"$WORK/v17.ini"
DUT_PG_CACHE=$fake "$DUTLAB" run "$WORK/v17.ini" --dry-run >"$WORK/v17.out" 2>&1 || { cat "$WORK/v17.out"; fail "version = 17 with a cached build"; }
grep -qF "PostgreSQL 17 (postgres (PostgreSQL) 17.12 (stub)) from $fake/17-bs8k/bin" "$WORK/v17.out" ||
	fail "version = 17 did not take the cached build: $(cat "$WORK/v17.out")"
DUT_PG_CACHE=$fake "$DUTLAB" run "$WORK/missing.ini" --dry-run >"$WORK/liar.out" 2>&1 && fail "a build that is not what its name says was taken"
grep -qF "$fake/15-bs32k/dutlab-build.conf records PostgreSQL 15 with 16 kB blocks and 8 kB WAL blocks, not what its name says (15, 32 kB, 8 kB)" \
	"$WORK/liar.out" || fail "the refusal of a mislabelled build: $(cat "$WORK/liar.out")"
echo "ok: a major that is not installed runs its cached build; a mislabelled build is refused"

# ---- the run: 8 kB (Debian's 15) against 16 kB (the build) ----
cat >"$WORK/bs.ini" <<INI
[experiment]
name = blocksize
[target work]
type = directory
path = $WORK/data
[dutfs]
view = syscall
trace = on
[postgres]
version = 15
set = shared_buffers=16MB
[matrix]
block_size = 8kB, 16kB
[step load]
type = oltp-init
scale = 1
[step rw]
type = oltp-run
script = tpcb-like
clients = 2
duration = 5s
[step dss]
type = dss
scale = 0.01
phases = load
INI
out=$("$DUTLAB" run "$WORK/bs.ini" --dry-run --out "$WORK/dry" 2>&1) || fail "dry-run refused: $out"
grep -qF "PostgreSQL 15 with 16 kB blocks, 8 kB WAL blocks: cached in $CACHE/15-bs16k" <<<"$out" || fail "dry run: $out"
RUN=$WORK/run
t0=$(date +%s)
"$DUTLAB" run "$WORK/bs.ini" --out "$RUN" >"$WORK/out.txt" 2>&1 &
RUN_PID=$!
RUN_DUTLAB_PID=$RUN_PID
wait "$RUN_PID"; rc=$?; RUN_PID=
echo "the run took $(( $(date +%s) - t0 )) s"
[ "$rc" -eq 0 ] || { tail -30 "$WORK/out.txt"; fail "dutlab run exited $rc"; }
m=$RUN/manifest.json
[ "$(jq -r .status "$m")" = complete ] || fail "manifest status $(jq -r .status "$m")"
for c in 0 1; do
	kb=$((8 << c)) bs=$((8192 << c))
	name=$(jq -r ".configs[$c].name" "$m")
	dir=$RUN/$(jq -r ".configs[$c].reps[0].dir" "$m")
	[ "$name" = "bs${kb}k" ] || fail "configuration $c is $name, expected bs${kb}k"
	[ "$(jq -r ".configs[$c].postgres.block_size_kb" "$m")" = "$kb" ] || fail "$name: the manifest's block size"
	[ "$(jq -r ".configs[$c].postgres.wal_block_size_kb" "$m")" = 8 ] || fail "$name: the manifest's WAL block size"
	bindir=$(jq -r ".configs[$c].postgres.bindir" "$m")
	if [ "$c" = 1 ]; then want_bin=$CACHE/15-bs16k/bin; else want_bin=$PGBIN; fi
	[ "$bindir" = "$want_bin" ] || fail "$name: bindir $bindir, expected $want_bin"
	# what the server said (SHOW block_size), in the pgbench and the DSS result documents
	for s in load rw dss; do
		[ "$(jq -r .target.block_size "$dir/$s.json")" = "$bs" ] ||
			fail "$name: $s.json says block_size $(jq -r .target.block_size "$dir/$s.json"), expected $bs"
	done
	[ "$(jq -r .block_size "$dir/relmap.json")" = "$bs" ] || fail "$name: relmap.json block_size $(jq -r .block_size "$dir/relmap.json")"
	[ "$(jq '[.relations[] | select(.name == "pgbench_accounts" or .name == "lineitem")] | length' "$dir/relmap.json")" -ge 2 ] ||
		fail "$name: the relation map lacks pgbench_accounts or lineitem"
	# every request to a relation file is whole blocks at block boundaries
	"$DUTLAB" export "$dir/trace.dtr" --format csv -o "$WORK/t$c.csv" || fail "$name: export failed"
	"$DUTLAB" report "$dir/trace.dtr" --relmap "$dir/relmap.json" --by relation --top 500 --json "$WORK/r$c.json" \
		>"$WORK/r$c.txt" || fail "$name: dutlab report failed"
	python3 - "$WORK/t$c.csv" "$WORK/r$c.json" "$bs" "$name" "$WORK/blocks$c" <<'PY' || fail "$name: the trace is not in blocks of $bs"
import csv, json, sys
path, rep, bs, name, counts = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
n = odd = other = 0
for r in csv.DictReader(open(path)):
    if r["class"] != "rel" or r["op"] not in ("read", "write") or int(r["result"]) <= 0:
        continue
    n += 1
    off, ln = int(r["offset"]), int(r["result"])
    if off % bs or ln % bs:
        odd += 1
        if odd <= 3:
            print("  not whole blocks:", r["op"], r["path"], off, ln)
    if (off % (2 * bs)) or (ln % (2 * bs)):
        other += 1
assert n > 1000, "%s: only %d relation reads/writes traced" % (name, n)
assert odd == 0, "%s: %d of %d relation requests are not whole %d-byte blocks" % (name, odd, n, bs)
# the check can tell the sizes apart: some requests are not whole blocks of twice the size
assert other > 0, "%s: every request is also whole %d-byte blocks" % (name, 2 * bs)
doc = json.load(open(rep))
phase = [p for p in doc["phases"] if p.get("extra", {}).get("relations")][0]
rows = {r["name"]: r for r in phase["extra"]["relations"]}
def blocks(row, d):
    b = row["stats"][d]["bytes"] if "stats" in row else row[d]["bytes"]
    assert b % bs == 0, "%s: %s %s bytes %d is not whole blocks" % (name, row["name"], d, b)
    return b // bs
acc = [v for k, v in rows.items() if k.endswith("pgbench_accounts")]
li = [v for k, v in rows.items() if k.endswith("lineitem")]
assert acc and li, "%s: the report has no pgbench_accounts or lineitem row: %s" % (name, sorted(rows)[:20])
wa, wl = blocks(acc[0], "write"), blocks(li[0], "write")
assert wa > 0 and wl > 0, (name, wa, wl)
open(counts, "w").write("%d %d\n" % (wa, wl))
print("ok: %s: %d relation requests, all whole %d-byte blocks; written: pgbench_accounts %d blocks, lineitem %d blocks"
      % (name, n, bs, wa, wl))
PY
done
# the same tables in twice the block size are about half the blocks
read -r a8 l8 <"$WORK/blocks0"
read -r a16 l16 <"$WORK/blocks1"
awk -v a="$a8" -v b="$a16" 'BEGIN { r = a / b; exit !(r > 1.4 && r < 2.8) }' ||
	fail "pgbench_accounts: $a8 blocks written at 8 kB, $a16 at 16 kB: not about half"
echo "ok: pgbench_accounts written $a8 blocks of 8 kB, $a16 blocks of 16 kB (lineitem $l8, $l16)"
# the report names each configuration's block size
grep -qE "^- 1 bs16k: .*, from $CACHE/15-bs16k/bin, 16 kB blocks$" "$RUN/report.md" ||
	fail "report.md does not name bs16k's 16 kB blocks: $(grep -A3 'PostgreSQL' "$RUN/report.md" | head -5)"
grep -qE "^- 0 bs8k: .*, from $PGBIN$" "$RUN/report.md" || fail "report.md: bs8k's line is not plain 8 kB"
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: PostgreSQL 15 with 16 kB blocks built (cached), refused where it must, run beside Debian's 8 kB"
