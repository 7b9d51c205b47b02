"""Stalled clients against a kotae server: N connections stop mid-headers or mid-body; when are they closed?

    python bench/stalled.py [--connections 300] [--wait 40]
Serves an empty index (FakeEmbedder) with the options `kotae serve` uses, opens the connections (half stop
inside the request headers, half 100 bytes into a 100 KB upload body), and records when the server closes
each; then checks /health answers. Writes bench/results/stalled.{json,md}. No data set is needed.
"""
from __future__ import annotations

import argparse
import os
import select
import socket
import sys
import tempfile
import time
from urllib.parse import urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(ROOT, "tests"), os.path.join(ROOT, "src")]

from common import machine, write

HEADERS = b"POST /documents HTTP/1.1\r\nHost: x\r\n"
BODY = (b"POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=x\r\n"
        b"Content-Length: 100000\r\n\r\n--x\r\n" + b"a" * 100)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--connections", type=int, default=300)
    ap.add_argument("--wait", type=float, default=40.0)
    args = ap.parse_args()
    import httpx

    from conftest import FakeEmbedder
    from kotae import Kotae
    from kotae.server import create_app, serve_in_thread
    from kotae.store import open_store

    with tempfile.TemporaryDirectory() as d:
        app = create_app(Kotae(open_store(os.path.join(d, "index")), FakeEmbedder()), upload_dir=os.path.join(d, "up"))
        with serve_in_thread(app) as url:
            host = urlsplit(url)
            socks = []
            for i in range(args.connections):
                s = socket.create_connection((host.hostname, host.port))
                s.sendall(BODY if i % 2 else HEADERS)
                s.setblocking(False)
                socks.append(s)
            t0, closed = time.monotonic(), {}
            while len(closed) < len(socks) and time.monotonic() - t0 < args.wait:
                ready, _, _ = select.select([s for i, s in enumerate(socks) if i not in closed], [], [], 0.5)
                for s in ready:
                    try:
                        data = s.recv(65536)
                    except OSError:
                        data = b""
                    if not data:
                        closed[socks.index(s)] = time.monotonic() - t0
            health = httpx.get(f"{url}/health", timeout=30).status_code
            for s in socks:
                s.close()
    heads = [t for i, t in closed.items() if i % 2 == 0]
    bodies = [t for i, t in closed.items() if i % 2]
    payload = {"machine": machine(), "connections": args.connections, "closed": len(closed),
               "last_closed_s": max(closed.values()) if closed else None,
               "headers_stalled_closed": len(heads), "body_stalled_closed": len(bodies),
               "health_after": health}
    md = (f"# Stalled clients\n\n{args.connections} connections (half stalled inside the headers, half inside "
          f"an upload body) against `serve_in_thread` with `kotae serve`'s options; machine "
          f"{payload['machine']['cpu']}, {payload['machine']['cores']} cores.\n\n"
          f"Closed by the server: {len(closed)} of {args.connections} ({len(heads)} mid-headers, {len(bodies)} "
          f"mid-body), the last after {payload['last_closed_s']:.1f} s; /health then answered {health}.\n")
    write("stalled", payload, md)


if __name__ == "__main__":
    main()
