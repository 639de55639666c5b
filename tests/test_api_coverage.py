"""Every public name of Keras 3.15.1 is in kerasish, or listed in docs/api_coverage.md with
the reason it is absent; and nothing listed as absent has since appeared.

The names come from `tests/fixtures/api/keras_public_names.json`, written by
`tests/fixtures/api/make_keras_names.py` with real Keras (never imported here).
"""
import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAMES = json.loads((ROOT / "tests" / "fixtures" / "api" / "keras_public_names.json")
                   .read_text())["namespaces"]
ROW = re.compile(r"^\| `(keras(?:\.\w+)*(?:\.\*)?)` \| (.+?) \|\s*$", re.M)


def _listed():
    """{name or namespace.*: reason} from the "Absent names" table of docs/api_coverage.md."""
    text = (ROOT / "docs" / "api_coverage.md").read_text()
    absent = text[text.index("## Absent names and why"):]
    return {m.group(1): m.group(2) for m in ROW.finditer(absent)}


def _module(namespace):
    try:
        return importlib.import_module(namespace.replace("keras", "kerasish", 1))
    except ImportError:
        return None


def _status():
    present, absent = [], []
    for namespace, names in NAMES.items():
        module = _module(namespace)
        for name in names:
            (present if module is not None and hasattr(module, name) else absent).append(
                f"{namespace}.{name}")
    return present, absent


def _covered(full_name, listed):
    namespace = full_name.rsplit(".", 1)[0]
    return full_name in listed or f"{namespace}.*" in listed


def test_every_keras_name_is_present_or_listed_with_a_reason():
    listed = _listed()
    _, absent = _status()
    unexplained = [n for n in absent if not _covered(n, listed)]
    assert not unexplained, (f"{len(unexplained)} Keras names are neither in kerasish nor "
                             f"listed in docs/api_coverage.md: {unexplained}")


def test_nothing_listed_as_absent_is_present():
    listed = _listed()
    present, _ = _status()
    stale = [n for n in present if n in listed]
    assert not stale, f"docs/api_coverage.md lists names kerasish now has: {stale}"


@pytest.mark.parametrize("namespace", sorted(NAMES))
def test_every_keras_namespace_exists(namespace):
    listed = _listed()
    if f"{namespace}.*" in listed and _module(namespace) is None:
        pytest.skip(f"{namespace} is listed as absent: {listed[namespace + '.*']}")
    assert _module(namespace) is not None, f"kerasish has no {namespace} namespace"


def test_reasons_are_not_empty():
    assert all(len(reason.strip()) > 10 for reason in _listed().values())


USAGE = json.loads((ROOT / "tests" / "fixtures" / "api" / "keras_io_usage.json").read_text())


def test_usage_counts_cover_every_public_name_and_stay_within_the_files_counted():
    every = {f"{ns}.{n}" for ns, names in NAMES.items() for n in names}
    assert set(USAGE["counts"]) == every
    assert all(0 <= c <= len(USAGE["files"]) for c in USAGE["counts"].values())
    assert set(USAGE["source"]["commits"]) == set(USAGE["files"])


def test_usage_weighted_figure_in_the_doc_matches_the_json():
    present, _ = _status()
    present = set(present)
    weights = USAGE["counts"]
    expected = 100 * sum(c for n, c in weights.items() if n in present) / sum(weights.values())
    text = (ROOT / "docs" / "api_coverage.md").read_text()
    found = re.search(r"Usage-weighted coverage: ([\d.]+)% over (\d+) keras-io files", text)
    assert found, "docs/api_coverage.md has no usage-weighted figure"
    assert found.group(1) == f"{expected:.1f}"
    assert int(found.group(2)) == len(USAGE["files"])


def test_usage_extractor_resolves_imports_and_attribute_chains():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "usage_counts", ROOT / "tests" / "fixtures" / "api" / "usage_counts.py")
    usage_counts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(usage_counts)
    source = "\n".join([
        "import tensorflow as tf", "from tensorflow import keras",
        "from keras import layers, ops", "from keras.layers import Dense as D",
        "x = layers.Conv2D(3)(tf.keras.utils.to_categorical(y))",
        "ops.image.resize(x); keras.Model; layers.experimental.preprocessing.Rescaling",
        "model.fit(x)"])
    names = usage_counts.names_in_source(source, usage_counts.Resolver(NAMES))
    assert names == {"keras.layers.Conv2D", "keras.utils.to_categorical",
                     "keras.ops.image.resize", "keras.Model", "keras.layers.Dense"}
    broken = "import keras\n%matplotlib inline\nkeras.ops.rearrange(x)\n"
    assert usage_counts.names_in_source(broken, usage_counts.Resolver(NAMES)) == {
        "keras.ops.rearrange"}
