"""A headless Chromium driven through the DevTools protocol over --remote-debugging-pipe.

Python standard library only: the browser reads commands on its fd 3 and writes replies and
events on its fd 4, each message one JSON object followed by a NUL byte.
"""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


class BrowserError(Exception):
    pass


# the keys the checks press: DOM key name -> (DOM code, Windows key code, the text it types)
KEYS = {"Tab": ("Tab", 9, None), "Enter": ("Enter", 13, "\r"), " ": ("Space", 32, " ")}


def find_chromium():
    """$CHROMIUM when set (only it: a test can name a browser that is not there), else PATH's."""
    if os.environ.get("CHROMIUM"):
        return shutil.which(os.environ["CHROMIUM"])
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    """One browser with one page. Events arrive in self.events, in order."""

    def __init__(self, binary, timeout=30.0):
        self.timeout = timeout
        self.events = []
        self.next_id = 0
        self.buf = b""
        self.profile = tempfile.mkdtemp(prefix="gpurec-chromium.")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # fds 3 and 4 in the child; the pipes' own fds are moved above them first, so that
        # the dup2 below never overwrites one with the other
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)

        def child_fds():
            os.dup2(hi[0], 3)
            os.dup2(hi[1], 4)

        args = [binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-sync", "--mute-audio",
                "--user-data-dir=" + self.profile, "about:blank"]
        self.log = open(os.path.join(self.profile, "stderr.log"), "w+")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log, preexec_fn=child_fds, pass_fds=(3, 4))
        for fd in hi:
            os.close(fd)
        self.session = None
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"}, browser=True)
            self.session = self.call("Target.attachToTarget",
                                     {"targetId": target["targetId"], "flatten": True},
                                     browser=True)["sessionId"]
        except BrowserError:
            self.close()
            raise

    def stderr_tail(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-2000:]

    def send(self, method, params=None, browser=False):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if not browser:
            msg["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from the browser in %.0f s" % self.timeout)
            r, _, _ = select.select([self.from_browser], [], [], left)
            if not r:
                continue
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("the browser closed its pipe: " + self.stderr_tail())
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, browser=False):
        """Sends one command and returns its result; events meanwhile go to self.events."""
        want = self.send(method, params, browser)
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._read(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise BrowserError("%s: %s" % (method, msg["error"].get("message")))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        for e in self.events:
            if e["method"] == method:
                return e
        while True:
            msg = self._read(deadline)
            if "method" in msg:
                self.events.append(msg)
                if msg["method"] == method:
                    return msg

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise BrowserError("evaluate %r: %s" % (expression[:60],
                                                    r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def press(self, key):
        """One key press (down and up) on the page, as a keyboard would send it: KEYS' names."""
        code, keycode, text = KEYS[key]
        down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": keycode}
        if text:
            down["text"] = text
        self.call("Input.dispatchKeyEvent", down)
        self.call("Input.dispatchKeyEvent", dict(down, type="keyUp", text=""))

    # what check_page.py asks of either browser (bidi.Browser has the same methods)

    def open(self, url, width, height):
        """Loads url in a width x height viewport and returns once its load event fired."""
        for domain in ("Runtime", "Log", "Page"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def hover(self, x, y):
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})

    def click(self, x, y):
        for t in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": t, "x": x, "y": y, "button": "left",
                                                   "clickCount": 1})

    def dark(self):
        """From now on the page sees prefers-color-scheme: dark."""
        self.call("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})

    def screenshot(self, width, height):
        """PNG bytes of the page's top width x height, below the viewport's fold too."""
        r = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                 "clip": {"x": 0, "y": 0, "width": width,
                                                          "height": height, "scale": 1}})
        return base64.b64decode(r["data"])

    def problems(self):
        """Console errors and warnings, uncaught exceptions, and browser log errors so far."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: %s %s" % (d.get("text"), d.get("exception", {}).get(
                    "description", "")))
            elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") in (
                    "error", "warning", "assert"):
                out.append("console.%s: %s" % (p["type"], " ".join(
                    str(a.get("value", a.get("description"))) for a in p.get("args", []))))
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") in (
                    "error", "warning"):
                out.append("log %s: %s" % (p["entry"]["level"], p["entry"].get("text")))
        return out

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.send("Browser.close", browser=True)
                    self.proc.wait(5)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
                    self.proc.wait()
        finally:
            for fd in (self.to_browser, self.from_browser):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.log.close()
            shutil.rmtree(self.profile, ignore_errors=True)
