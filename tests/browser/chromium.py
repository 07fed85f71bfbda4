"""Headless Chromium driven over the Chrome DevTools Protocol, for the browser tests.

A plain module (not conftest.py) so tests import it by a name no other conftest shadows.
One :class:`Browser` is one Chromium process with a fresh profile folder; :meth:`page`
attaches to its tab and records every console message, uncaught exception and network
request the page makes, so a test can assert that a page made none.

Why these flags: on a closed network Chromium's own background connections (component
updates, sync, QUIC probes) are refused and show up as noise or stalls; they are all off.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--window-size=1400,1000", "--remote-debugging-port=0", "--remote-allow-origins=*")


def find_chromium():
    """The Chromium executable (``XPROF_CHROMIUM`` first), or None."""
    explicit = os.environ.get("XPROF_CHROMIUM")
    if explicit:
        return explicit if shutil.which(explicit) else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class CDPError(RuntimeError):
    pass


class Page:
    """One tab: ``call`` a DevTools method; events are kept in ``events`` as they arrive."""

    def __init__(self, ws_url):
        import websocket

        self._ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self._next_id = 0
        self.events = []
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable")

    def close(self):
        self._ws.close()

    def _receive(self, timeout):
        self._ws.settimeout(timeout)
        msg = json.loads(self._ws.recv())
        if "method" in msg:
            self.events.append(msg)
        return msg

    def call(self, method, timeout=60, **params):
        self._next_id += 1
        call_id = self._next_id
        self._ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            msg = self._receive(max(0.1, deadline - time.monotonic()))
            if msg.get("id") == call_id:
                if "error" in msg:
                    raise CDPError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if time.monotonic() > deadline:
                raise CDPError(f"{method}: no answer in {timeout} s")

    def navigate(self, url, timeout=60):
        """Open ``url`` and wait for its load event."""
        start = len(self.events)
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", timeout, since=start)

    def wait_event(self, method, timeout=60, since=0):
        import websocket

        deadline = time.monotonic() + timeout
        while not any(e["method"] == method for e in self.events[since:]):
            if time.monotonic() > deadline:
                raise CDPError(f"no {method} in {timeout} s")
            try:
                self._receive(max(0.1, deadline - time.monotonic()))
            except websocket.WebSocketTimeoutException:
                pass   # loop and check the deadline

    def evaluate(self, expression, timeout=60):
        """The value of a JavaScript expression (promises awaited); a thrown error raises."""
        res = self.call("Runtime.evaluate", timeout=timeout, expression=expression,
                        awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in res:
            details = res["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise CDPError(f"{expression[:80]!r}: {text}")
        return res["result"].get("value")

    def wait_for(self, expression, timeout=60, interval=0.25):
        """Poll a JavaScript expression until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise CDPError(f"{expression!r} still falsy after {timeout} s")
            time.sleep(interval)

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        Path(path).write_bytes(base64.b64decode(data["data"]))
        return Path(path)

    # -- what the page did ----------------------------------------------
    def requests(self):
        """URLs of every network request the page made."""
        return [e["params"]["request"]["url"] for e in self.events
                if e["method"] == "Network.requestWillBeSent"]

    def requests_outside(self, origin, since=0):
        """``(url, blocked reason or None)`` of each request for anything but ``origin``
        (data: and blob: URLs are the page's own); a reason means the browser never
        sent it (e.g. ``"csp"``: refused by the page's Content-Security-Policy)."""
        events = self.events[since:]
        failed = {e["params"]["requestId"]: e["params"].get("blockedReason")
                  for e in events if e["method"] == "Network.loadingFailed"}
        return [(e["params"]["request"]["url"], failed.get(e["params"]["requestId"]))
                for e in events if e["method"] == "Network.requestWillBeSent"
                and not e["params"]["request"]["url"].startswith((origin, "data:", "blob:"))]

    def errors(self):
        """Console errors, uncaught exceptions and error log entries, as text."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append(d.get("exception", {}).get("description") or d.get("text"))
            elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif e["method"] == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(p["entry"].get("text"))
        return out


class Browser:
    """A headless Chromium with a fresh profile in ``profile_dir``; use as a context manager."""

    def __init__(self, executable, profile_dir):
        self.profile_dir = Path(profile_dir)
        self.profile_dir.mkdir(parents=True, exist_ok=True)
        (self.profile_dir / "DevToolsActivePort").unlink(missing_ok=True)   # a past run's
        self._proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile_dir}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._port = self._devtools_port()

    def _devtools_port(self, timeout=30):
        marker = self.profile_dir / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise CDPError(f"chromium exited with status {self._proc.returncode}")
            try:
                return int(marker.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                time.sleep(0.05)
        raise CDPError(f"chromium wrote no {marker} in {timeout} s")

    def page(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self._port}/json/list", timeout=10) as r:
            targets = json.load(r)
        tab = next(t for t in targets if t["type"] == "page")
        return Page(tab["webSocketDebuggerUrl"])

    def close(self):
        self._proc.terminate()
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
