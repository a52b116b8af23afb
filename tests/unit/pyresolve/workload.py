# SPDX-License-Identifier: MIT
"""test_pyresolve's workload: code objects whose file, function and lines CPython itself states.

Usage: python3 workload.py DIR. Writes a module with a non-ASCII file name into DIR, imports it,
then prints, UTF-8, one line per code object alive in this script and that module:

    code ID<TAB>FILE<TAB>FUNCTION<TAB>LINE LINE ...

FUNCTION is co_qualname (3.11+) or co_name (3.10); LINE is the line CPython gives for each code
unit in order (0 for none): from co_positions() from 3.11, co_lines() in 3.10. Before them:
"codetype ID" (PyCode_Type's address) and "notcode ID" (a str object); after them "ready".
Then it waits for its stdin to close, keeping every code object alive at the address printed.
"""
import importlib.util
import os
import sys
import types


class Outer:
    def method(self):
        return 1

    class Inner:
        def deep(self, x):
            return [x
                    for _ in range(2)]


def größe(x):
    return x * 2


def 計算(a, b):
    return (a +
            b)


def nested():
    def inner():
        return 3
    return inner


def combine(*args):
    return args


def multiline_call(n):
    total = 0
    while n > 0:
        n -= 1
        total += combine(
            1,
            größe(2),
            [i
             for i in range(3)],
            計算(
                n,
                4),
        )[0]
    return total


# The generated module: a kind-4 name (U+20000) and lines far apart, forward (+200, +5000) and
# back (a loop whose body ends 5000 lines below its head).
FAR = ("def far(n):\n"
       "    total = 0\n" + "\n" * 200 +
       "    for i in range(n):\n"
       "        total += i\n" + "\n" * 5000 +
       "        total -= 1\n"
       "    return total\n"
       "\n"
       "def \U00020000(x):\n"
       "    return x\n")


def load_far(directory):
    path = os.path.join(directory, "donn\u00e9es_\U0001d11e.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(FAR)
    spec = importlib.util.spec_from_file_location("far_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def code_objects(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from code_objects(c)


def lines_of(code):
    units = len(code.co_code) // 2
    if sys.version_info >= (3, 11):
        lines = [p[0] or 0 for p in code.co_positions()]
        assert len(lines) == units
        return lines
    lines = [0] * units
    for start, end, line in code.co_lines():
        for byte in range(start, end, 2):
            lines[byte // 2] = line or 0
    return lines


def main():
    far = load_far(sys.argv[1])
    codes = list(code_objects(sys._getframe(1).f_code))
    codes += list(code_objects(far.far.__code__)) + [far.__dict__["\U00020000"].__code__]
    out = sys.stdout.buffer
    out.write(b"codetype %d\nnotcode %d\n" % (id(types.CodeType), id(FAR)))
    for code in codes:
        function = code.co_qualname if sys.version_info >= (3, 11) else code.co_name
        lines = " ".join(str(line) for line in lines_of(code))
        record = "code %d\t%s\t%s\t%s\n" % (id(code), code.co_filename, function, lines)
        out.write(record.encode("utf-8"))
    out.write(b"ready\n")
    out.flush()
    sys.stdin.read()
    return codes, far


if __name__ == "__main__":
    main()
