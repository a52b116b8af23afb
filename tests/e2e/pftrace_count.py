#!/usr/bin/env python3
"""Counts what a Perfetto protobuf trace holds, from `protoc --decode_raw`'s text (read on
stdin): protoc is the independent decoder; this only tallies its output, by the field numbers
docs/EXPORT.md lists. Prints one JSON object:
  packets, track_descriptors, begin, end, instant (track events by type), flow_ids (values of
  TrackEvent fields 47 and 36, flow_ids and flow_ids_old), distinct_flows, names (interned event names), annotation_names,
  categories, first_flags (the first sequence_flags written), needs_state (packets that say
  they need the incremental state), stacks (distinct stack texts, from the "stack" arguments
  and the "stack" of the folded "launch" ones), kernel_instants (instants whose category is "kernel"), counter (counter track
  events), counter_tracks (track descriptors with a CounterDescriptor, not in
  track_descriptors).

With --events it reads the trace itself (its bytes on stdin, not protoc's text: decode_raw
prints a string that happens to parse as a message as that message) and resolves it, as Perfetto's trace processor reads it (the public
protos' documentation: trace_packet.proto, clock_snapshot.proto, trace_packet_defaults.proto,
interned_data.proto, track_event.proto), and prints one JSON object: "events", every track event
with its name, categories, track (by the names of the track and of its process), time in
CLOCK_MONOTONIC ns, duration (slices: begin to the end on the same track), arguments and flow
ids; "counters"; "tracks". It fails (exit status 1, the reason) on what the trace processor
could not resolve: an iid not interned on the sequence before its use, a packet that needs the
incremental state before it was cleared, a clock without a snapshot, an incremental timestamp
before the sequence's clock was anchored, a slice end without a begin.
"""
import json
import re
import struct
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
            ids = fields(te, 47) + fields(te, 36)
            c['flow_ids'] += len(ids)
            flows.update(ids)
            for a in fields(te, 4):
                name = ann.get(int(fields(a, 1)[0]))
                for iid in fields(a, 17):
                    s = strings.get(int(iid), '')
                    s = unfold(s).get('stack', '') if name == 'launch' else s
                    if name in ('stack', 'launch') and s:
                        c['stacks'].add(s)
            if t == 3 and [cats.get(int(i)) for i in fields(te, 3)] == ['kernel']:
                c['kernel_instants'] += 1
            # every iid used must have been interned before (in file order)
            for i in fields(te, 10):
                if int(i) not in names:
                    raise SystemExit('name iid %s used before it was interned' % i)
    # fixed64 ids print as hex, varint ones as decimal: the same flow either way
    c['distinct_flows'] = len({int(i, 0) for i in flows})
    c['names'] = sorted(names.values())
    c['annotation_names'] = sorted(ann.values())
    c['categories'] = sorted(cats.values())
    c['stacks'] = len(c['stacks'])
    c['first_flags'] = c['flags'][0] if c['flags'] else None
    c['needs_state'] = c['flags'].count(2)
    del c['flags']
    json.dump(c, sys.stdout)


def unfold(text):
    """The text of a folded "launch" argument (docs/EXPORT.md) -> the arguments it holds: one
    "key: value" a line, a value's further lines indented by two spaces; a value of decimal
    digits is a number."""
    out, key = {}, None
    for line in text.split('\n') if text else []:
        if line.startswith('  ') and key is not None:
            out[key] += '\n' + line[2:]
            continue
        key, _, v = line.partition(': ')
        out[key] = v
    return {k: int(v) if re.fullmatch(r'[0-9]+', v) else v for k, v in out.items()}


def wire(buf):
    """A message's bytes -> [(field, value)]: an int for varint, fixed64 and fixed32 fields, the
    bytes of a length-delimited one (a string or a message: the reader knows which)."""
    out, i = [], 0

    def varint():
        nonlocal i
        v = shift = 0
        while True:
            if i >= len(buf):
                fail('a varint runs past its message')
            b = buf[i]
            i += 1
            v |= (b & 0x7f) << shift
            shift += 7
            if b < 0x80:
                return v
    while i < len(buf):
        key = varint()
        f, wt = key >> 3, key & 7
        if wt == 0:
            v = varint()
        elif wt == 1:
            v = int.from_bytes(buf[i:i + 8], 'little')
            i += 8
        elif wt == 5:
            v = int.from_bytes(buf[i:i + 4], 'little')
            i += 4
        elif wt == 2:
            n = varint()
            v = bytes(buf[i:i + n])
            if len(v) != n:
                fail('a field runs past its message')
            i += n
        else:
            fail('wire type %d' % wt)
        out.append((f, v))
    return out


def one(msg, n, default=None):
    v = [x for f, x in msg if f == n]
    return v[-1] if v else default


def sub(msg, n):
    return [wire(x) for f, x in msg if f == n]


def utf8(b):
    return b.decode('utf-8', 'replace')


class Seq:
    """One packet sequence's incremental state."""
    def __init__(self):
        self.valid = False
        self.clear()

    def clear(self):
        self.interned = {}  # (InternedData field, iid) -> text
        self.clock_id = None  # TracePacketDefaults.timestamp_clock_id
        self.track = None  # TrackEventDefaults.track_uuid


def fail(why):
    sys.stderr.write('pftrace_count: %s\n' % why)
    raise SystemExit(1)


def resolve(data, trace_clock=6):
    seqs, snapshots, last = {}, [], {}
    tracks, events, counters, open_slices = {}, [], [], {}
    incremental, timed = set(), []

    def lookup(seq, table, iid):
        key = (table, iid)
        if key not in seq.interned:
            fail('iid %d of interned table %d used before it was interned' % (iid, table))
        return seq.interned[key]

    def to_trace(clock, value):
        # the snapshot holding both clocks whose reading of @clock is the latest at or before
        # @value (the first if none): the trace processor's conversion
        best = None
        for snap in snapshots:
            if clock in snap and trace_clock in snap:
                if best is None or (best[clock] <= snap[clock] <= value):
                    best = snap
        if best is None:
            fail('no clock snapshot relates clock %s to the trace clock' % (clock,))
        return value - best[clock] + best[trace_clock]

    for f, raw in wire(data):
        if f != 1 or not isinstance(raw, bytes):
            fail('a Trace holds only field-1 TracePackets')
        pkt = wire(raw)
        sid = one(pkt, 10, 0)
        seq = seqs.setdefault(sid, Seq())
        flags = one(pkt, 13, 0)
        if flags & 1 or one(pkt, 41):
            seq.clear()
            seq.valid = True
        if flags & 2 and not seq.valid:
            fail('a packet needs the incremental state before the sequence cleared it')
        for d in sub(pkt, 59):
            seq.clock_id = one(d, 58)
            ted = sub(d, 11)
            seq.track = one(ted[0], 11) if ted else None
        for cs in sub(pkt, 6):
            if one(cs, 2):
                trace_clock = one(cs, 2)
            snap = {}
            for clk in sub(cs, 1):
                cid, ts = one(clk, 1), one(clk, 2, 0)
                if 64 <= cid < 128:
                    cid = (sid, cid)  # sequence-scoped
                snap[cid] = ts
                if one(clk, 3):
                    incremental.add(cid)
                    last[cid] = ts
            snapshots.append(snap)
        for idata in sub(pkt, 12):
            for table, e in idata:
                if table in (1, 2, 3, 29):
                    e = wire(e)
                    seq.interned[(table, one(e, 1))] = utf8(one(e, 2, b''))
        for td in sub(pkt, 60):
            t = dict(parent=one(td, 5), name=one(td, 2))
            for proc in sub(td, 3):
                t['name'], t['pid'] = one(proc, 6), one(proc, 1)
            for thread in sub(td, 4):
                t['name'], t['parent_pid'] = one(thread, 5), one(thread, 1)
            t['name'] = utf8(t['name']) if t['name'] is not None else None
            tracks[one(td, 1)] = t
        tes = sub(pkt, 11)
        if not tes:
            continue
        te = tes[0]
        # the packet's time: its clock, the sequence's default, or the trace processor's
        # default (BOOTTIME); an incremental clock's is a delta from its last one
        clock = one(pkt, 58)
        clock = clock if clock is not None else seq.clock_id
        clock = clock if clock is not None else 6
        if 64 <= clock < 128:
            clock = (sid, clock)
        ts = one(pkt, 8, 0)
        if clock in incremental:
            ts += last[clock]
            last[clock] = ts
        elif isinstance(clock, tuple):
            fail('sequence clock %d has no snapshot' % clock[1])
        ts = ts if clock == trace_clock else to_trace(clock, ts)
        track = one(te, 11)
        track = track if track is not None else seq.track
        track = track if track is not None else 0
        timed.append((ts, len(timed), track, te, seq))
    # the trace processor sorts the events by time (the file's order among equal times) before
    # it pairs a slice's end with the latest open slice of its track
    timed.sort(key=lambda t: t[:2])
    for ts, _, track, te, seq in timed:
        kind = one(te, 9)
        if kind == 2:
            if not open_slices.get(track):
                fail('a slice ends on track %d with none open' % track)
            ev = open_slices[track].pop()
            ev['dur'] = ts - ev['ts']
            continue
        if kind == 4:
            v = one(te, 30)
            counters.append(dict(track=track, ts=ts, value=v - (1 << 64) if v >> 63 else v))
            continue
        ev = dict(type={1: 'slice', 3: 'instant'}[kind], ts=ts, track=track)
        ev['name'] = (lookup(seq, 2, one(te, 10)) if one(te, 10) is not None
                      else utf8(one(te, 23, b'')))
        ev['cat'] = ([lookup(seq, 1, i) for f, i in te if f == 3] +
                     [utf8(c) for f, c in te if f == 22])
        ev['args'] = annotations(seq, lookup, sub(te, 4))
        ev['flows'] = sorted(i for f, i in te if f in (47, 36))
        events.append(ev)
        if kind == 1:
            open_slices.setdefault(track, []).append(ev)
    for t, stack in open_slices.items():
        if stack:
            fail('%d slices on track %d never end' % (len(stack), t))
    return tracks, events, counters


def annotations(seq, lookup, anns):
    out = {}
    for a in anns:
        name = lookup(seq, 3, one(a, 1)) if one(a, 1) is not None else utf8(one(a, 10, b''))
        if any(f == 11 for f, _ in a):
            v = annotations(seq, lookup, sub(a, 11))
        elif one(a, 2) is not None:
            v = bool(one(a, 2))
        elif one(a, 3) is not None:
            v = one(a, 3)
        elif one(a, 4) is not None:
            v = one(a, 4) - (1 << 64) if one(a, 4) >> 63 else one(a, 4)
        elif one(a, 5) is not None:
            v = struct.unpack('<d', struct.pack('<Q', one(a, 5)))[0]
        elif one(a, 7) is not None:
            v = '0x%x' % one(a, 7)
        elif one(a, 17) is not None:
            v = lookup(seq, 29, one(a, 17))
        else:
            v = utf8(one(a, 6, b''))
        if name == 'launch' and isinstance(v, str):
            out.update(unfold(v))  # folded arguments, each its own as in the JSON
        else:
            out[name] = v
    return out


def events_main():
    tracks, events, counters = resolve(sys.stdin.buffer.read())

    def where(uuid):
        # a track by its name and its process's: what the JSON names its (pid, tid) by
        if uuid == 0:
            return ['', '']
        t = tracks.get(uuid)
        if t is None:
            fail('an event on track %d, which has no descriptor' % uuid)
        if t.get('pid') is not None:
            return [t['name'], '']
        parent = t.get('parent')
        if parent is None:
            # a thread: its process is the process track of its pid
            pid = t['parent_pid']
            parent = [u for u, p in tracks.items() if p.get('pid') == pid]
            return [tracks[parent[0]]['name'] if parent else 'pid %d' % pid, t['name']]
        return [tracks[int(parent)]['name'], t['name']]

    for e in events:
        e['track'] = where(e['track'])
    for c in counters:
        c['track'] = where(c['track'])
    json.dump(dict(events=events, counters=counters,
                   tracks=sorted(where(u) for u in tracks)), sys.stdout)


if '--events' in sys.argv[1:]:
    events_main()
else:
    main()
