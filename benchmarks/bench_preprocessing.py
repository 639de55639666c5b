"""Preprocessing speed: TextVectorization.adapt/call on 25,000 reviews, and an image
augmentation pipeline (RandomFlip + RandomRotation + RandomZoom on 32x32x3 batches of 128)
inside `Dataset.map(..., num_parallel_calls=AUTOTUNE)`.

The reviews are the shared IMDB subset's 6,000 encoded reviews written back as text
(placeholder words "w14", as examples/text_classification.py without a word index),
repeated to 25,000. With `--keras-python` the same workloads run in real Keras
(tf.data, TensorFlow backend) in that interpreter, for comparison; without it a plain
numpy loop is the reference for the augmentation.

    python benchmarks/bench_preprocessing.py [--keras-python /path/to/venv/bin/python]

Prints a markdown table (seconds, median of repeats).
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import limit_threads  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402

import kerasish as keras  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "imdb_subset.npz")
REVIEWS, IMAGES, BATCH = 25000, 2048, 128

KERAS_CODE = r"""
import json, sys, time
import numpy as np
import tensorflow as tf
import keras
texts = np.array(json.load(open(sys.argv[1])))
images = np.random.RandomState(0).uniform(0, 255, (%(images)d, 32, 32, 3)).astype("float32")
def timed(fn, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter(); fn(); times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]
layer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=200)
out = {"adapt": timed(lambda: layer.adapt(tf.data.Dataset.from_tensor_slices(texts).batch(256)))}
out["call"] = timed(lambda: [layer(texts[i:i + 256]) for i in range(0, len(texts), 256)])
augment = keras.Sequential([keras.layers.RandomFlip(seed=1), keras.layers.RandomRotation(0.1, seed=1),
                            keras.layers.RandomZoom(0.1, seed=1)])
ds = tf.data.Dataset.from_tensor_slices(images).batch(%(batch)d).map(
    lambda x: augment(x, training=True), num_parallel_calls=tf.data.AUTOTUNE)
out["augment"] = timed(lambda: [b for b in ds])
print(json.dumps(out))
""" % {"images": IMAGES, "batch": BATCH}


def timed(fn, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def reviews(path):
    arrays = np.load(path)
    texts = []
    for split in ("train", "test"):
        flat, offsets = arrays[f"x_{split}_flat"], arrays[f"x_{split}_offsets"]
        texts += [" ".join(f"w{i}" if i > 2 else "oov" for i in flat[a + 1:b])
                  for a, b in zip(offsets[:-1], offsets[1:])]
    return np.array((texts * (REVIEWS // len(texts) + 1))[:REVIEWS])


def kerasish_figures(texts, images):
    layer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=200)
    out = {"adapt": timed(lambda: layer.adapt(
        keras.data.Dataset.from_tensor_slices(texts).batch(256)))}
    out["call"] = timed(lambda: [layer(texts[i:i + 256]) for i in range(0, len(texts), 256)])
    augment = keras.Sequential([keras.layers.RandomFlip(seed=1),
                                keras.layers.RandomRotation(0.1, seed=1),
                                keras.layers.RandomZoom(0.1, seed=1)])
    ds = keras.data.Dataset.from_tensor_slices(images).batch(BATCH).map(
        lambda x: augment(x, training=True), num_parallel_calls=keras.data.AUTOTUNE)
    out["augment"] = timed(lambda: [b for b in ds])
    out["augment_numpy_flip_only"] = timed(lambda: [numpy_flip(images[i:i + BATCH])
                                                    for i in range(0, len(images), BATCH)])
    return out


def numpy_flip(batch):
    """Reference: per-image random flips in a plain numpy loop (no warps)."""
    rng = np.random.default_rng(0)
    return np.stack([img[:, ::-1] if rng.random() < 0.5 else img for img in batch])


def keras_figures(python, texts):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(texts.tolist(), f)
    try:
        result = subprocess.run([python, "-c", KERAS_CODE, f.name], capture_output=True,
                                text=True, check=True, env={**os.environ,
                                                            "TF_CPP_MIN_LOG_LEVEL": "3"})
    finally:
        os.unlink(f.name)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=DATA)
    parser.add_argument("--keras-python", default=None)
    args = parser.parse_args()
    texts = reviews(args.data)
    images = np.random.RandomState(0).uniform(0, 255, (IMAGES, 32, 32, 3)).astype("float32")
    ours = kerasish_figures(texts, images)
    theirs = keras_figures(args.keras_python, texts) if args.keras_python else {}
    print("| workload | kerasish (s) | Keras 3 + tf.data (s) |\n|---|---|---|")
    rows = [("TextVectorization.adapt, 25,000 reviews", "adapt"),
            ("TextVectorization call, 25,000 reviews (batches of 256)", "call"),
            (f"Flip+Rotation+Zoom, {IMAGES} images 32x32x3, batches of {BATCH}, map AUTOTUNE",
             "augment")]
    for label, key in rows:
        reference = f"{theirs[key]:.2f}" if key in theirs else "-"
        print(f"| {label} | {ours[key]:.2f} | {reference} |")
    print(f"| numpy loop: random flips only, same images | "
          f"{ours['augment_numpy_flip_only']:.2f} | - |")


if __name__ == "__main__":
    main()
