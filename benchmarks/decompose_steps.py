"""Where the time of a dense training step goes: GEMMs, optimizer, the rest.

    BENCH_THREADS=1 PYTHONPATH=$PWD python benchmarks/decompose_steps.py [--rounds 5]

cProfile cannot split a function's own time between its `@` (BLAS) and its
elementwise numpy code, so this times the parts of the MLP and BN-MLP steps
separately, in one process and in alternating rounds (medians of CPU time,
which other jobs on a shared machine do not inflate; run with one thread):

  step      kerasish `model.train_step` (forward, loss, backward, Adam)
  numpy     the hand-written numpy step of `step_worker.py`
  gemm      the step's GEMMs alone, same shapes (3 forward, 5 backward)
  adam      the fused Adam update of the model's variables alone
  rest      step - gemm - adam: elementwise numpy, allocation, Python
"""
import argparse
import statistics
import time

import step_worker  # pins threads before numpy loads

import numpy as np  # noqa: E402


def gemm_runner(workload):
    _, batch, extra = step_worker.WORKLOADS[workload]
    sizes = extra["sizes"]
    rng = np.random.default_rng(0)
    acts = [rng.random((batch, n), dtype=np.float32) for n in sizes]
    weights = [rng.random((a, b), dtype=np.float32) for a, b in zip(sizes[:-1], sizes[1:])]

    def run(n):
        for _ in range(n):
            for i, w in enumerate(weights):
                acts[i] @ w                       # forward
                acts[i].T @ acts[i + 1]           # kernel gradient
                if i:
                    acts[i + 1] @ w.T             # input gradient
    return run


def adam_runner(model):
    import kerasish as keras
    opt = model.optimizer
    variables = model.trainable_variables
    grads = [np.full(v.shape, 1e-3, v.dtype) for v in variables]
    lr = opt.learning_rate

    def run(n):
        for _ in range(n):
            opt._step_cache = {}
            opt._backend_update_step(grads, variables, lr)
            opt._step_cache = None
    assert keras  # the optimizer above is kerasish's
    return run


def kerasish_parts(workload):
    import kerasish as keras
    model = step_worker.keras_model(keras, workload)
    x, y = step_worker.make_data(workload)
    model.train_on_batch(x, y)
    data = (keras.ops.convert_to_tensor(x), keras.ops.convert_to_tensor(y))

    def step(n):
        for _ in range(n):
            model.train_step(data)
    return step, adam_runner(model)


def timed(run, n):
    """CPU ms per call of `run` (process time: time-sharing with other jobs does not count)."""
    run(1)
    start = time.process_time()
    run(n)
    return 1000 * (time.process_time() - start) / n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    print("| workload | kerasish step | hand-written numpy step | GEMMs alone | Adam alone | "
          "rest (step - GEMMs - Adam) |")
    print("|---|---|---|---|---|---|")
    for workload in ("mlp", "bn_mlp"):
        step, adam = kerasish_parts(workload)
        runners = {"step": step, "numpy": step_worker.numpy_runner(workload),
                   "gemm": gemm_runner(workload), "adam": adam}
        times = {k: [] for k in runners}
        for r in range(args.rounds):
            for key in (list(runners) if r % 2 == 0 else list(reversed(runners))):
                times[key].append(timed(runners[key], args.steps))
        med = {k: statistics.median(v) for k, v in times.items()}
        rest = med["step"] - med["gemm"] - med["adam"]
        print(f"| {workload} | {med['step']:.2f} | {med['numpy']:.2f} | {med['gemm']:.2f} | "
              f"{med['adam']:.2f} | {rest:.2f} |")


if __name__ == "__main__":
    main()
