"""The wire format: decoding, validation errors with stable codes, and the examples of docs/protocol.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server import protocol
from server.protocol import MESSAGE_ADAPTER, ProtocolError, decode_frame, parse_request

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def doc_examples() -> list[dict[str, object]]:
    """Every JSON object of the ```json blocks of docs/protocol.md (one per line or per block)."""
    examples = []
    for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), flags=re.S):
        text = block.strip()
        try:
            examples.append(json.loads(text))
            continue
        except ValueError:
            pass
        # Several messages, one per line (a message may continue on indented lines).
        current = ""
        for line in text.splitlines():
            if current and not line.startswith(" "):
                examples.append(json.loads(current))
                current = ""
            current += line
        if current:
            examples.append(json.loads(current))
    return examples


def test_every_documented_example_is_a_valid_message() -> None:
    examples = doc_examples()
    kinds = {example["type"] for example in examples}
    assert len(examples) >= 30
    for example in examples:
        if example["type"] == "state":
            continue  # the documented view is abridged ("...": "..."); its envelope is checked below
        MESSAGE_ADAPTER.validate_python(example)
    assert kinds >= protocol.REQUEST_TYPES, "every request type is documented with an example"
    assert {"ok", "error", "state", "events", "lobby"} <= kinds


def test_documented_state_envelope_is_valid() -> None:
    (state,) = [example for example in doc_examples() if example["type"] == "state"]
    state["view"] = {"phase": "play"}
    MESSAGE_ADAPTER.validate_python(state)


def test_json_and_msgpack_frames_decode_to_the_same_request() -> None:
    message = {"type": "act", "id": 7, "action": "play AH"}
    from_json = parse_request(decode_frame(json.dumps(message)))
    from_msgpack = parse_request(decode_frame(msgpack.packb(message)))
    assert from_json == from_msgpack
    assert from_json.type == "act" and from_json.action == "play AH"


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        (b"\xc1\xc1", "bad_msgpack"),
        (msgpack.packb([1, 2]), "bad_msgpack"),
    ],
)
def test_unreadable_frames_have_their_own_codes(frame: str | bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_frame(frame)
    assert caught.value.code == code


def test_a_frame_over_64_kib_is_refused() -> None:
    frame = json.dumps({"type": "hello", "id": 1, "name": "x" * (64 * 1024)})
    with pytest.raises(ProtocolError) as caught:
        decode_frame(frame)
    assert caught.value.code == "frame_too_large"


@pytest.mark.parametrize(
    ("message", "code", "words"),
    [
        ({"id": 1}, "unknown_type", "missing"),
        ({"type": "dance", "id": 1}, "unknown_type", "'dance'"),
        ({"type": "act", "id": 2}, "invalid_message", "action"),
        ({"type": "act", "id": 3, "action": 5}, "invalid_message", "action"),
        ({"type": "join", "id": 4, "room_id": "r", "seat": 7}, "invalid_message", "seat"),
        ({"type": "ping", "id": 5, "extra": True}, "invalid_message", "extra"),
        ({"type": "ping"}, "invalid_message", "id"),
    ],
)
def test_invalid_requests_name_the_problem(message: dict[str, object], code: str, words: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_request(message)
    assert caught.value.code == code
    assert words in caught.value.message


def test_the_request_id_is_kept_for_the_error_answer() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_request({"type": "act", "id": "abc"})
    assert caught.value.request_id == "abc"


def test_encoding_follows_the_requested_kind() -> None:
    message = protocol.ok(1, {"seat": 2})
    assert json.loads(protocol.encode_frame(message, binary=False)) == message
    assert msgpack.unpackb(protocol.encode_frame(message, binary=True)) == message


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


@given(st.binary(max_size=200) | st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_any_frame_decodes_or_gets_a_protocol_error(frame: bytes | str) -> None:
    try:
        data = decode_frame(frame)
        parse_request(data)
    except ProtocolError as problem:
        assert problem.code in {"bad_json", "bad_msgpack", "unknown_type", "invalid_message"}
        assert problem.message


@given(st.sampled_from(sorted(protocol.REQUEST_TYPES)),
       st.dictionaries(st.text(max_size=12), json_values, max_size=5))
@settings(max_examples=300, deadline=None)
def test_any_fields_on_a_known_type_validate_or_name_the_problem(
    kind: str, fields: dict[str, object]
) -> None:
    message = {**fields, "type": kind, "id": 1}
    try:
        request = parse_request(message)
    except ProtocolError as problem:
        assert problem.code == "invalid_message" and kind in problem.message and problem.request_id == 1
    else:
        assert request.type == kind


def test_hello_takes_a_player_key_like_daily() -> None:
    assert parse_request({"type": "hello", "id": 1, "name": "Ann"}) == protocol.Hello(type="hello", id=1,
                                                                                      name="Ann")
    parsed = parse_request({"type": "hello", "id": 1, "player_key": "Qm9sZC1icm93c2VyLWtleQ"})
    assert isinstance(parsed, protocol.Hello) and parsed.player_key == "Qm9sZC1icm93c2VyLWtleQ"
    for bad in ("short", "x" * 129, "has spaces in it!!", 12345678901234567):
        with pytest.raises(ProtocolError):
            parse_request({"type": "hello", "id": 1, "player_key": bad})
