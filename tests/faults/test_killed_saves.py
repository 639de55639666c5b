"""kill -9 at random moments during save, checkpoint and BackupAndRestore resume.

Every trial must leave files that load and match a complete save (never a
half-written file), the next save in a new process removes the killed
save's temporary file, and a killed-and-resumed BackupAndRestore run ends
bit-identical to an uninterrupted one and removes its backup folder.
The trials are seeded (`SEED`): a failure names its trial and delay.
CI runs 8 trials (about 2 minutes); `KERASISH_FAULT_TRIALS=40` runs a longer soak.
"""
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

pytestmark = pytest.mark.slow
HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SEED = 2026
TRIALS = int(os.environ.get("KERASISH_FAULT_TRIALS", "8"))
sys.path.insert(0, str(HERE.parent / "callbacks"))
import save_worker  # noqa: E402


def _env():
    return dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))


def _start(script, *args):
    return subprocess.Popen([sys.executable, str(script), *map(str, args)], env=_env(),
                            cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _kill_after_ready(process, folder, delay):
    """Waits for FOLDER/ready (saves are running), then `delay` s more, then kill -9."""
    deadline = time.monotonic() + 120
    while not (folder / "ready").exists():
        assert process.poll() is None, process.communicate()[1][-3000:]
        assert time.monotonic() < deadline, "the worker never started saving"
        time.sleep(0.02)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)


def _weights_value(model):
    values = {float(v) for w in model.get_weights() for v in np.unique(w)}
    assert len(values) == 1, f"a mix of two saves was loaded: {sorted(values)[:5]}"
    return values.pop()


def _load_value(path):
    if path.name.endswith(".weights.h5"):
        model = save_worker.make_model(0.0)
        model.load_weights(path)
        return _weights_value(model)
    return _weights_value(keras.models.load_model(path))


def test_kill_during_save_leaves_loadable_files_and_no_leftovers(tmp_path):
    rng = random.Random(SEED)
    for trial in range(max(TRIALS // 2, 1)):
        folder = tmp_path / f"trial{trial}"
        folder.mkdir()
        delay = rng.uniform(0, 0.6)
        _kill_after_ready(_start(HERE / "save_worker.py", folder, "save"), folder, delay)
        for name in save_worker.NAMES:
            assert _load_value(folder / name) in (1.0, 2.0), f"trial {trial}, delay {delay:.3f}"
        resave = subprocess.run([sys.executable, str(HERE / "save_worker.py"), folder, "resave"],
                                env=_env(), cwd=str(REPO), capture_output=True, text=True,
                                timeout=120)
        assert "leftovers: []" in resave.stdout, resave.stdout + resave.stderr[-2000:]
        for name in save_worker.NAMES:
            assert _load_value(folder / name) == 3.0


@pytest.mark.filterwarnings("ignore:Skipping variable loading for optimizer")
def test_kill_during_model_checkpoint_leaves_a_loadable_checkpoint(tmp_path):
    rng = random.Random(SEED + 1)
    for trial in range(max(TRIALS // 4, 1)):
        folder = tmp_path / f"trial{trial}"
        folder.mkdir()
        delay = rng.uniform(0, 0.5)
        _kill_after_ready(_start(HERE / "save_worker.py", folder, "checkpoint"), folder, delay)
        model = save_worker.make_model(0.0)
        model.load_weights(folder / "ckpt.weights.h5")  # complete, else this raises
        assert all(np.isfinite(w).all() for w in model.get_weights())


def _backup_run(backup, out, kill_after=None):
    """One BackupAndRestore run of tests/callbacks/backup_worker.py (save_freq=1)."""
    process = _start(HERE.parent / "callbacks" / "backup_worker.py", backup, out, "1", "none")
    if kill_after is None:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err[-3000:]
        return True
    try:
        process.communicate(timeout=kill_after)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        return False
    return True  # finished before the kill


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reference")
    start = time.monotonic()
    _backup_run(folder / "backup", folder / "reference.npz")
    return dict(np.load(folder / "reference.npz")), time.monotonic() - start


def test_backup_and_restore_survives_kills_at_random_moments(tmp_path, uninterrupted):
    """TRIALS trials: killed at a random moment, resumed (maybe killed again), then finished."""
    reference, duration = uninterrupted
    rng = random.Random(SEED + 2)
    for trial in range(TRIALS):
        backup, out = tmp_path / f"backup{trial}", tmp_path / f"out{trial}.npz"
        kills = [rng.uniform(0.2, duration) for _ in range(rng.choice((1, 2)))]
        for kill_after in kills:
            if _backup_run(backup, out, kill_after):
                break
        else:
            _backup_run(backup, out)
        result = dict(np.load(out))
        where = f"trial {trial}, kills after {[round(k, 2) for k in kills]} s"
        assert result.keys() == reference.keys(), where
        for key in reference:
            expected = reference[key]
            if key in ("loss", "epochs"):  # History holds the epochs of the last fit only
                expected = expected[len(expected) - len(result[key]):]
            np.testing.assert_array_equal(result[key], expected, err_msg=where)
        assert not backup.exists(), f"{where}: left {sorted(os.listdir(backup))}"
