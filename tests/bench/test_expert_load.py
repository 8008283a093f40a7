"""The report of human actions while expert bots play (`python -m bench.expert_load`): medians over the
runs, one line per expert-table count, in order."""

from __future__ import annotations

from bench import expert_load


def test_the_table_gives_the_medians_of_each_expert_table_count_in_order() -> None:
    def result(experts: int, run: int, p99: float, actions: int) -> dict[str, object]:
        return {"expert_tables": experts, "human_tables": 4, "actions": actions, "p50_ms": 2.0, "p99_ms": p99,
                "max_ms": p99, "expert_decisions": 10.0 * experts, "load": 3.0, "run": run}

    results = [result(4, 0, 30.0, 101), result(0, 0, 10.0, 100),
               result(4, 1, 50.0, 102), result(0, 1, 12.0, 100)]
    lines = expert_load.table(results).splitlines()
    assert lines[2:] == ["| 0 | 4 | 2 | 100 | 2.00 | 11.0 | 10.0, 12.0 | 0 | 3.0 |",
                         "| 4 | 4 | 2 | 102 | 2.00 | 40.0 | 30.0, 50.0 | 40 | 3.0 |"]
