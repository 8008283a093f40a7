"""Types of the compiled solver (server/bots/_solver.c); fast_solver.py wraps it."""

from collections.abc import Sequence

class Solver:
    nodes: int
    node_limit: int
    def __init__(self, trump: int, side_a: int, maximizes: int, node_limit: int = ...) -> None: ...
    def value(self, hands: Sequence[int], leader: int, played: Sequence[int] = ..., alpha: int = ...,
              beta: int = ...) -> int | None: ...
    def best_move(self, hands: Sequence[int], leader: int,
                  played: Sequence[int] = ...) -> tuple[int, int] | None: ...
    def exactly_one(self, hands: Sequence[int], leader: int, played: Sequence[int] = ...,
                    taken: int = ...) -> bool | None: ...
