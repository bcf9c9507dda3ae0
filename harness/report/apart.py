"""Drawing a chart in a forked child while the parent writes the rest of a report.

A run report's token curves (20-40 panels) take about as long to draw and save as everything else in the report, and
at the end of an eval session the second core sits idle. `draw_apart` forks a child that draws and saves one chart
while the parent goes on; `Apart.wait` joins it. The child draws from the parent's own memory (the frame, matplotlib
as imported), so the file is the one the parent would have written. Where forking is not safe (another thread
running: `harness._fork.can_fork`), not possible or not useful (one core), the chart is drawn in the parent when
waited for. A child that fails leaves the drawing to the parent, which then raises what the child hit. Used as a
context manager, an `Apart` is waited for when the block ends, and its child reaped without a chart when the block
raises.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass

from harness._fork import can_fork


@dataclass
class Apart:
    """A chart being drawn: by a forked child (``pid``) or, when waited for, here."""

    draw: Callable[[], object]
    pid: int | None = None

    def __enter__(self) -> Apart:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        """Leaving the block: wait for the chart, or, when the block raised, only reap the child (no chart is needed, and
        a child left unreaped would stay a zombie of a long-lived process such as a pytest session)."""
        if exc_type is None:
            self.wait()
        else:
            self.reap()

    def reap(self) -> None:
        """End the child, if any, and collect it; draw nothing."""
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = None

    def wait(self) -> None:
        """Return once the chart is on disk: the child has finished, or the parent has drawn it."""
        if self.pid is not None:
            _, status = os.waitpid(self.pid, 0)
            self.pid = None
            if os.waitstatus_to_exitcode(status) == 0:
                return
        self.draw()  # not forked, or the child failed: draw here, raising whatever the child hit


def draw_apart(draw: Callable[[], object]) -> Apart:
    """Start ``draw`` (draws and saves one chart; its return value is ignored) in a forked child when that is safe and
    a second core is there; call ``wait()`` on the result before reading the file."""
    if (os.cpu_count() or 1) < 2 or not can_fork():
        return Apart(draw)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:  # no process to be had (EAGAIN, ENOMEM): the parent draws it
        return Apart(draw)
    if pid == 0:  # the child: draw, and leave without running the parent's exit handlers or flushing its buffers
        code = 0
        try:
            draw()
        except BaseException:  # noqa: BLE001 - any failure: the parent draws it again and raises it there
            code = 1
        finally:
            os._exit(code)
    return Apart(draw, pid)
