"""Training-step time of the MNIST convnets: kerasish vs PyTorch (CPU), and conv GFLOP/s.

    python benchmarks/bench_convnet.py [--steps 10] [--rounds 5] [--no-torch]
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_convnet.py   # see below

On a 2-core machine shared with other work, OpenBLAS's two threads can slow a
GEMM that follows numpy work by several times (thread hand-off); numbers with
OPENBLAS_NUM_THREADS=1 are steadier. PyTorch always runs with 2 threads here.

Models (batch 128, 28x28x1 inputs, Adam, softmax + categorical cross-entropy):
  convnet:   the keras-io convnet: Conv2D(32,3,relu) MaxPool(2) Conv2D(64,3,relu)
             MaxPool(2) Flatten Dropout(0.5) Dense(10, softmax)
  mnist_cnn: the classic Keras example: Conv2D(32,3,relu) Conv2D(64,3,relu)
             MaxPool(2) Dropout(0.25) Flatten Dense(128,relu) Dropout(0.5) Dense(10)
A kerasish step is `model.train_step` (forward under a tape, loss, accuracy
metric, backward, Adam); a PyTorch step is the same network in its default
NCHW layout with `torch.set_num_threads(2)` (and, for reference, in
channels_last memory format). The frameworks alternate in `rounds` rounds of
`steps` steps so both see the same machine load; the table reports each
framework's median and best per-round median step time, and the median over
rounds of the per-round ratio.

Then, for each conv layer of the two models, the throughput in GFLOP/s
(2*M*K*F per GEMM) of the forward `ops.conv` and of forward + backward of
the layer's fused conv + bias + relu (forward, filter gradient, and the input
gradient when the layer has one), next to the machine's
sgemm rate (a 2048x2048 float32 matmul) and, for the forward, the
`sliding_window_view` + einsum alternative that im2col was chosen over.
"""
import argparse
import time

import numpy as np

BATCH = 128


def _median_ms(fn, steps):
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def kerasish_model(name):
    import kerasish as keras
    from kerasish import layers
    if name == "convnet":
        body = [layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(2),
                layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(2),
                layers.Flatten(), layers.Dropout(0.5)]
    else:
        body = [layers.Conv2D(32, 3, activation="relu"), layers.Conv2D(64, 3, activation="relu"),
                layers.MaxPooling2D(2), layers.Dropout(0.25), layers.Flatten(),
                layers.Dense(128, activation="relu"), layers.Dropout(0.5)]
    model = keras.Sequential([keras.Input((28, 28, 1))] + body +
                             [layers.Dense(10, activation="softmax")])
    model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
    return model


def kerasish_step(name, x, y):
    import kerasish as keras
    model = kerasish_model(name)
    data = (keras.ops.convert_to_tensor(x), keras.ops.convert_to_tensor(y))
    model.train_on_batch(x, y)
    return lambda: model.train_step(data)


def torch_step(name, x, y, channels_last=False):
    import torch
    from torch import nn
    torch.set_num_threads(2)
    if name == "convnet":
        body = [nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
                nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.5), nn.Linear(1600, 10)]
    else:
        body = [nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                nn.Dropout(0.25), nn.Flatten(), nn.Linear(9216, 128), nn.ReLU(), nn.Dropout(0.5),
                nn.Linear(128, 10)]
    model = nn.Sequential(*body)
    xt = torch.from_numpy(x.transpose(0, 3, 1, 2).copy())
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        xt = xt.contiguous(memory_format=torch.channels_last)
    yt = torch.from_numpy(y.argmax(axis=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(xt), yt)
        loss.backward()
        optimizer.step()
    step()
    return step


def training_table(steps, rounds, with_torch):
    rng = np.random.default_rng(0)
    x = rng.random((BATCH, 28, 28, 1)).astype("float32")
    y = np.eye(10, dtype="float32")[rng.integers(0, 10, BATCH)]
    rows = []
    for name in ("convnet", "mnist_cnn"):
        runners = {"kerasish": kerasish_step(name, x, y)}
        if with_torch:
            runners["torch"] = torch_step(name, x, y)
            runners["torch_cl"] = torch_step(name, x, y, channels_last=True)
        for run in runners.values():   # warm up
            for _ in range(2):
                run()
        results = {key: [] for key in runners}
        for _ in range(rounds):
            for key, run in runners.items():
                results[key].append(_median_ms(run, steps))
        rows.append((name, {key: np.array(v) for key, v in results.items()}))
    print("Per round, each framework's median step; the ratio is the median over rounds of "
          "kerasish / PyTorch in the same round (robust to a machine whose load changes).\n")
    print("| model | kerasish ms/step (median, best round) | PyTorch NCHW ms/step | "
          "kerasish / PyTorch | PyTorch channels_last ms/step |")
    print("|---|---|---|---|---|")
    for name, r in rows:
        ours = r["kerasish"]
        if not with_torch:
            print(f"| {name} | {np.median(ours):.1f}, {ours.min():.1f} | - | - | - |")
            continue
        ratio = float(np.median(ours / r["torch"]))
        print(f"| {name} | {np.median(ours):.1f}, {ours.min():.1f} | "
              f"{np.median(r['torch']):.1f}, {r['torch'].min():.1f} | {ratio:.2f}x | "
              f"{np.median(r['torch_cl']):.1f}, {r['torch_cl'].min():.1f} |")


def _best_seconds(fn, repeats):
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def conv_table(repeats):
    import kerasish as keras
    from numpy.lib.stride_tricks import sliding_window_view
    from kerasish.ops.conv import fused_conv
    a = np.random.rand(2048, 2048).astype("float32")
    sgemm = 2 * 2048 ** 3 / _best_seconds(lambda: a @ a, repeats) / 1e9
    print(f"\nsgemm 2048x2048 float32: {sgemm:.1f} GFLOP/s\n")
    print("| conv layer (batch 128) | forward ms | GFLOP/s | swv+einsum forward ms | "
          "fwd+bwd ms | GFLOP/s |")
    print("|---|---|---|---|---|---|")
    shapes = [("28x28x1 -> 32 (first layer)", (28, 1, 32), False),
              ("13x13x32 -> 64 (convnet)", (13, 32, 64), True),
              ("26x26x32 -> 64 (mnist_cnn)", (26, 32, 64), True)]
    rng = np.random.default_rng(0)
    for label, (size, cin, cout), input_grad in shapes:
        x = keras.ops.convert_to_tensor(rng.random((BATCH, size, size, cin)).astype("float32"))
        w = keras.Variable(rng.standard_normal((3, 3, cin, cout)).astype("float32") * 0.1)
        b = keras.Variable(np.zeros(cout, "float32"))
        out = size - 2
        flops = 2 * BATCH * out * out * 9 * cin * cout

        def forward():
            return keras.ops.conv(x, w)

        def forward_backward():
            with keras.GradientTape() as tape:
                if input_grad:
                    tape.watch(x)
                loss = keras.ops.sum(fused_conv(x, w, b, activation="relu"))
            tape.gradient(loss, [x, w, b] if input_grad else [w, b])

        xv, wv = x.numpy(), w.numpy()
        einsum = _best_seconds(lambda: np.einsum(
            "nhwcij,ijcf->nhwf", sliding_window_view(xv, (3, 3), axis=(1, 2)), wv,
            optimize=True), repeats)
        fwd = _best_seconds(forward, repeats)
        both = _best_seconds(forward_backward, repeats)
        total = flops * (3 if input_grad else 2)
        print(f"| {label} | {1000 * fwd:.1f} | {flops / fwd / 1e9:.1f} | "
              f"{1000 * einsum:.1f} | {1000 * both:.1f} | {total / both / 1e9:.1f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--no-torch", action="store_true")
    args = parser.parse_args()
    training_table(args.steps, args.rounds, not args.no_torch)
    conv_table(args.repeats)


if __name__ == "__main__":
    main()
