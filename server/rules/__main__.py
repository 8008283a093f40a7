"""`python -m server.rules replay FILE [--view SEAT] [--at N]`: replay a deal record.

`python -m server.rules verify FILE`: check a finished deal's seed against its commitment and re-deal
the hands from it (docs/deal-record.md "Checking a deal by hand"); exit status 0 when it verifies.
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import MalformedRecord
from .record import RecordError, load_record, replay
from .verify import verify_record


def _parse_seat(text: str) -> int | None:
    if text == "spectator":
        return None
    if text in ("0", "1", "2", "3"):
        return int(text)
    raise argparse.ArgumentTypeError("SEAT is 0, 1, 2, 3 or spectator")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m server.rules", description="Whist rules engine tools")
    commands = parser.add_subparsers(dest="command", required=True)
    replay_parser = commands.add_parser("replay", help="replay a deal record and print its result or a view")
    replay_parser.add_argument("file", help="the deal record (JSON); - reads standard input")
    replay_parser.add_argument("--view", type=_parse_seat, metavar="SEAT", default=argparse.SUPPRESS,
                               help="print the view of SEAT (0-3 or spectator) instead of the result")
    replay_parser.add_argument("--at", type=int, metavar="N", default=None,
                               help="with --view: the view after the first N actions")
    verify_parser = commands.add_parser("verify", help="check the seed against its commitment and the hands")
    verify_parser.add_argument("file", help="the record (JSON) of a finished deal; - reads standard input")
    args = parser.parse_args(argv)
    if args.command == "replay" and args.at is not None and args.at < 0:
        parser.error("--at N takes a number of actions, 0 or more")

    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as error:
        print(json.dumps({"error": "malformed_record", "action_index": None,
                          "reason": f"cannot read {args.file}: {error.strerror}"}))
        return 1
    if args.command == "verify":
        return _verify(text)
    try:
        record = load_record(text)
        deal = replay(record, args.at if "view" in args else None)
    except RecordError as error:
        print(json.dumps(error.as_dict()))
        return 1
    except MalformedRecord as error:
        print(json.dumps({"error": "malformed_record", "action_index": None, "reason": error.reason}))
        return 1
    output = deal.view(args.view) if "view" in args else deal.result()
    print(json.dumps(output))
    return 0


def _verify(text: str) -> int:
    try:
        record = load_record(text)
    except RecordError as error:
        print(json.dumps({"verified": False, "failed": "record", "reason": error.reason}))
        return 1
    outcome = verify_record(record)
    print(json.dumps(outcome))
    return 0 if outcome["verified"] else 1


if __name__ == "__main__":
    sys.exit(main())
