"""The web client's files over HTTP: validators, 304, gzip, and the page-protection headers."""

from __future__ import annotations

import gzip
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from server_helpers import ServerProcess
from websockets.datastructures import Headers

from server.static_files import COMPRESS_MIN_BYTES, CONTENT_SECURITY_POLICY, StaticFiles


def _headers(**fields: str) -> Headers:
    headers = Headers()
    for name, value in fields.items():
        headers[name.replace("_", "-")] = value
    return headers


def test_a_file_has_a_strong_etag_and_a_matching_if_none_match_gets_304(tmp_path: Path) -> None:
    (tmp_path / "app.js").write_text("console.log('hi');\n")
    files = StaticFiles(tmp_path)
    first = files.response("/app.js")
    etag = first.headers["ETag"]
    assert first.status_code == 200 and etag.startswith('"') and not etag.startswith("W/")
    again = files.response("/app.js", _headers(If_None_Match=etag))
    assert again.status_code == 304 and again.body == b"" and again.headers["ETag"] == etag
    assert files.response("/app.js", _headers(If_None_Match='"other", ' + etag)).status_code == 304
    assert files.response("/app.js", _headers(If_None_Match='"other"')).status_code == 200


def test_a_changed_file_gets_a_new_etag(tmp_path: Path) -> None:
    path = tmp_path / "style.css"
    path.write_text("a { color: red; }\n")
    files = StaticFiles(tmp_path)
    before = files.response("/style.css").headers["ETag"]
    path.write_text("a { color: blue; }\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10_000_000))
    changed = files.response("/style.css", _headers(If_None_Match=before))
    assert changed.status_code == 200 and changed.headers["ETag"] != before
    assert changed.body == b"a { color: blue; }\n"


def test_text_is_gzipped_only_for_a_browser_that_accepts_it(tmp_path: Path) -> None:
    text = "const cards = [" + ", ".join(str(n) for n in range(400)) + "];\n"
    assert len(text) > COMPRESS_MIN_BYTES
    (tmp_path / "big.js").write_text(text)
    files = StaticFiles(tmp_path)
    plain = files.response("/big.js")
    assert plain.body == text.encode() and "Content-Encoding" not in plain.headers
    assert plain.headers["Vary"] == "Accept-Encoding"
    zipped = files.response("/big.js", _headers(Accept_Encoding="br, gzip;q=0.8"))
    assert zipped.headers["Content-Encoding"] == "gzip" and len(zipped.body) < len(text)
    assert gzip.decompress(zipped.body) == text.encode()
    assert zipped.headers["ETag"] == plain.headers["ETag"]
    refused = files.response("/big.js", _headers(Accept_Encoding="gzip;q=0"))
    assert "Content-Encoding" not in refused.headers


def test_small_files_and_images_are_not_compressed(tmp_path: Path) -> None:
    (tmp_path / "tiny.js").write_text("x = 1;\n")
    (tmp_path / "pic.png").write_bytes(b"\x89PNG" + bytes(2000))
    files = StaticFiles(tmp_path)
    for name in ("/tiny.js", "/pic.png"):
        answer = files.response(name, _headers(Accept_Encoding="gzip"))
        assert "Content-Encoding" not in answer.headers, name


def test_every_answer_carries_the_policy_even_a_404(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>")
    files = StaticFiles(tmp_path)
    for answer in (files.response("/"), files.response("/missing.js"), files.response("/../etc/passwd")):
        assert answer.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert answer.headers["X-Frame-Options"] == "DENY"
        assert answer.headers["Referrer-Policy"] == "same-origin"
    assert files.response("/../etc/passwd").status_code == 404


def test_the_policy_allows_only_the_server_itself_and_no_framing() -> None:
    directives = dict(part.strip().split(" ", 1) for part in CONTENT_SECURITY_POLICY.split(";"))
    for name in ("default-src", "script-src", "style-src", "connect-src"):
        assert directives[name] == "'self'", name
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY and "unsafe-eval" not in CONTENT_SECURITY_POLICY


def test_the_shipped_pages_have_no_inline_script_or_style() -> None:
    root = Path(__file__).resolve().parents[2] / "client_web"
    for page in root.glob("*.html"):
        html = page.read_text()
        assert "<style" not in html, page.name
        assert " style=" not in html and " onclick=" not in html, page.name
        for tag in html.split("<script")[1:]:
            assert ' src="' in tag.split(">", 1)[0], f"{page.name}: inline script"


def _get(url: str, **fields: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={k.replace("_", "-"): v for k, v in fields.items()})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:  # 304 arrives as an HTTPError
        return error.code, dict(error.headers), error.read()


def test_the_server_sends_the_client_with_validators_and_gzip(
    server_process: Callable[..., ServerProcess]
) -> None:
    proc = server_process().start()  # `python -m server`: the shipped client_web
    base = f"http://127.0.0.1:{proc.port}"
    status, headers, body = _get(base + "/js/app.js", Accept_Encoding="gzip")
    assert status == 200 and headers["Content-Encoding"] == "gzip" and b"import" in gzip.decompress(body)
    assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    again = _get(base + "/js/app.js", If_None_Match=headers["ETag"])
    assert again[0] == 304 and again[2] == b""
    page = _get(base + "/")
    assert page[0] == 200 and page[1]["Referrer-Policy"] == "same-origin"
    health = _get(base + "/health")
    assert health[0] == 200 and health[1]["X-Frame-Options"] == "DENY"
