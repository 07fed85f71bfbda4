"""docs/architecture.md stays a short map that stays true: at most 250 lines, none over
300 characters, and every file, class and function it names exists.

What counts as a name: a backticked path (``runtime/ops/registry.py``), a path with a
name (``runtime/ndarray/ndarray.py:push_op``), a file named bare in a table row beside
its folder or a sibling's path (``naive.py`` beside ``runtime/engine/threaded.py``), and a
backticked identifier (``push_op``, ``Engine._call``) in a table row or a numbered step
that names files: it must be defined (``def``, ``class``, a module-level name, a method of
the class) in one of them.
"""
from __future__ import annotations

import ast
import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DOC = os.path.join(ROOT, "docs", "architecture.md")
TICKS = re.compile(r"`([^`]+)`")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")
FILE = re.compile(r"^[\w./-]+\.(py|c|md)$")
# backticked words that are API or prose, not names of the tree's code
NOT_CODE = {"X", "b", "e", "Custom", "MyOp", "forward", "args.dep", "pure_python"}


def _lines():
    with open(DOC, encoding="utf-8") as f:
        return f.read().splitlines()


def test_the_map_is_short():
    lines = _lines()
    assert len(lines) <= 250, len(lines)
    long = [i + 1 for i, ln in enumerate(lines) if len(ln) > 300]
    assert long == [], f"lines over 300 characters: {long}"


def _defined(path):
    """Every name a module defines: functions, classes (and their methods as
    ``Class.method`` and bare), module-level assignments."""
    if path.endswith(".c"):
        src = open(path, encoding="utf-8").read()
        return set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", src))
    tree = ast.parse(open(path, encoding="utf-8").read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.update((sub.name, f"{node.name}.{sub.name}"))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
    return names


def _resolve(token, base_dirs):
    """The file a token names, from the repository root or a row's folders."""
    for base in ("",) + tuple(base_dirs):
        path = os.path.normpath(os.path.join(ROOT, base, token))
        if os.path.exists(path):
            return path
    return None


def _problems():
    problems = []
    blocks = []   # (text, line number): table rows, numbered steps (with their continuations)
    lines = _lines()
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("|"):
            blocks.append((ln, i + 1))
        elif re.match(r"^\d+\. ", ln):
            text, j = ln, i + 1
            while j < len(lines) and lines[j].startswith("   "):
                text += " " + lines[j].strip()
                j += 1
            blocks.append((text, i + 1))
            i = j
            continue
        i += 1
    context = []   # the folders of the last table row that named some: a row naming bare
    # files alone (a continuation of a folder's row) is read in them
    for text, no in blocks:
        tokens = TICKS.findall(text)
        files, dirs = [], []
        if not text.startswith("|"):
            context = []
        for tok in tokens:
            path = tok.split(":")[0]
            if tok.endswith("/") and os.path.isdir(os.path.join(ROOT, tok)):
                dirs.append(tok)
            elif FILE.match(path) and "/" in path:
                found = _resolve(path, ())
                if found is None:
                    problems.append(f"line {no}: no file {path}")
                    continue
                files.append(found)
                dirs.append(os.path.dirname(os.path.relpath(found, ROOT)))
        if dirs:
            context = list(dirs)
        elif text.startswith("|"):
            dirs = list(context)
        for tok in tokens:   # files named bare beside their folder or a sibling
            if FILE.match(tok) and "/" not in tok and not tok.endswith(".md"):
                found = _resolve(tok, dirs)
                if found is None:
                    problems.append(f"line {no}: no file {tok} beside {dirs}")
                else:
                    files.append(found)
        if not files:
            continue
        defined = set()
        for f in files:
            defined |= _defined(f)
        for tok in tokens:
            if ":" in tok and FILE.match(tok.split(":")[0]):
                path, name = tok.split(":", 1)
                found = _resolve(path, dirs)
                if found is not None and name not in _defined(found):
                    problems.append(f"line {no}: {name} is not defined in {path}")
                continue
            if not IDENT.match(tok) or tok in NOT_CODE or FILE.match(tok):
                continue
            if tok.startswith(("mx.", "xprof")) or tok.islower() and "." in tok:
                continue
            if tok not in defined and tok.split(".")[-1] not in defined:
                problems.append(f"line {no}: {tok} is defined in none of "
                                f"{[os.path.relpath(f, ROOT) for f in files]}")
    return problems


def test_every_name_on_the_map_exists():
    if not os.path.isdir(os.path.join(ROOT, "runtime")):
        pytest.skip("the source tree is not next to the tests")
    assert _problems() == []
