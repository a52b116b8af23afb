#!/usr/bin/env bash
# Every --help is complete and agrees with the man page: for gpurec itself and each command
# (record, report, diff, info, export, check), `--help` and `-h` exit 0 and print the same text
# on standard output; each option the command's getopt_long parser accepts (its longopts table
# and its short-option string, read from the source) is in that text and in the command's part
# of docs/gpurec.1 (its own section, the sections shared by the replay commands, and the
# COMMANDS introduction for --help); and every --option the text names is one the parser
# accepts. The top-level help names every command of gpurec.c's table, --help and --version.
. "$(dirname "$0")/lib.sh"

python3 - "$GPUREC" "$PWD" <<'PY'
import re, subprocess, sys

gpurec, root = sys.argv[1], sys.argv[2]
failures = 0


def check(name, ok, detail=""):
    global failures
    print(("ok - " if ok else "not ok - ") + name + ("" if ok else ": " + str(detail)))
    failures += 0 if ok else 1


def run(*args):
    p = subprocess.run([gpurec, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def has(text, opt):
    """opt (--name or -c) in text as an option, not part of a longer one."""
    return re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", text) is not None


src = {"record": "record/record.c", "report": "analyze/cmd_report.c",
       "diff": "analyze/cmd_diff.c", "info": "analyze/cmd_info.c",
       "export": "analyze/cmd_export.c", "check": "record/check.c"}
man = open(root + "/docs/gpurec.1").read()
man = re.sub(r"\\f[BIRP]", "", man).replace("\\-", "-")
sections = re.split(r"(?m)^\.S[SH] ", man)
intro = next(s for s in sections if s.startswith("COMMANDS"))


def man_part(cmd):
    own = next(s for s in sections if s.startswith("gpurec " + cmd))
    shared = [s for s in sections if s.startswith("-") and "(" in s.split("\n")[0]
              and cmd in s.split("\n")[0]]
    return "\n".join([own, intro] + shared)


table = open(root + "/gpurec.c").read()
commands = re.findall(r'\{"([a-z]+)", cmd_', table)
check("gpurec.c's table has the six commands", sorted(commands) == sorted(src), commands)
for args in (["--help"], ["-h"], ["help"]):
    rc, out, err = run(*args)
    check("gpurec %s: exit 0, on standard output" % args[0], rc == 0 and out and not err, (rc, err))
    check("gpurec %s: names every command" % args[0],
          all(re.search(r"(?m)^  %s " % c, out) for c in commands), out)
    check("gpurec %s: names --help and --version" % args[0],
          has(out, "--help") and has(out, "--version"), out)
synopsis = sections[2] if sections[2].startswith("SYNOPSIS") else man
check("man SYNOPSIS: every command, --help and --version",
      all("gpurec " + c in synopsis for c in commands) and has(synopsis, "--version")
      and has(synopsis, "--help"), synopsis[-300:])

for cmd, path in src.items():
    code = open(root + "/" + path).read()
    block = re.search(r"struct option longopts\[\] = \{(.*?)\};", code, re.S).group(1)
    longs = re.findall(r'\{"([a-z][a-z-]*)", [a-z_]+, NULL, \'(.)\'\}', block)
    optstring = re.search(r'getopt_long\(argc, argv, "([^"]*)"', code).group(1)
    shorts = sorted(set(c for c in optstring if c.isalnum()))
    rc, out, err = run(cmd, "--help")
    rc2, out2, _ = run(cmd, "-h")
    check("%s --help: exit 0, on standard output, nothing else" % cmd,
          rc == 0 and out and not err, (rc, err[:200]))
    check("%s -h: the same" % cmd, rc2 == 0 and out2 == out, rc2)
    part = man_part(cmd)
    for name, _ in longs:
        check("%s --help lists --%s" % (cmd, name), has(out, "--" + name))
        check("gpurec.1 (%s) lists --%s" % (cmd, name), has(part, "--" + name))
    for c in shorts:
        check("%s --help lists -%s" % (cmd, c), has(out, "-" + c))
        check("gpurec.1 (%s) lists -%s" % (cmd, c), has(part, "-" + c))
    named = set(re.findall(r"(?<![\w-])--([a-z][a-z-]*)", out))
    accepted = {n for n, _ in longs}
    check("%s --help names only options %s accepts" % (cmd, cmd), named <= accepted,
          sorted(named - accepted))
sys.exit(1 if failures else 0)
PY
