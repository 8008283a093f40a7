"""The exact trick-phase solver to use: the compiled one (`_solver.c`) when it imports, else solver.py's.

Both answer the same questions with the same arguments (solver.py describes them): `value` (side A's
tricks from the position under best play), `best_move` (that value and a card of the seat to play that
reaches it), `move_values` (the value after each legal card), `exactly_one` (piccolo) and
`exactly_one_moves` (its answer after each legal card), each raising `NodeLimitError` past the solver's
node limit (a count, never a clock). The compiled one visits fewer positions for the same answer
(winning-ranks transposition entries, partition search, null-window tests, quick-trick bounds), so node
counts differ.

`IMPLEMENTATION` says which is in use: "c", or "python" where the extension was not built (no C compiler
at install time) or when the environment variable `WHIST_PURE_SOLVER=1` asks for the reference solver.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .solver import SUIT_INDEX, NodeLimitError
from .solver import Solver as PythonSolver

try:
    import server.bots._solver as _compiled  # in full: `from . import` reads as the package (test_layers)
except ImportError:  # not built: no C compiler at install time
    _compiled = None  # type: ignore[assignment]

#: Whether the package build produced the compiled solver (whatever the environment asks for).
BUILT = _compiled is not None
#: "c" when the compiled solver is in use, "python" otherwise.
IMPLEMENTATION = "c" if BUILT and os.environ.get("WHIST_PURE_SOLVER") != "1" else "python"


def _seat_mask(seats: Sequence[bool]) -> int:
    return sum(1 << seat for seat, flag in enumerate(seats) if flag)


class CompiledSolver:
    """The compiled solver behind solver.py's interface. Reuse one across questions on the same deal and
    goal: its transposition table stays valid. `exact_keys=True` makes the table match on every rank
    instead of only the ranks that mattered (slower; a second, independent search to check the first)."""

    def __init__(self, trump: str | None, side_a: Sequence[bool], maximizes: Sequence[bool],
                 node_limit: int = 1_000_000, *, exact_keys: bool = False) -> None:
        if _compiled is None:
            raise RuntimeError("the compiled solver was not built (no C compiler at install time?)")
        self.trump = SUIT_INDEX[trump] if trump is not None else -1
        self.side_a = tuple(bool(x) for x in side_a)
        self.maximizes = tuple(bool(x) for x in maximizes)
        self.node_limit = node_limit
        self._solver = _compiled.Solver(self.trump, _seat_mask(self.side_a), _seat_mask(self.maximizes),
                                        node_limit, exact_keys)

    @property
    def nodes(self) -> int:
        """Search nodes so far, over every question asked of this solver."""
        return int(self._solver.nodes)

    def _limit(self) -> NodeLimitError:
        return NodeLimitError(f"more than {self.node_limit} nodes")

    def value(self, hands: Sequence[int], leader: int, played: Sequence[int] = (),
              alpha: int = -1, beta: int = 99) -> int:
        """Tricks side A takes from here (the current trick included) under best play by both sides;
        with a narrower window than (-1, 99), a fail-soft bound as solver.py's."""
        result = self._solver.value(hands, leader, played, alpha, beta)
        if result is None:
            raise self._limit()
        return result

    def best_move(self, hands: Sequence[int], leader: int, played: Sequence[int] = ()) -> tuple[int, int]:
        """The value and a card bit of the seat to play that reaches it."""
        result = self._solver.best_move(hands, leader, played)
        if result is None:
            raise self._limit()
        return result

    def move_values(self, hands: Sequence[int], leader: int, played: Sequence[int] = (),
                    alpha: int = -1, beta: int = 99) -> list[tuple[int, int]]:
        """(card bit, value after it) for every legal card of the seat to play, ascending by bit: side A's
        tricks from the position (the current trick included) once that card is played, exact with the
        full window, a fail-soft bound as `value`'s with a narrower one. Equivalent cards are searched
        once and share their value; one table serves every card."""
        result = self._solver.move_values(hands, leader, played, alpha, beta)
        if result is None:
            raise self._limit()
        return result

    def exactly_one_moves(self, hands: Sequence[int], leader: int, played: Sequence[int] = (),
                          taken: int = 0) -> list[tuple[int, bool]]:
        """(card bit, whether side A then ends with exactly one trick) for every legal card (piccolo)."""
        result = self._solver.exactly_one_moves(hands, leader, played, taken)
        if result is None:
            raise self._limit()
        return result

    def exactly_one(self, hands: Sequence[int], leader: int, played: Sequence[int] = (),
                    taken: int = 0) -> bool:
        """Whether side A (the piccolo declarer, `taken` tricks so far) ends with exactly one trick."""
        result = self._solver.exactly_one(hands, leader, played, taken)
        if result is None:
            raise self._limit()
        return result


#: The solver class in use (the compiled one, or the pure-Python reference).
Solver: type[CompiledSolver] | type[PythonSolver] = CompiledSolver if IMPLEMENTATION == "c" else PythonSolver

__all__ = ["BUILT", "IMPLEMENTATION", "CompiledSolver", "NodeLimitError", "PythonSolver", "Solver"]
