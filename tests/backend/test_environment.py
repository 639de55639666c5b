"""KERASISH_BACKEND selection and import without cupy (in fresh interpreters)."""
import os
import subprocess
import sys
from pathlib import Path

from kerasish.backend import devices

ROOT = Path(__file__).resolve().parents[2]


def _run(code, backend):
    env = dict(os.environ, KERASISH_BACKEND=backend, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)


def test_backend_variable_numpy_cupy_and_bogus():
    code = ("import sys, kerasish as k\n"
            "print('imported', 'cupy' in sys.modules)\n"
            "print(k.ops.ones((2,)).device, k.backend.backend())\n")
    ok = _run(code, "numpy")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.split() == ["imported", "False", "cpu:0", "numpy"]
    bogus = _run(code, "bogus")
    assert bogus.returncode != 0
    assert "imported" in bogus.stdout
    assert "KERASISH_BACKEND must be 'numpy' or 'cupy'. Received: 'bogus'" in bogus.stderr
    gpu = _run(code, "cupy")
    if devices.cupy_available():  # pragma: no cover - needs a GPU
        assert gpu.returncode == 0 and "gpu:0" in gpu.stdout
    else:
        assert gpu.returncode != 0 and "imported" in gpu.stdout
        assert "needs cupy and a CUDA GPU" in gpu.stderr


def test_floatx_environment_variable():
    res = _run("import kerasish as k; print(k.config.floatx(), k.ops.ones(1).dtype.name)", "numpy")
    assert res.stdout.split() == ["float32", "float32"]
    env = dict(os.environ, KERASISH_FLOATX="float64", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", "import kerasish as k; print(k.ops.ones(1).dtype.name)"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert res.stdout.strip() == "float64", res.stderr
