"""`TensorBoard`: training curves, weight histograms and images, the model graph and the
embedding projector, written as TensorBoard event files (the `tensorboard` extra)."""
import cProfile
import os
import time

import numpy as np

from kerasish import summary
from kerasish.callbacks.callback import Callback
from kerasish.layers.core.embedding import Embedding
from kerasish.optimizers.optimizer import Optimizer


def _profile_range(profile_batch):
    """`(start, stop)` of the batches to profile from Keras's `profile_batch` forms."""
    message = ("profile_batch must be a non-negative integer or 2-tuple of positive integers. "
               "A pair of positive integers signifies a range of batches to profile. "
               f"Found: {profile_batch}")
    value = profile_batch
    if isinstance(value, str):
        value = [int(part) for part in value.split(",")]
        value = value[0] if len(value) == 1 else value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        start = stop = int(value)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        start, stop = (int(v) for v in value)
    else:
        raise ValueError(message)
    if start < 0 or stop < start:
        raise ValueError(message)
    return start, stop


class TensorBoard(Callback):
    """Writes what TensorBoard shows: curves, histograms, images, graph, embeddings.

    Run `tensorboard --logdir <log_dir>` to look at a run. Event files go to
    `<log_dir>/train` and `<log_dir>/validation`, with Keras's tags:
    `epoch_loss`, `epoch_<metric>`, `epoch_learning_rate` (train only), the
    validation values under the same tags in the validation run,
    `evaluation_<name>_vs_iterations` after each evaluation, and `batch_<name>`
    when `update_freq` is "batch" or N.

    Where kerasish differs from Keras 3.15.1 (on purpose; see docs/visualization.md):
    `update_freq=N` writes every N-th batch (Keras writes every batch), weight tags use
    the variable's path (`dense/kernel/histogram`, so two layers' kernels do not collide),
    the projector also gets each embedding as a TSV file that TensorBoard reads without
    TensorFlow, and `profile_batch` records a Python profile (`cProfile`) of those
    batches instead of a TensorFlow trace.

    Args:
        log_dir: the folder for this run's logs.
        histogram_freq: every this many epochs, write weight histograms (0: never).
        write_graph: write the model's conceptual graph (Functional and Sequential models).
        write_images: with histograms, also write 1-D/2-D/conv kernels as images.
        write_steps_per_second: log training steps per second (epoch and batch level).
        update_freq: "epoch", "batch" or an int N (every N batches).
        profile_batch: a batch index or a `(start, stop)` pair to profile (0: off);
            the profile goes to `<log_dir>/train/plugins/profile/batch_<start>_<stop>.pstats`.
        embeddings_freq: every this many epochs, save the `Embedding` layers' weights
            for TensorBoard's projector (0: never).
        embeddings_metadata: a file name (used for every embedding) or a dict
            `{layer_name: file}` of metadata (labels) files for the projector.

    Example:

    ```python
    import tempfile
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    logs = tempfile.mkdtemp()
    model.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=2, verbose=0,
              callbacks=[keras.callbacks.TensorBoard(log_dir=logs, histogram_freq=1)])
    ```
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0,
                 embeddings_freq=0, embeddings_metadata=None):
        super().__init__()
        summary.writer.import_tensorboard()  # fail early, naming the extra
        if update_freq != "epoch" and update_freq != "batch" and not (
                isinstance(update_freq, int) and update_freq > 0):
            raise ValueError("TensorBoard: `update_freq` must be 'epoch', 'batch' or a "
                             f"positive integer, got {update_freq!r}.")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._start_batch, self._stop_batch = _profile_range(profile_batch)
        self._profiler = None
        self._writers = {}
        self._global_train_batch = 0
        self._epoch_start_iterations = 0
        self._epoch_start_time = 0.0
        self._batch_start_time = 0.0

    # --- writers
    @property
    def _train_dir(self):
        return os.path.join(self.log_dir, "train")

    @property
    def _val_dir(self):
        return os.path.join(self.log_dir, "validation")

    def _writer(self, which):
        if which not in self._writers:
            folder = self._train_dir if which == "train" else self._val_dir
            self._writers[which] = summary.create_file_writer(folder)
        return self._writers[which]

    def _close_writers(self):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    # --- set-up
    def set_model(self, model):
        """Stores the model; writes its graph and the projector config when asked."""
        super().set_model(model)
        self._close_writers()
        if self.write_graph and type(model).__name__ in ("Functional", "Sequential"):
            with self._writer("train").as_default(step=0):
                summary.keras_model("keras", model, step=0)
        if self.embeddings_freq:
            self._write_projector_config()

    def _embedding_layers(self):
        return [layer for layer in self.model.layers if isinstance(layer, Embedding)]

    def _metadata_for(self, layer, unused):
        if self.embeddings_metadata is None:
            return None
        if isinstance(self.embeddings_metadata, str):
            return self.embeddings_metadata
        unused.discard(layer.name)
        return self.embeddings_metadata.get(layer.name)

    def _write_projector_config(self):
        try:  # optional dependency: the `tensorboard` extra (protobuf comes with it)
            from google.protobuf import text_format
            from tensorboard.plugins.projector import projector_config_pb2
        except ImportError as err:
            raise ImportError(f"{summary.writer._EXTRA_HINT} ({err})") from None
        config = projector_config_pb2.ProjectorConfig()
        unused = set(self.embeddings_metadata) if isinstance(self.embeddings_metadata,
                                                             dict) else set()
        for layer in self._embedding_layers():
            entry = config.embeddings.add()
            entry.tensor_name = f"{layer.name}/embeddings"
            entry.tensor_path = os.path.join("train", f"{layer.name}_embeddings.tsv")
            metadata = self._metadata_for(layer, unused)
            if metadata:
                entry.metadata_path = metadata
        if unused:
            raise ValueError("Unrecognized `Embedding` layer names passed to "
                             "`keras.callbacks.TensorBoard` `embeddings_metadata` argument: "
                             f"{sorted(unused)}")
        os.makedirs(self.log_dir, exist_ok=True)
        with open(os.path.join(self.log_dir, "projector_config.pbtxt"), "w") as f:
            f.write(text_format.MessageToString(config))

    # --- training
    def on_train_begin(self, logs=None):
        self._global_train_batch = 0

    def on_train_end(self, logs=None):
        self._stop_profile()
        self._close_writers()

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._epoch_start_iterations = self._iterations()
            self._epoch_start_time = time.time()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.write_steps_per_second:
            self._batch_start_time = time.time()
        if self._start_batch and self._global_train_batch == self._start_batch:
            self._profiler = cProfile.Profile()
            self._profiler.enable()

    def on_train_batch_end(self, batch, logs=None):
        if self._profiler is not None and self._global_train_batch >= self._stop_batch:
            self._stop_profile()
        if self.update_freq == "epoch" or self._global_train_batch % self.update_freq:
            return
        step = self._global_train_batch
        with self._writer("train").as_default(step=step):
            if self.write_steps_per_second:
                elapsed = max(time.time() - self._batch_start_time, 1e-12)
                summary.scalar("batch_steps_per_second", 1.0 / elapsed)
            for name, value in (logs or {}).items():
                summary.scalar("batch_" + name, _scalar(value))

    def _stop_profile(self):
        if self._profiler is None:
            return
        self._profiler.disable()
        folder = os.path.join(self._train_dir, "plugins", "profile")
        os.makedirs(folder, exist_ok=True)
        self._profiler.dump_stats(
            os.path.join(folder, f"batch_{self._start_batch}_{self._stop_batch}.pstats"))
        self._profiler = None

    def on_epoch_end(self, epoch, logs=None):
        self._log_epoch_metrics(epoch, logs or {})
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            self._log_embeddings(epoch)

    def on_test_end(self, logs=None):
        optimizer = getattr(self.model, "optimizer", None)
        if not logs or optimizer is None or not hasattr(optimizer, "iterations"):
            return
        with self._writer("val").as_default(step=self._iterations()):
            for name, value in logs.items():
                summary.scalar(f"evaluation_{name}_vs_iterations", _scalar(value))

    # --- what is written
    def _iterations(self):
        return int(np.asarray(getattr(self.model.optimizer.iterations, "numpy",
                                      lambda: self.model.optimizer.iterations)()))

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        optimizer = getattr(self.model, "optimizer", None)
        if isinstance(optimizer, Optimizer):
            train_logs["learning_rate"] = float(np.asarray(
                getattr(optimizer.learning_rate, "numpy", lambda: optimizer.learning_rate)()))
        if self.write_steps_per_second:
            elapsed = max(time.time() - self._epoch_start_time, 1e-12)
            train_logs["steps_per_second"] = (
                self._iterations() - self._epoch_start_iterations) / elapsed
        for which, values in (("train", train_logs), ("val", val_logs)):
            if values:
                with self._writer(which).as_default(step=epoch):
                    for name, value in values.items():
                        summary.scalar("epoch_" + name, _scalar(value))

    def _log_weights(self, epoch):
        with self._writer("train").as_default(step=epoch):
            for layer in self.model.layers:
                for weight in layer.weights:
                    tag = weight.path.replace(":", "_")
                    summary.histogram(f"{tag}/histogram", weight)
                    if self.write_images:
                        _log_weight_as_image(weight, f"{tag}/image")

    def _log_embeddings(self, epoch):
        self.model.save_weights(os.path.join(
            self._train_dir, f"keras_embedding.ckpt-{epoch}.weights.h5"))
        for layer in self._embedding_layers():
            path = os.path.join(self._train_dir, f"{layer.name}_embeddings.tsv")
            np.savetxt(path, np.asarray(layer.embeddings.numpy()), delimiter="\t", fmt="%.8g")


def _scalar(value):
    return np.asarray(getattr(value, "numpy", lambda: value)())


def _log_weight_as_image(weight, tag):
    """A kernel as an image, as Keras lays it out (bias: a row; dense: a matrix; conv
    1-D/2-D: one image per output channel); other shapes are skipped."""
    image = np.squeeze(np.asarray(weight.numpy()))
    if image.ndim == 1:
        image = image.reshape(1, image.shape[0], 1, 1)
    elif image.ndim == 2:
        if image.shape[0] > image.shape[1]:
            image = image.T
        image = image.reshape(1, image.shape[0], image.shape[1], 1)
    elif image.ndim == 3:
        image = np.transpose(image, (2, 0, 1))[..., None]
    if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
        summary.image(tag, image)
