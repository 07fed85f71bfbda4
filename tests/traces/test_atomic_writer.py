"""The atomic writer: a writer killed mid-write (real SIGKILL to a real subprocess)
leaves a temp file that the next write to the same path removes; a live writer's temp
file, and other targets' ones, are left alone."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from xprof.traces.atomic import write_atomic

WRITER = textwrap.dedent("""
    import sys, threading
    from xprof.traces.atomic import write_atomic

    def chunks():
        yield b"x" * 1_000_000
        print("writing", flush=True)     # the temp file exists and holds a chunk
        threading.Event().wait()          # until killed
        yield b""

    write_atomic(sys.argv[1], chunks())
""")


def _temps(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith(".xprof-"))


@pytest.fixture
def writer(tmp_path):
    """Start a writer to ``path`` that blocks mid-write; yields (process, temp names)."""
    procs = []

    def start(path):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        try:
            line = proc.stdout.readline()
        finally:
            if proc.poll() is not None:
                pytest.fail(f"writer ended: {proc.stderr.read()}")
        assert line == "writing\n"
        return proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait(60)


def test_temp_file_of_a_killed_writer_is_removed_by_the_next_write(tmp_path, writer):
    path = tmp_path / "profile.json"
    path.write_bytes(b"old")
    proc = writer(path)
    left = _temps(tmp_path)
    assert len(left) == 1 and left[0].endswith(".tmp") and f"-{proc.pid}-" in left[0]
    proc.send_signal(signal.SIGKILL)
    proc.wait(60)
    assert _temps(tmp_path) == left and path.read_bytes() == b"old"   # the leftover
    write_atomic(path, b"new")
    assert _temps(tmp_path) == [] and path.read_bytes() == b"new"


def test_temp_file_of_a_live_writer_and_of_other_targets_are_kept(tmp_path, writer):
    path, other = tmp_path / "profile.json", tmp_path / "profile.json.1"
    live = writer(path)
    dead = writer(other)
    dead.send_signal(signal.SIGKILL)
    dead.wait(60)
    before = _temps(tmp_path)
    assert len(before) == 2
    write_atomic(path, b"new")   # neither temp file is this write's to remove
    assert _temps(tmp_path) == before
    write_atomic(other, b"new")  # the killed writer's one is
    assert _temps(tmp_path) == [n for n in before if f"-{live.pid}-" in n]
