"""The fused LSTM sequence op alone: forward and backward (BPTT) CPU time per call.

    PYTHONPATH=$PWD python benchmarks/bench_lstm_op.py [--before PATH/kerasish/ops/rnn.py]
        [--reps 15] [--threads 1] [--clock cpu|wall]

Shapes of the imdb workloads (batch 64, 80 steps, 128 features): LSTM(32) with
one input dropout mask (imdb_lstm_dropout), LSTM(128) (imdb_lstm), LSTM(32)
with a sequence mask, and LSTM(32) with dropout and recurrent dropout (one mask
per gate for both, as Keras's `implementation=1`). With `--before`, that file's ops module (another
checkout's `kerasish/ops/rnn.py`, e.g. from `git show OLD:kerasish/ops/rnn.py`)
is loaded beside this one and both run in the same process, alternating call by
call, so both see the same machine; prints min and median over `--reps` calls.
Also checks that both give the same numbers bit for bit.
"""
import argparse
import importlib.util
import os
import sys
import time


def _args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another rnn.py to time beside this checkout's")
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads (and kerasish's CPU worker threads)")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                        help="cpu: the process's CPU time (all threads); wall: elapsed time")
    return parser.parse_args()


ARGS = _args()
os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)

import numpy as np  # noqa: E402  (after the thread settings)

from kerasish.ops import rnn  # noqa: E402

CASES = {  # name: (units, input dropout masks, sequence mask, recurrent dropout masks)
    "LSTM(32), dropout": (32, 1, False, 0),
    "LSTM(128)": (128, 0, False, 0),
    "LSTM(32), masked": (32, 0, True, 0),
    "LSTM(32), recurrent dropout": (32, 4, False, 4),
}


def _case(units, masks, masked, rec_masks, batch=64, length=80, features=128):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch, length, features)).astype("float32")
    w = [(rng.normal(size=s) * 0.1).astype("float32")
         for s in [(features, 4 * units), (units, 4 * units), (4 * units,)]]
    states = [np.zeros((batch, units), "float32") for _ in range(2)]
    drop = tuple(None if not n else ((rng.random((n, batch, size)) > 0.2) / 0.8).astype("float32")
                 for n, size in ((masks, features), (rec_masks, units)))
    mask = rng.random((batch, length)) > 0.1 if masked else None
    g_seq = np.zeros((batch, length, units), "float32")  # return_sequences=False
    g_final = [rng.normal(size=(batch, units)).astype("float32"),
               np.zeros((batch, units), "float32"), np.zeros((batch, units), "float32")]
    return x, w, states, mask, drop, g_seq, g_final


def _call(module, case):
    x, w, states, mask, drop, g_seq, g_final = case
    clock = time.perf_counter if ARGS.clock == "wall" else time.process_time
    t0 = clock()
    seq, final, cache = module._lstm.forward(np, x, w, states, mask, False, drop)
    t1 = clock()
    grads = module._lstm.backward(np, x, w, states, mask, False, cache, g_seq, g_final, drop)
    t2 = clock()
    arrays = [seq, *final, grads[0], *grads[1], *grads[2]]
    return (t1 - t0, t2 - t1), arrays


def _load(path):
    spec = importlib.util.spec_from_file_location("rnn_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    modules = {"this checkout": rnn}
    if ARGS.before:
        modules["before"] = _load(ARGS.before)
    print(f"{'CPU' if ARGS.clock == 'cpu' else 'wall-clock'} ms per call, {ARGS.threads} BLAS "
          f"thread(s), min / median of {ARGS.reps}")
    print("| case | code | forward | backward |")
    print("|---|---|---|---|")
    for name, spec in CASES.items():
        case = _case(*spec)
        times = {label: [] for label in modules}
        results = {}
        for rep in range(ARGS.reps):
            order = list(modules.items())
            for label, module in (order if rep % 2 else order[::-1]):
                seconds, results[label] = _call(module, case)
                times[label].append(seconds)
        for label, values in times.items():
            v = 1000 * np.array(values)
            print(f"| {name} | {label} | {v[:, 0].min():.2f} / {np.median(v[:, 0]):.2f} "
                  f"| {v[:, 1].min():.2f} / {np.median(v[:, 1]):.2f} |")
        if ARGS.before:
            same = all(np.array_equal(a, b) for a, b in zip(*results.values()))
            print(f"| {name} | same numbers bit for bit | {same} | |")


if __name__ == "__main__":
    sys.exit(main())
