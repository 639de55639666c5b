"""Eager vs captured (`jit_compile=True`) training step, ms per step, alternating runs.

    OPENBLAS_NUM_THREADS=2 python benchmarks/bench_captured_step.py [--steps 50] [--rounds 7]

Workloads (Adam, sparse categorical cross-entropy from logits):
  tiny:   Dense(10) on 32 features, batch 32
  mlp:    784-512-512-10 relu, batch 128
  bn_mlp: 784-256-BN-relu-256-BN-relu-10, batch 256
For each workload two identical models are built, one compiled with
`jit_compile=True` (run until its plan is verified), then `rounds` runs of
`steps` calls of the step function `fit` uses alternate between the two;
the table gives the median ms/step of each and the ratio.
"""
import argparse
import statistics
import sys
import time

from common import limit_threads

limit_threads()

import numpy as np  # noqa: E402

import kerasish as keras  # noqa: E402
from kerasish.distribute import distribute_lib  # noqa: E402

WORKLOADS = {"tiny": ([32], 10, 32, False), "mlp": ([784, 512, 512], 10, 128, False),
             "bn_mlp": ([784, 256, 256], 10, 256, True)}


def build(name, jit_compile):
    sizes, classes, batch, bn = WORKLOADS[name]
    keras.utils.set_random_seed(0)
    layers = [keras.Input((sizes[0],))]
    for n in sizes[1:]:
        layers.append(keras.layers.Dense(n, activation=None if bn else "relu"))
        if bn:
            layers += [keras.layers.BatchNormalization(), keras.layers.Activation("relu")]
    layers.append(keras.layers.Dense(classes))
    model = keras.Sequential(layers)
    model.compile(optimizer="adam", jit_compile=jit_compile,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    rng = np.random.default_rng(0)
    data = (keras.ops.convert_to_tensor(rng.normal(size=(batch, sizes[0])).astype("float32")),
            keras.ops.convert_to_tensor(rng.integers(0, classes, batch)))
    step = distribute_lib.step_function(model, "train")
    for _ in range(5):  # eager, traced, verified, then replays
        step(data)
    if jit_compile and not model._captured_train_step.captured:
        sys.exit(f"{name}: not captured ({model._captured_train_step.fallback_reason})")
    return lambda: step(data)


def time_steps(step, steps):
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return 1000 * (time.perf_counter() - start) / steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--workloads", default="tiny,mlp,bn_mlp")
    args = parser.parse_args()
    print("| workload | eager (ms/step) | captured (ms/step) | captured / eager |")
    print("|---|---|---|---|")
    for name in args.workloads.split(","):
        eager, captured = build(name, False), build(name, True)
        times = {"eager": [], "captured": []}
        for _ in range(args.rounds):
            times["eager"].append(time_steps(eager, args.steps))
            times["captured"].append(time_steps(captured, args.steps))
        e, c = statistics.median(times["eager"]), statistics.median(times["captured"])
        print(f"| {name} | {e:.3f} | {c:.3f} | {c / e:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
