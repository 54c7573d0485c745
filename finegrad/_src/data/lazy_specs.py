"""Element specs computed when first asked, so that a lazy dataset stays lazy: that of a
mapped dataset's first element (`LazySpec`), or one computed from the source's (`SpecMap`)."""
from typing import Any

from finegrad._src.data import structure
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.graph.tracing.builder import TensorSpec


class LazySpec:
    """The element spec of a mapped dataset: that of its first element (computed when
    asked), its first dimension relaxed to None where the input's was unknown."""

    def __init__(self, source: Any, make: Any) -> None:
        self.source, self.make = source, make

    def resolve(self) -> Any:
        first = _first_element(iter(self.make()))
        if first is None:
            raise InvalidArgumentError("Dataset.element_spec: the mapped dataset is empty, so "
                                       "its element spec cannot be computed")
        spec = structure.spec_of(first)
        leading_unknown = any(isinstance(getattr(s, "shape", None), tuple) and s.shape and
                              s.shape[0] is None
                              for s in structure.flatten(self.source.element_spec))
        if leading_unknown:
            spec = structure.map_structure(
                lambda s: TensorSpec((None,) + s.shape[1:], s.dtype) if s.shape else s, spec)
        return spec


def _first_element(it: Any, tries: int = 1000) -> Any:
    """The first element that computes (None if there is none): an element that raised in
    a stage that resumes is passed over, as ``tf.data``'s traced spec does not depend on
    values; the first error is raised when no element computes."""
    error = None
    for _ in range(tries):
        try:
            return next(it)
        except StopIteration:
            break
        except Exception as e:   # (re-raised below when nothing else computes)
            error = error or e
            if getattr(it, "broken", True):
                break
    if error is not None:
        raise error
    return None


class SpecMap:
    """A spec computed from the source's, when first asked (so a lazy source stays lazy)."""

    def __init__(self, source: Any, fn: Any) -> None:
        self.source, self.fn = source, fn

    def resolve(self) -> Any:
        return self.fn(self.source.element_spec)
