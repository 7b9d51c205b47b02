"""Run an app with uvicorn in a background thread (tests, notebooks, embedding kotae in a program)."""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from kotae.server.protocol import uvicorn_options


@contextmanager
def serve_in_thread(app: FastAPI, host: str = "127.0.0.1", port: int = 0,
                    timeout: float = 30.0) -> Iterator[str]:
    """Serve `app` until the block ends; yields its base URL. Port 0 picks a free port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", **uvicorn_options()))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="kotae-http", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the server on {host}:{sock.getsockname()[1]} did not start")
        time.sleep(0.01)
    try:
        yield f"http://{host}:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout)
        sock.close()
