"""Parsing actions of the deal-record vocabulary into a verb and typed arguments.

An action is a lower-case word followed by its arguments, separated by single spaces, such as
`play AH`, `propose H`, `accept S 9` or `grand-chelem NT`. Each ruleset declares its vocabulary as a
mapping from verb to argument kinds; this module turns text into `ParsedAction` or raises
`MalformedAction`. Whether the action is allowed now is the ruleset's business, not this module's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from .cards import parse_card, parse_suit
from .errors import MalformedAction


class Arg(Enum):
    """The kinds of argument an action may take."""

    CARD = "card"
    SUIT = "suit"  # S H D C
    SUIT_OR_NT = "suit-or-NT"  # S H D C NT; NT parses to None
    LEVEL = "level"  # a number of tricks, 1-13
    OPTIONAL_LEVEL = "optional level"  # as LEVEL, may be left out (then None)


Vocabulary = Mapping[str, tuple[Arg, ...]]

#: Verbs every ruleset understands.
COMMON_VOCABULARY: dict[str, tuple[Arg, ...]] = {
    "pass": (),
    "play": (Arg.CARD,),
    "discard": (Arg.CARD,),
    "trump": (Arg.SUIT_OR_NT,),
}


@dataclass(frozen=True, slots=True)
class ParsedAction:
    """An action split into its verb and typed arguments; `text` is its canonical spelling."""

    verb: str
    args: tuple[str | int | None, ...]
    text: str


def _parse_level(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 13:
        raise MalformedAction(f"not a number of tricks: {text!r} (expected 1 to 13)")
    return int(text)


def parse_action(text: object, vocabulary: Vocabulary) -> ParsedAction:
    """Parse `text` against `vocabulary`, or raise `MalformedAction` saying what is wrong."""
    if not isinstance(text, str):
        raise MalformedAction(f"an action must be a string, not {type(text).__name__}")
    parts = text.split(" ")
    verb, raw_args = parts[0], parts[1:]
    if not verb or any(not part for part in raw_args):
        raise MalformedAction(f"malformed action {text!r}: words are separated by single spaces")
    if verb not in vocabulary:
        known = ", ".join(sorted(vocabulary))
        raise MalformedAction(f"unknown action {verb!r}; this ruleset knows: {known}")
    kinds = vocabulary[verb]
    required = sum(1 for kind in kinds if kind is not Arg.OPTIONAL_LEVEL)
    if not required <= len(raw_args) <= len(kinds):
        expected = " ".join(f"<{kind.value}>" for kind in kinds)
        raise MalformedAction(f"{verb!r} takes: {verb} {expected}".rstrip())
    args: list[str | int | None] = []
    for kind, raw in zip(kinds, raw_args, strict=False):
        if kind is Arg.CARD:
            args.append(parse_card(raw))
        elif kind is Arg.SUIT:
            args.append(parse_suit(raw))
        elif kind is Arg.SUIT_OR_NT:
            args.append(parse_suit(raw, allow_no_trump=True))
        else:
            args.append(_parse_level(raw))
    args.extend(None for _ in kinds[len(raw_args) :])
    return ParsedAction(verb, tuple(args), text)
