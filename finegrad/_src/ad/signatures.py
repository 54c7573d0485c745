"""What custom_gradient learns from a function's signature: whether a ``grad_fn`` takes
``variables``, how many positional arguments it takes, and the parameter names that error
messages use. Facts of plain functions are cached per code object (a ``grad_fn`` is a fresh
closure on every call, but its parameters are its code's)."""
import inspect
import types
import weakref


def _accepts_variables(fn):
    return _signature_facts(fn)[0]


def _positional_count(fn):
    """How many positional arguments ``fn`` takes exactly, or None when it takes any number
    (``*args``) or its signature is unknown."""
    return _signature_facts(fn)[1]


def _signature_facts(fn):
    """(whether ``fn`` takes ``variables``, `_positional_count`) from its signature; cached
    per code object for plain functions: a grad_fn is a fresh closure on every call, but
    its parameters' names and kinds are its code's."""
    if type(fn) is types.FunctionType and "__wrapped__" not in fn.__dict__ and \
            "__signature__" not in fn.__dict__:
        facts = _FACTS.get(fn.__code__)
        if facts is None:
            facts = _FACTS[fn.__code__] = _inspect_facts(fn)
        return facts
    return _inspect_facts(fn)


def _inspect_facts(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True, None
    accepts = any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return accepts, None
    return accepts, sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                        and p.name != "variables" for p in params)


# code object -> _signature_facts of its functions
_FACTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _param_names(f, n):
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        if i < len(params) and params[i].kind is not params[i].VAR_POSITIONAL:
            names.append(params[i].name)
        elif params and params[-1].kind is params[-1].VAR_POSITIONAL:
            names.append(f"{params[-1].name}[{i - len(params) + 1}]")
        else:
            names.append(f"argument {i}")
    return names
