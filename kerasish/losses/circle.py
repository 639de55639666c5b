"""Circle loss for metric learning: `keras.losses.Circle` and `keras.losses.circle`."""
from kerasish.losses.loss import LossFunctionWrapper
from kerasish.ops import core, creation, elementwise as ew, manipulation as shape_ops, nn, reduction
from kerasish.ops.linalg import matmul

# stands for -inf in the masked logsumexps: exp() of it is 0 all the same, but a row
# with no pair stays finite (no log(0) warning, no NaN gradient); its softplus is 0
_NEG_INF = -1e30


def _pair_masks(labels, ref_labels, remove_diagonal):
    """Same-label (positive) and different-label (negative) masks of every pair."""
    query = shape_ops.reshape(labels, (-1, 1))
    keys = shape_ops.reshape(ref_labels, (1, -1))
    positive = ew.equal(query, keys)
    negative = ew.logical_not(positive)
    if remove_diagonal:
        diagonal = creation.eye(query.shape[0], keys.shape[1], dtype="bool")
        positive = ew.logical_and(positive, ew.logical_not(diagonal))
    return positive, negative


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True,
           gamma=80, margin=0.4):
    """Circle loss (Sun et al., 2020) of L2-normalised embeddings, one value per sample.

    Pairs with the same label are pulled together, pairs with different labels
    pushed apart, each weighted by how far it is from its optimum. As in Keras,
    samples with no positive pair get 0 and are masked out of the reduction.

    Args:
        y_true: int labels `(batch,)`.
        y_pred: L2-normalised embeddings `(batch, dim)`.
        ref_labels: labels of the reference embeddings (default `y_true`).
        ref_embeddings: reference embeddings (default `y_pred`).
        remove_diagonal: drop each sample's pair with itself from the positives.
        gamma: scale factor.
        margin: relaxation margin.

    Returns:
        Tensor `(batch,)`.

    Example:
        >>> emb = ops.normalize(ops.convert_to_tensor(np.random.rand(4, 3)))
        >>> keras.losses.circle(np.array([0, 0, 1, 1]), emb)
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.cast(y_true, "int32")
    ref = y_pred if ref_embeddings is None else core.convert_to_tensor(ref_embeddings)
    ref_labels = y_true if ref_labels is None else core.cast(ref_labels, "int32")
    distances = ew.maximum(ew.subtract(1.0, matmul(y_pred, shape_ops.transpose(ref))), 0.0)
    positive, negative = _pair_masks(y_true, ref_labels, remove_diagonal)
    pos_weights = ew.maximum(ew.multiply(ew.add(distances, margin),
                                         core.cast(positive, distances.dtype)), 0.0)
    neg_weights = ew.maximum(ew.multiply(ew.subtract(1.0 + margin, distances),
                                         core.cast(negative, distances.dtype)), 0.0)
    pos_terms = ew.multiply(ew.multiply(pos_weights, ew.subtract(margin, distances)), -gamma)
    neg_terms = ew.multiply(ew.multiply(neg_weights, ew.subtract(1.0 - margin, distances)),
                            gamma)
    neg_inf = core.cast(_NEG_INF, distances.dtype)
    p_loss = reduction.logsumexp(ew.where(positive, pos_terms, neg_inf), axis=1)
    n_loss = reduction.logsumexp(ew.where(negative, neg_terms, neg_inf), axis=1)
    loss = nn.softplus(ew.add(p_loss, n_loss))
    loss._keras_mask = ew.greater(loss, 0.0)
    return loss


class Circle(LossFunctionWrapper):
    """Circle loss for metric learning (see `circle`).

    Args:
        gamma: scale factor (default 80).
        margin: relaxation margin (default 0.4).
        remove_diagonal: drop self-pairs from the positives (default True).
        reduction: "sum_over_batch_size" (default), "sum", "mean",
            "mean_with_sample_weight" or None.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> loss = keras.losses.Circle(gamma=80.0, margin=0.4)
    """

    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True,
                 reduction="sum_over_batch_size", name="circle", dtype=None):
        super().__init__(circle, name=name, reduction=reduction, dtype=dtype, gamma=gamma,
                         margin=margin, remove_diagonal=remove_diagonal)
        self.gamma = gamma
        self.margin = margin
        self.remove_diagonal = remove_diagonal

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "gamma": self.gamma,
                "margin": self.margin, "remove_diagonal": self.remove_diagonal}
