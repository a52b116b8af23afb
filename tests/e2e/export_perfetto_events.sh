#!/usr/bin/env bash
# gpurec export --format perfetto, resolved as Perfetto's trace processor reads it (interned
# names and arguments, the sequence's defaults, incremental clocks: tests/e2e/pftrace_count.py
# --events) and compared with the JSON export of the same trace event for event
# (tests/e2e/pftrace_vs_json.py): every golden trace, and chain_real with --no-flows and a window.
# Then the resolver itself: a trace with its clock snapshot or its sequence start cut out must
# not resolve (a check that could not fail would prove nothing).
. "$(dirname "$0")/lib.sh"
DIR=$(cd "$(dirname "$0")" && pwd)
GOLD=$DIR/../data/golden

both() { # TRACE NAME [OPTS...]: both exports of TRACE, compared
	local t=$1 n=$2
	shift 2
	if "$GPUREC" export "$t" "$@" -o "$TMP/$n.pftrace" >/dev/null 2>&1 &&
		"$GPUREC" export "$t" "$@" -o "$TMP/$n.json" >/dev/null 2>&1; then
		ok "$n: both exports exit 0"
	else
		not_ok "$n: an export failed"
		return
	fi
	tap "$n" python3 "$DIR/pftrace_vs_json.py" "$TMP/$n.pftrace" "$TMP/$n.json" "$n"
}

for T in "$GOLD"/*.trc; do
	n=$(basename "$T" .trc)
	read -ra opts <<<"$(golden_window "$n")"
	both "$T" "$n" "${opts[@]}"
done
both "$GOLD/chain_real.trc" no-flows --no-flows
both "$GOLD/chain_real.trc" window --from 10ms --to 20ms

# the packets of chain_real's export but packet number $1 (0: the clock snapshot; the sequence
# start is the first packet with sequence_flags 1)
drop() {
	python3 - "$TMP/chain_real.pftrace" "$1" <<'PY'
import sys
d, skip = open(sys.argv[1], 'rb').read(), sys.argv[2]
out, i, k = bytearray(), 0, 0
def varint(i):
    v = s = 0
    while True:
        b = d[i]; i += 1; v |= (b & 0x7f) << s; s += 7
        if b < 0x80: return v, i
while i < len(d):
    j, (_, i2) = i, varint(i)
    n, i3 = varint(i2)
    body = d[i3:i3 + n]
    start = skip == 'start' and b'\x68\x01' in body and b'\xda\x03' in body
    if not (str(k) == skip or start):
        out += d[j:i3 + n]
    i, k = i3 + n, k + 1
sys.stdout.buffer.write(out)
PY
}
drop 0 >"$TMP/noclock.pftrace"
python3 "$DIR/pftrace_count.py" --events <"$TMP/noclock.pftrace" >/dev/null 2>"$TMP/err"
check "no clock snapshot: does not resolve" 1 $?
grep -q "clock 64 has no snapshot" "$TMP/err" && ok "no clock snapshot: says which clock" ||
	not_ok "no clock snapshot: $(cat "$TMP/err")"
drop start >"$TMP/nostart.pftrace"
check "no sequence start: one packet less" "$(($(stat -c %s "$TMP/chain_real.pftrace") > $(stat -c %s "$TMP/nostart.pftrace")))" 1
python3 "$DIR/pftrace_count.py" --events <"$TMP/nostart.pftrace" >/dev/null 2>"$TMP/err"
check "no sequence start: does not resolve" 1 $?
grep -q "needs the incremental state" "$TMP/err" && ok "no sequence start: says why" ||
	not_ok "no sequence start: $(cat "$TMP/err")"
[ $failures -eq 0 ]
