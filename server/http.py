"""Plain HTTP on the WebSocket port: the web client's static files and the health endpoint.

Runs as websockets' `process_request` hook: a request for `/ws` goes on to the WebSocket handshake,
anything else is answered here.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

WS_PATH = "/ws"
#: The web client, shipped in the package (in the source tree a link to the top-level client_web/).
DEFAULT_STATIC_DIR = Path(__file__).resolve().parent / "client_web"


def _response(status: HTTPStatus, body: bytes, content_type: str, cache: str = "no-cache") -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = cache
    headers["X-Content-Type-Options"] = "nosniff"
    return Response(status.value, status.phrase, headers, body)


def json_response(status: HTTPStatus, data: dict[str, Any]) -> Response:
    """A JSON HTTP response."""
    return _response(status, json.dumps(data).encode(), "application/json")


def static_response(static_dir: Path, path: str) -> Response:
    """The file of `static_dir` at URL path `path` (`/` is index.html), or 404; never outside the dir."""
    relative = unquote(path).lstrip("/") or "index.html"
    root = static_dir.resolve()
    try:
        target = (root / relative).resolve()
        found = target.is_relative_to(root) and target.is_file()
    except (ValueError, OSError):  # a NUL byte, a name too long for the file system: no such file
        found = False
    if not found:
        return _response(HTTPStatus.NOT_FOUND, f"not found: {path}\n".encode(), "text/plain; charset=utf-8")
    content_type = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if content_type.startswith("text/") or content_type in ("application/javascript", "application/json"):
        content_type += "; charset=utf-8"
    return _response(HTTPStatus.OK, target.read_bytes(), content_type)


HealthProbe = Callable[[], Awaitable[dict[str, Any]]]


def make_process_request(
    static_dir: Path, health: HealthProbe
) -> Callable[[ServerConnection, Request], Awaitable[Response | None]]:
    """The `process_request` hook: `/ws` -> WebSocket; `/health` -> JSON; else a static file."""

    async def process_request(connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        if path == WS_PATH:
            return None
        if path == "/health":
            report = await health()
            status = HTTPStatus.OK if report.get("status") == "ok" else HTTPStatus.SERVICE_UNAVAILABLE
            return json_response(status, report)
        return static_response(static_dir, path)

    return process_request
