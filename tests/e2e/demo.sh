#!/usr/bin/env bash
# README's first command, `make demo`, in a root shell where sudo does not exist: the target's
# whole command path (install-deps, the build, samples/demo.sh) runs with a PATH that holds
# every program of this machine's PATH but sudo, and must record samples/chain (200 steps of 5
# launches) and report it. Root (BPF), no GPU.
. "$(dirname "$0")/lib.sh"
need_root "demo.sh"

# every command of PATH, first one of each name, but sudo
chmod 755 "$TMP" # the user case below runs programs from it
mkdir "$TMP/bin"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	for f in "$d"/*; do
		name=${f##*/}
		[ -x "$f" ] && [ ! -d "$f" ] && [ "$name" != sudo ] && [ ! -e "$TMP/bin/$name" ] &&
			ln -s "$f" "$TMP/bin/$name"
	done
done
check "no sudo on the test's PATH" "" "$(PATH=$TMP/bin command -v sudo)"

# a make of its own, not a job of the make that runs the tests; SAN (a sanitizer build) stays
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$TMP/bin" DEMO_TRACE="$TMP/demo.trc" \
	make -s O="$O" demo >"$TMP/out" 2>&1
rc=$?
check "make demo as root without sudo: status" 0 $rc
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/out" | tail -20
grep -q "^== no GPU here: recording samples/chain on the GPU simulator" "$TMP/out" ||
	[ -e /dev/nvidia0 ] && ok "says where it records" || not_ok "no recording line: $(head -3 "$TMP/out")"
if "$GPUREC" report --json "$TMP/demo.trc" >"$TMP/demo.json" 2>"$TMP/err"; then
	check "the demo's trace: 200 steps x 5 launches" 1000 "$(json "$TMP/demo.json" 'd["launches"]["total"]')"
	check "one fusion candidate: the five kernels" 5 \
		"$(json "$TMP/demo.json" 'len(d["fusion"]["candidates"][0]["kernels"])')"
else
	not_ok "no trace from the demo: $(cat "$TMP/err")"
fi

# run by a user without sudo: a clear error before anything is recorded
if id nobody >/dev/null 2>&1; then
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups env PATH="$TMP/bin" \
		DEMO_TRACE="$TMP/user.trc" bash samples/demo.sh 2>&1)
	check "a user without sudo: status and error" \
		"1 demo: recording loads BPF programs: run make demo as root (sudo is not installed)" \
		"$? $out"
fi
exit $failures
