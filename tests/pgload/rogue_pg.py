#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A rogue PostgreSQL server for it_security.sh: listens on 127.0.0.1:PORT,
declines SSL/GSS encryption, asks every client for a clear-text password and
appends whatever password it receives to LOG.  Writes "ready" to READY once
it listens.  Usage: rogue_pg.py PORT LOG READY"""
import socket
import struct
import sys

SSL_REQUEST, GSS_REQUEST = 80877103, 80877104


def recv_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def serve(conn, log):
    while True:  # startup packet, after any encryption requests
        (n,) = struct.unpack("!I", recv_exact(conn, 4))
        body = recv_exact(conn, n - 4)
        if struct.unpack("!I", body[:4])[0] in (SSL_REQUEST, GSS_REQUEST):
            conn.sendall(b"N")
            continue
        break
    conn.sendall(b"R" + struct.pack("!II", 8, 3))  # AuthenticationCleartextPassword
    if recv_exact(conn, 1) != b"p":
        return
    (n,) = struct.unpack("!I", recv_exact(conn, 4))
    pw = recv_exact(conn, n - 4).rstrip(b"\0").decode(errors="replace")
    with open(log, "a") as f:
        f.write(pw + "\n")


def main():
    port, log, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(8)
    with open(ready, "w") as f:
        f.write("ready\n")
    while True:
        conn, _ = s.accept()
        conn.settimeout(10)
        try:
            serve(conn, log)
        except (OSError, EOFError, struct.error):
            pass
        finally:
            conn.close()


if __name__ == "__main__":
    main()
