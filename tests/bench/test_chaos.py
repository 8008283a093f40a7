"""The chaos run (`python -m bench.chaos`), short: `python -m server.cluster --redis sentinel`
with three server replicas, human-paced tables through the balancer and bots-only tables watched by a
spectator, while server replicas are SIGKILLed and started again, the Redis primary is SIGKILLed once
and one server replica is cut off from Redis for 10 s (bench/net_cut.py; SIGSTOP where no network
namespace can be made); then the history check over everything every client was told
(bench/chaos.py's docstring). And the pieces of the check, on made-up histories.

Nothing here asserts how fast anything happens, except the 15 s a table may wait between two state
changes, which is the property under test; every other wait is a condition with a generous
deadline (the machine is shared)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bench import chaos, net_cut


def test_the_schedule_kills_every_interval_and_puts_the_primary_kill_and_the_cut_between_kills() -> None:
    schedule = chaos.fault_schedule(600, 30, 30)
    kills = [at for at, kind in schedule if kind == "server_kill"]
    assert kills == [30.0 * n for n in range(1, 20)]
    [primary] = [at for at, kind in schedule if kind == "redis_primary_kill"]
    [cut] = [at for at, kind in schedule if kind == "cut"]
    assert primary % 30 == 15 and cut % 30 == 15 and primary < cut <= 570
    assert [at for at, _ in schedule] == sorted(at for at, _ in schedule)
    short = chaos.fault_schedule(90, 20, 30)
    assert [kind for _, kind in short] == ["server_kill", "redis_primary_kill", "server_kill", "cut",
                                           "server_kill"]
    with pytest.raises(ValueError):
        chaos.fault_schedule(40, 20, 30)


def test_the_longest_pause_counts_the_wait_until_the_end() -> None:
    assert chaos.longest_pause([0.0, 1.0, 4.0], 5.0) == 3.0
    assert chaos.longest_pause([0.0, 1.0], 20.0) == 19.0
    assert chaos.longest_pause([], 3.0) == 0.0


def made_up_table(accepted: list[chaos.Move], uncertain: list[chaos.Move]) -> chaos.Table:
    players = [chaos.ChaosPlayer(f"P{seat}", "ws://nowhere", "127.0.0.1", seat, (0, 0)) for seat in range(4)]
    for seat, player in enumerate(players):
        player.seat = seat
        player.accepted = [move for move in accepted if move[1] == seat]
        player.uncertain = [move for move in uncertain if move[1] == seat]
        player.frames = [[{"type": "state", "room_id": "room", "room": {"version": 1, "deal_number": 0},
                           "you": {"seat": seat}, "view": None}]]
        player.arrivals = [[0.0]]
    return chaos.Table(0, "room", "solo-whist", players, bots_only=False)


def record(actions: list[tuple[int, str]]) -> dict[str, Any]:
    return {"hands": ["", "", "", ""], "actions": [[seat, action] for seat, action in actions]}


def test_the_history_check_finds_a_lost_move_an_unexplained_one_and_a_stall() -> None:
    moves = [(0, 0, "pass"), (0, 1, "pass"), (0, 2, "pass")]
    three = [record([(0, "pass"), (1, "pass"), (2, "pass")])]
    clean = chaos.check_table(made_up_table(moves, []), three, 1.0)
    assert clean["violations"] == [] and clean["acknowledged"] == 3
    # A move in flight when its connection died may be in the record: counted, not a violation.
    in_flight = chaos.check_table(made_up_table(moves[:2], moves[2:]),
                                  [record([(0, "pass"), (1, "pass"), (2, "pass")])], 1.0)
    assert in_flight["violations"] == [] and in_flight["in_flight_recorded"] == 1
    lost = chaos.check_table(made_up_table(moves, []), [record([(0, "pass"), (1, "pass")])], 1.0)
    assert any("missing" in violation for violation in lost["violations"])
    unexplained = chaos.check_table(made_up_table(moves[:2], []),
                                    [record([(0, "pass"), (1, "pass"), (2, "pass")])], 1.0)
    assert any("no client" in violation for violation in unexplained["violations"])
    stalled = chaos.check_table(made_up_table(moves, []), [record([(0, "pass"), (1, "pass"), (2, "pass")])],
                                chaos.MAX_PAUSE + 1)
    assert any("waited" in violation for violation in stalled["violations"])


def test_tables_play_on_through_kills_a_failover_and_a_cut_and_the_history_holds(tmp_path: Path) -> None:
    # The cut is a network cut where a network namespace can be made (root, `ip netns`), else SIGSTOP.
    options = chaos.Options(minutes=1.5, tables=30, bot_tables=4, kill_every=20, quiet_end=30,
                            directory=tmp_path / "chaos", cut="net" if net_cut.available() else "stop")
    result = asyncio.run(chaos.run(options))
    summary = {key: value for key, value in result.items() if key not in ("faults", "per_table")}
    print(summary, [(f["kind"], f["target"], f["recovered_after_s"]) for f in result["faults"]])  # -rP
    assert result["violations"] == [], summary
    assert result["server_kills"] == 3 and result["server_restarts"] == 3, summary
    assert result["redis_primary_kills"] == 1 and result["cuts"] == 1, summary
    assert all(fault["recovered_after_s"] is not None for fault in result["faults"]), result["faults"]
    assert result["moves_acknowledged"] > 0 and result["leaks"] == 0, summary
    assert result["longest_pause_s"] <= chaos.MAX_PAUSE, summary
    assert "## Chaos" in chaos.markdown(result, "python -m bench.chaos --minutes 1.5")
