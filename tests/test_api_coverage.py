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
