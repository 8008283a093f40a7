"""The web client's static files as HTTP answers: a strong ETag per file (a hash of its bytes), a `304`
for a matching `If-None-Match`, gzip for text when the browser accepts it, and the headers a page
that shows other people's text needs (a Content-Security-Policy that allows only the server itself,
no framing, no referrer across origins).

A file is read, hashed and compressed once per version on disk (its size and modification time), so a
phone on a slow line downloads the client once and then only revalidates it.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote

from websockets.datastructures import Headers
from websockets.http11 import Response

#: Scripts, styles, images, fonts and connections (the WebSocket included) from this server only; no
#: inline script or style, no plugin, no framing, no form or base URL elsewhere. `data:` images are the
#: favicon's.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; media-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Frame-Options", "DENY"),  # frame-ancestors for browsers that predate it
    ("Referrer-Policy", "same-origin"),
    ("X-Content-Type-Options", "nosniff"),
)
#: Below this a gzip body saves less than the header costs.
COMPRESS_MIN_BYTES = 512
_COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")


def add_security_headers(headers: Headers) -> None:
    """Set the page-protection headers on any answer (static files, errors, health)."""
    for name, value in SECURITY_HEADERS:
        headers[name] = value


def _answer(status: HTTPStatus, body: bytes, fields: dict[str, str]) -> Response:
    headers = Headers()
    for name, value in fields.items():
        headers[name] = value
    headers["Content-Length"] = str(len(body))
    add_security_headers(headers)
    return Response(status.value, status.phrase, headers, body)


def _content_type(name: str) -> str:
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if content_type.startswith("text/") or content_type in ("application/javascript", "application/json"):
        content_type += "; charset=utf-8"
    return content_type


def _accepts_gzip(accept_encoding: str) -> bool:
    """Whether `Accept-Encoding` admits gzip (a `q=0` refuses it)."""
    for part in accept_encoding.split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            q = params.strip().lower()
            return not (q.startswith("q=") and float(q[2:] or 0) == 0)
    return False


def _etag_matches(if_none_match: str, etag: str) -> bool:
    """RFC 9110's weak comparison for `If-None-Match` (`*` or any listed tag, `W/` ignored)."""
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag in tags


@dataclass(frozen=True)
class _Prepared:
    """One version of one file, ready to send."""

    stamp: tuple[int, int]  # (size, mtime_ns) it was read at
    body: bytes
    gzipped: bytes | None  # None when not worth compressing
    etag: str
    content_type: str


class StaticFiles:
    """The files of one directory (`/` is index.html), never a file outside it."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._prepared: dict[Path, _Prepared] = {}

    def _find(self, path: str) -> Path | None:
        relative = unquote(path).lstrip("/") or "index.html"
        try:
            target = (self.root / relative).resolve()
            return target if target.is_relative_to(self.root) and target.is_file() else None
        except (ValueError, OSError):  # a NUL byte, a name too long for the file system: no such file
            return None

    def _prepare(self, target: Path) -> _Prepared:
        info = target.stat()
        stamp = (info.st_size, info.st_mtime_ns)
        known = self._prepared.get(target)
        if known is not None and known.stamp == stamp:
            return known
        body = target.read_bytes()
        content_type = _content_type(target.name)
        worth = len(body) >= COMPRESS_MIN_BYTES and content_type.startswith(_COMPRESSIBLE)
        # mtime=0: the same bytes give the same gzip body on every replica.
        gzipped = gzip.compress(body, compresslevel=6, mtime=0) if worth else None
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        prepared = _Prepared(stamp, body, gzipped, etag, content_type)
        self._prepared[target] = prepared
        return prepared

    def response(self, path: str, request_headers: Headers | None = None) -> Response:
        """The answer for URL path `path`: 200 (maybe gzip), 304 when the browser's copy is current,
        or 404."""
        target = self._find(path)
        if target is None:
            return _answer(HTTPStatus.NOT_FOUND, f"not found: {path}\n".encode(),
                           {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-cache"})
        try:
            file = self._prepare(target)
        except OSError:  # removed or unreadable between the look and the read
            return _answer(HTTPStatus.NOT_FOUND, f"not found: {path}\n".encode(),
                           {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-cache"})
        headers = request_headers if request_headers is not None else Headers()
        # no-cache: the browser keeps the file but asks each time; a matching ETag costs one 304.
        fields = {"Content-Type": file.content_type, "Cache-Control": "no-cache", "ETag": file.etag}
        if file.gzipped is not None:
            fields["Vary"] = "Accept-Encoding"
        if _etag_matches(headers.get("If-None-Match", ""), file.etag):
            fields.pop("Content-Type")
            return _answer(HTTPStatus.NOT_MODIFIED, b"", fields)
        if file.gzipped is not None and _accepts_gzip(headers.get("Accept-Encoding", "")):
            fields["Content-Encoding"] = "gzip"
            return _answer(HTTPStatus.OK, file.gzipped, fields)
        return _answer(HTTPStatus.OK, file.body, fields)
