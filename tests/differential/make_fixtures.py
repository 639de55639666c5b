"""Records what real Keras computes for every differential case (run with the oracle venv).

    /work/keras-oracle/bin/python tests/differential/make_fixtures.py

Needs keras 3.15.1 and tensorflow-cpu 2.21.0 (TensorFlow backend); the test suite
never imports them. Writes `fixtures/cases.json` (the cases, Keras's metadata,
or the error Keras raised) and `fixtures/arrays.npz` (arrays keyed
`<case id>::<name>`, float16/bfloat16 stored as float32).
"""
import json
import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import recipes  # noqa: E402

HERE = Path(__file__).resolve().parent / "fixtures"


def _run(lib, case, record):
    """Runs a case; a channels_first case TF cannot run on CPU is rerun as the
    channels_last layer on transposed data (what channels_first means)."""
    try:
        return recipes.run_case(lib, case)
    except (tf.errors.UnimplementedError, tf.errors.InvalidArgumentError):
        if case.get("kwargs", {}).get("data_format") != "channels_first":
            raise
    keras.utils.clear_session()
    emulated = dict(case, kwargs=dict(case["kwargs"], data_format="channels_last"))
    lib.emulate_channels_first = True
    try:
        record["emulated_channels_first"] = True
        return recipes.run_case(lib, emulated)
    finally:
        lib.emulate_channels_first = False


def main(only=None):
    assert keras.__version__ == "3.15.1", keras.__version__
    lib = recipes.Lib(keras, tf.GradientTape, handle=lambda v: v.value)
    cases = recipes.all_cases()
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    records, arrays = [], {}
    if only:  # refresh the matching cases, keep the others
        old = {r["id"]: r for r in json.load(open(HERE / "cases.json"))["cases"]}
        with np.load(HERE / "arrays.npz") as stored:
            arrays = {k: stored[k] for k in stored.files if only not in k.split("::")[0]}
    for case in cases:
        if only and only not in case["id"]:
            if case["id"] in old:
                records.append(old[case["id"]])
            continue
        keras.utils.clear_session()
        keras.mixed_precision.set_global_policy("float32")
        record = dict(case)
        try:
            meta, out = _run(lib, case, record)
            record["keras"] = meta
            for name, value in out.items():
                value = np.asarray(value)
                if value.dtype.kind == "f" and value.dtype != np.float64:
                    value = value.astype("float32")
                arrays[f"{case['id']}::{name}"] = value
        except Exception as e:  # Keras refuses the case: kerasish must refuse it too
            record["keras_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        records.append(record)
    HERE.mkdir(exist_ok=True)
    with open(HERE / "cases.json", "w") as f:
        json.dump({"keras": keras.__version__, "tensorflow": tf.__version__,
                   "cases": records}, f, indent=0, sort_keys=True)
    np.savez_compressed(HERE / "arrays.npz", **arrays)
    errors = sum("keras_error" in r for r in records)
    print(f"{len(records)} cases ({errors} refused by Keras), {len(arrays)} arrays")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
