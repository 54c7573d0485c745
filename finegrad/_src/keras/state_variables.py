"""The one place optimizers and metrics create the variables their state lives in:
non-trainable finegrad Variables made out of any trace (`init_scope`), so a step traced by
`finegrad.function` reads and updates them at each call.

(Keras 3's variables also have a ``value`` property and a ``path``; when the Keras layer
machinery's variable class is merged in, ``state_variable`` is the function to switch to it.)
"""
from typing import Any

from finegrad._src.api.contexts import init_scope
from finegrad._src.variables import Variable


def state_variable(value: Any, name: str | None) -> Any:
    """A non-trainable Variable holding ``value`` (a tensor, an array or a number), named
    ``name``, created eagerly even inside a trace.

    >>> from finegrad._src.keras.state_variables import state_variable
    >>> v = state_variable(0., "adam/iteration")
    >>> v.trainable, v.name
    (False, 'adam/iteration:0')
    """
    with init_scope():
        return Variable(value, trainable=False, name=name)
