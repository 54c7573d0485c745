"""A small text progress bar for long computations, drawn on a terminal only."""
import sys


class ProgressBar:
    """``[#######-----------]  35% label``, redrawn in place on ``stream`` (default stderr).

    Drawn only when ``enabled`` is true; ``enabled="auto"`` means when the stream is a
    terminal. ``total`` may grow while the bar runs; the bar never passes 100%.
    """

    width = 30

    def __init__(self, total, label, enabled="auto", stream=None):
        self.stream = sys.stderr if stream is None else stream
        if enabled == "auto":
            enabled = _is_terminal(self.stream)
        self.enabled, self.total, self.label, self.done = bool(enabled), total, label, 0
        self._drawn = -1

    def update(self, n=1):
        """Count ``n`` more steps done and redraw when the shown percentage changes."""
        self.done += n
        if not self.enabled:
            return
        pct = min(100, int(100 * self.done / max(self.total, 1)))
        if pct != self._drawn:
            self._drawn = pct
            filled = self.width * pct // 100
            self.stream.write(f"\r[{'#' * filled}{'-' * (self.width - filled)}] {pct:3d}% "
                              f"{self.label}")
            self.stream.flush()

    def close(self):
        """Clear the bar's line."""
        if self.enabled and self._drawn >= 0:
            self.stream.write("\r" + " " * (self.width + 8 + len(self.label)) + "\r")
            self.stream.flush()


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
