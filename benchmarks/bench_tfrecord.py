"""Write and read a ~100 MB TFRecord file of tf.train.Examples with kerasish.data.

    python benchmarks/bench_tfrecord.py [--megabytes 100] [--repeats 3]

Each record is an Example with a 4 KiB `image` bytes feature, a 16-float `features`
list and an int64 `label`. Timed: serialising the Examples (`make_example`), writing
the file (`TFRecordWriter`, CRC-32C of every length and record), reading it back with
CRC checks (`read_records`), and parsing the Examples (`parse_example`). Prints one
markdown row per phase with the median of `--repeats` runs and MB/s, plus which CRC
implementation ran.
"""
import argparse
import os
import statistics
import tempfile
import time

import numpy as np

from kerasish.data import crc, make_example, parse_example, read_records
from kerasish.data.tfrecord import TFRecordWriter


def examples(megabytes, seed=0):
    rng = np.random.default_rng(seed)
    count = megabytes * 1024 * 1024 // 4200
    images = rng.integers(0, 256, size=(count, 4096), dtype=np.uint8)
    floats = rng.normal(size=(count, 16)).astype(np.float32)
    return [{"image": images[i].tobytes(), "features": floats[i], "label": i % 10}
            for i in range(count)]


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def run_once(features, path):
    t_serialise, records = timed(lambda: [make_example(f) for f in features])

    def write():
        with TFRecordWriter(path) as writer:
            for record in records:
                writer.write(record)
    t_write, _ = timed(write)
    t_read, read = timed(lambda: list(read_records(path)))
    t_parse, _ = timed(lambda: [parse_example(r) for r in read])
    assert read == records
    return {"serialise": t_serialise, "write": t_write, "read": t_read, "parse": t_parse}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    features = examples(args.megabytes)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "data.tfrecord")
        runs = [run_once(features, path) for _ in range(args.repeats)]
        size_mb = os.path.getsize(path) / 1e6
    print(f"{len(features)} records, {size_mb:.1f} MB; CRC: {crc.implementation()}")
    print("| phase | median s | MB/s |\n|---|---|---|")
    for phase in runs[0]:
        seconds = statistics.median(run[phase] for run in runs)
        print(f"| {phase} | {seconds:.3f} | {size_mb / seconds:.0f} |")


if __name__ == "__main__":
    main()
