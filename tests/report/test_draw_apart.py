"""`harness.report.apart`: a chart drawn in a forked child lands on disk as the parent would draw it; a failing child
leaves the drawing to the parent, which raises; without a safe fork the parent draws it when waited for."""

import os
import threading

import pytest

from harness.report import apart
from harness.report.apart import draw_apart


def test_a_chart_drawn_apart_is_on_disk_once_waited_for(tmp_path):
    target = tmp_path / "chart.txt"
    parent = os.getpid()

    def draw():
        target.write_text(f"drawn by {'parent' if os.getpid() == parent else 'child'}")

    job = draw_apart(draw)
    job.wait()
    assert target.read_text() == ("drawn by child" if job_forked_here() else "drawn by parent")


def job_forked_here() -> bool:
    return (os.cpu_count() or 1) > 1 and apart.can_fork()


def test_a_child_that_fails_leaves_the_parent_to_draw_and_raise(tmp_path):
    def draw():
        raise ValueError("no such column: panel")

    job = draw_apart(draw)
    with pytest.raises(ValueError, match="no such column"):
        job.wait()


def test_with_another_thread_running_nothing_forks(tmp_path, monkeypatch):
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        job = draw_apart(lambda: (tmp_path / "x").write_text("here"))
        assert job.pid is None and not (tmp_path / "x").exists()  # not drawn yet: drawn here when waited for
        job.wait()
        assert (tmp_path / "x").read_text() == "here"
    finally:
        stop.set()
        other.join()


def test_one_core_draws_here(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    job = draw_apart(lambda: (tmp_path / "y").write_text("here"))
    assert job.pid is None
    job.wait()
    assert (tmp_path / "y").read_text() == "here"


def test_a_block_that_raises_reaps_the_child_and_draws_nothing(tmp_path):
    started = tmp_path / "started"

    def draw():
        started.write_text("child")
        import time

        time.sleep(30)  # still drawing when the parent gives up
        (tmp_path / "done").write_text("drawn")

    job = draw_apart(draw)
    pid = job.pid
    with pytest.raises(KeyError), job:
        raise KeyError("a corrupt judge.json")
    assert job.pid is None and not (tmp_path / "done").exists()  # nothing drawn, in the child or here
    if pid is not None:  # forked: the child is gone and collected, not a zombie left to the session
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_when_no_process_can_be_forked_the_parent_draws(tmp_path, monkeypatch):
    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    with draw_apart(lambda: (tmp_path / "z").write_text("here")) as job:
        assert job.pid is None
    assert (tmp_path / "z").read_text() == "here"
