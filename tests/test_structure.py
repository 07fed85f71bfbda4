"""The shape of the code base, held: no import circles, and modules kept small.

Import circles hide a layering mistake behind an import inside a function; they are
found here from the source text, counting every ``import`` statement wherever it stands
(module level or inside a function). Names a namespace resolves on first use from a
declared table (``ndarray.LAZY_NAMES``, ``autograd.LAZY_NAMES``: MXNet API names whose
code lives in a layer above) are not imports and are not counted.
"""
import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..")
PACKAGES = {"runtime": "xprof.runtime", "cli": "xprof.mxcli", "traces": "xprof.traces"}
MAX_LINES = 700
# Modules allowed over the bound, each at most its size then: to be split, never to grow
# (issue #25 split the last of them). A module not listed here stays within MAX_LINES.
OVER_BOUND = {}


def _modules():
    mods = {}
    for folder, pkg in PACKAGES.items():
        base = os.path.join(ROOT, folder)
        for path, _, files in os.walk(base):
            for f in files:
                if f.endswith((".py", ".c")):   # (a C extension module: a leaf)
                    full = os.path.join(path, f)
                    rel = os.path.splitext(os.path.relpath(full, base))[0].replace(os.sep, ".")
                    if rel == "__init__":
                        name = pkg
                    elif rel.endswith(".__init__"):
                        name = f"{pkg}.{rel[:-9]}"
                    else:
                        name = f"{pkg}.{rel}"
                    mods[name] = full
    return mods


def _imports(name, path, mods):
    """The project modules ``name`` imports: ``from pkg import mod`` is an edge to the
    module ``mod`` (not to ``pkg``) when ``mod`` is one."""
    is_pkg = path.endswith("__init__.py")
    out = set()
    if path.endswith(".c"):
        return out
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in mods)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name if is_pkg else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            subs = [f"{target}.{a.name}" for a in node.names]
            out.update(s for s in subs if s in mods)
            if target in mods and not all(s in mods for s in subs):
                out.add(target)
    out.discard(name)
    return out


def _cycles(graph):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
    return comps


def test_the_cycle_finder_finds_a_known_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_import_circles():
    mods = _modules()
    if not mods:
        pytest.skip("the source tree is not next to the tests")
    graph = {m: _imports(m, p, mods) for m, p in mods.items()}
    assert _cycles(graph) == []


def test_modules_stay_small():
    over = {}
    for folder in PACKAGES:
        for path, _, files in os.walk(os.path.join(ROOT, folder)):
            for f in files:
                if f.endswith(".py"):
                    full = os.path.join(path, f)
                    rel = os.path.relpath(full, ROOT).replace(os.sep, "/")
                    n = sum(1 for _ in open(full, encoding="utf-8"))
                    if n > OVER_BOUND.get(rel, MAX_LINES):
                        over[rel] = n
    assert over == {}, f"modules over {MAX_LINES} lines (or over their recorded size): {over}"


def _command_modules(mods):
    """The modules of ``xprof.mxcli`` that define a command (a ``@click.command`` function)."""
    out = set()
    for name, path in mods.items():
        if not name.startswith("xprof.mxcli.") or name.count(".") != 2:
            continue
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)
                    and d.func.attr == "command" for d in node.decorator_list):
                out.add(name)
                break
    return out


def test_no_command_imports_another_command():
    """What two commands share (``xprof run --report`` and ``xprof report`` write the same
    page) lives in a module that is no command's, so a command can change alone."""
    mods = _modules()
    if not mods:
        pytest.skip("the source tree is not next to the tests")
    commands = _command_modules(mods)
    assert {"xprof.mxcli.run", "xprof.mxcli.report", "xprof.mxcli.view"} <= commands
    crossing = {m: sorted(_imports(m, mods[m], mods) & (commands - {m})) for m in commands}
    assert {m: c for m, c in crossing.items() if c} == {}


def test_analyses_are_pure():
    """A module of ``xprof.mxcli.analysis`` asks a question of a trace and returns plain
    data: it imports no click (nor the commands' error helper, which is click's), so a
    notebook, a test or another command calls it as a function and renders the answer
    its own way."""
    mods = _modules()
    if not mods:
        pytest.skip("the source tree is not next to the tests")
    bad = {}
    for name, path in mods.items():
        if not name.startswith("xprof.mxcli.analysis") or path.endswith(".c"):
            continue
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            if any(n == "click" or n.startswith("click.") or n.endswith("mxcli.errors")
                   for n in names):
                bad.setdefault(name, node.lineno)
    assert bad == {}, f"analysis modules importing click or the CLI's errors: {bad}"
