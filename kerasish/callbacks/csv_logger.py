"""`CSVLogger`: stream the epoch logs of `fit` to a CSV file."""
import collections.abc
import csv
import os

import numpy as np

from kerasish.callbacks.callback import Callback


def _cell(value):
    """How one log value is written: strings as they are, iterables as
    `"[a, b]"`, numbers with Python's full `repr` (numpy scalars become
    Python numbers first, so float32 values print like Keras's)."""
    if isinstance(value, str):
        return value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, collections.abc.Iterable):
        return f'"[{", ".join(map(str, value))}]"'
    return value


class CSVLogger(Callback):
    """Writes one CSV row per epoch: `epoch` (0-based) then the log keys.

    The columns are `epoch` plus the first epoch's keys in alphabetical
    order; if that epoch had no `val_*` keys, `val_` columns are added for
    every key (rows then show `NA` where a value is missing). The file is
    opened at train begin, flushed after every row and closed at train end.
    Rows end with `\\r\\n` (Python's csv "excel" dialect, as in Keras).

    Args:
        filename: path of the CSV file, e.g. "run/log.csv".
        separator: string placed between fields. Defaults to ",".
        append: True appends to an existing file (the header is written only
            if the file is empty); False overwrites it.

    Example:

    ```python
    csv_logger = keras.callbacks.CSVLogger("training.log")
    # model.fit(x, y, callbacks=[csv_logger])
    # training.log:
    # epoch,accuracy,loss,val_accuracy,val_loss
    # 0,0.4583333432674408,0.8321660161018372,0.4375,0.8535296320915222
    ```
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not f.readline()
            mode = "a"
        self._close()
        self.csv_file = open(self.filename, mode)
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = self._columns(logs)
        if self.writer is None:
            self.writer = self._make_writer()
        row = {"epoch": epoch}
        row.update((key, _cell(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        self._close()
        self.writer = None

    @staticmethod
    def _columns(logs):
        """Sorted log keys, plus `val_` twins when there are no `val_` keys."""
        keys = sorted(logs.keys())
        if keys and not any(key.startswith("val_") for key in keys):
            keys.extend(["val_" + key for key in keys])
        return keys

    def _make_writer(self):
        """A DictWriter on the open file; writes the header if needed."""

        class Dialect(csv.excel):
            delimiter = self.sep

        writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                dialect=Dialect)
        if self.append_header:
            writer.writeheader()
        return writer

    def _close(self):
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
