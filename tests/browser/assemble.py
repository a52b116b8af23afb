#!/usr/bin/env python3
"""Fills analyze/html/page/page.html's markers the way `gpurec report --html` does (docs/HTML.md).

For fixtures only: the real page comes from the gpurec binary, which embeds the same files.
usage: assemble.py DATA.json OUT.html [HTML_DIR]
"""
import glob
import html
import json
import os
import sys


def escape_data(text):
    """The data JSON made safe inside <script type="application/json">."""
    for raw, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                     ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, esc)
    return text


def concat(d, ext):
    return "".join(open(p).read() for p in sorted(glob.glob(os.path.join(d, "*." + ext))))


def main():
    data_path, out_path = sys.argv[1], sys.argv[2]
    d = sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "analyze", "html", "page")
    data_text = open(data_path).read()
    title = json.loads(data_text)["title"]
    parts = {"@@TITLE@@": html.escape(title), "@@STYLE@@": concat(d, "css"),
             "@@SCRIPT@@": concat(d, "js"), "@@DATA@@": escape_data(data_text)}
    out = []
    for line in open(os.path.join(d, "page.html")).read().split("\n"):
        out.append(parts.get(line, line))
    with open(out_path, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
