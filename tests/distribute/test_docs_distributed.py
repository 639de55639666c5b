"""Runs every ```python block of docs/distributed_training.md, in order, in one namespace."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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


def mpi_blocks(text):
    """The ```python mpiexec -n N blocks: (N, code)."""
    return [(int(n), code) for n, code in
            re.findall(r"^```python mpiexec -n (\d+)\n(.*?)^```", text, flags=re.S | re.M)]


@pytest.mark.mpi
def test_parameter_server_snippets_run_under_mpiexec(tmp_path):
    """The ParameterServerStrategy blocks, in order, as one script under mpiexec."""
    from mpi_launch import REPO, find_mpiexec, mpi_missing_reason
    reason = mpi_missing_reason()
    if reason:
        pytest.skip(reason)
    blocks = mpi_blocks(DOC.read_text())
    assert len(blocks) >= 2
    script = tmp_path / "snippets.py"
    script.write_text("\n".join(code for _, code in blocks))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               KERASISH_COLLECTIVE_TIMEOUT="60",
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([find_mpiexec(), "-n", str(max(n for n, _ in blocks)),
                             sys.executable, str(script)], capture_output=True, text=True,
                            timeout=120, env=env, cwd=str(tmp_path))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    assert "loss: [" in out and "'staleness_max'" in out and "epoch 1: mean loss" in out
    for role in ("chief 0", "ps 0", "worker 0", "worker 1"):  # ranks' lines may interleave
        assert role in out, out
