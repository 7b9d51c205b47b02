"""The HTTP API and web UI: `create_app(kotae, upload_dir=...)`, served by `kotae serve`."""
from kotae.server.app import create_app
from kotae.server.thread import serve_in_thread

__all__ = ["create_app", "serve_in_thread"]
