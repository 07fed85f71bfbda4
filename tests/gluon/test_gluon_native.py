"""runtime/_native.py: OpenBLAS threads (these tests keep OpenBLAS at one thread, see
conftest.py) and glibc malloc tuning."""
import pytest

from xprof.runtime import _native


def test_set_and_get_openblas_threads():
    before = _native.get_num_threads()
    if before is None:
        pytest.skip("numpy is not linked against a loadable OpenBLAS here")
    try:
        assert _native.set_num_threads(2) >= 1
        assert _native.get_num_threads() == 2
        _native.set_num_threads(1)
        assert _native.get_num_threads() == 1
    finally:
        _native.set_num_threads(before)
    with pytest.raises(ValueError):
        _native.set_num_threads(0)


def test_tune_malloc_reports_success_on_glibc():
    """In a child process: the setting is process-wide and cannot be read back."""
    import platform
    import subprocess
    import sys
    code = ("from xprof.runtime import _native; import sys; "
            "sys.exit(0 if _native.tune_malloc() else 3)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    expected = 0 if platform.libc_ver()[0] == "glibc" else 3
    assert res.returncode == expected, res.stderr
