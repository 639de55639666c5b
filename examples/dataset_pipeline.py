"""A kerasish.data input pipeline on scikit-learn's digits, fully offline.

1. writes the digits as TFRecord shards of `tf.train.Example`s (image bytes,
   label, text caption, shape metadata in one record),
2. reads them back with parallel interleave + parallel parse,
3. augments (random shift + noise), shuffles, batches and prefetches,
4. iterates two epochs and checks every digit came through each epoch.

    python examples/dataset_pipeline.py
"""
import os
import tempfile
import time

import numpy as np
from sklearn.datasets import load_digits

from kerasish import data
from kerasish.data import AUTOTUNE, Dataset

FEATURES = {
    "image": data.FixedLenFeature([], "string"),
    "label": data.FixedLenFeature([], "int64"),
    "caption": data.FixedLenFeature([], "string"),
    "shape": data.FixedLenFeature([2], "int64"),
}


def write_shards(directory, shards=4):
    """Writes the digits to `shards` TFRecord files and returns their paths."""
    digits = load_digits()
    images = digits.images.astype(np.uint8)  # 8x8, values 0..16
    records = ({"image": image.tobytes(), "label": int(label),
                "caption": f"a handwritten {label}", "shape": image.shape}
               for image, label in zip(images, digits.target))
    return data.write_records(os.path.join(directory, "digits"), records, shards=shards)


def decode(record):
    """Parses one Example into (float image 8x8x1, label)."""
    example = data.parse_single_example(record, FEATURES)
    image = np.frombuffer(example["image"], np.uint8).reshape(example["shape"])
    return image[..., None].astype(np.float32) / 16.0, example["label"]


def augment(image, label):
    """Random shift by up to one pixel plus a little Gaussian noise."""
    rng = np.random.default_rng()
    padded = np.pad(image, ((1, 1), (1, 1), (0, 0)))
    top, left = rng.integers(0, 3, size=2)
    image = padded[top:top + 8, left:left + 8]
    noisy = image + rng.normal(0.0, 0.05, image.shape).astype(np.float32)
    return np.clip(noisy, 0.0, 1.0), label


def build_pipeline(paths, batch_size=64):
    """Files -> records -> examples -> augmented, shuffled batches."""
    return (Dataset.from_tensor_slices(paths)
            .interleave(data.TFRecordDataset, cycle_length=len(paths),
                        num_parallel_calls=AUTOTUNE)
            .map(decode, num_parallel_calls=AUTOTUNE)
            .cache()
            .shuffle(2000, seed=0)
            .map(augment, num_parallel_calls=AUTOTUNE)
            .batch(batch_size)
            .prefetch(AUTOTUNE))


def main():
    with tempfile.TemporaryDirectory() as directory:
        paths = write_shards(directory)
        size = sum(os.path.getsize(p) for p in paths)
        print(f"wrote {len(paths)} shards, {size / 1024:.0f} KiB: "
              f"{[os.path.basename(p) for p in paths]}")
        pipeline = build_pipeline(paths)
        print("element_spec:", pipeline.element_spec)
        for epoch in range(2):
            start = time.perf_counter()
            counts, batches = np.zeros(10, int), 0
            for _, labels in pipeline:
                counts += np.bincount(labels, minlength=10)
                batches += 1
            seconds = time.perf_counter() - start
            print(f"epoch {epoch}: {batches} batches, {counts.sum()} images, "
                  f"{batches / seconds:.0f} batches/s")
        assert counts.sum() == 1797, "every digit is seen once per epoch"
        first = next(iter(data.TFRecordDataset(paths[0])))
        print("first record parsed:", {k: v for k, v in data.parse_example(first).items()
                                       if k != "image"})


if __name__ == "__main__":
    main()
