"""Every reference in the repository resolves inside it.

- Every decision id (`D1`, `D2`, ...) cited by the code, the tests, the benchmarks, the docs, the data or
  the web client is defined in docs/rules.md, the rules specification.
- Nothing points at `RULES.md` (the specification's old home, outside the repository) except the source
  note of docs/rules.md, nor at the other documents kept beside it (`DESIGN.md`, `DEAL-RECORD.md`), nor
  at a path outside the repository (`../shared/...`).
- Every relative markdown link, and every `docs/...` path named anywhere, exists.
- No comment or document points at "issue <number>" of a tracker a reader does not have.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "rules.md"
#: Where references are looked for, and in which files.
FOLDERS = ("server", "tests", "bench", "docs", "client_web", "seeds", ".ci")
TOP_FILES = ("README.md", "pyproject.toml")
SUFFIXES = {".py", ".md", ".toml", ".js", ".html", ".css", ".txt", ".cfg", ".yml", ".yaml", ".sh", ""}
SKIPPED = {"node_modules", "__pycache__", ".venv", "screenshots"}

DECISION = re.compile(r"\bD(\d{1,3})\b")
DEFINED = re.compile(r"^#{2,4} D(\d{1,3})\. ", re.MULTILINE)
OLD_SPEC = re.compile(r"\b(?:RULES|DESIGN|DEAL-RECORD)\.md")
OUTSIDE = re.compile(r"\.\./shared\b")
ISSUE = re.compile(r"\bissues? (?:#)?\d+", re.IGNORECASE)
LINK = re.compile(r"\]\(([^)\s]+)\)")
DOCS_PATH = re.compile(r"(?<![\w/.-])docs/[\w./-]*[\w/]")


def text_files() -> Iterator[Path]:
    """Every text file the checks read, this one excepted (it spells the patterns out)."""
    for name in TOP_FILES:
        yield ROOT / name
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if (path.is_file() and path.suffix in SUFFIXES and path != Path(__file__)
                    and not SKIPPED & set(path.relative_to(ROOT).parts)):
                yield path


def hits(pattern: re.Pattern[str]) -> list[str]:
    """`file:line: text` for every line of every text file that `pattern` matches."""
    found = []
    for path in text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    return found


def defined_decisions() -> set[str]:
    return {f"D{number}" for number in DEFINED.findall(SPEC.read_text(encoding="utf-8"))}


def test_the_specification_defines_each_decision_once_in_order() -> None:
    numbers = [int(number) for number in DEFINED.findall(SPEC.read_text(encoding="utf-8"))]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 13


def test_every_decision_cited_is_defined_in_the_specification() -> None:
    defined = defined_decisions()
    undefined = [hit for hit in hits(DECISION)
                 if {f"D{number}" for number in DECISION.findall(hit.split(": ", 1)[1])} - defined]
    assert undefined == []


def test_nothing_points_at_the_old_specification_or_outside_the_repository() -> None:
    spec = str(SPEC.relative_to(ROOT))
    old = [hit for hit in hits(OLD_SPEC) if not (hit.startswith(spec) and "Source note" in hit)]
    assert old == []
    assert hits(OUTSIDE) == []


def test_relative_markdown_links_resolve() -> None:
    broken = []
    for path in text_files():
        if path.suffix != ".md":
            continue
        for target in LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address or an anchor of the same page
            if not (path.parent / target.split("#", 1)[0]).exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert broken == []


def test_docs_paths_named_anywhere_exist() -> None:
    missing = []
    for path in text_files():
        for mention in DOCS_PATH.findall(path.read_text(encoding="utf-8", errors="replace")):
            if not (ROOT / mention.rstrip("./")).exists():
                missing.append(f"{path.relative_to(ROOT)}: {mention}")
    assert missing == []


def test_no_comment_points_at_an_issue_number() -> None:
    assert hits(ISSUE) == []


def test_the_patterns_catch_what_they_are_for() -> None:
    assert DECISION.findall("D6 and (D11); not AD7x nor 3D1") == ["6", "11"]
    assert DEFINED.findall("### D6. The couleur auction\n## D7 no dot\n#### D13. Gaps") == ["6", "13"]
    assert ISSUE.search("see Issue 12") and ISSUE.search("issue #3") and not ISSUE.search("an issue of 3")
    assert LINK.findall("[a](rules.md#d6) [b](https://x.org)") == ["rules.md#d6", "https://x.org"]
    named = DOCS_PATH.findall("docs/rules.md, `docs/bots.md`. server/docs/x")
    assert named == ["docs/rules.md", "docs/bots.md"]
