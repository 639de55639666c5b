"""Builds the tables of docs/conformance.md from conformance-runner results.

Usage:
    python tools/conformance_report.py BASELINE_DIR [RUN_DIR ...] > report.md

Each directory holds a `results.json` written by
`../shared/conformance/run.py`. A module's figures come from the last
directory that ran it to the end (so per-module reruns override the full
baseline run; a rerun that left tests unrun, e.g. out of time, does not).
Remaining failures are grouped by cause with the rules below (first match
wins); a rule names who owns the cause.
"""
import json
import re
import sys
from collections import OrderedDict
from pathlib import Path

# (group title, owner / reason, predicate on (test id, failure message))
RULES = [
    ("Deliberate deviations", "kerasish behaves differently on purpose (see below)",
     lambda t, m: bool(re.search(r"test_retracing|"
                                 r"test_save_model_exception_raised|"
                                 r"(HuberLoss|CosineSimilarity)Test::test_config|"
                                 r"NumpyOneInputOps(Dynamic|Static)ShapeTest::test_(corrcoef|ndim)$|"
                                 r"NNOpsStaticShapeTest::test_polar$|"
                                 r"NumpyOneInputOpsCorrectnessTest::test_slogdet$", t))),
    ("Layers owned by other branches", "`preprocessing` (Normalization), `attention` (EinsumDense)",
     lambda t, m: bool(re.search(r"has no attribute '(Normalization|EinsumDense)'", m))),
    ("Keras internals and shim limits", "shim/internal: not user API",
     lambda t, m: "SafeZipReadTest::" in t or "'ExtractSequences' object has no attribute" in m
     or bool(re.search(
         r"keras\.src\.(backend|saving\.saving_lib\.(_|[A-Z])|utils\.io_utils|applications|"
         r"metrics\.metrics_utils)|safe_get_h5_dataset|peershim\.aliasing\.Missing|object has no attribute '(call|_[a-z_]+)'|"
         r"No module named '(tensorflow|torch)'|Skipped:|keras\.src\.ops\.(random|shape_equal|"
         r"broadcast_shapes|LayerNorm|RMSNorm)|has no attribute '_|'str' object has no "
         r"attribute 'type'|backend_util|CPU_DEVICES|KeyError: 'numpy'", m))),
    ("Sparse tensors", "out of scope: kerasish has no sparse tensors (deselect.txt removes "
     "the other sparse tests)",
     lambda t, m: "sparse=True is not supported" in m),
    ("bfloat16 / per-op result dtypes", "owned by `opcontract`",
     lambda t, m: "bfloat16" in m or "dtype of x does not match" in m
     or re.search(r"DtypeTest::", t) is not None),
    ("Symbolic shapes (KerasTensor) of ops", "owned by `opcontract`",
     lambda t, m: re.search(r"(Static|Dynamic)ShapeTest::|test_.*symbolic", t) is not None
     or "KerasTensor" in m),
    ("Error wording inside existing ops", "owned by `opcontract` (files under kerasish/ops/)",
     lambda t, m: t.startswith(("ops_numpy", "ops_nn", "ops_math", "ops_core"))
     and ("does not match" in m or "not raised" in m or "Warning not triggered" in m)),
    ("Other behaviour of existing ops", "owned by `opcontract` (files under kerasish/ops/)",
     lambda t, m: t.startswith(("ops_numpy", "ops_nn", "ops_math", "ops_core"))
     and "SegmentProd" not in m),
    ("Conv3D, transposed/3-D pooling, auto-build, steps_per_execution, RNN signatures",
     "owned by `families`",
     lambda t, m: bool(re.search(r"3[dD]|ConvND|PoolingND|The `build` of|steps_per_execution|"
                                 r"steps_per_epoch|Batch index|_steps_|fit_flow|bad_init_args|"
                                 r"conv_transpose", t + " " + m))),
    ("Functional validation, mixed precision, Bidirectional", "owned by `diffharness`",
     lambda t, m: t.startswith(("models_functional", "layers_rnn_bidirectional"))
     or "expected output dtype" in m),
]
FALLBACK = ("Not yet done", "open: see the reason in the message")


def load(directory):
    path = Path(directory) / "results.json"
    return json.loads(path.read_text()) if path.exists() else {"modules": {}}


def merge(directories):
    modules, meta = OrderedDict(), None
    for directory in directories:
        results = load(directory)
        meta = meta or results.get("meta")
        for name, module in results["modules"].items():
            if module.get("kerasish", {}).get("not_run") and name in modules:
                continue  # an incomplete rerun (tests never reached) keeps the earlier run
            modules[name] = module
    return modules, meta


def classify(test_id, message):
    for title, owner, rule in RULES:
        if rule(test_id, message):
            return title, owner
    return FALLBACK


def table(modules, baseline):
    lines = ["| module | Keras passes | kerasish passes (before) | kerasish passes (now) | rate now |",
             "|---|---|---|---|---|"]
    total = passed = before_total = 0
    for name, module in modules.items():
        base = module["baseline_passing"]
        now = module["kerasish_passing_of_baseline"]
        before = baseline.get(name, {}).get("kerasish_passing_of_baseline", "?")
        total, passed = total + base, passed + now
        before_total += before if isinstance(before, int) else 0
        rate = 100.0 * now / base if base else 100.0
        lines.append(f"| {name} | {base} | {before} | {now} | {rate:.1f}% |")
    lines.append(f"| **all {len(modules)} modules** | **{total}** | **{before_total}** | "
                 f"**{passed}** | **{100.0 * passed / total:.1f}%** |")
    return "\n".join(lines)


def failures(modules):
    groups = OrderedDict()
    for name, module in modules.items():
        for test_id, message in module["kerasish_failures_on_baseline_passing"].items():
            message = message if isinstance(message, str) else str(message)
            key = classify(test_id, message)
            groups.setdefault(key, []).append((test_id, message.splitlines()[0][:160]))
    out = []
    for (title, owner), items in groups.items():
        out.append(f"### {title} ({len(items)}) - {owner}\n")
        for test_id, message in items:
            out.append(f"- `{test_id}`: {message}")
        out.append("")
    return "\n".join(out)


def main(argv):
    baseline = load(argv[1])["modules"]
    modules, _ = merge(argv[1:])
    print(table(modules, baseline))
    print()
    print(failures(modules))


if __name__ == "__main__":
    main(sys.argv)
