"""Runs every ```python block of docs/distributed_training.md, in order, in one namespace."""
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "distributed_training.md"


def python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_every_snippet_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_distributed_training"}
    blocks = python_blocks(DOC.read_text())
    assert len(blocks) >= 5
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/distributed_training.md block {i}", "exec"), namespace)
        except Exception as error:
            raise AssertionError(f"docs/distributed_training.md python block {i} failed:\n"
                                 f"{block}") from error
    out = capsys.readouterr().out
    assert "replicas: 2" in out and "epoch 1: mean loss" in out and "worker 0 of 1" in out
