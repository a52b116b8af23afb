#!/usr/bin/env python3
"""Counts what a Perfetto protobuf trace holds, from `protoc --decode_raw`'s text (read on
stdin): protoc is the independent decoder; this only tallies its output, by the field numbers
docs/EXPORT.md lists. Prints one JSON object:
  packets, track_descriptors, begin, end, instant (track events by type), flow_ids (values of
  TrackEvent field 47), distinct_flows, names (interned event names), annotation_names,
  categories, first_flags (the first sequence_flags written), needs_state (packets that say
  they need the incremental state), stacks (distinct interned strings used as "stack"
  arguments), kernel_instants (instants whose category is "kernel"), counter (counter track
  events), counter_tracks (track descriptors with a CounterDescriptor, not in
  track_descriptors).
"""
import json
import re
import sys


def parse(lines):
    """decode_raw text -> nested list of (field, value); value is a str or a list."""
    stack = [[]]
    tok = re.compile(r'^\s*(\d+)(?:: (.*)| \{)$')
    for line in lines:
        line = line.rstrip('\n')
        if line.strip() == '}':
            done = stack.pop()
            stack[-1][-1] = (stack[-1][-1][0], done)
            continue
        m = tok.match(line)
        if not m:
            raise SystemExit('unexpected line: %r' % line)
        if m.group(2) is None:
            stack[-1].append((int(m.group(1)), None))
            stack.append([])
        else:
            stack[-1].append((int(m.group(1)), m.group(2)))
    return stack[0]


def text(v):
    # decode_raw prints strings quoted with C escapes
    if isinstance(v, list):
        return '<decoded as a message>'
    return v[1:-1].encode('latin-1').decode('unicode_escape') if v.startswith('"') else v


def fields(msg, n):
    return [v for f, v in msg if f == n]


def main():
    top = parse(sys.stdin)
    c = dict(packets=0, track_descriptors=0, counter_tracks=0, begin=0, end=0, instant=0,
             counter=0, flow_ids=0, kernel_instants=0, flags=[], stacks=set())
    names, ann, cats, strings, flows = {}, {}, {}, {}, set()
    pending = []
    for f, pkt in top:
        if f != 1 or not isinstance(pkt, list):
            raise SystemExit('a Trace holds only field-1 TracePackets')
        c['packets'] += 1
        c['flags'] += [int(v) for v in fields(pkt, 13)]
        for td in fields(pkt, 60):
            c['counter_tracks' if fields(td, 8) else 'track_descriptors'] += 1
        for idata in fields(pkt, 12):
            for table, dest in ((2, names), (3, ann), (1, cats), (29, strings)):
                for e in fields(idata, table):
                    iid = int(fields(e, 1)[0])
                    if iid in dest:
                        raise SystemExit('iid %d interned twice' % iid)
                    dest[iid] = text(fields(e, 2)[0])
        for te in fields(pkt, 11):
            t = int(fields(te, 9)[0])
            c[{1: 'begin', 2: 'end', 3: 'instant', 4: 'counter'}[t]] += 1
            ids = fields(te, 47)
            c['flow_ids'] += len(ids)
            flows.update(ids)
            for a in fields(te, 4):
                if ann.get(int(fields(a, 1)[0])) == 'stack':
                    c['stacks'].update(fields(a, 17))
            if t == 3 and [cats.get(int(i)) for i in fields(te, 3)] == ['kernel']:
                c['kernel_instants'] += 1
            # every iid used must have been interned before (in file order)
            for i in fields(te, 10):
                if int(i) not in names:
                    raise SystemExit('name iid %s used before it was interned' % i)
    c['distinct_flows'] = len(flows)
    c['names'] = sorted(names.values())
    c['annotation_names'] = sorted(ann.values())
    c['categories'] = sorted(cats.values())
    c['stacks'] = len(c['stacks'])
    c['first_flags'] = c['flags'][0] if c['flags'] else None
    c['needs_state'] = c['flags'].count(2)
    del c['flags']
    json.dump(c, sys.stdout)


main()
