"""`CSVLogger`: one row of logs per epoch in a CSV file."""
from typing import Any

import collections.abc
import csv
import os

import numpy as np

from finegrad._src.keras.callbacks.base import Callback


def _cell(value):
    if isinstance(value, str):
        return value
    if isinstance(value, collections.abc.Iterable) and not (
            isinstance(value, np.ndarray) and value.ndim == 0):
        return f'"[{", ".join(map(str, value))}]"'
    return value


class CSVLogger(Callback):
    """Write ``epoch`` and the epoch's logs (columns in sorted order, ``val_`` ones added
    when absent) to ``filename``.

    Args:
        filename: the CSV file.
        separator: the field separator.
        append: append to an existing file (its header kept) instead of overwriting.

    >>> import finegrad as tf
    >>> tf.keras.callbacks.CSVLogger("log.csv").sep
    ','
    """

    def __init__(self, filename: Any, separator: Any = ",", append: Any = False) -> None:
        super().__init__()
        self.sep, self.filename, self.append = separator, os.fspath(filename), append
        self.writer: Any = None
        self.keys: Any = None
        self.csv_file: Any = None
        self.append_header = True

    def on_train_begin(self, logs: Any = None) -> Any:
        if self.append and os.path.exists(self.filename):
            with open(self.filename) as f:
                self.append_header = not bool(len(f.readline()))
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, "a" if self.append else "w", newline="")
        self.writer, self.keys = None, None

    def on_epoch_end(self, epoch: Any, logs: Any = None) -> Any:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys += [f"val_{k}" for k in self.keys]
        if self.writer is None:
            dialect = type("Dialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=dialect)
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((k, _cell(logs.get(k, "NA"))) for k in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: Any = None) -> Any:
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None
