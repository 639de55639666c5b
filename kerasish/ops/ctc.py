"""Connectionist temporal classification: `ctc_loss` and `ctc_decode`.

`ctc_loss` runs the CTC forward (alpha) recursion in log space with
differentiable ops, so it has gradients of every order (one exception: a label
equal to the blank 0 inside `target_length` gets TensorFlow's first-order
gradient, see `_tf_softmax_term`). `ctc_decode` is a
search over discrete paths (no gradient); it runs on the host.
"""
import numpy as np

from kerasish.backend.dtypes import result_type
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, nn, reduction
from kerasish.ops.indexing import take_along_axis
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.ops.symbolic import keras_op

_NEG = -1e30  # log(0) that keeps gradients finite (exp(_NEG - x) == 0)


def _extended_labels(targets, lengths, blank):
    """Blank-interleaved label rows (B, 2L+1) and where a skip over a blank is allowed."""
    batch, max_len = targets.shape
    ext = np.full((batch, 2 * max_len + 1), blank, dtype="int32")
    ext[:, 1::2] = targets
    skip = np.zeros(ext.shape, dtype=bool)
    # a label state (odd position) may be entered from two states back unless it repeats
    # the previous label; decided by position, so a blank *label* inside `target` is a
    # label state emitting the blank class (as tf.nn.ctc_loss)
    skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
    for b, n in enumerate(lengths):  # labels past each row's length are never reached
        ext[b, 2 * n + 1:] = blank
    return ext, skip


def _shift(alpha, by):
    pad = core.cast(np.full((alpha.shape[0], by), _NEG), alpha.dtype)
    return shape_ops.concatenate([pad, alpha[:, :-by]], axis=1)


@keras_op
def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """CTC loss per sample: -log p(target | output), summed over all alignments.

    Args:
        target: int labels `(batch, max_label_length)` (entries past `target_length` ignored).
        output: logits `(batch, max_time, num_classes)` (log-softmax is applied).
        target_length: int `(batch,)` label lengths.
        output_length: int `(batch,)` numbers of valid time steps.
        mask_index: the class index of the blank.

    Returns:
        float Tensor `(batch,)`.

    Example:
        >>> ops.ctc_loss(np.array([[1]]), np.zeros((1, 2, 3)), np.array([1]), np.array([2]))
    """
    output = core.float_operand(output)
    if output.dtype in ("float16", "bfloat16"):  # Keras computes (and returns) these in float32
        output = core.cast(output, "float32")
    if KerasTensor in map(type, (output, target, target_length, output_length)):
        return KerasTensor((output.shape[0],), output.dtype)  # one loss per sample
    labels = np.asarray(core.convert_to_numpy(target)).astype("int32")
    label_len = np.asarray(core.convert_to_numpy(target_length)).astype("int64").reshape(-1)
    time_len = np.asarray(core.convert_to_numpy(output_length)).astype("int64").reshape(-1)
    if output.ndim != 3 or labels.ndim != 2 or labels.shape[0] != output.shape[0]:
        raise ValueError(
            f"ops.ctc_loss: expects `target` (batch, label_length) and `output` "
            f"(batch, time, classes) with the same batch size. Received: target.shape = "
            f"{labels.shape}, output.shape = {tuple(output.shape)}")
    batch, steps = output.shape[0], output.shape[1]
    if mask_index:
        # tf.nn.ctc_loss moves a nonzero blank to class 0 and shifts the labels below it
        # up; a label equal to the blank is left as is and so names class mask_index - 1.
        # Keras (TensorFlow backend) gives that result, and so does kerasish.
        labels = np.where(labels == mask_index, mask_index - 1, labels)
    log_probs = nn.log_softmax(output, axis=-1)
    ext, skip = _extended_labels(labels, label_len, mask_index)
    ext_t = core.convert_to_tensor(ext)
    skip_t = core.convert_to_tensor(skip)
    size = ext.shape[1]
    start = np.full((batch, size), _NEG)
    start[:, :2] = 0.0
    blank_labels = _blank_label_states(labels, label_len, size) if mask_index == 0 else None
    alpha = None
    for t in range(steps):
        emit = take_along_axis(log_probs[:, t, :], ext_t, axis=1)
        if blank_labels is not None:
            emit = ew.where(core.convert_to_tensor(blank_labels), core.stop_gradient(emit), emit)
        if alpha is None:
            new = ew.add(core.cast(start, emit.dtype), emit)
        else:
            stay_or_step = ew.logaddexp(alpha, _shift(alpha, 1))
            jump = ew.where(skip_t, _shift(alpha, 2), core.cast(_NEG, alpha.dtype))
            new = ew.add(ew.logaddexp(stay_or_step, jump), emit)
        active = core.convert_to_tensor((t < time_len)[:, None])
        alpha = new if alpha is None else ew.where(active, new, alpha)
    last = core.convert_to_tensor(np.stack([2 * label_len, np.maximum(2 * label_len - 1, 0)],
                                           axis=1).astype("int32"))
    ends = take_along_axis(alpha, last, axis=1)
    # an empty label has one final state (the all-blank path): drop the duplicate
    single = core.convert_to_tensor(np.stack([np.zeros(batch, bool), label_len == 0], axis=1))
    ends = ew.where(single, core.cast(_NEG, ends.dtype), ends)
    loss = ew.negative(reduction.logsumexp(ends, axis=1))
    if blank_labels is not None:
        loss = ew.add(loss, _tf_softmax_term(output, log_probs, ext, skip, blank_labels,
                                             label_len, time_len))
    return loss


def _blank_label_states(labels, label_len, size):
    """(batch, 2L+1) mask of the label states whose label is the blank (class 0)."""
    states = np.zeros((labels.shape[0], size), dtype=bool)
    for b, n in enumerate(label_len):
        states[b, 1:2 * n + 1:2] = labels[b, :n] == 0
    return states if states.any() else None


def _tf_softmax_term(output, log_probs, ext, skip, blank_labels, label_len, time_len):
    """A zero-valued term that gives the gradient TensorFlow's CTC gives when a label
    equals the blank (0) inside `target_length`.

    tf.nn.ctc_loss's gradient is `softmax - occupancy`, where the occupancy of class c
    sums the posteriors of the states emitting c, except that label states whose
    label is 0 count for no class (`one_hot(label - 1)`). Their emissions are
    stop-gradient above, which removes them from the occupancy but also scales the
    softmax by `1 - d_t` (d_t: their posterior at step t); this adds `d_t * softmax`
    back: `d_t * (lse_t - stop_gradient(lse_t))`, lse_t the log-sum-exp of the logits.
    """
    lp = np.asarray(core.convert_to_numpy(log_probs), dtype="float64")
    weights = np.zeros(lp.shape[:2])
    for b in range(lp.shape[0]):
        n, steps = 2 * int(label_len[b]) + 1, int(time_len[b])
        if steps == 0:
            continue
        post = _posteriors(lp[b, :steps][:, ext[b, :n]], skip[b, :n])
        weights[b, :steps] = post[:, blank_labels[b, :n]].sum(axis=1)
    lse = reduction.logsumexp(output, axis=-1)
    delta = ew.subtract(lse, core.stop_gradient(lse))
    return reduction.sum(ew.multiply(core.cast(weights, delta.dtype), delta), axis=1)


def _posteriors(emit, skip):
    """State posteriors (time, states) of one sequence by forward-backward (host, float64)."""
    steps, n = emit.shape
    alpha = np.full((steps, n), -np.inf)
    beta = np.full((steps, n), -np.inf)
    alpha[0, :2] = emit[0, :2]
    for t in range(1, steps):
        prev = alpha[t - 1]
        moves = [prev, np.concatenate([[-np.inf], prev[:-1]]),
                 np.where(skip, np.concatenate([[-np.inf, -np.inf], prev[:-2]]), -np.inf)]
        alpha[t] = np.logaddexp.reduce(moves, axis=0) + emit[t]
    beta[-1, max(n - 2, 0):] = 0.0
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1] + emit[t + 1]
        moves = [nxt, np.concatenate([nxt[1:], [-np.inf]]),
                 np.concatenate([np.where(skip[2:], nxt[2:], -np.inf), [-np.inf, -np.inf]])]
        beta[t] = np.logaddexp.reduce(moves, axis=0)
    total = alpha + beta
    log_z = np.logaddexp.reduce(total[-1])
    with np.errstate(under="ignore"):
        return np.exp(total - log_z)


def _greedy(logits, lengths, merge_repeated, blank):
    batch, steps, _ = logits.shape
    decoded = np.full((1, batch, steps), -1, dtype="int32")
    scores = np.zeros((batch, 1), dtype=logits.dtype)
    for b in range(batch):
        n = int(lengths[b])
        best = logits[b, :n].argmax(axis=-1)
        scores[b, 0] = -logits[b, :n].max(axis=-1).sum()
        out, previous = [], None
        for c in best:
            if c != blank and not (merge_repeated and c == previous):
                out.append(int(c))
            previous = c
        decoded[0, b, :len(out)] = out
    return decoded, scores


def _log_add(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    return max(a, b) + np.log1p(np.exp(-abs(a - b)))


def _beam_search(log_probs, length, beam_width, blank):
    """CTC prefix beam search over one sequence; returns [(prefix, log p)] best first."""
    beams = {(): (0.0, -np.inf)}  # prefix -> (log p ending in blank, log p ending in label)
    for t in range(length):
        row = log_probs[t]
        grown = {}

        def add(prefix, p_blank, p_label):
            old_b, old_l = grown.get(prefix, (-np.inf, -np.inf))
            grown[prefix] = (_log_add(old_b, p_blank), _log_add(old_l, p_label))
        for prefix, (p_b, p_l) in beams.items():
            total = _log_add(p_b, p_l)
            add(prefix, total + row[blank], -np.inf)
            for c in range(row.shape[0]):
                if c == blank:
                    continue
                if prefix and prefix[-1] == c:
                    add(prefix, -np.inf, p_l + row[c])           # repeat collapses
                    add(prefix + (c,), -np.inf, p_b + row[c])    # blank separates
                else:
                    add(prefix + (c,), -np.inf, total + row[c])
        ranked = sorted(grown.items(), key=lambda kv: -_log_add(*kv[1]))
        beams = dict(ranked[:beam_width])
    return [(prefix, _log_add(*probs)) for prefix, probs in
            sorted(beams.items(), key=lambda kv: -_log_add(*kv[1]))]


@keras_op
def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    """Decodes CTC outputs into label sequences.

    Args:
        inputs: `(batch, max_time, num_classes)` scores (logits or log-probabilities).
        sequence_lengths: int `(batch,)` valid time steps.
        strategy: "greedy" (best class per step) or "beam_search" (prefix beam search
            on log-softmax probabilities).
        beam_width: beams kept by "beam_search".
        top_paths: sequences returned per sample by "beam_search" (1 for "greedy").
        merge_repeated: greedy: merge repeated classes (separated only by time).
        mask_index: the blank class.

    Returns:
        tuple `(decoded, scores)`: int32 `(top_paths, batch, max_time)` padded with -1,
        and float `(batch, top_paths)`: greedy's negative sum of the chosen scores, or
        beam search's log-probabilities.

    Example:
        >>> decoded, scores = ops.ctc_decode(np.random.rand(2, 5, 4), [5, 3])
    """
    if strategy not in ("greedy", "beam_search"):
        raise ValueError(f"ops.ctc_decode: Invalid strategy {strategy}. Supported values "
                         "are 'greedy' and 'beam_search'.")
    x = core.float_operand(inputs)
    if x.__class__ is KerasTensor or sequence_lengths.__class__ is KerasTensor:
        paths = 1 if strategy == "greedy" else int(top_paths)
        return (KerasTensor((paths,) + tuple(x.shape[:2]), "int32"),
                KerasTensor((x.shape[0], paths), result_type(x.dtype, "float32")))
    # computed in result_type(inputs, float32): float16/bfloat16 give float32 (Keras)
    score_dtype = result_type(x.dtype, "float32")
    logits = np.asarray(core.convert_to_numpy(x)).astype(score_dtype)
    lengths = np.asarray(core.convert_to_numpy(sequence_lengths)).reshape(-1)
    if logits.ndim != 3 or lengths.shape[0] != logits.shape[0]:
        raise ValueError(f"ops.ctc_decode: expects inputs (batch, time, classes) and one length "
                         f"per sample. Received: inputs.shape = {logits.shape}, "
                         f"sequence_lengths.shape = {lengths.shape}")
    blank = mask_index % logits.shape[-1] if mask_index is not None else logits.shape[-1] - 1
    if strategy == "greedy":
        decoded, scores = _greedy(logits, lengths, merge_repeated, blank)
    else:
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        batch, steps = logits.shape[:2]
        decoded = np.full((top_paths, batch, steps), -1, dtype="int32")
        scores = np.full((batch, top_paths), -np.inf, dtype=logits.dtype)
        for b in range(batch):
            for k, (prefix, score) in enumerate(
                    _beam_search(log_probs[b], int(lengths[b]), beam_width, blank)[:top_paths]):
                decoded[k, b, :len(prefix)] = prefix
                scores[b, k] = score
    return (core.convert_to_tensor(decoded), core.convert_to_tensor(scores, dtype=score_dtype))
