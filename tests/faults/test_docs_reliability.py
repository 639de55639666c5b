"""docs/reliability.md names, for each promise, tests that exist."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "reliability.md"


def _all_test_sources():
    return "\n".join(p.read_text() for p in (REPO / "tests").rglob("test_*.py"))


def test_every_test_the_page_names_exists():
    text = PAGE.read_text()
    sources = _all_test_sources()
    names = set(re.findall(r"\b(test_\w+?)(?:\[|`|,|\s|$)", text))
    names = {n for n in names if not n.endswith("_")}
    missing = sorted(n for n in names if f"def {n}(" not in sources)
    assert len(names) > 20 and not missing, missing


def test_every_path_the_page_names_exists():
    paths = set(re.findall(r"`(tests/[\w/]+(?:\.py)?)", PAGE.read_text()))
    missing = sorted(p for p in paths if not (REPO / p).exists())
    assert paths and not missing, missing
