"""Load errors name the file and say what is wrong: permission, not HDF5, damaged."""
import os
import subprocess
import sys

import numpy as np
import pytest

import kerasish as keras

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def _model():
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16), keras.layers.Dense(4)])
    model.compile("adam", "mse")
    model.fit(np.zeros((4, 8), "float32"), np.zeros((4, 4), "float32"), verbose=0)
    return model


def _load(model, path):
    if str(path).endswith(".weights.h5"):
        model.load_weights(path)
    else:
        keras.models.load_model(path)


@pytest.fixture(params=["w.weights.h5", "m.h5"])
def saved(request, tmp_path):
    model = _model()
    path = tmp_path / request.param
    model.save_weights(path) if request.param.endswith(".weights.h5") else model.save(path)
    return model, path


def test_wrong_magic_says_not_hdf5_and_not_damaged(saved):
    model, path = saved
    data = bytearray(path.read_bytes())
    data[:8] = b"NOTMAGIC"
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="is not an HDF5 file .*b'NOTMAGIC'") as info:
        _load(model, path)
    assert str(path) in str(info.value) and "damaged" not in str(info.value)


def test_truncated_file_is_called_damaged_with_its_name(saved):
    model, path = saved
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(ValueError, match="is a damaged HDF5 file") as info:
        _load(model, path)
    assert str(path) in str(info.value)


def test_flipped_bytes_never_give_a_raw_h5py_error(saved):
    """Damage deep inside the file (B-trees, heaps) surfaces inside h5py's calls."""
    from kerasish.saving.file_errors import _raised_in_h5py
    model, path = saved
    original = path.read_bytes()
    rng = np.random.default_rng(0)
    damaged = 0
    for _ in range(40):
        data = bytearray(original)
        for i in rng.integers(0, len(data), 4):
            data[i] ^= 0xFF
        path.write_bytes(bytes(data))
        try:
            _load(model, path)
        except Exception as e:  # noqa: BLE001 - what kind of error is the point
            assert not _raised_in_h5py(e), f"raw h5py error: {type(e).__name__}: {e}"
            if "is a damaged" in str(e):
                assert str(path) in str(e)
                damaged += 1
    assert damaged >= 10  # most flips hit the file's structure


@pytest.fixture
def open_folder():
    """A folder every user can enter (pytest's tmp_path is private to its owner)."""
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix="kerasish-perm-")
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_permission_denied_is_reported_as_such(open_folder):
    """Runs the load in a child; as root (CI) the child drops to `nobody` first."""
    path = os.path.join(open_folder, "w.weights.h5")
    _model().save_weights(path)
    os.chmod(path, 0o000)
    script = ("import os, sys, numpy as np, kerasish as keras\n"
              "if os.geteuid() == 0: os.setgid(65534); os.setuid(65534)  # root reads anything\n"
              "m = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16), "
              "keras.layers.Dense(4)])\n"
              "try:\n    m.load_weights(sys.argv[1])\n"
              "except Exception as e:\n    print(type(e).__name__, e)\n")
    result = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                            text=True, timeout=120, cwd=REPO,
                            env=dict(os.environ, PYTHONPATH=REPO))
    output = result.stdout + result.stderr
    assert output.startswith("PermissionError"), output
    assert "permission denied" in output and path in output and "damaged" not in output


def _rezip(src, dst, extra=None, deflate=()):
    import zipfile
    with zipfile.ZipFile(src) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members.update(extra or {})
    with zipfile.ZipFile(dst, "w") as zf:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED if name in deflate else zipfile.ZIP_STORED
            zf.writestr(info, data)


def test_decompression_bombs_are_refused_before_reading(tmp_path, monkeypatch):
    from kerasish.saving import saving_lib
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    good = str(tmp_path / "good.keras")
    model.save(good)
    monkeypatch.setattr(saving_lib, "_ZIP_MEMBER_BOMB_FLOOR_BYTES", 64)
    monkeypatch.setattr(saving_lib, "_ZIP_EXTRACT_BOMB_FLOOR_BYTES", 64)
    keras.models.load_model(good)                       # stored members expand 1:1
    for name, extra in (("model.weights.h5", {"model.weights.h5": b"\0" * 200_000}),
                        ("assets/bomb.bin", {"assets/bomb.bin": b"\0" * 200_000})):
        evil = str(tmp_path / "evil.keras")
        _rezip(good, evil, extra, deflate=(name,))
        with pytest.raises(ValueError, match="decompression bomb"):
            keras.models.load_model(evil)
