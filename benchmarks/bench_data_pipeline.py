"""Throughput of a map-heavy kerasish.data pipeline.

Pipeline: 32x32x3 uint8 images -> random crop (pad 4, crop 32) + random
horizontal flip + normalise (per element) -> batch(128) [-> prefetch].
It is timed with num_parallel_calls=1 and AUTOTUNE, with and without
prefetch, and with a consumer that only iterates ("no step") or sleeps
`--step-ms` per batch to stand for a training step. With prefetch the
producer overlaps the step, so batches/s approaches 1000 / step_ms.

    python benchmarks/bench_data_pipeline.py [--images 10240] [--step-ms 20]

Prints a markdown table.
"""
import argparse
import os
import time

import numpy as np

from kerasish.data import AUTOTUNE, Dataset
from kerasish.data.autotune import cpu_count

MEAN = np.array([125.3, 123.0, 113.9], np.float32)
STD = np.array([63.0, 62.1, 66.7], np.float32)


def augment(image, label):
    """Random crop after 4-pixel padding, random flip, normalisation."""
    rng = np.random.default_rng()
    padded = np.pad(image, ((4, 4), (4, 4), (0, 0)), mode="reflect")
    top, left = rng.integers(0, 9, size=2)
    crop = padded[top:top + 32, left:left + 32]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return (crop.astype(np.float32) - MEAN) / STD, label


def build(images, labels, parallel, prefetch, batch_size, processes=False):
    ds = Dataset.from_tensor_slices((images, labels)).map(
        augment, num_parallel_calls=parallel, use_processes=processes).batch(batch_size)
    return ds.prefetch(AUTOTUNE) if prefetch else ds


def batches_per_second(ds, step_seconds):
    count, start = 0, time.perf_counter()
    for _ in ds:
        if step_seconds:
            time.sleep(step_seconds)
        count += 1
    return count / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=10240)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--step-ms", type=float, default=20.0)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (args.images, 32, 32, 3), dtype=np.uint8)
    labels = rng.integers(0, 10, args.images)

    list(build(images[:512], labels[:512], AUTOTUNE, True, args.batch_size))  # warm-up
    print(f"{args.images} images of 32x32x3, batch {args.batch_size}, "
          f"{cpu_count()} CPUs (AUTOTUNE = {cpu_count()} threads), "
          f"step = sleep {args.step_ms:g} ms\n")
    print("| num_parallel_calls | prefetch | batches/s, no step | batches/s, with step |")
    print("|---|---|---|---|")
    configs = [(None, False, False), (None, True, False), (AUTOTUNE, False, False),
               (AUTOTUNE, True, False), (AUTOTUNE, True, True)]
    for parallel, prefetch, processes in configs:
        ds = build(images, labels, parallel, prefetch, args.batch_size, processes)
        free = batches_per_second(ds, 0)
        stepped = batches_per_second(ds, args.step_ms / 1000)
        name = "1" if parallel is None else \
            f"AUTOTUNE ({'processes' if processes else 'threads'})"
        print(f"| {name} | {'AUTOTUNE' if prefetch else 'no'} | {free:.1f} "
              f"| {stepped:.1f} |")
    print(f"\nupper bound with the step alone: {1000 / args.step_ms:.1f} batches/s")


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
