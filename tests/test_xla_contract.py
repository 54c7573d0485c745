"""The lowering contract of `Primitive` (``lower_jax=`` / ``def_lowering``): what
`function(jit_compile=True)` reads to lower a primitive to XLA through JAX. Needs no JAX."""
import pytest

from finegrad._src import core
from finegrad._src.core import Primitive


@pytest.fixture
def fresh_primitive():
    made = []

    def make(name, **kw):
        p = Primitive(name, **kw)
        made.append(name)
        return p
    yield make
    for name in made:
        core._PRIMITIVES.pop(name, None)


def test_lower_jax_keyword_and_default(fresh_primitive):
    assert fresh_primitive("test_xla_contract_none").lower_jax is None
    assert fresh_primitive("test_xla_contract_str", lower_jax="lax.erf_inv").lower_jax == \
        "lax.erf_inv"


def test_def_lowering_sets_and_returns_the_function(fresh_primitive):
    p = fresh_primitive("test_xla_contract_deco")

    @p.def_lowering
    def _lower(x, *, k):
        return x * k

    assert p.lower_jax is _lower
    assert _lower(3, k=2) == 6
