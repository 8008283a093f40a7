"""The archive's contract, run against SQLite and PostgreSQL alike (the `archive` fixture)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest
from archive_sessions import bots, finished, humans
from openskill.models import PlackettLuce

from server.archive import Archive, SeatEntry, player_hash
from server.rules.record import replay

ANN = player_hash("key-ann")


async def test_a_written_session_reads_back_as_written(archive: Archive) -> None:
    session = finished("room-1", humans("ann", "bob") + bots("expert", "basic"), deals=5)
    assert await archive.write_session(session)
    assert await archive.read_session("room-1") == session
    assert await archive.read_session("nowhere") is None


async def test_a_page_of_sessions_reads_back_as_figures_without_records(archive: Archive) -> None:
    """`session_figures`: for every archived id asked (each once; the others left out), what
    `read_session` answers but the deal records and the deals' seeds and multipliers."""
    written = [finished("room-1", humans("ann", "bob") + bots("expert", "basic"), deals=5),
               finished("room-2", humans("ann") + bots("heuristic", "heuristic", "random"), ruleset="couleur",
                        deals=3, seed=2, started_at=2_000.0),
               replace(finished("room-3", humans("cy", "ann", "di", "bob"), ruleset="whist", deals=2, seed=4),
                       complete=False)]
    for session in written:
        await archive.write_session(session)
    figures = await archive.session_figures(["room-3", "nowhere", "room-1", "room-2", "room-1"])
    assert sorted(figures) == ["room-1", "room-2", "room-3"]
    for session in written:
        found = figures[session.session_id]
        assert (found.room_id, found.ruleset, found.seats, found.balances, found.started_at, found.ended_at,
                found.complete) == (session.room_id, session.ruleset, session.seats, session.balances,
                                    session.started_at, session.ended_at, session.complete)
        assert [(d.number, d.status, d.contract, d.contract_kind, d.declarers, d.tricks, d.points, d.made)
                for d in found.deals] == [
                    (d.number, d.status, d.contract, d.contract_kind, d.declarers, d.tricks, d.points, d.made)
                    for d in session.deals]
    assert await archive.session_figures([]) == {}


async def test_the_records_are_the_live_ones_byte_for_byte_as_json(archive: Archive) -> None:
    session = finished("room-1", humans("ann", "bob", "cy", "di"), ruleset="belge-club", deals=4, seed=3)
    await archive.write_session(session)
    records = await archive.room_records("room-1")
    assert [json.dumps(r, sort_keys=True) for r in records] == [
        json.dumps(r, sort_keys=True) for r in session.records()]
    assert [replay(r).result() for r in records] == [replay(r).result() for r in session.records()]


async def test_a_second_write_of_a_session_is_a_no_op(archive: Archive) -> None:
    session = finished("room-1", humans("ann", "bob") + bots("expert", "basic"), deals=4)
    assert await archive.write_session(session)
    rating = await archive.rating("solo-whist", "player", ANN)
    assert not await archive.write_session(session)
    assert len(await archive.room_records("room-1")) == len(session.deals)
    assert await archive.rating("solo-whist", "player", ANN) == rating
    assert await archive.session_ids() == ["room-1"]


async def test_two_concurrent_writers_write_a_session_once(archive: Archive, second_archive: Archive) -> None:
    session = finished("room-1", humans("ann", "bob") + bots("expert", "basic"), deals=4)
    written = await asyncio.gather(archive.write_session(session), second_archive.write_session(session),
                                   archive.write_session(session), second_archive.write_session(session))
    assert sorted(written) == [False, False, False, True]
    assert len(await second_archive.room_records("room-1")) == len(session.deals)
    rating = await archive.rating("solo-whist", "player", ANN)
    assert rating is not None and rating.sessions == 1
    assert (await archive.player_history(ANN)).sessions[0].session_id == "room-1"
    assert len((await archive.player_history(ANN)).sessions) == 1


async def test_concurrent_sessions_sharing_players_all_count_in_the_ratings(
        archive: Archive, second_archive: Archive) -> None:
    sessions = [finished(f"room-{n}", humans("ann", "bob") + bots("expert", "basic"), seed=n)
                for n in range(6)]
    await asyncio.gather(*(target.write_session(session) for target, session in
                           zip([archive, second_archive] * 3, sessions, strict=True)))
    for kind, ident in (("player", ANN), ("bot", "expert")):
        rating = await archive.rating("solo-whist", kind, ident)
        assert rating is not None and rating.sessions == 6


async def test_a_room_lists_its_records_in_play_order(archive: Archive) -> None:
    first = finished("s-1", humans("ann", "bob", "cy", "di"), room_id="room", seed=1, started_at=100)
    second = finished("s-2", humans("ann", "bob", "cy", "di"), room_id="room", seed=2, started_at=50)
    await archive.write_session(first)
    await archive.write_session(second)
    assert [s.session_id for s in await archive.room_sessions("room")] == ["s-2", "s-1"]
    assert await archive.room_records("room") == second.records() + first.records()
    assert await archive.room_records("other") == []


async def test_a_history_holds_the_players_sessions_and_statistics(archive: Archive) -> None:
    played = [finished(f"room-{n}", humans("ann", "bob") + bots("expert", "basic"), seed=n,
                       started_at=1000 + n * 1000, ruleset=ruleset)
              for n, ruleset in enumerate(["solo-whist", "couleur", "solo-whist"])]
    played.append(finished("room-9", humans("bob", "cy", "di") + bots("basic"), seed=9))
    for session in played:
        await archive.write_session(session)
    history = await archive.player_history(ANN)
    assert [s.session_id for s in history.sessions] == ["room-2", "room-1", "room-0"]
    assert all(s.seat == 0 and s.names[0] == "ann" for s in history.sessions)
    assert [s.balance for s in history.sessions] == [p.balances[0] for p in reversed(played[:3])]
    # The statistics, computed here from the replays of the records alone.
    results = [replay(record).result() for session in played[:3] for record in session.records()]
    complete = [r for r in results if r["status"] == "complete"]
    assert history.deals == len(complete)
    assert history.average_points is not None
    assert abs(history.average_points - sum(r["points"][0] for r in complete) / len(complete)) < 1e-9
    declared: dict[str, list[bool]] = {}
    for session in played[:3]:
        for record in session.records():
            deal = replay(record)
            result = deal.result()
            if deal.contract is not None and 0 in result["declarers"]:
                made = sum(result["points"][seat] for seat in result["declarers"]) > 0
                declared.setdefault(deal.contract.kind, []).append(made)
    assert {kind: (s.declared, s.made) for kind, s in history.contracts.items()} == {
        kind: (len(made), sum(made)) for kind, made in declared.items()}
    assert set(history.ratings) == {"solo-whist", "couleur"}
    assert history.ratings["solo-whist"].sessions == 2


async def test_a_history_never_shows_another_players_key(archive: Archive) -> None:
    await archive.write_session(finished("room-1", humans("ann", "bob", "cy", "di"), seed=4))
    history = await archive.player_history(ANN)
    deals = await archive.player_deals(ANN)
    shown = repr(history) + repr(deals)
    assert ANN in shown  # its own rating names it
    for other in ("bob", "cy", "di"):
        assert player_hash(f"key-{other}") not in shown
        assert f"key-{other}" not in shown


async def test_a_players_deals_link_to_their_session_and_number(archive: Archive) -> None:
    session = finished("room-1", humans("ann", "bob") + bots("expert", "basic"), deals=4, seed=5)
    await archive.write_session(session)
    deals = await archive.player_deals(ANN)
    numbers = reversed(range(len(session.deals)))
    assert [(d.room_id, d.number) for d in deals] == [("room-1", n) for n in numbers]
    for listed in deals:
        entry = session.deals[listed.number]
        assert listed.points == entry.points[0] and listed.declarer == (0 in entry.declarers)
        assert listed.contract == entry.contract and listed.made == entry.made
    assert len(await archive.player_deals(ANN, limit=2)) == 2
    assert await archive.player_deals(player_hash("key-nobody")) == []


async def test_a_player_with_no_games_has_an_empty_history(archive: Archive) -> None:
    history = await archive.player_history(player_hash("key-nobody"))
    assert (history.sessions, history.deals, history.average_points, dict(history.contracts),
            dict(history.ratings)) == ((), 0, None, {}, {})


async def test_ratings_follow_the_librarys_own_computation(archive: Archive) -> None:
    model = PlackettLuce()
    seats = humans("ann", "bob") + bots("expert", "basic")
    expected = {name: model.rating() for name in ("ann", "bob", "expert", "basic")}
    for n in range(3):
        session = finished(f"room-{n}", seats, seed=10 + n)
        await archive.write_session(session)
        ranks = [1 + sum(other > own for other in session.balances) for own in session.balances]
        names = ["ann", "bob", "expert", "basic"]
        rated = model.rate([[expected[name]] for name in names], ranks=ranks)
        expected = {name: team[0] for name, team in zip(names, rated, strict=True)}
    for kind, ident, name in (("player", ANN, "ann"), ("player", player_hash("key-bob"), "bob"),
                              ("bot", "expert", "expert"), ("bot", "basic", "basic")):
        rating = await archive.rating("solo-whist", kind, ident)
        assert rating is not None and rating.sessions == 3
        assert abs(rating.mu - expected[name].mu) < 1e-9 and abs(rating.sigma - expected[name].sigma) < 1e-9


async def test_bots_only_and_short_sessions_move_no_rating(archive: Archive) -> None:
    await archive.write_session(finished("bots", bots("expert", "basic", "expert", "basic"), seed=2))
    await archive.write_session(finished("short", humans("ann", "bob") + bots("expert", "basic"), deals=2))
    assert await archive.leaderboard("solo-whist") == []
    assert len(await archive.room_records("bots")) >= 4


async def test_the_board_ranks_by_ordinal_per_ruleset(archive: Archive) -> None:
    for n in range(4):
        await archive.write_session(finished(f"room-{n}", humans("ann", "bob") + bots("expert", "basic"),
                                             seed=20 + n))
    await archive.write_session(finished("other", humans("cy", "di", "ed", "fi"), seed=1, ruleset="couleur"))
    board = await archive.leaderboard("solo-whist")
    assert {(r.kind, r.name) for r in board} == {("player", "ann"), ("player", "bob"), ("bot", "expert"),
                                                  ("bot", "basic")}
    assert [r.ordinal for r in board] == sorted((r.ordinal for r in board), reverse=True)
    assert [r.name for r in await archive.leaderboard("solo-whist", humans_only=True)] == [
        r.name for r in board if r.kind == "player"]
    assert len(await archive.leaderboard("solo-whist", limit=2)) == 2
    assert {r.name for r in await archive.leaderboard("couleur")} == {"cy", "di", "ed", "fi"}


async def test_an_anonymous_human_is_in_the_session_but_not_rated(archive: Archive) -> None:
    seats = [SeatEntry("human", "guest"), *humans("ann"), *bots("expert", "basic")]
    await archive.write_session(finished("room-1", seats, seed=6))
    assert {r.name for r in await archive.leaderboard("solo-whist")} == {"ann", "expert", "basic"}
    stored = await archive.read_session("room-1")
    assert stored is not None and stored.seats[0] == SeatEntry("human", "guest")


async def test_the_archive_answers_a_ping(archive: Archive) -> None:
    assert await archive.ping()


async def test_a_session_stopped_early_is_kept_but_not_rated(archive: Archive) -> None:
    stopped = replace(finished("room-1", humans("ann", "bob") + bots("expert", "basic"), deals=5),
                      complete=False)
    assert await archive.write_session(stopped)
    assert await archive.read_session("room-1") == stopped
    assert await archive.leaderboard("solo-whist") == []
    assert [s.session_id for s in (await archive.player_history(ANN)).sessions] == ["room-1"]


async def test_a_write_that_fails_half_way_leaves_nothing_and_can_be_done_again(archive: Archive) -> None:
    session = finished("room-1", humans("ann", "bob") + bots("expert", "basic"), deals=4)
    # The same deal twice: the deals' insert fails after the session's row went in.
    broken = replace(session, deals=(session.deals[0], session.deals[0]))
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        await archive.write_session(broken)
    assert await archive.read_session("room-1") is None
    assert await archive.leaderboard("solo-whist") == []
    assert await archive.write_session(session)
    assert await archive.read_session("room-1") == session


async def test_a_deal_is_read_alone_by_its_link(archive: Archive) -> None:
    session = finished("room-1", humans("ann", "bob") + bots("expert", "basic"), deals=4)
    await archive.write_session(session)
    assert await archive.deal_record("room-1", 2) == session.deals[2].record
    assert await archive.deal_record("room-1", 99) is None
    assert await archive.deal_record("nowhere", 0) is None


async def test_the_public_forms_name_no_player_key(archive: Archive) -> None:
    await archive.write_session(finished("room-1", humans("ann", "bob") + bots("expert", "basic"), seed=8))
    shown = json.dumps([rating.public() for rating in await archive.leaderboard("solo-whist")])
    shown += json.dumps((await archive.player_history(ANN)).public())
    assert '"bot": "expert"' in shown and '"name": "ann"' in shown
    for name in ("ann", "bob"):
        assert player_hash(f"key-{name}") not in shown and f"key-{name}" not in shown
