"""kerasish.summary writes the same protos as TensorFlow's tf.summary (fixtures from real TF)."""
import base64
import json
import os

import numpy as np
import pytest

import kerasish as keras

pytest.importorskip("tensorboard", reason="the `tensorboard` extra is not installed")
from tensorboard.backend.event_processing import plugin_event_accumulator  # noqa: E402
from tensorboard.compat.proto import summary_pb2, tensor_pb2  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "summary",
                       "tf_summaries.json")


def _read(logdir):
    acc = plugin_event_accumulator.EventAccumulator(logdir, size_guidance={"tensors": 0})
    acc.Reload()
    return acc


def _write_cases(logdir, cases):
    writer = keras.summary.create_file_writer(logdir)
    with writer.as_default():
        for step, (kind, tag, data, kwargs) in enumerate(cases):
            kwargs = dict(kwargs)
            dtype = kwargs.pop("dtype", None)
            value = data if kind == "text" else np.asarray(data, dtype=dtype)
            if kind == "image" and dtype is None:
                value = value.astype(np.float32)
            assert getattr(keras.summary, kind)(tag, value, step=step, **kwargs)
    writer.close()


def test_protos_match_tensorflow(tmp_path):
    with open(FIXTURE) as f:
        expected = json.load(f)
    _write_cases(str(tmp_path), expected["cases"])
    acc = _read(str(tmp_path))
    assert sorted(acc.Tags()["tensors"]) == sorted(r["tag"] for r in expected["records"])
    for record in expected["records"]:
        (event,) = acc.Tensors(record["tag"])
        assert event.step == record["step"]
        want_meta = summary_pb2.SummaryMetadata.FromString(base64.b64decode(record["metadata"]))
        got_meta = acc.SummaryMetadata(record["tag"])
        assert got_meta.plugin_data.plugin_name == want_meta.plugin_data.plugin_name
        assert got_meta.plugin_data.content == want_meta.plugin_data.content, record["tag"]
        want = tensor_util.make_ndarray(
            tensor_pb2.TensorProto.FromString(base64.b64decode(record["tensor"])))
        got = tensor_util.make_ndarray(event.tensor_proto)
        assert got.dtype == want.dtype and got.shape == want.shape, record["tag"]
        if record["tag"] in ("gray", "rgb_uint8"):
            _assert_same_pixels(got, want)
        elif got.dtype == object:
            assert got.tolist() == want.tolist()
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, err_msg=record["tag"])


def _assert_same_pixels(got, want):
    """PNG bytes may differ between encoders; the decoded pixels must not."""
    from PIL import Image
    import io
    assert got[:2].tolist() == want[:2].tolist()  # width, height
    for a, b in zip(got[2:], want[2:]):
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(a))),
                                      np.asarray(Image.open(io.BytesIO(b))))


def test_histogram_buckets_known_values():
    rows = keras.summary.summaries.histogram_buckets([0.0, 1.0, 1.0, 4.0], bucket_count=4)
    np.testing.assert_array_equal(rows[:, 2], [1, 2, 0, 1])
    np.testing.assert_array_equal(rows[:, 0], [0, 1, 2, 3])
    np.testing.assert_array_equal(rows[:, 1], [1, 2, 3, 4])


def test_no_default_writer_writes_nothing():
    assert keras.summary.scalar("x", 1.0, step=0) is False


def test_missing_step_is_a_clear_error(tmp_path):
    writer = keras.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            keras.summary.scalar("x", 1.0)


def test_record_if_and_set_step(tmp_path):
    writer = keras.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        for step in range(6):
            keras.summary.set_step(step)
            with keras.summary.record_if(lambda: keras.summary.get_step() % 2 == 0):
                keras.summary.scalar("even", float(step))
    writer.close()
    assert [e.step for e in _read(str(tmp_path)).Tensors("even")] == [0, 2, 4]


def test_scalar_rejects_non_scalars(tmp_path):
    writer = keras.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        with pytest.raises(ValueError, match=r"summary.scalar\('x'\).*shape \(2,\)"):
            keras.summary.scalar("x", [1.0, 2.0])


def test_tensors_and_variables_are_accepted(tmp_path):
    writer = keras.summary.create_file_writer(str(tmp_path))
    variable = keras.Variable(np.arange(6.0).reshape(2, 3))
    with writer.as_default(step=1):
        keras.summary.scalar("t", keras.ops.sum(variable))
        keras.summary.histogram("v", variable)
    writer.close()
    acc = _read(str(tmp_path))
    assert float(tensor_util.make_ndarray(acc.Tensors("t")[0].tensor_proto)) == 15.0
    assert tensor_util.make_ndarray(acc.Tensors("v")[0].tensor_proto)[:, 2].sum() == 6
