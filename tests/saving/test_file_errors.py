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


# Keras 3.15.1's bomb guards (keras/src/saving/saving_lib.py): same floors, ratios, order
# and messages.
def test_bomb_limits_are_keras_values():
    from kerasish.saving import saving_lib
    assert saving_lib._ZIP_MEMBER_BOMB_FLOOR_BYTES == 4 * 2**30
    assert saving_lib._ZIP_EXTRACT_BOMB_FLOOR_BYTES == 256 * 2**20
    assert saving_lib._ZIP_MEMBER_MAX_EXPANSION == 100
    assert saving_lib._H5_DATASET_BOMB_FLOOR_BYTES == 4 * 2**30
    assert saving_lib._H5_DATASET_MAX_EXPANSION == 1000


def test_safe_zip_read_refuses_a_bomb_in_keras_words(tmp_path, monkeypatch):
    import zipfile
    from kerasish.saving import saving_lib
    path = str(tmp_path / "a.zip")
    noise = np.random.default_rng(0).integers(0, 256, 100_000).astype("uint8").tobytes()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("config.json", b"A" * 100_000)
        zf.writestr("noise", noise)  # deflated, but barely compressible
        zf.writestr("w", bytes(range(256)) * 400, compress_type=zipfile.ZIP_STORED)
    monkeypatch.setattr(saving_lib, "_ZIP_MEMBER_BOMB_FLOOR_BYTES", 64)
    with zipfile.ZipFile(path) as zf:
        assert saving_lib._safe_zip_read(zf, "noise") == noise  # past the floor, ratio ~1
        with pytest.raises(ValueError, match="decompression bomb"):  # ratio ~870 > 100
            saving_lib._safe_zip_read(zf, "config.json")
        monkeypatch.setattr(saving_lib, "_ZIP_MEMBER_MAX_EXPANSION", 10)
        with pytest.raises(ValueError, match=r"^Not allowed: ZIP member 'config\.json' declares "
                                             r"97\.66 KB but only \d+\.\d\d B are stored on disk; "
                                             r"refusing to load a potential decompression "
                                             r"bomb\.$"):
            saving_lib._safe_zip_read(zf, "config.json")
        assert saving_lib._safe_zip_read(zf, "w") == bytes(range(256)) * 400  # stored: 1:1


def test_load_model_checks_config_then_weights_then_assets(tmp_path, monkeypatch):
    import zipfile
    from kerasish.saving import saving_lib
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    good = str(tmp_path / "good.keras")
    model.save(good)
    bomb_config = str(tmp_path / "bomb.keras")
    with zipfile.ZipFile(bomb_config, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("metadata.json", b'{"keras_version":"3"}')
        zf.writestr("config.json", b'{"x":"' + b" " * 200_000 + b'"}')  # and no weights
    weights_bomb, assets_bomb = str(tmp_path / "w.keras"), str(tmp_path / "a.keras")
    _rezip(good, weights_bomb, {"model.weights.h5": b"\0" * 200_000}, deflate=("model.weights.h5",))
    _rezip(good, assets_bomb, {"assets/bomb.bin": b"\0" * 200_000}, deflate=("assets/bomb.bin",))
    with monkeypatch.context() as patch:
        patch.setattr(saving_lib, "_ZIP_MEMBER_BOMB_FLOOR_BYTES", 64)
        patch.setattr(saving_lib, "_ZIP_MEMBER_MAX_EXPANSION", 10)
        with pytest.raises(ValueError, match="ZIP member 'config.json'.*decompression bomb"):
            keras.models.load_model(bomb_config)
        with pytest.raises(ValueError, match="ZIP member 'model.weights.h5'.*decompression bomb"):
            keras.models.load_model(weights_bomb)
        keras.models.load_model(assets_bomb)  # an asset is not read into memory by Keras either
    monkeypatch.setattr(saving_lib, "_ZIP_EXTRACT_BOMB_FLOOR_BYTES", 64)
    with pytest.raises(ValueError, match=r"^Not allowed: archive member 'assets/bomb\.bin' "
                                         r"declares 195\.31 KB but only .* are stored on disk; "
                                         r"refusing to extract a potential decompression bomb\.$"):
        keras.models.load_model(assets_bomb)
    keras.models.load_model(good)  # without assets the extraction guard does not run


def _shape_bomb(group, name):
    group.create_dataset(name, shape=(2**50,), dtype="float64", chunks=(1024,),
                         compression="gzip", fillvalue=0.0)


def test_safe_get_h5_dataset_refuses_shape_bombs_and_links(tmp_path):
    import h5py
    from kerasish.saving import saving_lib
    path = str(tmp_path / "bomb.h5")
    with h5py.File(path, "w") as f:
        _shape_bomb(f, "d")
        f["g/ok"] = np.arange(3.0)
        f["soft"] = h5py.SoftLink("/g/ok")
    with h5py.File(path, "r") as f:
        with pytest.raises(ValueError, match=r"^Not allowed: H5 dataset 'd' declares 8\.00 PB "
                                             r"but only 0\.00 B are stored on disk; refusing to "
                                             r"load a potential decompression/shape bomb\.$"):
            saving_lib.safe_get_h5_dataset(f, "d")
        np.testing.assert_array_equal(saving_lib.safe_get_h5_dataset(f, "g/ok")[()], [0, 1, 2])
        with pytest.raises(ValueError, match="^Not allowed: H5 file with SoftLink$"):
            saving_lib.safe_get_h5_dataset(f, "soft")
        with pytest.raises(ValueError, match="expected Dataset"):
            saving_lib.safe_get_h5_dataset(f, "g")
        with pytest.raises(KeyError):
            saving_lib.safe_get_h5_dataset(f, "missing")


class _OwnStore(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(2,), initializer="ones")

    def call(self, x):
        return x

    def load_own_variables(self, store):
        self.w.assign(store["0"])


def test_a_custom_store_never_reads_a_shape_bomb(tmp_path):
    import h5py
    model = keras.Sequential([keras.Input((2,)), _OwnStore(name="own")])
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r+") as f:
        names = []
        f.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset)
                     else None)
        del f[names[0]]
        _shape_bomb(f, names[0])
    with pytest.raises(ValueError, match="decompression/shape bomb"):
        model.load_weights(path)
