"""Module: TensorFlow's ``tf.Module``, a container that finds the variables it holds.

A model written as ``class Dense(tf.Module)`` keeps its weights as attributes; the optimizer
loop asks ``model.trainable_variables``. The properties walk the object's attributes (and the
lists, tuples, dicts and sub-modules in them), in attribute-name order as TensorFlow does,
each variable once.
"""

from __future__ import annotations

from finegrad._src.variables import Variable



class Module:
    """A named container of variables and sub-modules (``tf.Module``).

    >>> import finegrad as fg
    >>> class Dense(fg.Module):
    ...     def __init__(self, n_in, n_out):
    ...         super().__init__(name="dense")
    ...         self.w = fg.Variable(fg.ones((n_in, n_out)), name="w")
    ...         self.b = fg.Variable(fg.zeros((n_out,)), name="b", trainable=False)
    ...     def __call__(self, x):
    ...         return fg.matmul(x, self.w) + self.b
    >>> layer = Dense(2, 3)
    >>> [v.name for v in layer.trainable_variables], len(layer.variables)
    (['w:0'], 2)
    """

    def __init__(self, name: str | None = None) -> None:
        self._name = type(self).__name__.lower() if name is None else name

    @property
    def name(self) -> str:
        return self._name

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every Variable held by this module and its sub-modules, each once."""
        return tuple(_walk(self, Variable))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The variables with ``trainable=True`` (what an optimizer updates)."""
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        return tuple(v for v in self.variables if not v.trainable)

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every Module held by this one (recursively), each once."""
        return tuple(_walk(self, Module))


def _walk(module, kind):
    """The objects of ``kind`` reachable from ``module``'s attributes, depth first."""
    out, seen = [], {id(module)}

    def visit(x):
        if isinstance(x, (list, tuple)):
            for v in x:
                visit(v)
        elif isinstance(x, dict):
            for k in sorted(x, key=str):
                visit(x[k])
        elif isinstance(x, (Variable, Module)) and id(x) not in seen:
            seen.add(id(x))
            if isinstance(x, kind):
                out.append(x)
            if isinstance(x, Module):
                for k in sorted(vars(x)):
                    visit(vars(x)[k])

    for k in sorted(vars(module)):
        visit(vars(module)[k])
    return out
