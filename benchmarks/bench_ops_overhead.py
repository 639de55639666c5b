"""Python overhead per op: kerasish vs PyTorch eager (CPU, 2 threads), one run.

    python benchmarks/bench_ops_overhead.py [--quick]

Cases (microseconds per op, median of repeats):
  add (32,) float32        a chain `y = y + b` of 1,000 adds; no tape vs a
                           recording GradientTape (torch: requires_grad off/on)
  matmul 512x512 float32   one product, without and with recording
  backward, 1,000-op chain `tape.gradient` (torch: `.backward()`) of a chain
                           of 1,000 multiply/add ops on (32,) float32,
                           divided by the number of ops
Prints a markdown table with the ratio kerasish / torch (< 1: kerasish faster).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import limit_threads, markdown_table, median_time  # noqa: E402

torch = limit_threads()

import numpy as np  # noqa: E402

import kerasish as keras  # noqa: E402
from kerasish import ops  # noqa: E402

CHAIN = 1000


def _k_chain(start, b, n):
    y = start
    for _ in range(n):
        y = ops.add(y, b)
    return y


def _t_chain(start, b, n):
    y = start
    for _ in range(n):
        y = torch.add(y, b)
    return y


def bench_add(repeats):
    a = np.ones(32, np.float32)
    ka, kb = ops.convert_to_tensor(a), ops.convert_to_tensor(a)

    def k_taped():
        with keras.GradientTape() as tape:
            tape.watch(ka)
            _k_chain(ka, kb, CHAIN)

    ta, tb = torch.ones(32), torch.ones(32)
    tg = torch.ones(32, requires_grad=True)
    rows = [
        ("add (32,), no tape / no grad", median_time(lambda: _k_chain(ka, kb, CHAIN), 5, repeats) / CHAIN,
         median_time(lambda: _t_chain(ta, tb, CHAIN), 5, repeats) / CHAIN),
        ("add (32,), recording", median_time(k_taped, 5, repeats) / CHAIN,
         median_time(lambda: _t_chain(tg, tb, CHAIN), 5, repeats) / CHAIN),
    ]
    return rows


def bench_matmul(repeats):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((512, 512)).astype(np.float32)
    ka, kb = ops.convert_to_tensor(a), ops.convert_to_tensor(a)
    ta, tb = torch.from_numpy(a.copy()), torch.from_numpy(a.copy())
    tg = ta.clone().requires_grad_(True)

    def k_taped():
        with keras.GradientTape() as tape:
            tape.watch(ka)
            ops.matmul(ka, kb)

    return [
        ("matmul 512x512, no tape / no grad", median_time(lambda: ops.matmul(ka, kb), 20, repeats),
         median_time(lambda: torch.matmul(ta, tb), 20, repeats)),
        ("matmul 512x512, recording", median_time(k_taped, 20, repeats),
         median_time(lambda: torch.matmul(tg, tb), 20, repeats)),
    ]


def _k_graph():
    x = ops.convert_to_tensor(np.ones(32, np.float32))
    c = ops.convert_to_tensor(np.full(32, 0.999, np.float32))
    tape = keras.GradientTape()
    with tape:
        tape.watch(x)
        y = x
        for i in range(CHAIN):
            y = ops.multiply(y, c) if i % 2 else ops.add(y, c)
        loss = ops.sum(y)
    return tape, loss, x


def _t_graph():
    x = torch.ones(32, requires_grad=True)
    c = torch.full((32,), 0.999)
    y = x
    for i in range(CHAIN):
        y = torch.mul(y, c) if i % 2 else torch.add(y, c)
    return y.sum()


def bench_backward(repeats):
    k = median_time(lambda g: g[0].gradient(g[1], g[2]), 1, repeats * 3, setup=_k_graph)
    t = median_time(lambda loss: loss.backward(), 1, repeats * 3, setup=_t_graph)
    return [("backward, 1,000-op chain (per op)", k / CHAIN, t / CHAIN)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    if torch is None:
        sys.exit("PyTorch is needed for the comparison: pip install torch==2.13.0")
    repeats = 3 if args.quick else 7
    rows = bench_add(repeats) + bench_matmul(repeats) + bench_backward(repeats)
    table = [(name, k * 1e6, t * 1e6, f"{k / t:.2f}") for name, k, t in rows]
    print(f"kerasish {keras.__version__} (numpy {np.__version__}) vs torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads\n")
    print(markdown_table(["case", "kerasish µs/op", "torch µs/op", "ratio"], table))


if __name__ == "__main__":
    main()
