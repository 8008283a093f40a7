"""Plain HTTP on the WebSocket port: the web client's static files, `/health`, `/metrics` and the JSON
API under `/api/` (server/api.py); and the client's address (behind a trusted proxy, from `X-Forwarded-For`).

Runs as websockets' `process_request` hook: a request for `/ws` goes on to the WebSocket handshake,
anything else is answered here.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from .api import PREFIX as API_PREFIX
from .api import Api
from .metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from .metrics import Metrics
from .static_files import StaticFiles, add_security_headers

WS_PATH = "/ws"
#: The web client, shipped in the package (in the source tree a link to the top-level client_web/).
DEFAULT_STATIC_DIR = Path(__file__).resolve().parent / "client_web"


def _response(status: HTTPStatus, body: bytes, content_type: str, cache: str = "no-cache") -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = cache
    add_security_headers(headers)
    return Response(status.value, status.phrase, headers, body)


def json_response(status: HTTPStatus, data: dict[str, Any]) -> Response:
    """A JSON HTTP response."""
    return _response(status, json.dumps(data).encode(), "application/json")


HealthProbe = Callable[[], Awaitable[dict[str, Any]]]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(specs: Sequence[str]) -> list[Network]:
    """Addresses or networks (`10.0.0.5`, `10.0.0.0/8`, `::1`) -> networks; ValueError if one is bad."""
    return [ipaddress.ip_network(spec.strip(), strict=False) for spec in specs]


def _in(address: str, networks: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


UNIX_PEER = "unix"  # the address of a connection on the Unix socket with no X-Forwarded-For


def client_address(remote: Any, headers: Headers | None, trusted: Sequence[Network]) -> str:
    """The client's address: the peer's, unless the peer is a trusted proxy; then the right-most
    address of `X-Forwarded-For` that is not itself a trusted proxy (entries further left are written
    by the client and may be forged). A peer on the Unix socket (`--unix`: its peer address is a
    string, not a host and port) is the balancer of this host, and trusted like one."""
    if isinstance(remote, str):
        peer, proxied = UNIX_PEER, True
    else:
        peer = str(remote[0]) if isinstance(remote, tuple | list) and remote else str(remote or "")
        proxied = bool(trusted) and _in(peer, trusted)
    if headers is None or not proxied:
        return peer
    forwarded = [part.strip() for value in headers.get_all("X-Forwarded-For") for part in value.split(",")]
    for hop in reversed([part for part in forwarded if part]):
        if not _in(hop, trusted):
            return hop
    return peer


def make_process_request(
    static_dir: Path, health: HealthProbe, scrape: Callable[[], bytes], metrics: Metrics,
    api: Api | None = None,
) -> Callable[[ServerConnection, Request], Awaitable[Response | None]]:
    """The `process_request` hook: `/ws` -> WebSocket; `/health` -> JSON; `/metrics` -> Prometheus
    text; `/api/...` -> the API's JSON (when given one); else a static file."""
    static = StaticFiles(static_dir)

    async def process_request(connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        if path == WS_PATH:
            return None
        if path == "/health":
            endpoint = "health"
            report = await health()
            status = HTTPStatus.OK if report.get("status") == "ok" else HTTPStatus.SERVICE_UNAVAILABLE
            response = json_response(status, report)
        elif path == "/metrics":
            endpoint = "metrics"
            response = _response(HTTPStatus.OK, scrape(), METRICS_CONTENT_TYPE)
        elif api is not None and path.startswith(API_PREFIX):
            endpoint = "api"
            response = await api.respond(request)
        else:
            response = static.response(path, request.headers)
            endpoint = "not_found" if response.status_code == HTTPStatus.NOT_FOUND else "static"
        metrics.http_requests.labels(endpoint, str(response.status_code)).inc()
        return response

    return process_request
