"""``keras.backend``: the global settings real code reads (``epsilon``, ``floatx``,
``image_data_format``) and `clear_session`."""
from typing import Any

import random

import numpy as np

from finegrad._src.keras import dtype_policies, naming, nodes
from finegrad._src.keras.dtype_policies import _settings, floatx, set_floatx  # noqa: F401
from finegrad._src.ops.random.sampling import set_seed


def epsilon() -> Any:
    """The fuzz factor numerical code adds to avoid dividing by zero (1e-7).

    >>> import finegrad as tf
    >>> tf.keras.backend.epsilon()
    1e-07
    """
    return _settings["epsilon"]


def set_epsilon(value: Any) -> Any:
    """Set the value `epsilon` returns."""
    _settings["epsilon"] = float(value)


def image_data_format() -> Any:
    """``"channels_last"`` (the default) or ``"channels_first"``.

    >>> import finegrad as tf
    >>> tf.keras.backend.image_data_format()
    'channels_last'
    """
    return _settings["image_data_format"]


def set_image_data_format(data_format: Any) -> Any:
    """Set the default data format of the image layers."""
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', "
                         f"'channels_last'}}. Received: data_format={data_format}")
    _settings["image_data_format"] = str(data_format)


def clear_session(free_memory: Any = True) -> Any:
    """Forget the layer names made so far (the next Dense is ``dense`` again) and the
    symbolic tensors of the functional API.

    >>> import finegrad as tf
    >>> tf.keras.backend.clear_session()
    >>> tf.keras.layers.Layer().name
    'layer'
    """
    naming.reset()
    nodes.reset()
    dtype_policies.set_global_policy(None)


def backend() -> Any:
    """The name of the engine: ``"finegrad"``."""
    return "finegrad"


def is_keras_tensor(x: Any) -> Any:
    return nodes.is_keras_tensor(x)


def set_random_seed(seed: Any) -> Any:
    """Seed Python's, NumPy's and finegrad's random generators (``keras.utils``).

    >>> import finegrad as tf
    >>> tf.keras.utils.set_random_seed(0)
    """
    random.seed(seed)
    np.random.seed(seed)
    set_seed(seed)
