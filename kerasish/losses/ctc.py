"""CTC loss: `keras.losses.CTC` and `keras.losses.ctc`."""
from kerasish.losses.loss import LossFunctionWrapper
from kerasish.ops import core, elementwise as ew, reduction
from kerasish.ops.ctc import ctc_loss


def ctc(y_true, y_pred):
    """CTC loss per sample, as Keras's `keras.losses.ctc`.

    Labels equal to 0 are padding (0 is also the blank class); every time
    step of `y_pred` is valid.

    Args:
        y_true: int labels `(batch, max_label_length)`.
        y_pred: logits `(batch, time, num_classes)`.

    Returns:
        Tensor `(batch,)`.

    Example:
        >>> keras.losses.ctc(np.array([[1, 2]]), np.zeros((1, 4, 3), "float32"))
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.convert_to_tensor(y_true)
    label_length = reduction.sum(core.cast(ew.not_equal(y_true, 0), "int32"), axis=-1)
    batch, steps = y_pred.shape[0], y_pred.shape[1]
    output_length = core.convert_to_tensor([steps] * batch, dtype="int32")
    return ctc_loss(y_true, y_pred, label_length, output_length, mask_index=0)


class CTC(LossFunctionWrapper):
    """Connectionist temporal classification loss (labels 0 = blank/padding).

    Args:
        reduction: "sum_over_batch_size" (default), "sum", "mean",
            "mean_with_sample_weight" or None.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> loss = keras.losses.CTC()
        >>> loss(np.array([[1, 2, 1, 0]]), np.zeros((1, 4, 3), "float32"))
    """

    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}
