"""Benchmarks and proofs of the server, each run from the repository root as `python -m bench.<name>`
(see docs/benchmarks.md). What they share lives in `bench.helpers`; `bench` may import `server`,
never the other way round."""
