"""A headless Firefox driven through WebDriver BiDi over a WebSocket.

Python standard library only. Firefox starts with --remote-debugging-port=0 on a fresh profile
and says on stderr which port it chose ("WebDriver BiDi listening on ws://HOST:PORT"); the
client below speaks just enough RFC 6455 for it: one connection, text frames, client frames
masked as the RFC requires, fragments reassembled, pings answered.
"""
import base64
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import time

from cdp import BrowserError  # one error type for either driver

LISTENING = re.compile(
    rb"WebDriver BiDi listening on ws://([0-9.]+|\[[0-9a-f:]+\]|localhost):(\d+)")

# prefs for a quiet, private, offline profile: no first-run pages, no updates, no telemetry, no
# network calls that would log errors of their own
QUIET_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.auto": False,
    "app.update.enabled": False,
    "app.normandy.enabled": False,
    "extensions.update.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "services.settings.server": "http://127.0.0.1:9/",
    "messaging-system.rsexperimentloader.enabled": False,
}

# the page's own dark mode: prefers-color-scheme answers "dark" for content (0 dark, 1 light)
DARK_PREFS = {"ui.systemUsesDarkTheme": 1, "layout.css.prefers-color-scheme.content-override": 0}

# WebDriver key values (the spec's private-use code points) for the keys the checks press
KEYS = {"Tab": "\ue004", "Enter": "\ue007", " ": " "}


def find_firefox():
    """$FIREFOX when set (only it: a test can name a browser that is not there), else PATH's."""
    if os.environ.get("FIREFOX"):
        return shutil.which(os.environ["FIREFOX"])
    for name in ("firefox-esr", "firefox"):
        if shutil.which(name):
            return shutil.which(name)
    return None


class WebSocket:
    """A client WebSocket for text messages (RFC 6455)."""

    def __init__(self, host, port, path, timeout):
        self.sock = socket.create_connection((host, port), timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n" % (path, host, port, key)).encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise BrowserError("the browser closed the WebSocket during its handshake")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise BrowserError("WebSocket handshake refused: "
                               + head.decode(errors="replace")[:200])

    def _frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + body)

    def send(self, text):
        self._frame(0x1, text.encode())

    def _need(self, n, deadline):
        while len(self.buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from the browser")
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                continue
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise BrowserError("the browser closed the WebSocket")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self, deadline):
        """The next whole text message; control frames are handled on the way."""
        message = b""
        while True:
            b0, b1 = self._need(2, deadline)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._need(2, deadline))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._need(8, deadline))[0]
            mask = self._need(4, deadline) if b1 & 0x80 else None
            payload = self._need(n, deadline)
            if mask:
                payload = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise BrowserError("the browser closed the WebSocket")
            if opcode == 0x9:
                self._frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()

    def close(self):
        try:
            self._frame(0x8, b"")
        except OSError:
            pass
        self.sock.close()


def value(remote):
    """A BiDi RemoteValue as Python data (primitives, arrays and plain objects)."""
    t = remote.get("type")
    if t in ("undefined", "null"):
        return None
    if t == "number":
        v = remote["value"]
        return {"NaN": float("nan"), "-0": -0.0, "Infinity": float("inf"),
                "-Infinity": float("-inf")}.get(v, v) if isinstance(v, str) else v
    if t in ("string", "boolean", "bigint"):
        return remote["value"]
    if t == "array":
        return [value(v) for v in remote.get("value", [])]
    if t == "object":
        return {k if isinstance(k, str) else value(k): value(v) for k, v in remote.get("value", [])}
    return remote  # a node, a function: the caller asked for something it cannot read


class Browser:
    """One Firefox with one page (browsing context). Events arrive in self.events, in order."""

    def __init__(self, binary, timeout=30.0, prefs=None):
        self.binary, self.timeout, self.prefs = binary, timeout, prefs or {}
        self.events = []
        self.next_id = 0
        self.ws = None
        self.url, self.size = None, None
        self.profile = tempfile.mkdtemp(prefix="gpurec-firefox.")
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for k, v in dict(QUIET_PREFS, **self.prefs).items():
                f.write("user_pref(%s, %s);\n" % (json.dumps(k), json.dumps(v)))
        # root in CI: Firefox wants a HOME it may write; it gets the profile's directory
        env = dict(os.environ, MOZ_HEADLESS="1", HOME=self.profile, MOZ_CRASHREPORTER_DISABLE="1")
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        self.log = open(os.path.join(self.profile, "stderr.log"), "w+b")
        self.proc = subprocess.Popen([binary, "--headless", "--no-remote", "--profile",
                                      self.profile, "--remote-debugging-port=0", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                     env=env)
        try:
            host, port = self._listening()
            self.ws = WebSocket(host.strip("[]"), port, "/session", timeout)
            self.call("session.new", {"capabilities": {}})
            self.call("session.subscribe", {"events": ["log.entryAdded"]})
            # the tab Firefox starts with does not have the focus in headless mode
            # (document.hasFocus() stays false, so :focus-visible never matches and Enter does
            # not press a button); a tab opened in the foreground has it
            first = self.call("browsingContext.getTree", {"maxDepth": 0})["contexts"]
            self.context = self.call("browsingContext.create",
                                     {"type": "tab", "background": False})["context"]
            for c in first:
                self.call("browsingContext.close", {"context": c["context"]})
        except (BrowserError, OSError) as e:
            tail = self.stderr_tail()
            self.close()
            raise BrowserError("%s%s" % (e, ("; stderr: " + tail) if tail else ""))

    def _listening(self):
        """The host and port Firefox says it listens on, read from its stderr."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            self.log.flush()
            self.log.seek(0)
            m = LISTENING.search(self.log.read())
            if m:
                return m.group(1).decode(), int(m.group(2))
            if self.proc.poll() is not None:
                raise BrowserError("firefox exited with status %d" % self.proc.returncode)
            time.sleep(0.05)
        raise BrowserError("firefox did not say where WebDriver BiDi listens in %.0f s"
                           % self.timeout)

    def stderr_tail(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-1000:].decode(errors="replace").strip()

    def call(self, method, params=None):
        """Sends one command and returns its result; events meanwhile go to self.events."""
        self.next_id += 1
        want = self.next_id
        self.ws.send(json.dumps({"id": want, "method": method, "params": params or {}}))
        deadline = time.monotonic() + self.timeout
        while True:
            msg = json.loads(self.ws.recv(deadline))
            if msg.get("id") == want:
                if msg.get("type") == "error":
                    raise BrowserError("%s: %s: %s" % (method, msg.get("error"),
                                                       msg.get("message")))
                return msg.get("result", {})
            if msg.get("type") == "event":
                self.events.append(msg)

    def evaluate(self, expression):
        r = self.call("script.evaluate", {"expression": expression,
                                          "target": {"context": self.context},
                                          "awaitPromise": True, "resultOwnership": "none"})
        if r.get("type") == "exception":
            d = r.get("exceptionDetails", {})
            raise BrowserError("evaluate %r: %s" % (expression[:60], d.get("text")))
        return value(r["result"])

    # what check_page.py asks of either browser (cdp.Browser has the same methods)

    def open(self, url, width, height):
        """Loads url in a width x height viewport and returns once its load event fired."""
        self.url, self.size = url, (width, height)
        self.call("browsingContext.setViewport", {"context": self.context,
                                                  "viewport": {"width": width, "height": height},
                                                  "devicePixelRatio": 1})
        self.call("browsingContext.navigate", {"context": self.context, "url": url,
                                               "wait": "complete"})

    def press(self, key):
        """One key press (down and up) on the page: "Tab", "Enter" or " "."""
        self.call("input.performActions", {"context": self.context, "actions": [
            {"type": "key", "id": "keyboard", "actions": [{"type": "keyDown", "value": KEYS[key]},
                                                          {"type": "keyUp", "value": KEYS[key]}]}]})

    def _pointer(self, x, y, *steps):
        # BiDi takes whole CSS pixels from the viewport's origin (the default origin)
        move = {"type": "pointerMove", "x": int(round(x)), "y": int(round(y))}
        self.call("input.performActions", {"context": self.context, "actions": [
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
             "actions": [move] + [{"type": s, "button": 0} for s in steps]}]})

    def hover(self, x, y):
        self._pointer(x, y)

    def click(self, x, y):
        self._pointer(x, y, "pointerDown", "pointerUp")

    def dark(self):
        """From now on the page sees prefers-color-scheme: dark. Firefox ESR 153's BiDi has no
        command for it (no emulation.setColorSchemeOverride), so Firefox starts again on a
        profile whose prefs say dark and the page loads again; the events so far are kept."""
        events, url, size = self.events, self.url, self.size
        self.close()
        self.__init__(self.binary, self.timeout, dict(self.prefs, **DARK_PREFS))
        self.events = events + self.events
        self.open(url, *size)

    def screenshot(self, width, height):
        """PNG bytes of the page's top width x height, below the viewport's fold too."""
        r = self.call("browsingContext.captureScreenshot", {
            "context": self.context, "origin": "document",
            "clip": {"type": "box", "x": 0, "y": 0, "width": width, "height": height}})
        return base64.b64decode(r["data"])

    def problems(self):
        """Console errors and warnings and uncaught exceptions so far."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e.get("method") != "log.entryAdded" or p.get("level") not in ("error", "warn"):
                continue
            if p.get("type") == "javascript":
                out.append("exception: %s" % p.get("text"))
            else:
                # named as Chromium names it (console.warning), so one expected line fits both
                kind = {"warn": "warning"}.get(p.get("method"), p.get("method", p["level"]))
                out.append("console.%s: %s" % (kind, p.get("text")))
        return out

    def close(self):
        try:
            if self.ws:
                try:
                    self.call("browser.close")
                except (BrowserError, OSError):
                    pass
                self.ws.close()
                self.ws = None
        finally:
            if self.proc.poll() is None:
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.log.close()
            shutil.rmtree(self.profile, ignore_errors=True)
