"""Training-step time of kerasish vs PyTorch (CPU, 2 threads) on standard workloads.

    python benchmarks/bench_models.py [--steps 50] [--keras-python /path/to/venv/bin/python]

Workloads (same shapes, same optimizer, one process):
  tiny: Dense(10) on 32 features, batch 32 (pure framework overhead per step)
  mlp:  784-512-512-10 relu, Adam, batch 128
Each kerasish step is `model.train_on_batch`-equivalent (forward under a tape,
loss, backward, Adam update); PyTorch runs the same with torch.optim.Adam.
Prints a markdown table of median milliseconds per step. With
`--keras-python`, real Keras 3 (whatever backend that interpreter has) is
timed through `model.fit` in that interpreter on the same workload.
"""
import argparse
import subprocess
import time

import numpy as np


def median_ms(step, steps, warmup=5):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def kerasish_step(sizes, batch):
    import kerasish as keras
    from kerasish import layers
    model = keras.Sequential([keras.Input((sizes[0],))] +
                             [layers.Dense(n, activation="relu") for n in sizes[1:-1]] +
                             [layers.Dense(sizes[-1])])
    model.compile(optimizer="adam",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch, sizes[0])).astype("float32")
    y = rng.integers(0, sizes[-1], batch)
    data = (keras.ops.convert_to_tensor(x), keras.ops.convert_to_tensor(y))
    model.train_on_batch(x, y)
    return lambda: model.train_step(data)


def kerasish_fit_step(sizes, batch, steps):
    """Per-step time measured through model.fit (callbacks, progress off)."""
    import kerasish as keras
    from kerasish import layers
    model = keras.Sequential([keras.Input((sizes[0],))] +
                             [layers.Dense(n, activation="relu") for n in sizes[1:-1]] +
                             [layers.Dense(sizes[-1])])
    model.compile(optimizer="adam",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch * steps, sizes[0])).astype("float32")
    y = rng.integers(0, sizes[-1], batch * steps)
    model.fit(x[:batch], y[:batch], batch_size=batch, verbose=0)
    start = time.perf_counter()
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
    return 1000 * (time.perf_counter() - start) / steps


def torch_step(sizes, batch):
    import torch
    torch.set_num_threads(2)
    mods = []
    for n_in, n_out in zip(sizes[:-2], sizes[1:-1]):
        mods += [torch.nn.Linear(n_in, n_out), torch.nn.ReLU()]
    mods.append(torch.nn.Linear(sizes[-2], sizes[-1]))
    model = torch.nn.Sequential(*mods)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.normal(size=(batch, sizes[0])).astype("float32"))
    y = torch.from_numpy(rng.integers(0, sizes[-1], batch))

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return step


KERAS_SNIPPET = """
import time, numpy as np, keras
sizes, batch, steps = {sizes}, {batch}, {steps}
model = keras.Sequential([keras.Input((sizes[0],))] +
                         [keras.layers.Dense(n, activation="relu") for n in sizes[1:-1]] +
                         [keras.layers.Dense(sizes[-1])])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
rng = np.random.default_rng(0)
x = rng.normal(size=(batch * steps, sizes[0])).astype("float32")
y = rng.integers(0, sizes[-1], batch * steps)
model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
start = time.perf_counter()
model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
print(1000 * (time.perf_counter() - start) / steps)
"""


def keras_fit_step(python, sizes, batch, steps):
    """ms per step of real Keras's fit, run in another interpreter (None if it fails)."""
    code = KERAS_SNIPPET.format(sizes=sizes, batch=batch, steps=steps)
    result = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=600,
                            env={"OMP_NUM_THREADS": "2", "TF_NUM_INTRAOP_THREADS": "2",
                                 "TF_NUM_INTEROP_THREADS": "1", "TF_CPP_MIN_LOG_LEVEL": "3",
                                 "PATH": "/usr/bin:/bin"})
    try:
        return float(result.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return None


WORKLOADS = {"tiny": ((32, 10), 32), "mlp": ((784, 512, 512, 10), 128)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--keras-python", default=None,
                        help="interpreter with keras installed, to time Keras's fit too")
    args = parser.parse_args()
    print("| workload | kerasish train_step (ms) | kerasish via fit (ms/step) | PyTorch (ms) "
          "| kerasish / PyTorch | Keras 3 via fit (ms/step) |")
    print("|---|---|---|---|---|---|")
    for name, (sizes, batch) in WORKLOADS.items():
        ours = median_ms(kerasish_step(sizes, batch), args.steps)
        via_fit = kerasish_fit_step(sizes, batch, args.steps)
        theirs = median_ms(torch_step(sizes, batch), args.steps)
        keras_ms = keras_fit_step(args.keras_python, sizes, batch, args.steps) \
            if args.keras_python else None
        keras_text = f"{keras_ms:.3f}" if keras_ms is not None else "n/a"
        print(f"| {name} | {ours:.3f} | {via_fit:.3f} | {theirs:.3f} | {ours / theirs:.2f}x "
              f"| {keras_text} |")


if __name__ == "__main__":
    main()
