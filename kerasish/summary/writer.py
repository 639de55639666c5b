"""Summary writers and the default-writer stack (`tf.summary.create_file_writer`)."""
import contextlib
import os
import threading
import time

_EXTRA_HINT = ('kerasish.summary and callbacks.TensorBoard need the `tensorboard` package: '
               'pip install "kerasish[tensorboard]"')


def import_tensorboard():
    """The `tensorboard` modules the writers need, or an ImportError naming the extra.

    Returns:
        (event_file_writer module, event_pb2 module, summary_pb2 module).
    """
    try:  # optional dependency: only users of TensorBoard need it
        from tensorboard.compat.proto import event_pb2, summary_pb2
        from tensorboard.summary.writer import event_file_writer
    except ImportError as err:
        raise ImportError(f"{_EXTRA_HINT} ({err})") from None
    return event_file_writer, event_pb2, summary_pb2


class _State(threading.local):
    def __init__(self):
        self.writers = []      # (writer, step) pairs, innermost last
        self.record_if = []    # predicates, innermost last


_state = _State()


class SummaryWriter:
    """Writes summaries into one run folder of TensorBoard event files.

    Create it with `create_file_writer`; use it as the default writer with
    `with writer.as_default(step=...)`, or pass it to the summary functions.

    Args:
        logdir: the run folder (created if missing).
        max_queue: events buffered before a write.
        flush_millis: the longest time an event waits in the buffer.
        filename_suffix: appended to the event file's name.

    Example:

    ```python
    import tempfile
    writer = keras.summary.create_file_writer(tempfile.mkdtemp())
    with writer.as_default(step=3):
        keras.summary.scalar("loss", 0.5)
    writer.close()
    ```
    """

    def __init__(self, logdir, max_queue=10, flush_millis=120_000, filename_suffix=""):
        event_file_writer, self._event_pb2, _ = import_tensorboard()
        self.logdir = os.fspath(logdir)
        os.makedirs(self.logdir, exist_ok=True)
        self._writer = event_file_writer.EventFileWriter(
            self.logdir, max_queue_size=max_queue, flush_secs=max(1, flush_millis // 1000),
            filename_suffix=filename_suffix)
        self._closed = False

    def write_summary(self, summary, step):
        """Appends one `Summary` protobuf as an event at `step`.

        Args:
            summary: a `tensorboard.compat.proto.summary_pb2.Summary`.
            step: the int step.
        """
        if self._closed:
            raise RuntimeError(f"SummaryWriter for {self.logdir!r} is closed.")
        event = self._event_pb2.Event(wall_time=time.time(), step=int(step), summary=summary)
        self._writer.add_event(event)

    @contextlib.contextmanager
    def as_default(self, step=None):
        """Makes this writer the default for the summary functions inside the block.

        Args:
            step: the default step for summaries written without one.

        Returns:
            a context manager yielding the writer.
        """
        _state.writers.append([self, step])
        try:
            yield self
        finally:
            _state.writers.pop()
            self.flush()

    def set_as_default(self, step=None):
        """Makes this writer the default until another one is set (no context)."""
        _state.writers.append([self, step])

    def flush(self):
        """Writes buffered events to disk."""
        if not self._closed:
            self._writer.flush()

    def close(self):
        """Flushes and closes the event file; later writes raise."""
        if not self._closed:
            self._writer.close()
            self._closed = True


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None):
    """A `SummaryWriter` for `logdir` (TensorFlow's `tf.summary.create_file_writer`).

    Args:
        logdir: the run folder.
        max_queue: events buffered before a write (default 10).
        flush_millis: the longest time an event stays buffered (default 2 minutes).
        filename_suffix: appended to the event file's name.
        name: accepted for compatibility; unused.

    Returns:
        a `SummaryWriter`.

    Example:
        >>> writer = keras.summary.create_file_writer("logs/run1")
    """
    del name
    return SummaryWriter(logdir, max_queue=10 if max_queue is None else max_queue,
                         flush_millis=120_000 if flush_millis is None else flush_millis,
                         filename_suffix=filename_suffix or "")


def default_writer():
    """The innermost default `SummaryWriter` and its step, or (None, None)."""
    if not _state.writers:
        return None, None
    writer, step = _state.writers[-1]
    return writer, step


def get_step():
    """The default step of the innermost default writer (None when unset)."""
    return default_writer()[1]


def set_step(step):
    """Sets the default step of the innermost default writer.

    Args:
        step: an int.
    """
    if not _state.writers:
        raise ValueError("kerasish.summary.set_step: no default writer; use "
                         "`with writer.as_default():` first.")
    _state.writers[-1][1] = int(step)


@contextlib.contextmanager
def record_if(condition):
    """Writes summaries inside the block only while `condition` holds.

    Args:
        condition: a bool or a callable returning one, checked at each write.

    Returns:
        a context manager.
    """
    _state.record_if.append(condition)
    try:
        yield
    finally:
        _state.record_if.pop()


def should_record():
    """True unless an enclosing `record_if` says otherwise."""
    for condition in _state.record_if:
        if not (condition() if callable(condition) else condition):
            return False
    return True


def flush(writer=None):
    """Flushes `writer` (default: the default writer)."""
    writer = writer or default_writer()[0]
    if writer is not None:
        writer.flush()
