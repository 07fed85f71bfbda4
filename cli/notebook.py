"""``%load_ext xprof.mxcli.notebook``: profile a notebook cell in place.

MXNet's profiler tutorial is a notebook, so its users profile where they work: the cell
magic ``%%xprof`` runs the cell with the engine and profiler booted as ``xprof run``
boots them for a script (bulk execution off, profiling from the cell's first line with
every mode and aggregate statistics, the cell's own ``mx.profiler`` calls kept), writes
the profile, and shows inline, as HTML: the run summary (top operators by self time),
the custom-operator call breakdown with its headline per op type, ``xprof explain``'s
composition of the critical path and its top ops (and, with ``--what-if``, the
predictions), and a link to the self-contained report written beside the profile.
``%xprof view`` serves the last profile in the Perfetto UI (127.0.0.1 only) and prints
its address.

Options mirror ``xprof run``'s: ``-o FILE`` (default ``profile.json``), ``--mode``,
``--sample-interval MS`` (``--lines`` keeps the line table in the output),
``--what-if SPEC`` (repeatable), ``--no-report``.

Why a module of its own under ``xprof.mxcli``: openxla's ``xprof`` wheel owns
``xprof.cli`` and other names; ``xprof.mxcli.notebook`` is ours alone.
"""
from __future__ import annotations

import argparse
import html
import os
import shlex
import sys

LAST = {"path": None}   # the last profile a cell wrote (for %xprof view)


def _parser():
    p = argparse.ArgumentParser(prog="%%xprof", add_help=False)
    p.add_argument("-o", "--output", default="profile.json")
    p.add_argument("--mode", default="symbolic,imperative,api,memory")
    p.add_argument("--sample-interval", type=float, default=None)
    p.add_argument("--lines", action="store_true")
    p.add_argument("--what-if", dest="what_if", action="append", default=[])
    p.add_argument("--no-report", dest="report", action="store_false")
    p.add_argument("--top", type=int, default=8)
    return p


class UsageError(ValueError):
    """A bad ``%%xprof`` line (shown as one line, never a traceback)."""


def parse(line):
    """The options of a ``%%xprof`` line (``UsageError``: one line, what is allowed)."""
    try:
        words = shlex.split(line or "")
    except ValueError as e:
        raise UsageError(f"%%xprof {line!r}: {e}") from None
    parser = _parser()
    try:
        args, rest = parser.parse_known_args(words)
    except SystemExit:
        raise UsageError(f"%%xprof {line!r}: usage: %%xprof [-o FILE] [--mode MODES] "
                         f"[--sample-interval MS] [--lines] [--what-if SPEC] "
                         f"[--no-report]") from None
    if rest:
        raise UsageError(f"%%xprof: unknown option {rest[0]!r}; options: -o, --mode, "
                         f"--sample-interval, --lines, --what-if, --no-report, --top")
    from xprof.traces import whatif as grammar
    for spec in args.what_if:
        try:
            grammar.parse(spec)
        except ValueError as e:
            raise UsageError(str(e)) from None
    return args


def profile_cell(run_cell, args):
    """Run ``run_cell()`` (the cell) with profiling as ``xprof run`` does; the path of
    the profile written and {file: what it holds}."""
    from xprof.mxcli import run as _run

    _run._configure_env(False, args.sample_interval)
    import xprof.runtime  # noqa: F401 - boots the engine
    from xprof.runtime import engine
    from xprof.runtime.profiler import config, session

    output = os.path.abspath(args.output)
    try:
        bits = config.parse_mode_list(args.mode)
    except ValueError as e:
        raise UsageError(f"%%xprof --mode: {e}") from None
    saved = session.get_config()
    session.start_for_cli(output, aggregate_stats=True, **config.kwargs_for_mode(bits))
    try:
        run_cell()
    finally:
        with engine.signals.stop_on_signal() as stop:
            files = _run._finish(session, engine, stop)
        if session.state() == "stop":
            session.set_config(**saved)
            session.clear_script_configured()
    LAST["path"] = output
    return output, files


# -- what the cell shows ------------------------------------------------------------------
def _numeric(cell):
    try:
        float(str(cell).replace(",", "").replace("+", ""))
        return True
    except ValueError:
        return False


def _table(headers, rows):
    """An HTML table; a column of numbers is right-aligned, text left."""
    rows = [list(r) for r in rows]
    right = [bool(rows) and all(_numeric(r[i]) or r[i] in ("", None) for r in rows)
             for i in range(len(headers))]
    head = "".join(f"<th style='text-align:{'right' if right[i] else 'left'}'>"
                   f"{html.escape(str(h))}</th>" for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f"<td style='text-align:{'right' if right[i] else 'left'}'>"
                         f"{html.escape(str(c))}</td>" for i, c in enumerate(r)) + "</tr>"
        for r in rows)
    return f"<table class='xprof'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _ms(v):
    return "" if v is None else f"{v:,.3f}"


def summary_html(path, args, report_path=None):
    """The HTML the cell shows for the profile at ``path``."""
    from xprof.traces import callstats, names, stats as S

    from xprof.mxcli.analysis import explain as ex, whatif
    from xprof.mxcli.analysis.flat import flat_rows
    from xprof.mxcli.render.summary import _read_once

    n_events, st, tl = _read_once(path)
    parts = [f"<div class='xprof-output'><p><b>xprof</b>: {n_events:,} events written to "
             f"<code>{html.escape(path)}</code></p>"]
    rows = flat_rows(st, "self", False, frozenset(names.OPERATOR_CATEGORIES))[:args.top]
    if rows:
        parts.append("<h4>Top operators by self time</h4>" + _table(
            ["Operator", "Self (ms)", "Total (ms)", "Calls"],
            [(r["Name"], _ms(r["Self"]), _ms(r["Total"]), r["Count"]) for r in rows]))
    calls = S.to_json_obj(st).get(callstats.SECTION, {})
    if calls:
        parts.append("<h4>Custom operator calls (per call, ms)</h4>" + _table(
            ["Op", "Calls", "Latency", "Backlog", "Producer", "Pool", "Python", "Blocked",
             "Tail", "Own"],
            [(op, r["Count"], _ms(r["Latency"]["Avg"]), _ms(r.get("Backlog")),
              _ms(r.get("Producer")), _ms(r.get("Pool")), _ms(r.get("Python")),
              _ms(r.get("Blocked")), _ms(r.get("Tail")), _ms(r.get("Own")))
             for op, r in list(calls.items())[:args.top]]))
        parts.append("<ul>" + "".join(
            f"<li><b>{html.escape(op)}</b>: {html.escape(callstats.headline(r))}</li>"
            for op, r in list(calls.items())[:args.top]) + "</ul>")
    analysis = ex.analyze(tl)
    if len(analysis.tl.start):
        doc = analysis.to_dict(segments=False, top=args.top)
        comp = doc["composition"]
        wall = doc["wall_ms"] or 1.0
        parts.append(f"<h4>Critical path: {doc['critical_path_ms']:,.3f} ms of "
                     f"{doc['wall_ms']:,.3f} ms wall</h4>" + _table(
                         ["Part", "ms", "% of wall"],
                         [(k.removesuffix("_ms"), _ms(v), f"{100 * v / wall:.1f}")
                          for k, v in comp.items()]))
        parts.append("<h4>Top ops on the critical path</h4>" + _table(
            ["Op", "On the path (ms)", "Calls", "Waited for"],
            [(o["name"], _ms(o["path_ms"]), o["calls"], o["waited_for"] or "")
             for o in doc["top_ops"]]))
        if doc["findings"]:
            parts.append("<ul>" + "".join(f"<li>{html.escape(f['text'])}</li>"
                                          for f in doc["findings"]) + "</ul>")
        if args.what_if:
            from xprof.traces import whatif as grammar
            key, answer, _ = whatif.answer(analysis, [grammar.parse(s) for s in args.what_if])
            if key == "what_if":
                parts.append("<h4>What if (the run replayed)</h4>" + _table(
                    ["Change", "Wall (ms)", "Change (ms)", "Median step (ms)"],
                    [(w["spec"], _ms(w["wall_ms"]), f"{w['delta_ms']:+,.3f}",
                      _ms(w["step_ms"])) for w in answer]))
    if args.lines:
        from xprof.mxcli.analysis import pylines
        rows_out, summary = pylines.section(tl.python_lines, tl.call_stats, top=args.top)
        for op, lines in rows_out.items():
            parts.append(f"<h4>{html.escape(op)}: lines of its Python</h4>" + _table(
                ["Function", "Line", "Self (ms)", "%"],
                [(r["function"], r["line"] or "", _ms(r["self_ms"]), r["%"]) for r in lines]))
    if report_path:
        rel = os.path.relpath(report_path)
        parts.append(f"<p>Report: <a href='{html.escape(rel)}' target='_blank'>"
                     f"{html.escape(rel)}</a> (self-contained HTML); trace: "
                     f"<code>%xprof view</code> opens it in Perfetto.</p>")
    parts.append("</div>")
    return "".join(parts)


# -- the IPython side -----------------------------------------------------------------------
def load_ipython_extension(ip):
    """Register ``%%xprof`` and ``%xprof`` (``%load_ext xprof.mxcli.notebook``)."""
    from IPython.core.magic import Magics, line_cell_magic, magics_class

    @magics_class
    class XprofMagics(Magics):
        @line_cell_magic
        def xprof(self, line, cell=None):
            from IPython.display import HTML, display

            if cell is None:
                return _line_magic(line)
            try:
                args = parse(line)
            except UsageError as e:
                print(f"xprof: error: {e}", file=sys.stderr)
                return None
            path, _ = profile_cell(lambda: self.shell.run_cell(cell), args)
            report = None
            if args.report:
                from xprof.mxcli.render.html.output import default_output, write_report
                report = default_output(path)
                write_report(path, report)
            display(HTML(summary_html(path, args, report)))
            return None

    ip.register_magics(XprofMagics)


def _line_magic(line):
    """``%xprof view [FILE]``: serve FILE (default: the last profile) in the Perfetto
    UI on 127.0.0.1, in a background thread; print its address."""
    words = shlex.split(line or "")
    if not words or words[0] != "view":
        print("xprof: error: %xprof takes `view [FILE]`; profile a cell with %%xprof",
              file=sys.stderr)
        return None
    path = words[1] if len(words) > 1 else LAST["path"]
    if path is None:
        print("xprof: error: no profile yet: run a cell with %%xprof first, or "
              "%xprof view FILE", file=sys.stderr)
        return None
    import threading

    from xprof.mxcli.errors import XprofError
    from xprof.mxcli.serve.perfetto import INSTALL_HINT, check_trace, perfetto_ui_dir, serve

    try:   # what `xprof view` refuses, refused here in one line (not in the thread)
        if perfetto_ui_dir() is None:
            raise XprofError(INSTALL_HINT)
        check_trace(path)
    except XprofError as e:
        print(f"xprof: error: {e.format_message()}", file=sys.stderr)
        return None
    ready = threading.Event()

    def echo(text):
        print(text)
        ready.set()

    threading.Thread(target=serve, args=(path,), daemon=True,
                     kwargs={"open_browser": False, "echo": echo}).start()
    ready.wait(10)
    return None


def unload_ipython_extension(ip):
    """Nothing to undo: the magics go with the shell."""
