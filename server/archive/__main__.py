"""`python -m server.archive`: the archive's operations.

    python -m server.archive upgrade [--url URL]                 # migrate the schema to the newest revision
    python -m server.archive revision [--url URL]                # print the schema's revision
    python -m server.archive export [--url URL] (--room ID | --all) [--out FILE]
    python -m server.archive import [--url URL] FILE             # FILE may be - (standard input)

`--url` defaults to the embedded SQLite file (server/archive/urls.py). Export and import use the
deal-record JSON of server/archive/exchange.py. Exit status 0 on success, 1 on an error (printed to
stderr), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence

from . import open_archive
from .exchange import export_all, export_room, import_sessions
from .schema import current_revision, upgrade
from .urls import default_url, sqlite_path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m server.archive", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("upgrade", "migrate the schema to the newest revision"),
                       ("revision", "print the schema's current revision"),
                       ("export", "write sessions as deal-record JSON"),
                       ("import", "read sessions from deal-record JSON")):
        command = commands.add_parser(name, help=text)
        command.add_argument("--url", default=None, help=f"archive URL (default {default_url()})")
        if name == "export":
            which = command.add_mutually_exclusive_group(required=True)
            which.add_argument("--room", help="the room whose sessions to export")
            which.add_argument("--all", action="store_true", help="every archived session")
            command.add_argument("--out", default="-", help="output file (default: standard output)")
        if name == "import":
            command.add_argument("file", help="a file written by export (- for standard input)")
    return parser


async def _run(args: argparse.Namespace) -> str:
    url = args.url or default_url()
    if args.command == "upgrade":
        await upgrade(url)
        return json.dumps({"revision": await current_revision(url)})
    if args.command == "revision":
        return json.dumps({"revision": await current_revision(url)})
    path = sqlite_path(url)
    if args.command == "export" and path is not None and not os.path.exists(path):
        raise ValueError(f"no archive at {path}")
    archive = await open_archive(url)
    try:
        if args.command == "export":
            data = await export_all(archive) if args.all else await export_room(archive, args.room)
            text = json.dumps(data, ensure_ascii=False)
            if args.out == "-":
                return text
            with open(args.out, "w", encoding="utf-8") as out:
                out.write(text + "\n")
            return json.dumps({"sessions": len(data["sessions"]), "out": args.out})
        if args.file == "-":
            content = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as source:
                content = source.read()
        written, already = await import_sessions(archive, json.loads(content))
        return json.dumps({"written": written, "already_archived": already})
    finally:
        await archive.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        print(asyncio.run(_run(args)))
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
