"""AUC(curve="PRGAIN") against Keras 3.15.1 (fixtures/metrics/auc_prgain.json)."""
import json
import os

import numpy as np
import pytest

import kerasish as keras

CASES = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "metrics",
                                    "auc_prgain.json")))["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['method']}-{c['multi_label']}")
def test_prgain_matches_keras(case):
    auc = keras.metrics.AUC(num_thresholds=7, curve="PRGAIN", summation_method=case["method"],
                            multi_label=case["multi_label"])
    auc.update_state(np.array(case["y_true"], "float32"), np.array(case["y_pred"], "float32"),
                     sample_weight=np.array(case["weights"], "float32"))
    np.testing.assert_allclose(float(auc.result()), case["result"], rtol=1e-5, atol=1e-6)


def test_unknown_curve_lists_prgain():
    with pytest.raises(ValueError, match="PRGAIN"):
        keras.metrics.AUC(curve="XYZ")
