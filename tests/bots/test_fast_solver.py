"""The compiled solver (server/bots/_solver.c) gives the pure-Python reference's answers (solver.py).

Seeded random positions of 1 to 6 tricks in every contract shape (teams in any seating, one against
three, misère, several misères side by side, arbitrary sides, piccolo), with and without trump, from the
start of a trick or with 1-4 cards on the table: the same value, a best move that reaches it, and for
piccolo the same answer. Whole 13-card deals are out of the reference's reach, so there the compiled
solver's principal line is followed down to a few tricks, every step keeping the value, and the reference
solves the end. Where a C compiler is present the build must have produced the module: these tests fail
then, they do not skip.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

import pytest

from server.bots import fast_solver
from server.bots.fast_solver import CompiledSolver
from server.bots.solver import NodeLimitError, Solver, beats_bit, card_bit, mask_cards, to_mask
from server.rules.cards import FULL_DECK, SUITS

ROOT = Path(__file__).resolve().parents[2]
Sides = tuple[tuple[bool, ...], tuple[bool, ...]]
TEAM = (True, False, True, False)


def _compiler_present() -> bool:
    compiler = str(sysconfig.get_config_var("CC") or "gcc").split()[0]
    return shutil.which(compiler) is not None or shutil.which("gcc") is not None


@pytest.fixture(autouse=True)
def _compiled_module() -> None:
    """Every test here needs the compiled module: missing with a compiler present is a broken build."""
    if not fast_solver.BUILT:
        if _compiler_present():
            pytest.fail("a C compiler is present but the package build did not produce server.bots._solver "
                        "(run `pip install -e .` again and read its output)")
        pytest.skip("no C compiler on this machine: the pure-Python solver is the one in use")


def test_the_build_produced_the_compiled_solver_and_it_is_the_one_in_use() -> None:
    assert fast_solver.BUILT
    from server.bots import _solver

    assert Path(_solver.__file__ or "").suffix in {".so", ".pyd"}
    if os.environ.get("WHIST_PURE_SOLVER") != "1":
        assert fast_solver.IMPLEMENTATION == "c"
        assert fast_solver.Solver is CompiledSolver


def test_an_environment_variable_forces_the_pure_python_solver() -> None:
    code = "from server.bots import fast_solver as f; print(f.IMPLEMENTATION, f.Solver.__module__)"
    env = {key: value for key, value in os.environ.items() if key != "WHIST_PURE_SOLVER"}
    env["PYTHONPATH"] = str(ROOT)
    default = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=120, check=True)
    forced = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**env, "WHIST_PURE_SOLVER": "1"},
                            capture_output=True, text=True, timeout=120, check=True)
    assert default.stdout.split() == ["c", "server.bots.fast_solver"]
    assert forced.stdout.split() == ["python", "server.bots.solver"]


_ENGINE_PROBE = """
import json, random
from server.bots import _solver
from server.rules import shuffled_deck
from server.bots.solver import to_mask
out = [_solver.ENGINE]
for index in range(6):
    deck = shuffled_deck(f"engines:{index}")
    hands = [to_mask(deck[13 * s:13 * s + 8]) for s in range(4)]
    solver = _solver.Solver(index % 4 - 1, 5 if index % 2 else 2, 5 if index % 2 else 13, 10**8)
    out.append([solver.value(hands, index % 4), solver.best_move(hands, index % 4), solver.nodes])
print(json.dumps(out))
"""


def test_the_portable_and_the_x86_64_v3_copies_of_the_search_agree_node_for_node() -> None:
    """The search is compiled twice (any CPU; x86-64-v3 where the CPU has it): the same answers and the
    same node counts, so a node limit cuts off at the same place on any machine."""
    env = {key: value for key, value in os.environ.items() if key != "WHIST_SOLVER_PORTABLE"}
    env["PYTHONPATH"] = str(ROOT)
    runs = [json.loads(subprocess.run([sys.executable, "-c", _ENGINE_PROBE], cwd=ROOT, env=extra, check=True,
                                      capture_output=True, text=True, timeout=300).stdout)
            for extra in (env, {**env, "WHIST_SOLVER_PORTABLE": "1"})]
    assert runs[1][0] == "portable"
    assert runs[0][1:] == runs[1][1:]


def _sides(rng: random.Random) -> tuple[str, Sides]:
    """A contract shape: which seats' tricks count (side A) and which seats want that count high."""
    seats = range(4)
    shape = rng.choice(("team", "solo", "three", "misere", "misères", "any"))
    if shape == "team":
        partner = rng.choice((1, 2, 3))
        pair = {0, partner} if rng.random() < 0.5 else set(seats) - {0, partner}
        side_a = tuple(s in pair for s in seats)
        return shape, (side_a, side_a)
    if shape in ("solo", "three"):
        declarer = rng.randrange(4)
        side_a = tuple((s == declarer) == (shape == "solo") for s in seats)
        return shape, (side_a, side_a)
    if shape == "misere":
        declarer = rng.randrange(4)
        return shape, (tuple(s == declarer for s in seats), tuple(s != declarer for s in seats))
    if shape == "misères":  # two misères side by side: the question is one declarer's, the other ducks too
        declarer, other = rng.sample(range(4), 2)
        return shape, (tuple(s == declarer for s in seats), tuple(s not in (declarer, other) for s in seats))
    side_a = tuple(rng.random() < 0.5 for _ in seats)
    return shape, (side_a, tuple(rng.random() < 0.5 for _ in seats))


def _legal(hand: int, played: Sequence[int]) -> int:
    if played:
        return hand & (0x1FFF << (13 * (played[0] // 13))) or hand
    return hand


def _random_position(rng: random.Random, tricks: int) -> tuple[list[int], int, list[int]]:
    """Four hands of `tricks` cards (from 2-4 suits, so that voids and ruffs happen) and 0-4 cards of the
    current trick already played (those seats hold one card fewer)."""
    suits = rng.sample(SUITS, rng.choice((2, 3, 4)) if tricks <= 6 else 4)
    cards = [c for c in FULL_DECK if c[1] in suits]
    dealt = rng.sample(cards, 4 * tricks)
    hands = [to_mask(dealt[tricks * s:tricks * (s + 1)]) for s in range(4)]
    leader = rng.randrange(4)
    played: list[int] = []
    for offset in range(rng.choice((0, 0, 1, 2, 3, 4))):
        seat = (leader + offset) % 4
        bit = card_bit(rng.choice(mask_cards(_legal(hands[seat], played))))
        hands[seat] ^= 1 << bit
        played.append(bit)
    return hands, leader, played


def _check_position(rng: random.Random, tricks: int) -> str:
    """One random position: the compiled solver's value, best move and bounds against the reference."""
    hands, leader, played = _random_position(rng, tricks)
    shape, (side_a, maximizes) = _sides(rng)
    trump = rng.choice((None, *SUITS))
    reference = Solver(trump, side_a, maximizes, node_limit=10**8)
    expected = reference.value(hands, leader, played)
    compiled = CompiledSolver(trump, side_a, maximizes, node_limit=10**8)
    where = (shape, trump, [mask_cards(h) for h in hands], leader, played)
    assert compiled.value(hands, leader, played) == expected, where
    if len(played) < 4:
        value, bit = compiled.best_move(hands, leader, played)
        seat = (leader + len(played)) % 4
        assert value == expected, where
        assert bit in reference.moves(hands, seat, played), where
        after = list(hands)
        after[seat] ^= 1 << bit
        assert reference.value(after, leader, [*played, bit]) == expected, (where, bit)
    if len(played) < 4 and rng.random() < 0.3:
        rows = compiled.move_values(hands, leader, played)
        assert rows == reference.move_values(hands, leader, played), where
        pick = max if maximizes[(leader + len(played)) % 4] else min
        assert pick(v for _, v in rows) == expected, where
        low = rng.randrange(-1, tricks + 1)
        high = rng.randrange(low + 1, tricks + 2)
        narrow = CompiledSolver(trump, side_a, maximizes).move_values(hands, leader, played, low, high)
        for (bit, bound), (same, exact) in zip(narrow, rows, strict=True):
            assert bit == same
            assert exact <= bound if bound <= low else exact >= bound if bound >= high else exact == bound
    # A narrower window gives a fail-soft bound on the same value (a fresh solver, an empty table).
    alpha = rng.randrange(-1, tricks + 1)
    beta = rng.randrange(alpha + 1, tricks + 2)
    bound = CompiledSolver(trump, side_a, maximizes).value(hands, leader, played, alpha, beta)
    if bound <= alpha:
        assert expected <= bound, where
    elif bound >= beta:
        assert expected >= bound, where
    else:
        assert expected == bound, where
    # Piccolo: exactly one trick for a lone declarer, with 0-2 tricks taken before.
    declarer = rng.randrange(4)
    lone = tuple(s == declarer for s in range(4))
    taken = rng.choice((0, 0, 1, 1, 2))
    one = Solver(trump, lone, lone, node_limit=10**8).exactly_one(hands, leader, played, taken)
    assert CompiledSolver(trump, lone, lone).exactly_one(hands, leader, played, taken) == one, where
    if len(played) < 4 and rng.random() < 0.2:
        one_rows = CompiledSolver(trump, lone, lone).exactly_one_moves(hands, leader, played, taken)
        assert one_rows == Solver(trump, lone, lone).exactly_one_moves(hands, leader, played, taken), where
        outcomes = [ok for _, ok in one_rows]
        assert (any(outcomes) if declarer == (leader + len(played)) % 4 else all(outcomes)) == one, where
    return shape


def test_the_same_values_as_the_reference_on_thousands_of_small_positions() -> None:
    rng = random.Random("fast-solver:small")
    shapes = {_check_position(rng, rng.randint(1, 4)) for _ in range(2500)}
    assert shapes == {"team", "solo", "three", "misere", "misères", "any"}


def test_the_same_values_as_the_reference_on_bigger_positions() -> None:
    rng = random.Random("fast-solver:bigger")
    shapes = {_check_position(rng, rng.randint(5, 6)) for _ in range(120)}
    assert len(shapes) >= 5


def _winner(leader: int, played: Sequence[int], trump: int) -> int:
    best, winner = played[0], leader
    for offset, bit in enumerate(played[1:], start=1):
        if beats_bit(bit, best, trump):
            best, winner = bit, (leader + offset) % 4
    return winner


def _follow_the_principal_line(hands: list[int], leader: int, trump: str | None, side_a: Sequence[bool],
                               maximizes: Sequence[bool], total: int) -> None:
    """Play the compiled solver's best card at every turn: tricks taken + the value from there stays
    `total`, down to 4 tricks, where the reference solver agrees."""
    trump_index = SUITS.index(trump) if trump else -1
    solver = CompiledSolver(trump, side_a, maximizes, node_limit=10**8)
    played: list[int] = []
    taken = 0
    while hands[(leader + len(played)) % 4].bit_count() > 4 or played:
        value, bit = solver.best_move(hands, leader, played)
        assert taken + value == total
        seat = (leader + len(played)) % 4
        hands[seat] ^= 1 << bit
        played.append(bit)
        if len(played) == 4:
            leader = _winner(leader, played, trump_index)
            taken += 1 if side_a[leader] else 0
            played = []
    assert taken + Solver(trump, side_a, maximizes, node_limit=10**8).value(hands, leader) == total


def test_whole_deals_follow_the_principal_line_down_to_the_reference() -> None:
    """13-card team deals with and without trump; those the compiled solver settles within 3 million
    positions (a test-time budget, a count so the same deals every run) are followed down."""
    followed = 0
    for index in range(8):
        rng = random.Random(f"fast-solver:deal:{index}")
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hands = [to_mask(deck[13 * s:13 * (s + 1)]) for s in range(4)]
        for trump in ("S", None):
            try:
                total = CompiledSolver(trump, TEAM, TEAM, node_limit=3_000_000).value(hands, index % 4)
            except NodeLimitError:
                continue
            assert 0 <= total <= 13
            _follow_the_principal_line(list(hands), index % 4, trump, TEAM, TEAM, total)
            followed += 1
    assert followed >= 4


def test_the_node_limit_is_a_count_so_the_cut_off_is_the_same_every_time() -> None:
    rng = random.Random("fast-solver:limit")
    hands, leader, _ = _random_position(rng, 9)
    counts = []
    for _ in range(2):
        solver = CompiledSolver("S", TEAM, TEAM, node_limit=500)
        with pytest.raises(NodeLimitError):
            solver.value(hands, leader)
        counts.append(solver.nodes)
    assert counts == [501, 501]
    # The limit counts over every question asked of one solver, as the reference's does.
    solver = CompiledSolver("S", TEAM, TEAM, node_limit=10**8)
    first = solver.value(hands, leader)
    spent = solver.nodes
    assert solver.value(hands, leader) == first and solver.nodes >= spent > 0


def test_positions_the_search_cannot_hold_are_refused() -> None:
    solver = CompiledSolver(None, TEAM, TEAM)
    spades = to_mask([rank + "S" for rank in "23456789TJQKA"])
    with pytest.raises(ValueError, match="disjoint"):
        solver.value([spades | to_mask(["2H"]), 0, 0, 0], 0)  # 14 cards
    with pytest.raises(ValueError, match="disjoint"):
        solver.value([to_mask(["AS"]), to_mask(["AS"]), to_mask(["KS"]), to_mask(["QS"])], 0)
    with pytest.raises(ValueError, match="trick"):
        hands = [to_mask(["AS"]), to_mask(["JS"]), to_mask(["KS"]), to_mask(["QS"])]
        solver.value(hands, 3, [card_bit("AS")])
