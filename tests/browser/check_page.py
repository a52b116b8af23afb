#!/usr/bin/env python3
"""Loads a gpurec HTML report in a headless browser and checks what it draws (docs/HTML.md).

usage: check_page.py PAGE.html [--browser chromium|firefox] [--name NAME] [--screenshot OUT.png]
                     [--shot-height PX] [--expect-launches N] [--mouse] [--keyboard] [--dark]
                     [--hostile] [--max-bytes N]
The same checks in either browser: Chromium through the DevTools protocol (cdp.py), Firefox
through WebDriver BiDi (bidi.py); both drivers have the methods run() uses. The expected counts
come from the data the page carries (its gpurec-data script). Prints TAP lines. Exit status: 0
every check passed, 1 one failed, 77 skipped: the browser could not start (the reason is printed
on a "# SKIP" line; a skip is never a pass).
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bidi  # noqa: E402
import cdp  # noqa: E402
from cdp import BrowserError  # noqa: E402

# --browser NAME: how to find it, how to drive it, and what to install when it is missing
BROWSERS = {"chromium": (cdp.find_chromium, cdp.Browser, "chromium"),
            "firefox": (bidi.find_firefox, bidi.Browser, "firefox-esr")}

SKIPPED = 77
SHOT_HEIGHT = 2400  # the top of a long page is what a screenshot is for
failures = 0


def check(name, ok, detail=""):
    global failures
    print(("ok - " if ok else "not ok - ") + name + ("" if ok else ": " + str(detail)))
    failures += 0 if ok else 1


def page_data(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script id="gpurec-data" type="application/json">(.*?)</script>', text, re.S)
    return json.loads(m.group(1)) if m else None


def sides(data):
    if data["kind"] == "diff":
        return [data["base"], data["new"]]
    return [data]


def expected(data):
    """What the page must draw, counted from its own data."""
    kernels = windows = spans = verdicts = 0
    flame = False
    for s in sides(data):
        r, v = s["report"], s["views"]
        kernels += len(r.get("launches", {}).get("kernels", []))
        tl = v["timeline"]
        windows += len(tl["windows"])
        for w in tl["windows"]:
            if isinstance(w.get("spans"), int):  # each window's spans in turn in the array
                spans += w["spans"]
            else:
                spans += sum(1 for x in tl["spans"] if x[1] < w["end"] and x[1] + x[2] >= w["start"])
        # the step's diagnosis first, then each section's
        verdicts += sum(1 for sec in ["diagnosis"] + r.get("sections", [])
                        if isinstance(r.get(sec), dict) and isinstance(r[sec].get("verdict"), str))
        root = v["flame"]["root"]
        flame = flame or any(root["v"])
    return kernels, windows, spans, verdicts, flame


def expected_gpu_rows(data):
    """Rows of GPU kernels the page must list: the report's GPU section, or on a diff page the
    diff's GPU comparison (when both traces have GPU rows); None when the page has none."""
    if data["kind"] == "diff":
        g = (data.get("diff") or {}).get("gpu")
        return len(g["kernels"]) if g and g.get("compared") else None
    g = data["report"].get("gpu")
    return len(g["kernels"]) if g else None


def budget_data(data):
    """Each side's budget view (docs/HTML.md "budget"), [] where it has none."""
    out = []
    for s in sides(data):
        bu = s["views"].get("budget") or {}
        if bu.get("found"):
            out.append((s, bu))
    return out


def budget_checks(b, name, data, count):
    """The budget's bars in the data: at most 600, over every iteration in order, each one's
    parts exact integers adding up to its total; on the page: a bar per bar, each drawn bar's
    parts the data's, its height its total to scale, a mark per mark."""
    bars = marks = 0
    bad = []
    for s, bu in budget_data(data):
        rows, nparts, nxt = bu["bars"], len(bu["parts"]), 0
        bars += len(rows)
        marks += len(bu.get("marks", []))
        if len(rows) > 600 or len(bu["words"]) != nparts:
            bad.append(["shape", len(rows), nparts, len(bu["words"])])
        for r in rows:
            if len(r) != 3 + nparts or not all(isinstance(x, int) and x >= 0 for x in r) \
                    or sum(r[3:]) != r[2] or r[0] != nxt or r[1] < r[0] \
                    or r[1] - r[0] + 1 > bu["per"]:
                bad.append(r)
            nxt = r[1] + 1
        if nxt != bu["count"]:
            bad.append(["covers", nxt, bu["count"]])
        # a bar per iteration: the report's median iteration's bar is the report's median budget
        med = s["report"].get("budget", {}).get("median")
        if bu["per"] == 1 and med:
            r = rows[med["index"]]
            want = [med["total_ns"]] + [med[p + "_ns"] for p in bu["parts"]]
            if r[2:] != want:
                bad.append(["median", r, want])
    check(name + ": budget bars: every iteration once, parts adding up to the total", not bad,
          bad[:5])
    check(name + ": a budget bar per bar of the data (%d)" % bars,
          count("[data-budget-bar]") == bars, count("[data-budget-bar]"))
    check(name + ": a budget mark per mark (%d)" % marks, count("[data-budget-mark]") == marks,
          count("[data-budget-mark]"))
    # drawn: each bar's rects carry the data's parts; heights to one scale per chart
    drawn = b.evaluate("""(() => { const bad = [];
      for (const svg of document.querySelectorAll('svg[data-plot-h]')) {
        const gs = [...svg.querySelectorAll('[data-budget-bar]')];
        const max = +svg.dataset.maxNs, h = +svg.dataset.plotH;
        if (gs.some(g => +g.dataset.total > max)) bad.push(['over the scale', max]);
        for (const g of gs) {
          const rs = [...g.querySelectorAll('rect')];
          const ns = rs.reduce((a, r) => a + +r.dataset.ns, 0);
          const px = rs.reduce((a, r) => a + r.getBBox().height, 0);
          const want = max ? +g.dataset.total / max * h : 0;
          if (ns !== +g.dataset.total || Math.abs(px - want) > 0.5)
            bad.push([g.dataset.budgetBar, ns, g.dataset.total, px, want]);
        }
      }
      return bad.slice(0, 5); })()""")
    check(name + ": each drawn budget bar: its parts sum to its total, its height to scale",
          drawn == [], drawn)
    if data["kind"] == "diff" and len(budget_data(data)) == 2:
        scales = b.evaluate("[...document.querySelectorAll('svg[data-max-ns]')]"
                            ".map(s => s.dataset.maxNs)")
        check(name + ": both sides' budgets to one scale", len(scales) == 2
              and scales[0] == scales[1], scales)
    if bars:
        # the tallest part's rect: a part under a pixel tall cannot be hovered
        at = b.evaluate("(() => { const rs = [...document.querySelectorAll('[data-budget-bar] rect')];"
                        " const e = rs.reduce((a, r) => r.getBBox().height > a.getBBox().height"
                        " ? r : a); e.scrollIntoView({block: 'center'});"
                        " const r = e.getBoundingClientRect();"
                        " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        if at:
            b.hover(at[0], at[1])
            tip = b.evaluate("[document.getElementById('tip').hidden,"
                             " document.getElementById('tip').textContent]")
            check(name + ": hovering a budget bar names its iteration(s) and parts",
                  not tip[0] and tip[1].startswith("iteration") and "\n" in tip[1], tip)
            b.hover(1, 1)


def luminance(css):
    m = re.match(r"rgba?\((\d+), (\d+), (\d+)", css or "")
    if not m:
        return None
    r, g, b = (int(x) / 255 for x in m.groups())
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def tab_to(b, selector, limit=400):
    """Presses Tab until the focused element matches selector; returns the presses or None."""
    for i in range(1, limit + 1):
        b.press("Tab")
        # the document must have the focus too: Firefox tabs from the page's last element into
        # its own toolbar, and activeElement still names the page's element meanwhile
        if b.evaluate("document.hasFocus() && document.activeElement"
                      " && document.activeElement.matches(%s)"
                      % json.dumps(selector)):
            return i
    return None


def keyboard(b, name):
    presses = tab_to(b, "button[aria-expanded=false]")
    check(name + ": Tab reaches a toggle", presses is not None, "no toggle after 400 Tabs")
    if presses is None:
        return
    outline = b.evaluate("(() => { const s = getComputedStyle(document.activeElement);"
                         " return [s.outlineStyle, parseFloat(s.outlineWidth)]; })()")
    check(name + ": the focused toggle shows its focus", outline[0] != "none" and outline[1] > 0,
          outline)
    b.press("Enter")
    state = b.evaluate("(() => { const t = document.activeElement;"
                       " const r = document.getElementById(t.getAttribute('aria-controls'));"
                       " return [t.getAttribute('aria-expanded'), !r.hidden, r.offsetHeight > 0];"
                       " })()")
    check(name + ": Enter opens it", state == ["true", True, True], state)
    b.press("Enter")
    check(name + ": Enter closes it again",
          b.evaluate("document.activeElement.getAttribute('aria-expanded')") == "false")
    if b.evaluate("!!document.querySelector('.flame [aria-pressed=false]')"):
        check(name + ": Tab reaches the flame graph's weight switch",
              tab_to(b, ".flame button[aria-pressed=false]") is not None)
        before = b.evaluate("document.querySelector('[data-flame=root]').getAttribute('aria-label')")
        b.press(" ")
        after = b.evaluate("[document.activeElement.getAttribute('aria-pressed'),"
                           " document.querySelector('[data-flame=root]').getAttribute('aria-label')]")
        check(name + ": Space switches the weight", after[0] == "true" and after[1] != before,
              [before, after])


def center(b, selector):
    """[x, y, width] of the element's box: its centre in the viewport, its own width (an SVG
    shape's without its stroke: Firefox's getBoundingClientRect counts the stroke, Chromium's
    does not)."""
    return b.evaluate("(() => { const e = document.querySelector(%s); if (!e) return null;"
                      " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                      " return [r.left + r.width / 2, r.top + r.height / 2,"
                      " e.getBBox ? e.getBBox().width : r.width]; })()"
                      % json.dumps(selector))


def mouse(b, name, data):
    """Hover a span: its tooltip names it; click a flame box: it fills the graph's width."""
    s = data if data["kind"] == "report" else data["base"]
    tl = s["views"]["timeline"]
    at = center(b, "[data-span]")
    if at:
        b.hover(at[0], at[1])
        i = b.evaluate("+document.elementFromPoint(%f, %f).getAttribute('data-span')" % tuple(at[:2]))
        tip = b.evaluate("[document.getElementById('tip').hidden,"
                         " document.getElementById('tip').textContent]")
        span = tl["spans"][i] if isinstance(i, int) and 0 <= i < len(tl["spans"]) else None
        want = [tl["names"][span[4]], "duration "] if span else ["?"]
        check(name + ": hovering a span shows its name and duration",
              not tip[0] and all(w in tip[1] for w in want), [tip, want])
    root_w = center(b, "[data-flame=root] rect")
    box = b.evaluate("(() => { const all = [...document.querySelectorAll('[data-flame=box] rect')];"
                     " const r = all.filter(e => e.getBoundingClientRect().width > 20"
                     " && e.getBoundingClientRect().width < 0.9 * %f); return r.length ?"
                     " r[r.length - 1].parentNode.getAttribute('aria-label') : null; })()"
                     % (root_w[2] if root_w else 0))
    if box:
        sel = "[data-flame=box][aria-label=%s] rect" % json.dumps(box)
        at = center(b, sel)
        b.click(at[0], at[1])
        after = center(b, sel)
        check(name + ": clicking a flame box zooms it to the full width",
              after and abs(after[2] - root_w[2]) < 1, [box, at[2], after, root_w[2]])


def failure_checks(b, name, data):
    """A report page with failed calls shows the text report's banner and a row per (api,
    error) above the verdicts, which then say "(see above)"; one without shows none."""
    if data.get("kind") == "diff":
        return
    r = data["report"]
    banner = r.get("failed_banner")
    shown = b.evaluate("(() => { const e = document.querySelector('.failed-banner');"
                       " return e ? e.textContent : null; })()")
    if not banner:
        check(name + ": no failed-calls banner without failed calls", shown is None, shown)
        return
    check(name + ": the failed-calls banner is the report's", shown == banner, shown)
    above = b.evaluate("(() => { const e = document.querySelector('.failed-banner'),"
                       " v = document.querySelector('[data-verdict]');"
                       " return !!(e && v && (e.compareDocumentPosition(v) & 4)); })()")
    check(name + ": it stands above the verdicts", above)
    cells = b.evaluate("[...document.querySelectorAll('section.failures td')]"
                       ".map(td => td.textContent)")
    for e in r.get("errors", [])[:50]:
        want = [e["api"], "%s (%d)" % (e["status_name"], e["status"]) if e["status_name"]
                else "error %d" % e["status"], str(e["count"])]
        check(name + ": failed calls list %s %s" % (want[0], want[1]),
              all(w in cells for w in want), cells[:12])


def memory_checks(b, name, data, count):
    """The device memory part: a chart per process the data carries, its peak marked at the
    peak's bytes, and the flame graph of the live set at the peak (docs/HTML.md, MEMORY)."""
    mems = [s.get("memory") for s in sides(data)]
    if not any(mems):
        check(name + ": no memory chart without device memory", count(".memchart") == 0,
              count(".memchart"))
        return
    procs = [p for mem in mems if mem for p in mem["processes"]]
    check(name + ": a memory chart per process (%d)" % len(procs),
          count(".memchart") == len(procs), count(".memchart"))
    peaks = b.evaluate("Array.from(document.querySelectorAll('[data-peak]'))"
                       ".map(function (e) { return +e.getAttribute('data-peak'); })")
    check(name + ": each chart marks its process's peak", peaks == [p["peak_bytes"] for p in procs],
          peaks)
    boxes = count("section.flame[aria-label='memory flame graph']")
    check(name + ": the live set at the peak drawn as a flame graph, one per side with memory",
          boxes == sum(1 for mem in mems if mem) and
          count("section.flame[aria-label='memory flame graph'] [data-flame]") > boxes, boxes)


def nvtx_checks(b, name, data, count):
    """NVTX ranges (docs/HTML.md): a bar per range on its thread's lanes, one lane per depth, the
    program's colour where given, and the range flame graph; none of it without ranges."""
    rows = (data.get("diff") or {}).get("nvtx") if data["kind"] == "diff" else None
    if rows:
        shown = b.evaluate("document.querySelectorAll('[data-nvtx-diff] tbody tr').length")
        check(name + ": a row per NVTX range compared (%d)" % len(rows), shown == len(rows), shown)
    nv = [s["views"].get("nvtx") for s in sides(data)]
    nspans = sum(len(v["spans"]) for v in nv if v)
    check(name + ": a bar per NVTX range (%d)" % nspans, count("rect.nvtx") == nspans,
          count("rect.nvtx"))
    nflame = count("section.flame[aria-label='NVTX range flame graph'] [data-flame]")
    if not any(nv):
        check(name + ": no NVTX range flame graph without ranges", nflame == 0, nflame)
        return
    nodes = 0
    for v in nv:
        if v:
            stack = [v["flame"]["root"]]
            while stack:
                n = stack.pop()
                nodes += 1
                stack += n["children"]
    check(name + ": a box per NVTX range tree node (%d)" % nodes, nflame == nodes, nflame)
    colored = [s[6] for v in nv if v for s in v["spans"] if s[6]]
    shown = b.evaluate("Array.from(document.querySelectorAll('rect.nvtx'))"
                       ".filter(r => r.style.fill).length")
    check(name + ": ranges with a colour drawn in it (%d)" % len(colored), shown == len(colored),
          shown)
    # a lane per depth under each thread with ranges, in each window of each side
    want = 0
    for v in nv:
        deepest = {}
        for x in v["spans"] if v else []:
            deepest[(x[0], x[1])] = max(deepest.get((x[0], x[1]), 0), x[4] + 1)
        want += sum(deepest.values())
    lanes = b.evaluate("Array.from(document.querySelectorAll('.window svg text'))"
                       ".filter(t => t.textContent.trim().startsWith('NVTX')).length")
    check(name + ": a lane per depth under the thread in each window (%d)" % want,
          lanes == want, lanes)


def run(b, args, data):
    name = args.name
    b.open("file://" + os.path.abspath(args.page), 1200, 900)
    check(name + ": the page says it is drawn",
          b.evaluate("document.documentElement.dataset.ready") == "true",
          b.evaluate("document.getElementById('app').textContent.slice(0, 200)"))
    kernels, windows, spans, verdicts, flame = expected(data)
    count = lambda sel: b.evaluate("document.querySelectorAll(%s).length" % json.dumps(sel))
    check(name + ": a bar per kernel (%d)" % kernels, count("[data-kernel]") == kernels,
          count("[data-kernel]"))
    gpu_rows = expected_gpu_rows(data)
    if gpu_rows is not None:
        check(name + ": a row per kernel the GPU measured (%d)" % gpu_rows,
              count("[data-gpu-kernel]") == gpu_rows, count("[data-gpu-kernel]"))
    else:
        check(name + ": no GPU part without GPU rows", count("section.gpu") == 0,
              count("section.gpu"))
    check(name + ": a window per timeline window (%d)" % windows,
          count("[data-iteration]") == windows, count("[data-iteration]"))
    check(name + ": every span of the windows drawn (%d)" % spans, count("[data-span]") == spans,
          count("[data-span]"))
    check(name + ": a line per verdict (%d)" % verdicts, count("[data-verdict]") == verdicts,
          count("[data-verdict]"))
    budget_checks(b, name, data, count)
    failure_checks(b, name, data)
    for side in sides(data):
        cut = side["views"]["timeline"].get("truncated", 0)
        if cut:
            check(name + ": the page says %d spans were left out" % cut,
                  b.evaluate("document.body.textContent.includes(%s)"
                             % json.dumps("%d spans left out" % cut)))
    nflame = count("section.flame[aria-label='launch flame graph'] [data-flame]")
    check(name + ": flame boxes " + ("drawn" if flame else "absent (no stacks)"),
          nflame > 1 if flame else nflame == 0, nflame)
    memory_checks(b, name, data, count)
    nvtx_checks(b, name, data, count)
    if args.expect_launches is not None:
        shown = b.evaluate("Array.from(document.querySelectorAll('[data-kernel]'))"
                           ".map(r => r.nextSibling.textContent.split(' ')[0])")
        check(name + ": each kernel's bar says %d launches" % args.expect_launches,
              shown and all(s == str(args.expect_launches) for s in shown), shown)
    if args.hostile:
        check(name + ": no markup from a kernel name ran or was inserted",
              b.evaluate("window.PWNED === undefined && !document.querySelector('img, b')"),
              b.evaluate("String(window.PWNED)"))
        check(name + ": the title is the data's title, as text",
              b.evaluate("document.title") == data["title"], b.evaluate("document.title"))
        want = data["report"]["launches"]["kernels"][0]["name"]
        check(name + ": a kernel's name reaches its tooltip intact",
              b.evaluate("document.querySelector('[data-kernel=\"0\"]').tipText.split('\\n')[0]")
              == want)
    if args.max_bytes:
        size = os.path.getsize(args.page)
        check(name + ": the page is under %d bytes (%d)" % (args.max_bytes, size),
              size < args.max_bytes)
    # the keyboard first, from the page as loaded: after a click Tab starts from the clicked box,
    # and past the page's last element Firefox goes on into its toolbar, never back
    if args.keyboard:
        keyboard(b, name)
    if args.mouse:
        mouse(b, name, data)
    light = luminance(b.evaluate("getComputedStyle(document.body).backgroundColor"))
    if args.screenshot:
        shot(b, args.screenshot)
    if args.dark:
        b.dark()
        dark = luminance(b.evaluate("getComputedStyle(document.body).backgroundColor"))
        text = luminance(b.evaluate("getComputedStyle(document.body).color"))
        check(name + ": light by default, dark under prefers-color-scheme: dark",
              light is not None and dark is not None and light > 0.8 and dark < 0.15
              and text > 0.6, [light, dark, text])
        if args.screenshot:
            shot(b, re.sub(r"\.png$", "-dark.png", args.screenshot))
    b.evaluate("new Promise(r => setTimeout(r, 100))")  # let late console messages arrive
    problems = b.problems()
    check(name + ": no console error or warning", not problems, "; ".join(problems)[:1500])


def shot(b, path):
    height = b.evaluate("Math.min(document.documentElement.scrollHeight, %d)" % SHOT_HEIGHT)
    png = b.screenshot(1200, height)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(png)
    check("screenshot " + os.path.basename(path), os.path.getsize(path) > 1000)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--browser", choices=sorted(BROWSERS), default="chromium")
    ap.add_argument("--name", default="page")
    ap.add_argument("--screenshot")
    ap.add_argument("--expect-launches", type=int)
    ap.add_argument("--keyboard", action="store_true")
    ap.add_argument("--mouse", action="store_true")
    ap.add_argument("--dark", action="store_true")
    ap.add_argument("--hostile", action="store_true")
    ap.add_argument("--max-bytes", type=int)
    ap.add_argument("--shot-height", type=int, default=SHOT_HEIGHT)
    args = ap.parse_args()
    globals()["SHOT_HEIGHT"] = args.shot_height
    data = page_data(args.page)
    check(args.name + ": the page carries gpurec-html-1 data",
          data is not None and data.get("schema") == "gpurec-html-1")
    if data is None:
        return 1
    find, driver, package = BROWSERS[args.browser]
    binary = find()
    if not binary:
        print("ok - %s # SKIP no %s on this machine (apt-get install %s)"
              % (args.name, args.browser, package))
        return SKIPPED
    try:
        b = driver(binary)
    except (BrowserError, OSError) as e:
        print("ok - %s # SKIP the browser did not start: %s" % (args.name,
                                                               str(e).replace("\n", " ")[:300]))
        return SKIPPED
    # every way out prints a result line: a socket that timed out (OSError), a pipe the
    # browser closed, an answer that is not JSON are failures with their reason, not a
    # traceback and an exit status that html_report.sh would count without naming
    try:
        run(b, args, data)
    except BrowserError as e:
        check(args.name + ": the browser answered", False, e)
    except Exception as e:  # noqa: BLE001
        check(args.name + ": the browser answered", False, "%s: %s" % (type(e).__name__, e))
    finally:
        try:
            b.close()
        except Exception as e:  # noqa: BLE001
            check(args.name + ": the browser closed", False, "%s: %s" % (type(e).__name__, e))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
