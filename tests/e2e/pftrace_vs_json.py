#!/usr/bin/env python3
"""Compares a Perfetto export with the Chrome JSON export of the same trace, event for event:
  pftrace_vs_json.py TRACE.pftrace TRACE.json LABEL
The Perfetto trace is resolved by pftrace_count.py --events (interned ids, sequence defaults,
incremental clocks, as the trace processor reads them); every JSON "X" and "i" event must be
there with the same name, category, track (by the names of the process and the track), time and
duration in ns, and arguments, and nothing else but the wake instants that stand for the JSON's
wake flows (docs/EXPORT.md); a slice's stack (the JSON's "sf", the Perfetto "stack" argument)
must be the same frames; each flow must join the same (track, time) points; the counters must
be the same points. Prints TAP lines, one per check.
"""
import collections
import json
import math
import os
import subprocess
import sys

pf_path, json_path, label = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))
failures = 0


def check(what, ok, detail=''):
    global failures
    print('%s - %s: %s%s' % ('ok' if ok else 'not ok', label, what,
                             '' if ok else ' (%s)' % detail))
    failures += not ok


with open(pf_path, 'rb') as f:
    r = subprocess.run([sys.executable, os.path.join(here, 'pftrace_count.py'), '--events'],
                       stdin=f, capture_output=True, text=True)
check('the Perfetto trace resolves (every iid interned, every clock anchored)',
      r.returncode == 0, r.stderr.strip())
if r.returncode:
    sys.exit(1)
pf = json.loads(r.stdout)
js = json.load(open(json_path))
t0 = js['otherData']['start_monotonic_ns']
ev = js['traceEvents']
procs = {e['pid']: e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'process_name'}
threads = {(e['pid'], e['tid']): e['args']['name'] for e in ev
           if e['ph'] == 'M' and e['name'] == 'thread_name'}
frames = js.get('stackFrames', {})


def ns(us):
    return t0 + round(us * 1000)


def track(e, scope='t'):
    if scope == 'g':
        return ['', '']
    if scope == 'p':
        return [procs.get(e['pid'], ''), '']
    return [procs.get(e['pid'], 'pid %d' % e['pid']), threads.get((e['pid'], e['tid']), '')]


def stack_text(sf):
    names, k = [], str(sf)
    while k in frames:
        names.append(frames[k]['name'])
        k = str(frames[k]['parent']) if 'parent' in frames[k] else None
    return '\n'.join(reversed(names))


def norm_args(a):
    # numbers as numbers (doubles rounded as the JSON prints them), the rest as is
    out = {}
    for k, v in a.items():
        if isinstance(v, dict):
            v = norm_args(v)
        elif isinstance(v, float):
            v = round(v, 6)
        out[k] = v
    return out


def key(e):
    return json.dumps(e, sort_keys=True)


want, flows_j = [], collections.defaultdict(list)
for e in ev:
    if e['ph'] in 'Xi':
        w = dict(type='slice' if e['ph'] == 'X' else 'instant', name=e['name'],
                 cat=[e['cat']] if 'cat' in e else [], ts=ns(e['ts']),
                 track=track(e, e.get('s', 't')), args=norm_args(e.get('args', {})))
        if e['ph'] == 'X':
            w['dur'] = round(e['dur'] * 1000)
            if 'sf' in e:
                w['args']['stack'] = stack_text(e['sf'])
        want.append(w)
    elif e['ph'] in 'sf':
        flows_j[e['id']].append((track(e), ns(e['ts'])))

got, flows_p, wakes = [], collections.defaultdict(list), 0
for e in pf['events']:
    for i in e.pop('flows'):
        flows_p[i].append((e['track'], e['ts']))
    if e['type'] == 'instant' and e['name'] == 'wake' and e['cat'] == ['wake']:
        wakes += 1  # the JSON's wake flow start ("s"), compared with the flows below
        continue
    e['args'] = norm_args(e['args'])
    if e['args'].get('stack') == '':
        del e['args']['stack']  # a stack with no frames: the JSON writes no "sf"
    got.append(e)

check('as many slices and instants as the JSON (%d)' % len(want), len(got) == len(want),
      '%d in Perfetto' % len(got))
w, g = sorted(map(key, want)), sorted(map(key, got))
missing = [x for x in (collections.Counter(w) - collections.Counter(g)).elements()]
extra = [x for x in (collections.Counter(g) - collections.Counter(w)).elements()]
check('every event the same: name, category, track, ns time and duration, arguments, stack',
      not missing and not extra,
      'only in JSON: %s; only in Perfetto: %s' % (missing[:2], extra[:2]))
wake_j = sum(1 for e in ev if e['ph'] == 's' and e.get('cat') == 'wake')
check('a wake instant per JSON wake flow (%d)' % wake_j, wakes == wake_j, '%d' % wakes)
fj = {i: sorted(map(tuple, map(lambda p: (tuple(p[0]), p[1]), v))) for i, v in flows_j.items()}
fp = {i: sorted(map(tuple, map(lambda p: (tuple(p[0]), p[1]), v))) for i, v in flows_p.items()}
bad = [i for i in set(fj) | set(fp) if fj.get(i) != fp.get(i)]
check('every flow (%d) joins the same tracks at the same times' % len(fj), not bad,
      'flow %s: JSON %s, Perfetto %s' % (bad[0], fj.get(bad[0]), fp.get(bad[0])) if bad else '')
cj = sorted((procs.get(e['pid'], ''), ns(e['ts']), e['name'], e['args']['live bytes'])
            for e in ev if e['ph'] == 'C')
cp = sorted((c['track'][0], c['ts'], c['track'][1].replace(' (live bytes)', ''), c['value'])
            for c in pf['counters'])
check('the same %d counter points' % len(cj), cj == cp, '%s vs %s' % (cj[:2], cp[:2]))
sys.exit(1 if failures else 0)
