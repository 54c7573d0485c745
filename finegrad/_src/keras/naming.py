"""Layer and model names as Keras makes them: the class name in snake case, made unique per
session (``dense``, ``dense_1``, ...); `clear_session` starts the counts again."""
import re

_counts: dict[str, int] = {}


def to_snake_case(name):
    """``"MyDense2D"`` -> ``"my_dense2d"`` (Keras's conversion).

    >>> from finegrad._src.keras.naming import to_snake_case
    >>> to_snake_case("BatchNormalization"), to_snake_case("LSTM")
    ('batch_normalization', 'lstm')
    """
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def unique_name(base):
    """``base`` the first time, then ``base_1``, ``base_2``, ..."""
    n = _counts.get(base, 0)
    _counts[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def auto_name(class_name):
    return unique_name(to_snake_case(class_name))


def reset():
    _counts.clear()
