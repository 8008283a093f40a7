"""bench/solver_ab.py: another build of the compiled solver, built from source and loaded beside this
tree's, solves the same whole deals."""

from __future__ import annotations

from pathlib import Path

from bench.solver_ab import build_revision, side_by_side
from server.bots import _solver as current


def test_this_trees_sources_built_again_give_the_loaded_solvers_values_and_positions(tmp_path: Path) -> None:
    again = build_revision(None, tmp_path)
    assert again.__name__ == "_solver_against" and again.Solver is not current.Solver
    for trump in ("S", None):
        row = side_by_side(again, range(3), trump, 50_000_000)
        assert row["solved_by_both"] == 3
        assert row["against"]["median_positions"] == row["this"]["median_positions"] > 1000
        assert row["against"]["cpu_s"] > 0 and row["this"]["cpu_s"] > 0


def test_a_git_revisions_solver_is_built_and_must_agree_on_every_value(tmp_path: Path) -> None:
    head = build_revision("HEAD", tmp_path, "_solver_head")
    row = side_by_side(head, range(2, 4), "H", 50_000_000)  # raises where a value differs
    assert row["solved_by_both"] == 2 and row["median_ratio"] > 0
