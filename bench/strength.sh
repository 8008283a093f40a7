#!/usr/bin/env bash
# The strength runs of docs/bots.md, in chunks of deals so that every run advances evenly and any
# stop loses at most a chunk: each chunk appends its deals to bench/runs/<ruleset>-<bots>-<mode>.jsonl
# and `python -m server.bots.match --results` skips deals already there. Rerun to resume.
#
#   nice -n 10 bash bench/strength.sh [first-deal] [last-deal] [chunk] [jobs]
#
# Reports: bash bench/strength-report.sh (or the match command with the same --results and --deals).
set -euo pipefail
cd "$(dirname "$0")/.."
first=${1:-0}
last=${2:-2000}
chunk=${3:-50}
jobs=${4:-2}
py=.venv/bin/python
mkdir -p bench/runs
for ((start = first; start < last; start += chunk)); do
    for ruleset in couleur solo-whist belge-club; do
        for mode in 2v2 1v3; do
            $py -m server.bots.match --ruleset "$ruleset" --bots expert heuristic --mode "$mode" \
                --start "$start" --deals "$chunk" --jobs "$jobs" \
                --results "bench/runs/$ruleset-expert-heuristic-$mode.jsonl" > /dev/null
        done
        if (( start % (2 * chunk) == 0 )); then  # the oracle upper bound, at half the rate
            $py -m server.bots.match --ruleset "$ruleset" --bots bench.oracle:OracleBot heuristic --mode 2v2 \
                --start "$((start / 2))" --deals "$chunk" --jobs "$jobs" \
                --results "bench/runs/$ruleset-oracle-heuristic-2v2.jsonl" > /dev/null
        fi
    done
    echo "$(date -u +%H:%M:%S) deals $start..$((start + chunk - 1)) done"
done
