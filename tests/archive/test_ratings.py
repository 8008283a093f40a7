"""The rating update alone (server/archive/ratings.py), against OpenSkill's own computation."""

from __future__ import annotations

from dataclasses import replace

from archive_sessions import bots, finished, humans
from openskill.models import PlackettLuce

from server.archive import MIN_RATED_DEALS, SeatEntry, player_hash
from server.archive.ratings import Skill, is_rated, rate_session

MODEL = PlackettLuce()


def test_four_rated_seats_move_as_the_library_moves_them() -> None:
    seats = humans("ann", "bob") + bots("expert", "basic")
    session = replace(finished("s", seats), balances=(30, -10, -10, -10))
    current = {("player", player_hash("key-ann")): Skill(30.0, 5.0), ("bot", "expert"): Skill(27.0, 2.0)}
    updated = rate_session(session, current)
    teams = [[MODEL.rating(mu=30.0, sigma=5.0)], [MODEL.rating()], [MODEL.rating(mu=27.0, sigma=2.0)],
             [MODEL.rating()]]
    expected = MODEL.rate(teams, ranks=[1, 2, 2, 2])
    entities = [("player", player_hash("key-ann")), ("player", player_hash("key-bob")), ("bot", "expert"),
                ("bot", "basic")]
    assert updated == {entity: Skill(team[0].mu, team[0].sigma)
                       for entity, team in zip(entities, expected, strict=True)}
    assert updated[entities[0]].mu > 30.0 and updated[entities[2]].mu < 27.0


def test_a_bots_only_session_is_not_rated() -> None:
    session = finished("s", bots("expert", "basic", "expert", "basic"))
    assert not is_rated(session) and rate_session(session, {}) == {}


def test_a_session_shorter_than_the_minimum_is_not_rated() -> None:
    short = finished("s", humans("ann", "bob", "cy", "di"), deals=MIN_RATED_DEALS - 1)
    assert not is_rated(short) and rate_session(short, {}) == {}
    assert is_rated(finished("s", humans("ann", "bob", "cy", "di"), deals=MIN_RATED_DEALS))


def test_two_bots_of_one_level_take_the_mean_of_their_seats() -> None:
    seats = humans("ann", "bob") + bots("expert", "expert")
    session = replace(finished("s", seats), balances=(5, 0, 10, -15))
    updated = rate_session(session, {})
    expected = MODEL.rate([[MODEL.rating()] for _ in range(4)], ranks=[2, 3, 1, 4])
    expert = updated[("bot", "expert")]
    assert abs(expert.mu - (expected[2][0].mu + expected[3][0].mu) / 2) < 1e-12
    assert abs(expert.sigma - (expected[2][0].sigma + expected[3][0].sigma) / 2) < 1e-12
    assert len(updated) == 3


def test_an_anonymous_human_plays_as_a_newcomer_and_keeps_nothing() -> None:
    seats = [SeatEntry("human", "guest"), *humans("ann", "bob", "cy")]
    session = replace(finished("s", seats), balances=(20, 0, -10, -10))
    updated = rate_session(session, {})
    expected = MODEL.rate([[MODEL.rating()] for _ in range(4)], ranks=[1, 2, 3, 3])
    assert len(updated) == 3
    assert updated[("player", player_hash("key-ann"))] == Skill(expected[1][0].mu, expected[1][0].sigma)
    # Only anonymous humans and bots: nobody to rate.
    assert not is_rated(finished("s", [SeatEntry("human", "guest"), *bots("expert", "basic", "basic")]))
