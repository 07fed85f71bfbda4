"""Inline SVG charts for the HTML report, made in Python: horizontal stacked bars and a
step line. Why no chart library: the report must open from disk with no request leaving
the page, and three chart shapes are fewer lines than vendoring a library would be.

Every function returns one ``<svg>`` string; numbers are rounded to 0.1 px so a chart
of thousands of points stays small. Colours come from CSS classes (``k0``..``k5``), so
the page's stylesheet owns the palette.
"""
from __future__ import annotations

from html import escape

ROW_H = 22          # one bar's row
LABEL_W = 260       # the label column on the left of bar charts
BAR_W = 560         # the longest bar


def _f(x):
    return f"{x:.1f}".rstrip("0").rstrip(".")


def fmt_ms(ms):
    """A duration in ms for labels: 3 significant figures, unit chosen to fit."""
    if ms >= 1000:
        return f"{ms / 1000:.3g} s"
    if ms >= 1 or ms == 0:
        return f"{ms:.3g} ms"
    return f"{ms * 1000:.3g} us"


def stacked_bars(rows, parts, title, unit=fmt_ms, css_id=None):
    """One horizontal bar per row, split in ``parts`` (names, in order, each drawn with
    class ``k<i>``). ``rows``: ``[(label, [value per part])]``. Bars share one scale (the
    largest row total), so lengths compare across rows; each segment's ``<title>`` is its
    exact value, and each row ends with its total."""
    top = max((sum(v) for _, v in rows), default=0) or 1
    height = ROW_H * len(rows) + 30
    width = LABEL_W + BAR_W + 90
    out = [f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}"'
           + (f' id="{escape(css_id)}"' if css_id else "")
           + f'><title>{escape(title)}</title>']
    x = LABEL_W
    for i, name in enumerate(parts):   # the legend
        out.append(f'<rect class="k{i}" x="{x}" y="2" width="12" height="12"/>'
                   f'<text x="{x + 16}" y="12">{escape(name)}</text>')
        x += 24 + 7 * len(name)
    for r, (label, values) in enumerate(rows):
        y = 24 + r * ROW_H
        label = bounded(label)
        out.append(f'<g class="bar" data-label="{escape(label)}">'
                   f'<text class="label" x="{LABEL_W - 6}" y="{y + 14}" '
                   f'text-anchor="end">{escape(_clip(label))}</text>')
        x = float(LABEL_W)
        for i, (name, v) in enumerate(zip(parts, values)):
            w = BAR_W * v / top
            if w > 0:
                out.append(f'<rect class="k{i}" data-part="{escape(name)}" x="{_f(x)}" '
                           f'y="{y + 2}" width="{_f(max(w, 0.5))}" height="{ROW_H - 6}">'
                           f'<title>{escape(label)}: {escape(name)} {escape(unit(v))}</title>'
                           f'</rect>')
            x += w
        out.append(f'<text x="{_f(x + 4)}" y="{y + 14}">{escape(unit(sum(values)))}</text></g>')
    out.append("</svg>")
    return "".join(out)


def _clip(label, n=38):
    return label if len(label) <= n else label[:n - 1] + "\u2026"


NAME_LIMIT = 1000   # characters of a name kept anywhere in a page (a 10 MB name stays 1 kB)


def bounded(name, n=NAME_LIMIT):
    """``name`` cut to ``n`` characters (with an ellipsis): what a page may hold of it."""
    name = str(name)
    return name if len(name) <= n else name[:n - 1] + "\u2026"


def step_line(series, title, x_label="time (ms)", y_unit=lambda v: f"{v / 1024:.4g} kB",
              x_range=None):
    """A step line per series: ``{name: ([x...], [y...])}`` (x ascending), one class
    ``k<i>`` each, a shared scale over ``x_range`` (default: the samples' own), the
    extremes labelled on the axes."""
    width, height, left, bottom = 860, 240, 80, 30
    pw, ph = width - left - 10, height - bottom - 20
    xs = [x for x_, _ in series.values() for x in x_]
    ys = [y for _, y_ in series.values() for y in y_]
    x0, x1 = x_range or ((min(xs), max(xs)) if xs else (0, 1))
    y1 = max(ys, default=0) or 1
    sx = pw / ((x1 - x0) or 1)
    sy = ph / y1
    out = [f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}"><title>{escape(title)}</title>',
           f'<line class="axis" x1="{left}" y1="{20 + ph}" x2="{left + pw}" y2="{20 + ph}"/>',
           f'<line class="axis" x1="{left}" y1="20" x2="{left}" y2="{20 + ph}"/>',
           f'<text x="{left - 4}" y="24" text-anchor="end">{escape(y_unit(y1))}</text>',
           f'<text x="{left - 4}" y="{20 + ph}" text-anchor="end">0</text>',
           f'<text x="{left}" y="{height - 8}">{_f(x0)}</text>',
           f'<text x="{left + pw}" y="{height - 8}" text-anchor="end">{_f(x1)} '
           f'{escape(x_label)}</text>']
    for i, (name, (sx_, sy_)) in enumerate(series.items()):
        pts = []
        prev_y = None
        for x, y in zip(sx_, sy_):
            px, py = _f(left + (x - x0) * sx), _f(20 + ph - y * sy)
            if prev_y is not None:
                pts.append(f"{px},{prev_y}")
            pts.append(f"{px},{py}")
            prev_y = py
        out.append(f'<polyline class="line k{i}" fill="none" points="{" ".join(pts)}">'
                   f'<title>{escape(bounded(name))}</title></polyline>'
                   f'<text class="k{i}-text" x="{left + 8}" y="{34 + 14 * i}">'
                   f'{escape(name)}</text>')
    out.append("</svg>")
    return "".join(out)
