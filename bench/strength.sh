#!/usr/bin/env bash
# The strength runs of docs/bots.md, in chunks of deals so that every run advances evenly and any
# stop loses at most a chunk: each chunk appends its deals to
# bench/results/runs/<ruleset>-<bots>-<mode>.jsonl (committed: runs accumulate across sessions) and
# `python -m server.bots.match --results` skips the deals already there *played by the current code*
# (each line carries the code fingerprint; deals of older code are ignored and played again).
# Rerun to resume.
#
#   nice -n 19 bash bench/strength.sh [first-deal] [last-deal] [chunk] [jobs]
#
# Reports: .venv/bin/python -m bench.strength_report [--markdown] [--json FILE].
set -euo pipefail
cd "$(dirname "$0")/.."
first=${1:-0}
last=${2:-2000}
chunk=${3:-50}
jobs=${4:-2}
py=.venv/bin/python
runs=bench/results/runs
mkdir -p "$runs"
for ((start = first; start < last; start += chunk)); do
    for ruleset in belge-club couleur solo-whist whist; do
        for mode in 2v2 1v3; do
            $py -m server.bots.match --ruleset "$ruleset" --bots expert heuristic --mode "$mode" \
                --start "$start" --deals "$chunk" --jobs "$jobs" \
                --results "$runs/$ruleset-expert-heuristic-$mode.jsonl" > /dev/null
        done
        if (( start % (2 * chunk) == 0 )); then  # the oracle upper bound, at half the rate
            $py -m server.bots.match --ruleset "$ruleset" --bots bench.oracle:OracleBot heuristic --mode 2v2 \
                --start "$((start / 2))" --deals "$chunk" --jobs "$jobs" \
                --results "$runs/$ruleset-oracle-heuristic-2v2.jsonl" > /dev/null
        fi
    done
    echo "$(date -u +%H:%M:%S) deals $start..$((start + chunk - 1)) done"
done
