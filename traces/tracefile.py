"""Streaming reader for Chrome Trace Event Format files (object or array form, gzip or not).

Why streaming: a trace can be larger than memory allows, and every consumer
(validate, stats) only needs one event at a time, so the ``traceEvents`` array
is decoded chunk by chunk and yielded in batches.  Memory is bounded by the
chunk size plus the largest single event.

How it stays fast: per chunk we look backwards for a cheap cut point, the last
``}`` ``,`` ``{`` sequence (whitespace allowed) — almost always the boundary
between two events — and decode everything before it with one
``orjson.loads(b"[" + slice + b"]")`` call.  Such a slice starts at a real
event boundary, so if the cut landed inside a string or a nested object the
brackets or quotes cannot balance and orjson fails; only then do we fall back
to ``json.JSONDecoder.raw_decode`` element by element, which finds the true
boundaries.  A successful bulk decode is therefore always correct.

Integers: JavaScript loses integers above 2**53, and orjson turns integers
above 2**64 into floats.  Each batch carries a flag telling whether its raw
bytes hold a run of 16+ digits, so the checker only deep-scans batches that
might contain such integers; batches with a 20+ digit run are decoded with
the stdlib (exact big ints) instead of orjson.
"""
from __future__ import annotations

import codecs
import gzip
import json
import os
import re
import zlib

import orjson

DEFAULT_CHUNK = 1 << 18
_MAX_DEPTH = 1000  # about where the standard library's decoder gives up (recursion limit)
GZIP_MAGIC = b"\x1f\x8b"

_WS = re.compile(rb"[ \t\r\n]*")
_WS_BYTES = b" \t\r\n"
# bytes.translate + substring search is ~50x faster than a regex like rb"\d{16}"
_DIGIT_MAP = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_RUN16 = b"0" * 16  # 2**53 has 16 digits
_RUN20 = b"0" * 20  # 2**64 has 20 digits
# A decode error whose remaining text is one short token may just be cut off.
_CUT_TOKEN = re.compile(r"[^\s,:\]\}]{0,40}")


# What reading a (possibly gzipped) file can raise besides TraceError: I/O errors, a cut
# gzip stream (EOFError), a corrupt one (zlib.error; BadGzipFile is an OSError).
READ_ERRORS = (OSError, EOFError, zlib.error)


class TraceError(Exception):
    """The input cannot be read as a trace at all (CLI exit code 2).

    ``kind`` is one of ``missing``, ``unreadable``, ``not_json``, ``not_trace``,
    ``corrupt``, ``not_utf8``, ``too_deep``; ``offset`` is the byte offset (in the decompressed stream).
    """

    def __init__(self, message, kind="corrupt", offset=None):
        super().__init__(message)
        self.kind = kind
        self.offset = offset


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def open_binary(path):
    """Open ``path`` for binary reading, transparently gunzipping (detected by magic bytes)."""
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file", "missing") from None
    except IsADirectoryError:
        raise TraceError(f"{path}: is a directory, expected a trace file", "unreadable") from None
    except OSError as exc:
        raise TraceError(f"{path}: cannot open ({exc.strerror})", "unreadable") from None
    magic = raw.read(2)
    raw.seek(0)
    if magic == GZIP_MAGIC:
        return _GzipWithRaw(raw)
    return raw


class _GzipWithRaw(gzip.GzipFile):
    """GzipFile that remembers its compressed file so progress can use its offset."""

    def __init__(self, raw):
        super().__init__(fileobj=raw, mode="rb")
        self.raw_file = raw

    def close(self):
        try:
            super().close()
        finally:
            self.raw_file.close()


def _incomplete(err, text):
    """True if a raw_decode error may be due to the text simply ending early."""
    if err.msg.startswith("Unterminated string"):
        return True
    return _CUT_TOKEN.fullmatch(text, err.pos) is not None


class TraceReader:
    """Iterate over the events of one trace file.

    After iteration: ``form`` is ``"object"`` or ``"array"``, ``top`` holds the
    other top-level keys of the object form (``displayTimeUnit``,
    ``otherData``, ...; they may come before or after ``traceEvents``), and
    ``truncated`` is True for an array form that ends before its ``]`` (which
    Perfetto accepts and catapult does not).  A truncated or otherwise broken
    object form raises :class:`TraceError` (kind ``corrupt``).
    """

    def __init__(self, path, chunk_size=DEFAULT_CHUNK):
        self.path = str(path)
        self.chunk_size = max(1, int(chunk_size))
        self.form = None
        self.top = {}
        self.truncated = False
        self.has_events_key = False
        self._file = None
        self._data = b""
        self._pos = 0
        self._base = 0  # stream offset of self._data[0]
        self._eof = False
        self._decoder = codecs.getincrementaldecoder("utf-8")
        self.lone_surrogates = 0  # strings whose lone \ud800-style escapes became U+FFFD

    # -- progress -------------------------------------------------------
    def total_bytes(self):
        try:
            return os.path.getsize(self.path)
        except OSError:
            return 0

    def bytes_read(self):
        f = self._file
        if f is None:
            return 0
        try:
            return getattr(f, "raw_file", f).tell()
        except (OSError, ValueError):
            return 0

    # -- public iteration ---------------------------------------------------
    def __iter__(self):
        for batch, _ in self.batches():
            yield from batch

    def batches(self):
        """Yield ``(events, maybe_big_ints)``; ``events`` is a list of decoded elements."""
        self._file = open_binary(self.path)
        try:
            yield from self._document()
        except READ_ERRORS as exc:
            raise TraceError(f"{self.path}: read error: {exc}", "unreadable") from None
        finally:
            self._file.close()

    # -- buffer ---------------------------------------------------------------
    def _fill(self, at_least=0):
        """Append at least one chunk (or ``at_least`` bytes) to the buffer; False at EOF."""
        if self._eof:
            return False
        want = max(self.chunk_size, at_least)
        chunk = self._file.read(want)
        if not chunk:
            self._eof = True
            return False
        if self._pos:
            self._base += self._pos
            self._data = self._data[self._pos:] + chunk
            self._pos = 0
        else:
            self._data += chunk
        return True

    def _peek(self):
        """Next non-whitespace byte (as an int) without consuming it; None at EOF."""
        while True:
            self._pos = _WS.match(self._data, self._pos).end()
            if self._pos < len(self._data):
                return self._data[self._pos]
            if not self._fill():
                return None

    def _offset(self):
        return self._base + self._pos

    def _corrupt(self, what, offset=None):
        off = self._offset() if offset is None else offset
        return TraceError(f"{self.path}: corrupt JSON at byte {off}: {what}", "corrupt", off)

    # -- grammar --------------------------------------------------------------
    def _document(self):
        if self._peek() is None:
            raise TraceError(f"{self.path}: empty file, expected a JSON trace", "not_json", 0)
        if self._data.startswith(codecs.BOM_UTF8, self._pos):
            self._pos += len(codecs.BOM_UTF8)
        c = self._peek()
        if c == 0x5B:  # [
            self.form = "array"
            self._pos += 1
            yield from self._array(top_level=True)
        elif c == 0x7B:  # {
            self.form = "object"
            self._pos += 1
            yield from self._object()
        else:
            raise TraceError(
                f"{self.path}: not a JSON trace (expected '{{' or '[' at byte {self._offset()}, "
                f"found {bytes([c])!r})", "not_json", self._offset())
        if self._peek() is not None:
            raise self._corrupt("unexpected data after the end of the trace")

    def _object(self):
        first = True
        while True:
            c = self._peek()
            if c is None:
                raise self._corrupt("file ends inside the top-level object (truncated)")
            if c == 0x7D:  # }
                self._pos += 1
                break
            if not first:
                if c != 0x2C:
                    raise self._corrupt(f"expected ',' or '}}', found {bytes([c])!r}")
                self._pos += 1
                if self._peek() is None:
                    raise self._corrupt("file ends inside the top-level object (truncated)")
            key = self._value()
            if not isinstance(key, str):
                raise self._corrupt("object key is not a string")
            if self._peek() != 0x3A:
                raise self._corrupt("expected ':' after an object key")
            self._pos += 1
            if key == "traceEvents":
                if self._peek() != 0x5B:
                    raise TraceError(f"{self.path}: traceEvents is not an array", "not_trace",
                                     self._offset())
                self._pos += 1
                self.has_events_key = True
                yield from self._array(top_level=False)
            else:
                self.top[key] = self._value()
            first = False
        if not self.has_events_key:
            raise TraceError(f"{self.path}: not a trace (object has no traceEvents array)",
                             "not_trace", 0)

    def _value(self):
        """Decode one (small) JSON value at the cursor, reading more input as needed."""
        if self._peek() is None:
            raise self._corrupt("file ends where a value was expected (truncated)")
        while True:
            items, end, err = self._decode_elements(limit_one=True)
            if items:
                self._pos = end
                return items[0]
            if err is not None:
                raise err
            if not self._fill(at_least=len(self._data) - self._pos):
                raise self._corrupt("file ends inside a value (truncated)")

    def _array(self, top_level):
        need_sep = False  # True right after an element, until its ',' is consumed
        after_comma = False
        while True:
            c = self._peek()
            if c is None:
                if top_level:
                    self.truncated = True
                    return
                raise self._corrupt("file ends inside traceEvents (truncated object)")
            if c == 0x5D:  # ]
                if after_comma:
                    raise self._corrupt("trailing comma before ']'")
                self._pos += 1
                return
            if need_sep:
                if c != 0x2C:
                    raise self._corrupt(f"expected ',' or ']' between events, found {bytes([c])!r}")
                self._pos += 1
                need_sep, after_comma = False, True
                continue
            batch = self._bulk()
            if batch is None:
                items, end, err = self._decode_elements(limit_one=False)
                if err is not None:
                    raise err
                if not items:
                    if self._fill(at_least=len(self._data) - self._pos):
                        continue
                    if top_level:  # the last event is cut off: a truncated array form
                        self.truncated = True
                        self._pos = len(self._data)
                        return
                    raise self._corrupt("file ends inside traceEvents (truncated object)")
                raw = self._data[self._pos:end]
                self._pos = end
                batch = (items, digit_runs(raw)[0])
            need_sep, after_comma = True, False
            yield batch
            batch = items = None   # the consumer's; not kept while the next is decoded

    # -- element decoding -----------------------------------------------------------
    def _bulk(self):
        """Decode all events up to the last cheap cut point with one orjson call, or None."""
        data, start = self._data, self._pos
        cut = _find_cut(data, start)
        if cut is None:
            return None
        raw = data[start:cut]
        long_ints, huge_ints = digit_runs(raw)
        try:
            if huge_ints:
                text = raw.decode("utf-8")
                items = _DECODER.decode("[" + text + "]")
                if "\\ud" in text or "\\uD" in text:
                    items = _replace_lone_surrogates(items, self)
            else:
                items = orjson.loads(b"[" + raw + b"]")
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None  # cut inside a string or nested object, or odd JSON: go slow
        self._pos = cut
        return items, long_ints

    def _decode_elements(self, limit_one):
        """Slow path: raw_decode complete elements (separated by commas) from the cursor.

        Returns ``(items, end_offset_in_buffer, error)``: ``items`` may be empty
        when the first element is incomplete; ``error`` is a TraceError when the
        text is definitely not JSON (not just cut short by the buffer end).
        """
        data, start = self._data, self._pos
        try:
            text = self._decoder().decode(data[start:], final=self._eof)
        except UnicodeDecodeError as exc:
            off = self._base + start + exc.start
            raise TraceError(f"{self.path}: not UTF-8 text: byte {data[start + exc.start]:#04x} at "
                             f"offset {off} ({exc.reason}); a JSON trace is UTF-8", "not_utf8",
                             off) from None
        surrogates = "\\ud" in text or "\\uD" in text
        ascii_only = len(text) == len(data) - start
        items = []
        i = 0
        n = len(text)
        last_end = 0
        err = None
        ws = " \t\r\n"
        while i < n:
            try:
                value, end = _DECODER.raw_decode(text, i)
            except json.JSONDecodeError as exc:
                if not _incomplete(exc, text):
                    off = self._base + start + len(text[:exc.pos].encode("utf-8"))
                    err = self._corrupt(exc.msg, off)
                break  # cut short by the buffer end (or truncated at EOF)
            except RecursionError:
                off = self._base + start + len(text[:i].encode("utf-8"))
                raise TraceError(f"{self.path}: an event at byte {off} nests deeper than the "
                                 f"{_MAX_DEPTH:,} levels of arrays and objects the reader "
                                 f"supports", "too_deep", off) from None
            except ValueError as exc:  # NaN / Infinity
                err = self._corrupt(str(exc), self._base + start + len(text[:i].encode("utf-8")))
                break
            if surrogates:
                value = _replace_lone_surrogates(value, self)
            if end >= n and not self._eof and not isinstance(value, (dict, list, str)):
                break  # a number at the buffer end may continue in the next chunk
            items.append(value)
            last_end = end
            if limit_one:
                break
            j = end
            while j < n and text[j] in ws:
                j += 1
            if j >= n or text[j] != ",":
                break
            j += 1
            while j < n and text[j] in ws:
                j += 1
            if j >= n or text[j] == "]":
                break
            i = j
        if not items:
            return items, start, err
        consumed = last_end if ascii_only else len(text[:last_end].encode("utf-8"))
        return items, start + consumed, None


def _fix(text):
    """``text`` with every lone surrogate (a ``\\ud800`` escape without its pair) as U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _has_lone(text):
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _replace_lone_surrogates(value, reader):
    """Replace lone surrogates in every string and key of ``value`` (iteratively: values may
    nest deeply) and count them on ``reader.lone_surrogates``.

    Why: JSON allows the escape, but such a string is not Unicode: it cannot be printed,
    written as UTF-8 or compared with what a viewer shows (they replace it too).
    """
    def fix(s):
        if type(s) is str and _has_lone(s):
            reader.lone_surrogates += 1
            return _fix(s)
        return s

    if type(value) is str:
        return fix(value)
    stack = [value]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            for k in list(node):
                v = node[k]
                if type(v) in (dict, list):
                    stack.append(v)
                nk = fix(k)
                nv = fix(v)
                if nk is not k:
                    del node[k]
                    node[nk] = nv
                elif nv is not v:
                    node[k] = nv
        elif type(node) is list:
            for n, v in enumerate(node):
                if type(v) in (dict, list):
                    stack.append(v)
                elif type(v) is str:
                    node[n] = fix(v)
    return value


def digit_runs(raw):
    """(has a run of 16+ digits, has a run of 20+ digits) in raw JSON bytes."""
    mapped = raw.translate(_DIGIT_MAP)
    if _RUN16 not in mapped:
        return False, False
    return True, _RUN20 in mapped


def _find_cut(data, start):
    """Offset just past the last ``}`` that is followed by ``,`` and ``{`` (whitespace allowed)."""
    end = len(data)
    for _ in range(64):
        j = data.rfind(b"{", start + 1, end)
        if j < 0:
            return None
        k = j - 1
        while k > start and data[k] in _WS_BYTES:
            k -= 1
        if data[k] == 0x2C:
            k -= 1
            while k > start and data[k] in _WS_BYTES:
                k -= 1
            if data[k] == 0x7D:
                return k + 1
        end = j
    return None


def event_labels(path, indices):
    """``{index: (ph, name)}`` of the events of the file at ``path`` whose index in the
    file is in ``indices`` (a second pass, for messages about events whose names the
    first pass did not keep: ``validate`` and ``trace`` name the events they report)."""
    labels = {}
    index = 0
    for batch, _ in TraceReader(path).batches():
        for k in range(len(batch)):
            if index + k in indices:
                ev = batch[k]
                ph, name = (ev.get("ph"), ev.get("name")) if isinstance(ev, dict) else ("", "")
                labels[index + k] = (ph if isinstance(ph, str) else "",
                                     name if isinstance(name, str) else "")
        index += len(batch)
    return labels
