"""Whole-model files: ``model.save("m.keras")`` and ``keras.saving.load_model``, in Keras 3's
``.keras`` format, so that files move between finegrad and Keras 3 both ways.

A ``.keras`` file is a zip archive of three members:

- ``metadata.json``: ``{"keras_version", "date_saved"}`` (finegrad writes the Keras version
  whose format it follows, and ``"saved_by": "finegrad"``);
- ``config.json``: `serialize_keras_object` of the model: its class, its config (layers and
  their connections), ``build_config`` and, for a compiled model, ``compile_config``;
- ``model.weights.h5``: the variables in the ``.weights.h5`` layout of `saving` (each layer's
  under its path, a built optimizer's under ``optimizer``); HDF5 needs h5py.

``zipped=False`` writes the same three files into a directory. Loading rebuilds the model
from the config (custom classes from ``custom_objects`` or the registry: no code is stored),
compiles it and builds its optimizer when the file says it was compiled, then assigns the
weights. Keras 2's legacy HDF5 whole-model files (``.h5``) are not supported.
"""
from __future__ import annotations

import datetime
import io
import json
import os
import zipfile
from typing import Any

from finegrad._src.keras import registration, saving
from finegrad._src.keras.object_serialization import (deserialize_keras_object, json_default,
                                                      serialize_keras_object)

_CONFIG, _METADATA, _WEIGHTS = "config.json", "metadata.json", "model.weights.h5"
KERAS_FORMAT_VERSION = "3.15.1"   # the Keras release whose .keras layout this follows


def _require_h5py(where: str) -> Any:
    h5py = saving.h5py_module()
    if h5py is None:
        raise ImportError(f"{where}: the weights of a `.keras` file are HDF5 "
                          f"(model.weights.h5), which needs h5py: pip install h5py (or the "
                          f"extra finegrad[keras])")
    return h5py


def _check_suffix(filepath: str, where: str) -> None:
    if filepath.endswith((".h5", ".hdf5")):
        raise ValueError(f"{where}: Keras 2's legacy HDF5 whole-model format (`.h5`) is not "
                         f"supported by finegrad.keras; save as `.keras` (Keras 3's format), "
                         f"or weights only with `.weights.h5`. Received: filepath={filepath}")
    if not filepath.endswith(".keras"):
        raise ValueError(f"{where}: invalid filepath extension for saving. Please add a "
                         f"`.keras` extension (Keras 3's format). Received: "
                         f"filepath={filepath}")


def _members(model: Any, h5py: Any) -> dict[str, bytes]:
    config = json.dumps(serialize_keras_object(model), default=json_default)
    metadata = json.dumps({"keras_version": KERAS_FORMAT_VERSION, "saved_by": "finegrad",
                           "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")})
    weights = io.BytesIO()
    saving.write_h5(h5py, weights, saving.collect(model))
    return {_METADATA: metadata.encode(), _CONFIG: config.encode(),
            _WEIGHTS: weights.getvalue()}


def save_model(model: Any, filepath: Any, overwrite: bool = True, zipped: Any = None,
               **kwargs: Any) -> None:
    """Save ``model`` whole (config, weights, compile config, optimizer state) in Keras 3's
    ``.keras`` format.

    Args:
        model: the model.
        filepath: a path ending in ``.keras``.
        overwrite: whether to replace an existing file without asking.
        zipped: False writes the archive's members into a directory ``filepath``.

    Raises:
        ValueError: for another suffix (``.h5``: Keras 2's legacy format is not supported).
        ImportError: without h5py.

    >>> import finegrad as tf
    >>> model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    >>> try:
    ...     tf.keras.saving.save_model(model, "model.h5")
    ... except ValueError as e:
    ...     print(str(e)[:73])
    keras.saving.save_model: Keras 2's legacy HDF5 whole-model format (`.h5`)
    """
    if kwargs.pop("save_format", None) not in (None, "keras") or kwargs:
        raise ValueError(f"keras.saving.save_model: unsupported arguments {kwargs}; only the "
                         f"`.keras` format is written")
    filepath = os.fspath(filepath)
    _check_suffix(filepath, "keras.saving.save_model")
    h5py = _require_h5py("keras.saving.save_model")
    if not overwrite and os.path.exists(filepath):
        answer = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip()
        if answer.lower() not in ("y", "yes"):
            return
    members = _members(model, h5py)
    if zipped is False:
        os.makedirs(filepath, exist_ok=True)
        for name, data in members.items():
            with open(os.path.join(filepath, name), "wb") as f:
                f.write(data)
        return
    with zipfile.ZipFile(filepath, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def _read_members(filepath: str) -> dict[str, bytes]:
    if os.path.isdir(filepath):
        return {name: open(os.path.join(filepath, name), "rb").read()
                for name in os.listdir(filepath)
                if os.path.isfile(os.path.join(filepath, name))}
    if not zipfile.is_zipfile(filepath):
        raise ValueError(f"keras.saving.load_model: {filepath} is not a `.keras` zip archive")
    with zipfile.ZipFile(filepath) as zf:
        return {name: zf.read(name) for name in zf.namelist() if not name.endswith("/")}


def load_model(filepath: Any, custom_objects: Any = None, compile: bool = True,
               safe_mode: bool = True) -> Any:
    """The model a ``.keras`` file (finegrad's or Keras 3's) holds: rebuilt from its config,
    compiled as it was (``compile=True``), its weights and optimizer state loaded.

    Raises:
        ValueError: for a missing file, another format, or weights that do not fit.
        TypeError: for a custom class neither registered nor in ``custom_objects``.
        ImportError: without h5py.

    >>> import finegrad as tf
    >>> try:
    ...     tf.keras.saving.load_model("no_such_model.keras")
    ... except ValueError as e:
    ...     print(str(e)[:46])
    File not found: filepath=no_such_model.keras.
    """
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an "
                         f"accessible `.keras` zip file.")
    if filepath.endswith((".h5", ".hdf5")) and not os.path.isdir(filepath):
        _check_suffix(filepath, "keras.saving.load_model")
    members = _read_members(filepath)
    if _CONFIG not in members:
        raise ValueError(f"keras.saving.load_model: {filepath} has no {_CONFIG}")
    if _WEIGHTS not in members and "model.weights.npz" in members:
        raise ValueError("keras.saving.load_model: the archive's weights are Keras's `.npz` "
                         "store (pickled objects), which finegrad does not read; save with "
                         "the default HDF5 weights")
    config = json.loads(members[_CONFIG])
    with registration.CustomObjectScope(custom_objects):
        model = deserialize_keras_object(config, custom_objects, safe_mode, compile=compile)
    if _WEIGHTS in members:
        h5py = _require_h5py("keras.saving.load_model")
        saving.assign(model, saving.read_h5(h5py, io.BytesIO(members[_WEIGHTS])))
    return model


def model_from_json(json_string: str, custom_objects: Any = None) -> Any:
    """A new model (new weights) from `Model.to_json`'s string.

    >>> import finegrad as tf
    >>> model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3)])
    >>> again = tf.keras.models.model_from_json(model.to_json())
    >>> [type(layer).__name__ for layer in again.layers], again.output_shape
    (['Dense'], (None, 3))
    """
    with registration.CustomObjectScope(custom_objects):
        return deserialize_keras_object(json.loads(json_string), custom_objects)
