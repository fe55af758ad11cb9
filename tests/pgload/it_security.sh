#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #27: pgload runs as root; no local user may become postgres or root
# through it.  Attacks as nobody (the network side) and as postgres (the
# owner of the data directories):
#  1. a new cluster takes no TCP connection and no socket connection from
#     nobody (peer auth, 0700 socket dir), so nobody cannot COPY TO PROGRAM;
#     root connects with the printed conninfo; --listen-tcp takes only
#     scram-sha-256 logins with the password in a root-only 0600 passfile;
#  2. destroy refuses a forged state file (postgres-owned, a symlink,
#     socket_dir /tmp/pgload-x/../..) and leaves a victim directory that a
#     state file names as its WAL dir but is not the directory pgload made;
#  3. links planted (as postgres, by a pg_basebackup wrapper) at
#     standby.signal, postgresql.auto.conf and postgresql.conf of a new
#     standby do not make root write to, or chown, the files they point at;
#  4. --set with a newline is refused; a password in -d never reaches the
#     result document or the output; a dutfs control file planted in PGDATA
#     as a link gets no phase markers from root.
# Every check runs; the test fails if any failed (so one run on an old
# binary shows each hole).
. "$(dirname "$0")/it_lib.sh"

command -v setpriv >/dev/null || skip "setpriv is not installed (runs the attacker as nobody)"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is not installed (plays a rogue server as nobody)"
getent passwd nobody >/dev/null || skip "there is no user nobody"
NOGROUP=$(id -gn nobody)

FAILS=0
bad() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
as_nobody() { (cd / && setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups -- "$@"); }
as_pg() { (cd / && runuser -u postgres -- "$@"); }
PWNED=/tmp/pgload-it-pwned.$$
cleanup() {
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	# Standby first; forged state files may make destroy refuse: stop servers directly too.
	for d in "$T/sb" "$T"/*/; do
		[ -f "$d/pgload_state.json" ] && "$PGLOAD" cluster destroy --pgdata "$d" >/dev/null 2>&1
		[ -f "$d/postmaster.pid" ] && as_pg "$BINDIR/pg_ctl" -D "$d" -m immediate stop >/dev/null 2>&1
	done
	[ -n "${PF:-}" ] && rm -f "$PF"
	[ -n "${XDIR:-}" ] && rm -rf "$XDIR"
	[ -n "${RD:-}" ] && rm -rf "$RD"
	rm -rf "$T" "$PWNED"
}

# --- 1. no superuser for local users --------------------------------------
D=$T/data
"$PGLOAD" cluster init --pgdata "$D" >"$T/init.out" 2>&1 || { cat "$T/init.out"; fail "cluster init"; }
CI=$(conninfo "$D")
SOCK=$(printf '%s\n' "$CI" | sed -n 's/.*host=\([^ ]*\).*/\1/p')
PORT=$(printf '%s\n' "$CI" | sed -n 's/.*port=\([0-9]*\).*/\1/p')
[ -n "$SOCK" ] && [ -n "$PORT" ] || fail "no host/port in the conninfo \"$CI\""
[ "$(psql -X -At "$CI" -c "SELECT current_user")" = postgres ] || bad "root cannot connect with the printed conninfo"
[ "$(stat -c %a:%U "$SOCK")" = 700:postgres ] || bad "socket dir $SOCK is $(stat -c %a:%U "$SOCK"), not 700:postgres"
as_nobody psql -X -w "host=127.0.0.1 port=$PORT user=postgres dbname=postgres connect_timeout=5" \
	-c "SELECT 1" >/dev/null 2>&1 && bad "nobody connects as postgres over TCP 127.0.0.1:$PORT"
as_nobody psql -X -w "host=$SOCK port=$PORT user=postgres dbname=postgres connect_timeout=5" \
	-c "SELECT 1" >/dev/null 2>&1 && bad "nobody connects as postgres over the socket in $SOCK"
rm -f "$PWNED"
for h in 127.0.0.1 "$SOCK"; do
	as_nobody psql -X -w "host=$h port=$PORT user=postgres dbname=postgres connect_timeout=5" \
		-c "COPY (SELECT 1) TO PROGRAM 'id > $PWNED'" >/dev/null 2>&1
done
[ -e "$PWNED" ] && bad "nobody ran a program as postgres: $(cat "$PWNED")"
grep -Eq '^[^#]*[[:space:]]trust([[:space:]]|$)' "$D/pg_hba.conf" && bad "pg_hba.conf has trust lines"
ok "1: new cluster: no TCP listener, nobody cannot connect, root can"

D2=$T/tcp
"$PGLOAD" cluster init --pgdata "$D2" --listen-tcp >"$T/tcp.out" 2>&1 || { cat "$T/tcp.out"; bad "cluster init --listen-tcp"; }
PF=$("$PGLOAD" cluster status --pgdata "$D2" 2>/dev/null | sed -n 's/^passfile: //p')
TCI=$("$PGLOAD" cluster status --pgdata "$D2" 2>/dev/null | sed -n 's/^tcp_conninfo: //p')
P2=$(printf '%s\n' "$TCI" | sed -n 's/.*port=\([0-9]*\).*/\1/p')
if [ -z "$PF" ] || [ -z "$P2" ]; then
	bad "--listen-tcp: status prints no passfile/tcp_conninfo"
else
	[ "$(stat -c %a:%U "$PF")" = 600:root ] || bad "passfile $PF is $(stat -c %a:%U "$PF"), not 600:root"
	case $PF in "$D2"/*) bad "passfile inside the data directory";; esac
	as_nobody cat "$PF" >/dev/null 2>&1 && bad "nobody reads the passfile"
	as_nobody psql -X -w "host=127.0.0.1 port=$P2 user=postgres dbname=postgres connect_timeout=5" \
		-c "SELECT 1" >/dev/null 2>&1 && bad "nobody logs in over TCP without the password"
	as_nobody env PGPASSWORD=postgres psql -X -w "host=127.0.0.1 port=$P2 user=postgres dbname=postgres connect_timeout=5" \
		-c "SELECT 1" >/dev/null 2>&1 && bad "nobody logs in over TCP with a guessed password"
	psql -X -w "host=127.0.0.1 port=$P2 user=postgres dbname=postgres passfile=/dev/null connect_timeout=5" \
		-c "SELECT 1" >/dev/null 2>&1 && bad "root logs in over TCP without the password"
	[ "$(psql -X -w -At "$TCI" -c "SELECT 1" 2>&1)" = 1 ] || bad "root cannot log in over TCP with the passfile ($TCI)"
	grep -q "^host *all *all *127.0.0.1/32 *scram-sha-256" "$D2/pg_hba.conf" || bad "no scram-sha-256 host line"
	# The password is for the server's port alone, and only while it runs: a
	# user who takes the port while the cluster is stopped gets nothing from a
	# root client that follows the old conninfo, and what a crash may leak is
	# renewed at the next start.
	grep -q "^127\.0\.0\.1:$P2:\*:postgres:" "$PF" || bad "passfile line is not for port $P2 alone: $(cut -d: -f1-4 "$PF")"
	OLDPW=$(cut -d: -f5 "$PF")
	"$PGLOAD" cluster stop --pgdata "$D2" >/dev/null 2>&1 || bad "stop the --listen-tcp cluster"
	[ -s "$PF" ] && bad "the passfile keeps a password while the cluster is stopped"
	RD=$(mktemp -d /tmp/pgload-rogue.XXXXXX) && chmod 755 "$RD" || fail "mktemp"
	ROGUE_LOG=$RD/rogue.log ROGUE_READY=$RD/rogue.ready
	: >"$ROGUE_LOG"; : >"$ROGUE_READY"; chown nobody "$ROGUE_LOG" "$ROGUE_READY"
	cp "$(dirname "$0")/rogue_pg.py" "$RD/" && chmod 644 "$RD/rogue_pg.py"
	(cd / && exec setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups -- \
		/usr/bin/python3 "$RD/rogue_pg.py" "$P2" "$ROGUE_LOG" "$ROGUE_READY") >/dev/null 2>&1 &
	ROGUE_PID=$!
	BG_PIDS="$BG_PIDS $ROGUE_PID"
	for _ in $(seq 50); do [ -s "$ROGUE_READY" ] && break; sleep 0.1; done
	[ -s "$ROGUE_READY" ] || bad "the rogue server did not start on port $P2"
	psql -X -w "$TCI connect_timeout=5" -c "SELECT 1" >/dev/null 2>&1 && bad "root's psql logged in to the rogue server"
	[ -s "$ROGUE_LOG" ] && bad "a root client handed the TCP password to a server nobody started on port $P2"
	"$PGLOAD" cluster start --pgdata "$D2" >"$T/start.out" 2>&1 || { cat "$T/start.out"; bad "start the --listen-tcp cluster with its port taken"; }
	TCI3=$("$PGLOAD" cluster status --pgdata "$D2" 2>/dev/null | sed -n 's/^tcp_conninfo: //p')
	P3=$(printf '%s\n' "$TCI3" | sed -n 's/.*port=\([0-9]*\).*/\1/p')
	[ -n "$P3" ] && [ "$P3" != "$P2" ] || bad "start did not move off the taken port $P2 (now ${P3:-none})"
	grep -q "^127\.0\.0\.1:$P3:\*:postgres:" "$PF" || bad "passfile not renewed for port $P3"
	[ "$(cut -d: -f5 "$PF")" != "$OLDPW" ] || bad "start kept the old TCP password"
	[ "$(psql -X -w -At "$TCI3" -c "SELECT 1" 2>&1)" = 1 ] || bad "root cannot log in over TCP after start ($TCI3)"
	PGPASSWORD=$OLDPW psql -X -w "host=127.0.0.1 port=$P3 user=postgres dbname=postgres passfile=/dev/null connect_timeout=5" \
		-c "SELECT 1" >/dev/null 2>&1 && bad "the password of before the stop still logs in"
	psql -X -w "$TCI connect_timeout=5" -c "SELECT 1" >/dev/null 2>&1 && bad "root's psql with the old conninfo logged in to the rogue server"
	[ -s "$ROGUE_LOG" ] && bad "the rogue server on the old port got a password: $(head -c 80 "$ROGUE_LOG")"
	"$PGLOAD" cluster destroy --pgdata "$D2" || bad "destroy the --listen-tcp cluster"
	[ -e "$PF" ] && bad "destroy left the passfile $PF"
fi
ok "1: --listen-tcp: scram-sha-256 with a root-only passfile, for the running server's port only"

# --- 2. forged state files --------------------------------------------------
# A cluster as destroy sees it: PG_VERSION and a state file.  The state file is
# what an attacker who is postgres could write before the fix.
PGUID=$(id -u postgres)
fake_cluster() { # DIR: postgres-owned 0700 with PG_VERSION
	mkdir -m 700 "$1" && echo 15 >"$1/PG_VERSION" && chown -R postgres: "$1"
}
state_json() { # WAL_DIR SOCKET_DIR [extra json]
	printf '{ "schema": "pgload-cluster", "schema_version": 1, "bindir": "%s", "socket_dir": "%s", "port": 25432, "wal_dir": "%s", "wal_dir_created": true, "tablespaces": [] %s}\n' \
		"$BINDIR" "$2" "$1" "${3:-}"
}
victim() { mkdir -m 700 "$1" && echo secret >"$1/keep"; }
SD=$(mktemp -d /tmp/pgload-XXXXXX)   # a real socket dir name, for the traversal
XDIR=$SD

victim "$T/v1"; fake_cluster "$T/f1"
state_json "$T/v1" "$SD" | as_pg sh -c "cat > '$T/f1/pgload_state.json'"
"$PGLOAD" cluster destroy --pgdata "$T/f1" >"$T/out" 2>&1 && bad "destroy accepted a state file owned by postgres"
[ -f "$T/v1/keep" ] || bad "destroy with a postgres-owned state file removed the victim $T/v1"
grep -q "owned by" "$T/out" || bad "unclear refusal of a postgres-owned state file: $(cat "$T/out")"

victim "$T/v2"; fake_cluster "$T/f2"; mkdir -m 700 "$T/other"
state_json "$T/v2" "$SD" >"$T/other/state.json"
as_pg ln -s "$T/other/state.json" "$T/f2/pgload_state.json"
"$PGLOAD" cluster destroy --pgdata "$T/f2" >"$T/out" 2>&1 && bad "destroy accepted a state file that is a symlink"
[ -f "$T/v2/keep" ] || bad "destroy through a symlinked state file removed the victim $T/v2"
grep -q "symbolic link" "$T/out" || bad "unclear refusal of a symlinked state file: $(cat "$T/out")"

victim "$T/v3"; fake_cluster "$T/f3"
mkdir -m 700 "$SD" 2>/dev/null   # an old destroy removed it above
state_json "" "$SD/../${T#/tmp/}/v3" >"$T/f3/pgload_state.json"
"$PGLOAD" cluster destroy --pgdata "$T/f3" >"$T/out" 2>&1 && bad "destroy accepted socket_dir $SD/../..."
[ -f "$T/v3/keep" ] || bad "destroy with socket_dir $SD/../${T#/tmp/}/v3 removed the victim"
grep -q "socket_dir" "$T/out" || bad "unclear refusal of a bad socket_dir: $(cat "$T/out")"

# A root-owned state file whose wal_dir is not the directory pgload made.
victim "$T/v4"; fake_cluster "$T/f4"; mkdir "$T/w4"
state_json "$T/v4" "$SD" ", \"wal_dir_dev\": $(stat -c %d "$T/w4"), \"wal_dir_ino\": $(stat -c %i "$T/w4")" \
	>"$T/f4/pgload_state.json"
"$PGLOAD" cluster destroy --pgdata "$T/f4" >"$T/out" 2>&1
[ -f "$T/v4/keep" ] || bad "destroy removed a wal_dir $T/v4 that is not the one pgload made"
[ -e "$T/v4" ] && ! grep -q "v4" "$T/out" && bad "destroy does not say it left $T/v4: $(cat "$T/out")"
for v in v1 v2 v3 v4; do [ "$(stat -c %U "$T/$v" 2>/dev/null)" = root ] || [ ! -e "$T/$v" ] || bad "$v changed owner"; done
ok "2: forged state files"

# --- 3. standby files planted as links --------------------------------------
if [ -x "$BINDIR/pg_basebackup" ]; then
	P=$T/primary
	"$PGLOAD" cluster init --pgdata "$P" >/dev/null 2>&1 || bad "cluster init primary"
	FB=$T/fakebin; mkdir -m 755 "$FB"
	for f in "$BINDIR"/*; do ln -s "$f" "$FB/"; done
	rm "$FB/pg_basebackup"
	for i in 1 2 3; do printf 'root secret %s\n' "$i" >"$T/victim$i"; chmod 600 "$T/victim$i"; done
	# The wrapper runs as postgres (as pg_basebackup does): after the copy it
	# replaces the files root writes next with links to the victims.
	cat >"$FB/pg_basebackup" <<EOF
#!/bin/sh
"$BINDIR/pg_basebackup" "\$@" || exit \$?
while [ \$# -gt 0 ]; do [ "\$1" = -D ] && D=\$2; shift; done
ln -s "$T/victim1" "\$D/standby.signal"
[ -e "$T/plant_all" ] || exit 0
rm -f "\$D/postgresql.auto.conf" "\$D/postgresql.conf"
ln -s "$T/victim2" "\$D/postgresql.auto.conf"
ln -s "$T/victim3" "\$D/postgresql.conf"
EOF
	chmod 755 "$FB/pg_basebackup"
	check_victims() {
		for i in 1 2 3; do
			[ "$(cat "$T/victim$i")" = "root secret $i" ] || bad "standby set-up ($1) wrote to victim$i through a link"
			[ "$(stat -c %a:%U "$T/victim$i")" = 600:root ] ||
				bad "victim$i is now $(stat -c %a:%U "$T/victim$i") (was 600:root) ($1)"
		done
	}
	# Links where root appends (postgresql.auto.conf, postgresql.conf): refused or replaced.
	touch "$T/plant_all"
	"$PGLOAD" cluster standby --pgdata "$T/sb" --primary "$P" --bindir "$FB" \
		--set hot_standby_feedback=on >"$T/sb.out" 2>&1
	grep -q '^replication: streaming\|symbolic link' "$T/sb.out" ||
		{ cat "$T/sb.out"; bad "cluster standby with planted links: neither refused clearly nor streaming"; }
	check_victims "all planted"
	"$PGLOAD" cluster destroy --pgdata "$T/sb" >/dev/null 2>&1
	rm -rf "$T/sb" "$T/plant_all"
	# A link at standby.signal (a new, empty file) is replaced: the standby works.
	"$PGLOAD" cluster standby --pgdata "$T/sb" --primary "$P" --bindir "$FB" \
		--set hot_standby_feedback=on >"$T/sb.out" 2>&1
	check_victims "standby.signal planted"
	[ -L "$T/sb/standby.signal" ] && bad "standby.signal is still the planted link"
	grep -q '^replication: streaming' "$T/sb.out" || { cat "$T/sb.out"; bad "the standby does not stream"; }
	[ "$(q "$T/sb" "SHOW hot_standby_feedback" 2>/dev/null)" = on ] || bad "--set not applied to the standby"
	"$PGLOAD" cluster destroy --pgdata "$T/sb" >/dev/null 2>&1
	ok "3: links planted in the standby directory"
else
	echo "note: pg_basebackup missing, standby part not run"
fi

# --- 4. --set injection and passwords in result documents -------------------
"$PGLOAD" cluster init --pgdata "$T/nl" --set "work_mem=4MB
archive_command='id'" >"$T/out" 2>&1 && bad "--set with a newline accepted"
grep -q "control character\|newline" "$T/out" || bad "unclear --set refusal: $(cat "$T/out")"
"$PGLOAD" cluster init --pgdata "$T/nl2" --set "a b=1" >"$T/out" 2>&1 && bad "--set 'a b=1' accepted"
[ -e "$T/nl/PG_VERSION" ] && bad "a cluster was made despite the bad --set"
# A dutfs control file planted in PGDATA (where pgload looks first) must not get root's marks.
printf 'root secret m\n' >"$T/victim_mark"; chmod 600 "$T/victim_mark"
as_pg mkdir "$D/.dutfs" && as_pg ln -s "$T/victim_mark" "$D/.dutfs/control"
"$PGLOAD" init -d "$CI password=hunter2kv" -s 1 -q --json "$T/init.json" >"$T/out" 2>&1 ||
	{ cat "$T/out"; bad "pgload init with a password in the conninfo"; }
URI="postgresql://postgres:hunter3uri@/postgres?host=$SOCK&port=$PORT"
"$PGLOAD" run -d "$URI" -t 5 --json "$T/run.json" >>"$T/out" 2>&1 || { cat "$T/out"; bad "pgload run with a URI password"; }
for f in "$T/init.json" "$T/run.json" "$T/out"; do
	[ -f "$f" ] || bad "no $f"
	grep -q "hunter2kv\|hunter3uri" "$f" && bad "password in $f: $(grep -o '.\{30\}hunter[23][a-z]*.\{10\}' "$f" | head -2)"
done
[ "$(cat "$T/victim_mark")" = "root secret m" ] || bad "pgload wrote phase markers through $D/.dutfs/control into a root file"
ok "4: --set validated, passwords redacted, no markers through planted links"

[ $FAILS = 0 ] || fail "$FAILS check(s) failed"
ok "all security checks passed"
