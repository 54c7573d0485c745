"""``finegrad check``: sweep a custom gradient over a range from the command line.

Exit status: 0 when the rule agrees everywhere it must, 1 when it does not, 2 for usage
errors (a target that cannot be found or imported, or is not a function; bad options).
"""
import argparse
import difflib
import importlib
import importlib.util
import json
import os
import sys

import numpy as np

from finegrad._src.ad.tape import GradientTape
from finegrad._src.ad.linearity import NotLinearError
from finegrad._src.testing.frameworks import detect, ops_rules
from finegrad._src.testing.sweep import MAX_POINTS, input_names
from finegrad._src.testing.sweep_plan import sweep
from finegrad._src.testing.sweep_vector import input_shapes
from finegrad._src.tensor import Tensor

USAGE_ERROR = 2


class UsageError(Exception):
    """A command-line mistake; its message says what could not be found or understood."""


def _parser():
    p = argparse.ArgumentParser(
        prog="finegrad check",
        description="Check a custom gradient over a whole range: its reverse- and forward-mode "
                    "derivatives against float64 finite differences and against the plain "
                    "autodiff of a reference. Exit status 0: the rule agrees; 1: it does not; "
                    "2: usage error.")
    p.add_argument("target", help="the function: path/to/file.py:name or package.module:name")
    p.add_argument("--reference", metavar="REF",
                   help="a plain function computing the same value (same forms as TARGET); "
                        "default: TARGET's forward computation without its rule")
    p.add_argument("--range", default="-10:10", metavar="LO:HI", help="default -10:10")
    p.add_argument("--points", type=int, default=1001, metavar="N",
                   help="points per input (default 1001)")
    p.add_argument("--scale", choices=["linear", "symlog"], default="linear")
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    p.add_argument("--order", type=int, choices=[1, 2], default=1)
    p.add_argument("--modes", default="rev,fwd", help="rev, fwd or both (default rev,fwd)")
    p.add_argument("--rtol", type=float, default=None,
                   help="relative tolerance (default 1e-3 for float32, 1e-6 for float64)")
    p.add_argument("--framework", choices=["finegrad", "torch", "jax", "tensorflow", "keras",
                                           "numpy"],
                   default=None, help="what TARGET (and REF) are written for (default: found "
                   "from the function; keras: the backend Keras runs on)")
    p.add_argument("--backend", choices=["finegrad", "jax", "torch", "tensorflow"],
                   default=None, help="run TARGET (and REF) on this finegrad.ops backend "
                   "(default for a finegrad.ops.custom_gradient function: the active one)")
    p.add_argument("--expect-deviation", metavar="EXPR", default=None,
                   help="where the rule deviates on purpose, e.g. 'x<0' (intended, not checked)")
    p.add_argument("--shape", metavar="S", default=None,
                   help="array inputs: one shape for every input (3,4) or one per input "
                   "(3,4;4); () for scalars; default: scalars, or (3,) for a function that is "
                   "not elementwise on vectors")
    p.add_argument("--elements", metavar="E", default=None,
                   help="with array inputs, also sweep these elements each over the range: "
                   "'all', or indices separated by ';' (5;7 or 0,1;2,3)")
    p.add_argument("--lines", type=int, metavar="N", default=None,
                   help="with array inputs, the number of random lines (default 2, 0 with "
                   "--elements)")
    p.add_argument("--plot", metavar="FILE", help="draw the sweep to FILE (.png, .svg, .pdf)")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON to FILE")
    p.add_argument("--html", metavar="FILE", help="write the report as one HTML page to FILE, "
                   "with the picture inline when matplotlib is installed")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    return p


def main(argv=None):
    """Run ``finegrad check`` with ``argv`` (default: the command line); return the status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = _parser().parse_args(_join_negative_values(argv))
    except SystemExit as e:          # argparse has printed its message (or --help)
        return e.code
    try:
        options = _options(args)
        f = load_function(args.target, "TARGET")
        ref = load_function(args.reference, "REF") if args.reference else None
        n = len(input_names(f))
        options["framework"] = _framework(f, args, n)
        options["deviation"] = args.expect_deviation
        options["backend"] = args.backend
        if ref is not None:
            options["reference_framework"] = _framework(ref, args, n)
        if options["framework"] == "finegrad" and args.backend is None:
            _try_call(f, f, args.target, "TARGET", options)
        if ref is not None and options["reference_framework"] == "finegrad" and \
                args.backend is None:
            _try_call(ref, f, args.reference, "REF", options)
    except UsageError as e:
        print(f"finegrad check: {e}", file=sys.stderr)
        return USAGE_ERROR
    long_sweep = options["points"] >= 1000 or options["order"] == 2
    try:
        report = sweep(f, ref, progress=("auto" if long_sweep and not args.quiet else False),
                       **options)
    except (Exception, SystemExit) as e:  # e.g. a rule that works in reverse mode only
        print(f"finegrad check: the sweep of {args.target} failed: {type(e).__name__}: {e}"
              + (" (--modes rev checks reverse mode alone)" if _forward_failed(e, options)
                 else ""), file=sys.stderr)
        return USAGE_ERROR
    try:
        print(report, flush=True)
    except BrokenPipeError:       # e.g. piped into `head`: the status still counts
        sys.stdout = open(os.devnull, "w")
    status = _write_outputs(report, args)
    if not report.compared:      # "ok" must mean something was compared and agreed
        print(f"finegrad check: nothing was compared for {args.target} (see above)",
              file=sys.stderr)
        return USAGE_ERROR
    return status


def _framework(fn, args, n):
    """What ``fn`` is written for; None (found by the sweep) for a `finegrad.ops` function
    or with ``--backend``, which run on a `finegrad.ops` backend."""
    if args.backend is not None or ops_rules.is_ops_rule(fn):
        return args.framework
    try:
        return detect(fn, args.framework, n)
    except (ImportError, ValueError) as e:      # --framework keras without Keras, say
        raise UsageError(str(e)) from None


def _forward_failed(e, options):
    """Whether the hint to check reverse mode alone applies: forward mode was part of the
    sweep and the error is about it."""
    return "fwd" in options["modes"] and (isinstance(e, NotLinearError) or
                                          "forward" in str(e).lower())


def _try_call(fn, target, spec, what, options):
    """Call ``fn`` once, under a tape, on the inputs ``target`` takes (scalars of the dtype
    in the range), so that a function that cannot run is a usage error naming it."""
    names = input_names(target)
    lo, hi = options["interval"]
    shapes = input_shapes(options["shape"], len(names)) or [()] * len(names)
    xs = [Tensor(np.full(s, lo + 0.618 * (hi - lo), options["dtype"])) for s in shapes]
    try:
        with GradientTape() as tape:
            tape.watch(xs)
            out = fn(*xs)
    except (Exception, SystemExit) as e:
        raise UsageError(f"{what}: calling {spec} on {len(names)} scalar input"
                         f"{'s' if len(names) > 1 else ''} ({', '.join(names)}) failed: "
                         f"{type(e).__name__}: {e}") from None
    del tape, out


def _join_negative_values(argv):
    """``--range -100:100`` as ``--range=-100:100``: argparse takes a value that starts with
    '-' (and is not a plain number) for an option."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--range" and i + 1 < len(argv):
            out.append(f"--range={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def _write_outputs(report, args):
    try:
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(report.to_dict(), fh, indent=1, allow_nan=False)
                fh.write("\n")
        if args.plot:
            report.plot(args.plot)
            print(f"plot written to {args.plot}")
        if args.html:
            from finegrad._src.testing.sweep_plot import html_page
            with open(args.html, "w", encoding="utf-8") as fh:
                fh.write(html_page(report))
            print(f"report written to {args.html}")
    except OSError as e:
        print(f"finegrad check: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return USAGE_ERROR
    return 0 if report.ok else 1


def _options(args):
    lo, sep, hi = args.range.partition(":")
    try:
        interval = (float(lo), float(hi))
    except ValueError:
        raise UsageError(f"--range must be LO:HI with two numbers, got {args.range!r}") from None
    if not sep or not interval[0] < interval[1] or not np.isfinite(interval).all():
        raise UsageError(f"--range must be LO:HI with finite LO < HI, got {args.range!r}")
    if args.rtol is not None and not (np.isfinite(args.rtol) and args.rtol > 0):
        raise UsageError(f"--rtol must be a finite number > 0, got {args.rtol!r}")
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    if not modes or any(m not in ("rev", "fwd") for m in modes):
        raise UsageError(f"--modes must be rev, fwd or rev,fwd, got {args.modes!r}")
    if args.points < 3:
        raise UsageError(f"--points must be at least 3, got {args.points}")
    if args.points > MAX_POINTS:
        raise UsageError(f"--points must be at most {MAX_POINTS:,} (the sweep keeps several "
                         f"float64 arrays of that many values), got {args.points:,}")
    if args.plot:
        if os.path.splitext(args.plot)[1].lower() not in (".png", ".svg", ".pdf"):
            raise UsageError(f"--plot must name a .png, .svg or .pdf file, got {args.plot!r}")
        from finegrad._src.testing.sweep_plot import _pyplot
        try:
            _pyplot()       # before the sweep: a missing matplotlib is a usage error
        except ImportError as e:
            raise UsageError(str(e)) from None
    return {"interval": interval, "points": args.points, "scale": args.scale,
            "dtype": args.dtype, "order": args.order, "modes": modes, "rtol": args.rtol,
            "shape": _shape(args.shape), "elements": _elements(args.elements),
            "lines": args.lines}


def _numbers(text, what):
    try:
        return tuple(int(v) for v in text.replace("(", "").replace(")", "").split(",")
                     if v.strip())
    except ValueError:
        raise UsageError(f"{what} must be integers separated by ',' (and ';'), got "
                         f"{text!r}") from None


def _shape(text):
    """``3,4`` -> (3, 4); ``3,4;4`` -> [(3, 4), (4,)] (one per input)."""
    if text is None:
        return None
    parts = [_numbers(p, "--shape") for p in text.split(";")]
    if any(d < 1 for p in parts for d in p):
        raise UsageError(f"--shape must have dimensions >= 1, got {text!r}")
    return parts[0] if len(parts) == 1 else parts


def _elements(text):
    """``all``; ``5;7`` -> [5, 7]; ``0,1;2,3`` -> [(0, 1), (2, 3)]."""
    if text is None or text == "all":
        return text
    parts = [_numbers(p, "--elements") for p in text.split(";")]
    return [p[0] if len(p) == 1 else p for p in parts]


def load_function(spec, what="TARGET"):
    """The function named by ``path/to/file.py:name`` or ``package.module:name``.

    Raises:
        UsageError: naming the file, module or name that could not be found, or what the
            name is when it is not a function.
    """
    source, sep, name = spec.rpartition(":")
    if not sep or not source or not name:
        raise UsageError(f"{what} must be path/to/file.py:name or package.module:name, "
                         f"got {spec!r}")
    module = _load_module(source, what)
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{what}: {source} has no {name!r}" + _did_you_mean(part, obj))
        obj = getattr(obj, part)
    if not callable(obj) or isinstance(obj, type):
        raise UsageError(f"{what}: {name!r} in {source} is a {type(obj).__name__}, not a "
                         f"function")
    return obj


def _load_module(source, what):
    if source.endswith(".py") or os.sep in source or "/" in source:
        path = os.path.abspath(source)
        if not os.path.isfile(path):
            raise UsageError(f"{what}: no file {source!r}")
        mod_name = "_finegrad_check_" + "".join(c if c.isalnum() else "_" for c in path)
        if mod_name in sys.modules:
            return sys.modules[mod_name]
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        sys.path.insert(0, os.path.dirname(path))   # so the file's own imports resolve
        try:
            spec.loader.exec_module(module)
        except (Exception, SystemExit) as e:   # sys.exit() on import: no silent exit 0
            del sys.modules[mod_name]
            raise UsageError(f"{what}: importing {source} failed: {type(e).__name__}: {e}") \
                from None
        finally:
            sys.path.remove(os.path.dirname(path))
        return module
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(source)
    except ModuleNotFoundError as e:
        raise UsageError(f"{what}: no module {e.name!r} (from {source!r})") from None
    except (Exception, SystemExit) as e:
        raise UsageError(f"{what}: importing {source} failed: {type(e).__name__}: {e}") \
            from None


def _did_you_mean(name, obj):
    close = difflib.get_close_matches(name, [n for n in dir(obj) if not n.startswith("__")],
                                      n=3)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
