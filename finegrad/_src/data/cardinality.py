"""The cardinality of a ``finegrad.data`` dataset: a count, or ``INFINITE_CARDINALITY`` (-1)
or ``UNKNOWN_CARDINALITY`` (-2) as in ``tf.data``, and ``AUTOTUNE``."""


class DataConstant(int):
    """An int constant of ``tf.data`` (``AUTOTUNE`` and the cardinalities): a plain int
    that says where it comes from."""


AUTOTUNE = DataConstant(-1)
INFINITE_CARDINALITY = DataConstant(-1)
UNKNOWN_CARDINALITY = DataConstant(-2)


def add_card(a, b):
    if INFINITE_CARDINALITY in (a, b):
        return INFINITE_CARDINALITY
    if UNKNOWN_CARDINALITY in (a, b):
        return UNKNOWN_CARDINALITY
    return a + b
