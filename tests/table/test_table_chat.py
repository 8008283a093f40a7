"""The pure table core, chat: what a line may say, who reads it, the host's mute (stored)."""

from __future__ import annotations

import pytest
from table_helpers import participant, seated_table

from server.table import chat, errors, facts, from_stored, to_stored

AT = 1_764_441_000.0


def test_a_players_line_reaches_everyone_a_spectators_only_the_spectators() -> None:
    table = seated_table(2)
    said = chat.new_line(table, participant(1), "ignored", "well played", None, AT)
    assert said["from"] == {"seat": 1, "name": "P1"} and said["text"] == "well played"
    assert chat.readable_by(said, seated=True) and chat.readable_by(said, seated=False)
    rail = chat.new_line(table, None, "Watcher", "play the ace!", None, AT)
    assert rail["from"] == {"seat": None, "name": "Watcher"}
    assert not chat.readable_by(rail, seated=True) and chat.readable_by(rail, seated=False)
    assert "audience" not in chat.on_the_wire(rail) and chat.on_the_wire(rail)["text"] == "play the ace!"


def test_cards_and_markup_are_kept_as_typed() -> None:
    table = seated_table(1)
    for text in ("AS KH QD", "<img src=x onerror=alert(1)>", "10♥ & 9♠", "👍🏽 bien joué"):
        assert chat.new_line(table, participant(0), "", text, None, AT)["text"] == text


def test_control_characters_are_removed_and_the_text_trimmed() -> None:
    assert chat.clean_text("  hi\x00 there\x1b[31m \n") == "hi there[31m"
    assert chat.clean_text("a\tb\r\nc") == "a b  c"
    assert chat.clean_text("abc\u202edcb") == "abcdcb", "no right-to-left override"


def test_a_line_of_200_characters_passes_201_is_refused() -> None:
    assert len(chat.clean_text("x" * 200)) == 200
    assert chat.clean_text("  " + "x" * 200 + "  ") == "x" * 200, "counted after trimming"
    with pytest.raises(errors.ChatTooLong, match="at most 200"):
        chat.clean_text("x" * 201)
    with pytest.raises(errors.ChatEmpty):
        chat.clean_text(" \x00\n ")


def test_a_quick_phrase_is_a_key_the_clients_translate() -> None:
    table = seated_table(1)
    line = chat.new_line(table, participant(0), "", None, "good_luck", AT)
    assert line["phrase"] == "good_luck" and "text" not in line
    with pytest.raises(errors.MalformedChat, match="unknown phrase"):
        chat.new_line(table, participant(0), "", None, "insult", AT)
    for text, phrase in ((None, None), ("hi", "thanks")):
        with pytest.raises(errors.MalformedChat):
            chat.new_line(table, participant(0), "", text, phrase, AT)


def test_the_host_mutes_a_seat_for_everyone_and_it_is_stored() -> None:
    table = seated_table(3)
    outcome = chat.mute_seat(table, participant(0), 2, True)
    muted = outcome.table
    assert outcome.stored and outcome.events == [{"type": "chat_muted", "seat": 2, "muted": True}]
    with pytest.raises(errors.ChatMuted):
        chat.new_line(muted, participant(2), "", "hello", None, AT)
    assert chat.new_line(muted, participant(1), "", "hello", None, AT)["text"] == "hello"
    assert from_stored(to_stored(muted), 1, ()).chat_muted == frozenset({2})
    assert facts.room_info(muted, 0.0)["chat_muted"] == [2], "everyone's page shows it, after a reload too"
    assert not chat.mute_seat(muted, participant(0), 2, True).stored, "muting twice changes nothing"
    unmuted = chat.mute_seat(muted, participant(0), 2, False).table
    assert chat.new_line(unmuted, participant(2), "", "hi", None, AT)["text"] == "hi"
    with pytest.raises(errors.NotHost):
        chat.mute_seat(table, participant(1), 2, True)
