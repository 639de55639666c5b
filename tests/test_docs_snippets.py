"""Runs the ```python snippets of every docs/*.md page.

Each page's blocks run in order in one fresh namespace (later blocks see the
names of earlier ones), in a temporary working directory. A block whose
first line is `# no-test` is skipped. Pages added later are picked up
automatically.
"""
import re
from pathlib import Path

import numpy as np
import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def python_blocks(text):
    """The ```python blocks of a markdown text, with their 1-based start lines.

    Args:
        text: markdown source.

    Returns:
        list of (line number, code) for blocks not marked `# no-test`.
    """
    blocks = []
    for match in BLOCK.finditer(text):
        code = match.group(1)
        if code.lstrip().startswith("# no-test"):
            continue
        blocks.append((text.count("\n", 0, match.start()) + 2, code))
    return blocks


PAGES = sorted(DOCS.glob("*.md")) if DOCS.is_dir() else []


def test_block_extraction():
    text = "intro\n```python\na = 1\n```\n```python\n# no-test\nboom()\n```\n```bash\nls\n```\n"
    assert python_blocks(text) == [(3, "a = 1\n")]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_snippets_run(page, tmp_path, monkeypatch):
    blocks = python_blocks(page.read_text())
    if not blocks:
        pytest.skip(f"{page.name} has no runnable python blocks")
    monkeypatch.chdir(tmp_path)
    np.random.seed(0)
    namespace = {"__name__": f"docs_{page.stem}"}
    for line, code in blocks:
        try:
            exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
        except Exception as error:
            raise AssertionError(f"{page.name}, block at line {line} failed: "
                                 f"{type(error).__name__}: {error}") from error
