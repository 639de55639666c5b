"""Saved files behave like files: modes from the umask, kept on replace, and no
leftovers from killed saves."""
import os
import stat
import time

import numpy as np
import pytest

import kerasish as keras
from kerasish.saving import atomic

DEAD_PID = 4_000_000  # above Linux's pid_max: never a running process


def _model():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("sgd", "mse")
    return model


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask():
    """Sets the process umask for one test (and restores it)."""
    previous = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(previous)


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
@pytest.mark.parametrize("name", ["m.weights.h5", "m.keras"])
def test_new_files_get_the_mode_the_umask_gives(tmp_path, umask, mask, name):
    umask(mask)
    path = tmp_path / name
    model = _model()
    model.save_weights(path) if name.endswith(".weights.h5") else model.save(path)
    assert _mode(path) == 0o666 & ~mask


def test_a_replaced_file_keeps_its_mode(tmp_path, umask):
    umask(0o077)
    path = tmp_path / "m.weights.h5"
    _model().save_weights(path)
    os.chmod(path, 0o644)
    _model().save_weights(path)
    assert _mode(path) == 0o644


def _plant(folder, name, age=3600):
    path = folder / name
    path.write_bytes(b"\0" * 100)
    past = time.time() - age
    os.utime(path, (past, past))
    return path


def test_next_save_removes_only_our_stray_temporaries(tmp_path):
    stray = _plant(tmp_path, f".tmp-kerasish-{DEAD_PID}-0123456789abcdef-m.weights.h5")
    legacy = _plant(tmp_path, ".tmp-ab_cd3fg-m.weights.h5")  # mkstemp name of older versions
    running = _plant(tmp_path, f".tmp-kerasish-{os.getppid()}-0123456789abcdef-m.weights.h5")
    young = _plant(tmp_path, f".tmp-kerasish-{DEAD_PID}-fedcba9876543210-m.keras", age=-60)
    other = _plant(tmp_path, ".tmp-notes.txt")
    user = _plant(tmp_path, "tmp-kerasish-1-0123456789abcdef-mine.h5")
    _model().save_weights(tmp_path / "m.weights.h5")
    assert not stray.exists() and not legacy.exists()
    assert running.exists() and young.exists() and other.exists() and user.exists()
    assert (tmp_path / "m.weights.h5").exists()


def test_a_failed_save_leaves_no_temporary(tmp_path):
    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        with atomic.atomic_path(str(tmp_path / "x.h5")) as tmp:
            open(tmp, "wb").write(b"partial")
            raise Boom()
    assert os.listdir(tmp_path) == []


def test_backup_folder_is_removed_even_after_a_killed_save(tmp_path):
    backup = tmp_path / "backup"
    backup.mkdir()
    _plant(backup, f".tmp-kerasish-{DEAD_PID}-0123456789abcdef-latest.weights.h5")
    model = _model()
    model.fit(np.zeros((8, 3), "float32"), np.zeros((8, 2), "float32"), epochs=2, verbose=0,
              callbacks=[keras.callbacks.BackupAndRestore(str(backup))])
    assert not backup.exists()
