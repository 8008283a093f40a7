"""Ratings: OpenSkill's Weng-Lin Plackett-Luce model over the four seats of a finished session, ranked
by balance (docs/ratings.md). Pure: ratings in, ratings out; the archive stores them.

Every seat is its own team of one (partnerships change from deal to deal, the balance is each
seat's own). Humans are rated by hashed player key, bots by level, on the same scale.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .model import ArchivedSession

# A session moves ratings only once this many deals were played to the end (thrown-in deals do not
# count): a two-deal session says little about anyone.
MIN_RATED_DEALS = 4

# The model with OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): anyone can recompute
# a rating with the library alone.
MODEL = PlackettLuce()

Entity = tuple[str, str]  # ("player", hashed key) or ("bot", level)


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating's two numbers."""

    mu: float
    sigma: float


def seat_entities(session: ArchivedSession) -> list[Entity | None]:
    """Who each seat is for the ratings: a keyed human, a bot level, or None (an anonymous human, an
    empty seat)."""
    entities: list[Entity | None] = []
    for seat in session.seats:
        if seat.kind == "human" and seat.player:
            entities.append(("player", seat.player))
        elif seat.kind == "bot":
            entities.append(("bot", seat.bot or "default"))
        else:
            entities.append(None)
    return entities


def is_rated(session: ArchivedSession) -> bool:
    """Whether the session moves ratings: played to its end, enough played deals, and at least one
    human with a player key. A bots-only session moves nothing, not even the bots' ratings
    (docs/ratings.md says why)."""
    return session.complete and session.played_deals >= MIN_RATED_DEALS and any(
        entity is not None and entity[0] == "player" for entity in seat_entities(session))


def rate_session(session: ArchivedSession, current: Mapping[Entity, Skill]) -> dict[Entity, Skill]:
    """The new skill of every rated entity at the table, from `current` (an entity missing there is
    new: the model's default rating). Empty when the session is not rated (`is_rated`).

    A seat without an entity (an anonymous human) plays as a newcomer and its update is dropped. An
    entity at several seats (two bots of one level) plays each with its rating before the session,
    and takes the mean of its seats' new mu and sigma."""
    if not is_rated(session):
        return {}
    entities = seat_entities(session)
    before = [current.get(entity) if entity is not None else None for entity in entities]
    teams = [[MODEL.rating() if skill is None else MODEL.rating(mu=skill.mu, sigma=skill.sigma)]
             for skill in before]
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in session.ranks()])
    updates: dict[Entity, list[Skill]] = {}
    for entity, team in zip(entities, rated, strict=True):
        if entity is not None:
            updates.setdefault(entity, []).append(Skill(team[0].mu, team[0].sigma))
    return {entity: Skill(sum(s.mu for s in skills) / len(skills), sum(s.sigma for s in skills) / len(skills))
            for entity, skills in updates.items()}
