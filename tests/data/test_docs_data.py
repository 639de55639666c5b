"""Runs every ```python block of docs/data.md, in order, in one namespace."""
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "data.md"


def python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_doc_has_snippets():
    assert len(python_blocks(DOC.read_text())) >= 8


def test_every_snippet_runs(tmp_path, monkeypatch, capsys, no_leaked_threads):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_data"}
    for i, block in enumerate(python_blocks(DOC.read_text())):
        try:
            exec(compile(block, f"docs/data.md block {i}", "exec"), namespace)
        except Exception as error:
            raise AssertionError(f"docs/data.md python block {i} failed:\n{block}") \
                from error
    out = capsys.readouterr().out
    assert "[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]" in out
    assert "caught: bad record" in out and "train-00000-of-00004.tfrecord" in out
