"""Every sample script runs with plain ``python script.py`` (defaults: small and fast),
prints the aggregate table and writes a trace in the working directory."""
import os

import pytest

import proftools as pt

SCRIPTS = os.path.join(pt.REPO, "sample_scripts")


def _run(tmp_path, name, *args):
    proc = pt.run_py([os.path.join(SCRIPTS, name + ".py"), *args], cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    trace = tmp_path / (name + ".json")
    doc = pt.load(str(trace))
    pt.check_document(doc)
    pt.check_nesting(doc)
    assert "operator\n========" in proc.stdout or "Custom Operator\n" in proc.stdout
    assert "Name" in proc.stdout and "Count" in proc.stdout
    return proc, doc


def _threads_of(doc, name, cat=None):
    names = pt.thread_names(doc)
    return {names[e["tid"]] for e in pt.events(doc, "X", cat=cat, name=name)}


def test_matmul_profile_window(tmp_path):
    proc, doc = _run(tmp_path, "matmul_profile_window")
    counts = pt.name_counts(doc)
    assert counts[("operator", "dot")] == 20, "only iterations 50 to 69 are profiled"
    assert counts[("API", "dot")] == 20
    assert "dot" in proc.stdout


def test_matmul_profile_window_size_option(tmp_path):
    proc, doc = _run(tmp_path, "matmul_profile_window", "--size", "8", "--iters", "75")
    assert pt.name_counts(doc)[("operator", "dot")] == 20


def test_ndarray_chain(tmp_path):
    proc, doc = _run(tmp_path, "ndarray_chain")
    counts = pt.name_counts(doc)
    for op in ("relu", "exp", "sqrt"):
        assert counts[("operator", op)] == 10, (op, counts)
        assert counts[("API", op)] == 10
    # x * 0.5, -y and x * 0.9 per step (MXNet names -y _mul_scalar too)
    assert counts[("operator", "_mul_scalar")] == 30
    assert counts[("operator", "sum")] == 11
    assert pt.events(doc, "C", "Device Storage")


def test_python_timer_vs_profiler(tmp_path):
    proc, doc = _run(tmp_path, "python_timer_vs_profiler")
    assert pt.name_counts(doc)[("operator", "dot")] == 3
    assert "python timer around the call" in proc.stdout
    assert "profiler: operator 'dot' ran 3 times" in proc.stdout
    # the operator ran on an engine thread, not where the Python timer was
    assert all(t.startswith("engine worker") for t in _threads_of(doc, "dot", "operator"))
    assert _threads_of(doc, "waitall") == {"main thread"}


def test_custom_add_one(tmp_path):
    proc, doc = _run(tmp_path, "custom_add_one")
    counts = pt.name_counts(doc, cat="Custom Operator")
    cat = "Custom Operator"
    assert counts[(cat, "MyAddOne::pure_python")] == 2      # imperative and symbolic
    assert counts[(cat, "MyAddOne::_plus_scalar")] == 2
    assert counts[(cat, "MyAddOne::CopyCPU2CPU")] == 2
    assert counts[(cat, "_backward_MyAddOne::pure_python")] == 1
    assert counts[(cat, "_backward_MyAddOne::CopyCPU2CPU")] == 1
    assert all(t.startswith("custom op worker") for t in
               _threads_of(doc, "MyAddOne::pure_python"))
    assert all(t.startswith("engine worker") for t in
               _threads_of(doc, "MyAddOne::_plus_scalar"))
    assert not [e for e in doc["traceEvents"] if e.get("name") == "Custom"]
    assert pt.events(doc, "s") and len(pt.events(doc, "s")) == len(pt.events(doc, "f"))
    assert "MyAddOne::pure_python" in proc.stdout


def test_custom_sigmoid(tmp_path):
    proc, doc = _run(tmp_path, "custom_sigmoid")
    counts = pt.name_counts(doc, cat="Custom Operator")
    cat = "Custom Operator"
    assert counts[(cat, "MySigmoid::pure_python")] == 3
    assert counts[(cat, "MySigmoid::_zeros")] == 3
    assert counts[(cat, "_backward_MySigmoid::pure_python")] == 3
    assert counts[(cat, "_backward_MySigmoid::broadcast_mul")] >= 3
    assert "0.00e+00" in proc.stdout, "autograd gradient differs from sigmoid'(x)"


@pytest.mark.parametrize("name", ["matmul_profile_window", "ndarray_chain",
                                  "python_timer_vs_profiler", "custom_add_one",
                                  "custom_sigmoid"])
def test_scripts_are_documented_and_configurable(name):
    with open(os.path.join(SCRIPTS, name + ".py")) as f:
        text = f.read()
    assert text.startswith('"""') and "dumps())" in text
    assert 'if __name__ == "__main__":' in text
    assert "--output" in text
