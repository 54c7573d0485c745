"""The progress bar ``fit`` prints, in Keras 3's format.

On a terminal (``verbose=1``) the bar redraws in place: ``12/469 ━━━━━━━━━━━━━━━━━━━━ 3s
7ms/step - loss: 0.3021``. With ``verbose=2``, or when the output is not a terminal (a pipe,
a log file), one line per epoch: ``469/469 - 3s - 7ms/step - loss: 0.3021``.
"""
from typing import Any

import math
import sys
import time


def _is_terminal():
    return (hasattr(sys.stdout, "isatty") and sys.stdout.isatty()) or "ipykernel" in sys.modules


def _format_time(per_unit, unit):
    if per_unit >= 1 or per_unit == 0:
        return f" {per_unit:.0f}s/{unit}"
    if per_unit >= 1e-3:
        return f" {per_unit * 1e3:.0f}ms/{unit}"
    return f" {per_unit * 1e6:.0f}us/{unit}"


def _format_eta(eta):
    if eta > 3600:
        return f"{int(eta // 3600)}:{int((eta % 3600) // 60):02d}:{int(eta % 60):02d}"
    if eta > 60:
        return f"{int(eta // 60)}:{int(eta % 60):02d}"
    return f"{int(eta)}s"


def _format_value(v, signed=True):
    """Keras's number format (the one-line form compares the value itself with 1e-3)."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return f" {v}"
    return f" {v:.4f}" if (abs(v) if signed else v) > 1e-3 else f" {v:.4e}"


class Progbar:
    """A progress bar over ``target`` steps (None: unknown), as Keras's ``utils.Progbar``.

    Args:
        target: the number of steps (None if unknown).
        width: the bar's width in characters.
        verbose: 1 (a bar on a terminal; one line at the end otherwise), 2 (one line at
            the end), 0 (nothing).
        interval: the least time between two redraws, in seconds.
        unit_name: what a step is called (``"step"``).
    """

    def __init__(self, target: Any, width: Any = 20, verbose: Any = 1, interval: Any = 0.05,
                 unit_name: Any = "step") -> None:
        self.target, self.width, self.interval, self.unit_name = target, width, interval, \
            unit_name
        self.dynamic = _is_terminal()
        self.verbose = 2 if verbose == 1 and not self.dynamic else verbose
        self._values: dict[str, Any] = {}
        self._start = time.time()
        self._last_update, self._after_first, self._prev_width = 0.0, None, 0
        self._seen = 0

    def update(self, current: Any, values: Any = None, finalize: Any = None) -> Any:
        """Show step ``current`` with ``values`` (name, value) pairs, shown as given."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for k, v in values or ():
            self._values[k] = v
        per_unit = self._step_time(current, time.time())
        self._seen = current
        now = time.time()
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._draw(current, per_unit, now, finalize)
        elif self.verbose == 2 and finalize:
            n = self.target if self.target else current
            digits = int(math.log10(n)) + 1 if n else 1
            line = f"%{digits}d/%d - {now - self._start:.0f}s" % (current, n)
            line += " -" + _format_time(per_unit, self.unit_name)
            line += "".join(f" - {k}:{_format_value(v, signed=False)}"
                            for k, v in self._values.items())
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        self._last_update = now

    def _draw(self, current, per_unit, now, finalize):
        if self.target:
            digits = int(math.log10(self.target)) + 1
            count = f"%{digits}d/%d" % (current, self.target)
            done = int(self.width * current / self.target)
            bar = f"\x1b[1m{count}\x1b[0m "
            plain = len(count) + 1 + self.width
            if done > 0:
                bar += f"\x1b[32m{'━' * done}\x1b[0m"
            bar += f"\x1b[37m{'━' * (self.width - done)}\x1b[0m"
        else:
            bar = f"{current:7d}/Unknown"
            plain = len(bar)
        if self.target and not finalize:
            eta = per_unit * (self.target - current)
            eta_text = _format_eta(eta)
        else:
            eta_text = f"{now - self._start:.0f}s"
        info = f" \x1b[1m{eta_text}\x1b[0m" + _format_time(per_unit, self.unit_name)
        plain += 1 + len(eta_text) + len(_format_time(per_unit, self.unit_name))
        metrics = "".join(f" - {k}:{_format_value(v)}" for k, v in self._values.items())
        info += metrics
        width = plain + len(metrics)
        message = "\b" * self._prev_width + "\r" + bar + info
        if self._prev_width > width:
            message += " " * (self._prev_width - width)
        if finalize:
            message += "\n"
        sys.stdout.write(message)
        sys.stdout.flush()
        self._prev_width = width

    def _step_time(self, current, now):
        if not current:
            return 0
        if self._after_first is not None and current > 1:
            per_unit = (now - self._after_first) / (current - 1)
        else:
            per_unit = (now - self._start) / current
        if current == 1:
            self._after_first = now
        return per_unit
