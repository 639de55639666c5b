"""docs/layers.md lists every Keras 3.15.1 layer name, and says truthfully which kerasish has."""
import json
import re
from pathlib import Path

import kerasish.layers as kerasish_layers

ROOT = Path(__file__).resolve().parents[1]


def test_layers_table_is_complete_and_true():
    keras_names = json.loads((ROOT / "tests/fixtures/zoo/keras_layers.json").read_text())["names"]
    rows = re.findall(r"^\| `(\w+)`[^|]*\| (yes|no) \|([^|]*)\|", (ROOT / "docs/layers.md").read_text(),
                      re.M)
    table = {name: (present, note) for name, present, note in rows}
    assert sorted(table) == sorted(keras_names)
    # A "no" row may already be present when another branch's work has been merged.
    wrong = [n for n, (present, note) in table.items()
             if (present == "yes") != hasattr(kerasish_layers, n)
             and not (present == "no" and "in progress on branch" in note)]
    assert wrong == []
