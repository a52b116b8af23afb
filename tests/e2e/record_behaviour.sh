#!/usr/bin/env bash
# How `gpurec record` behaves around the traced command: exit status, signals, privilege
# drop under sudo, the output file's safety, -d, -p, deleted binaries, clear errors.
. "$(dirname "$0")/lib.sh"
need_root record_behaviour

chmod 1777 "$TMP"

# exit status passes through, including death by signal (shell style: 128 + signal)
"$GPUREC" record -o "$TMP/e.trc" -- sh -c 'exit 7' 2>/dev/null
check "exit status 7 passes through" 7 $?
"$GPUREC" record -o "$TMP/e.trc" -- sh -c 'kill -TERM $$' 2>/dev/null
check "death by SIGTERM gives 143" 143 $?

# SIGTERM to the recorder reaches the command; the trace is complete. The signal is sent once
# the command runs (the recorder starts it recording), however long loading took.
"$GPUREC" record -o "$TMP/sig.trc" -- sh -c "echo > $TMP/sig.ready; exec sleep 30" 2>/dev/null &
rec=$!
for _ in $(seq 1200); do [ -s "$TMP/sig.ready" ] && break; sleep 0.05; done
[ -s "$TMP/sig.ready" ] || not_ok "SIGTERM: the command never started"
kill -TERM $rec
wait $rec
check "SIGTERM forwarded: sleep killed, 143 returned" 143 $?
check "trace complete after SIGTERM" True "$("$GPUREC" info --json "$TMP/sig.trc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["complete"])')"

# -d stops recording, the command runs on to its end and its status still comes back
start=$(date +%s%N)
"$GPUREC" record -d 0.5 -o "$TMP/d.trc" -- sh -c 'sleep 2; exit 5' 2>"$TMP/d.err"
check "-d: exit status after the command ends" 5 $?
elapsed=$((($(date +%s%N) - start) / 1000000))
[ "$elapsed" -ge 1900 ] && ok "-d: the command ran to its end (${elapsed} ms)" || not_ok "-d: returned after ${elapsed} ms"
grep -q "stopped recording after 0.5 s" "$TMP/d.err" && ok "-d: says recording stopped" || not_ok "-d message: $(cat "$TMP/d.err")"
check "-d: trace complete" True "$("$GPUREC" info --json "$TMP/d.trc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["complete"])')"

# under sudo the command runs as the invoking user; the trace belongs to that user, mode 0600
SUDO_UID=65534 SUDO_GID=65534 "$GPUREC" record -o "$TMP/u.trc" -- sh -c "id -u > $TMP/ids; id -g >> $TMP/ids" 2>/dev/null
check "sudo: command ran as uid/gid 65534" "65534 65534" "$(tr '\n' ' ' <"$TMP/ids" | sed 's/ $//')"
check "sudo: trace owned by the invoking user, 0600" "65534 600" "$(stat -c '%u %a' "$TMP/u.trc")"

# a symlink planted at the output path is neither followed nor replaced (record_sudo.sh tries
# the rest of the output's safety as a real user through sudo)
echo "precious" >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/link.trc"
"$GPUREC" record -o "$TMP/link.trc" -- true 2>/dev/null
check "symlink at the output: refused" 1 $?
check "symlink at the output: target untouched" precious "$(cat "$TMP/victim")"
[ -L "$TMP/link.trc" ] && [ ! -e "$TMP/link.trc.old" ] && ok "symlink at the output: left as it was" || not_ok "the symlink was moved or replaced"

# a directory at the output path, or where the old trace would go: an error, nothing moved
mkdir "$TMP/dir.trc" "$TMP/kept.trc.old"
echo previous >"$TMP/kept.trc"
"$GPUREC" record -o "$TMP/dir.trc" -- true 2>"$TMP/dir.err"
check "directory at the output: refused" 1 $?
grep -q "is a directory" "$TMP/dir.err" && [ -d "$TMP/dir.trc" ] && [ ! -e "$TMP/dir.trc.old" ] &&
	ok "directory at the output: said, left in place" || not_ok "directory at the output: $(cat "$TMP/dir.err")"
"$GPUREC" record -o "$TMP/kept.trc" -- true 2>"$TMP/kept.err"
check "directory at FILE.old: refused" 1 $?
grep -q "its .old, where the previous trace is kept, is a directory" "$TMP/kept.err" &&
	[ "$(cat "$TMP/kept.trc")" = previous ] && ok "directory at FILE.old: said, the previous file kept" ||
	not_ok "directory at FILE.old: $(cat "$TMP/kept.err")"

# no CUDA library at all: said, and recorded
"$GPUREC" record -o "$TMP/none.trc" -- true 2>"$TMP/none.err"
check "no CUDA: exit 0" 0 $?
grep -q "no CUDA library was loaded" "$TMP/none.err" && ok "no CUDA: said so" || not_ok "no CUDA message: $(cat "$TMP/none.err")"

# not enough privilege: a clear error naming the capabilities
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$GPUREC" record -o "$TMP/np.trc" -- true 2>"$TMP/np.err"
	check "unprivileged: exit 1" 1 $?
	grep -q "CAP_BPF" "$TMP/np.err" && ok "unprivileged: names CAP_BPF" || not_ok "unprivileged message: $(cat "$TMP/np.err")"
fi

# gpurec check
"$GPUREC" check >"$TMP/check.out" 2>&1
check "check: this machine can record" 0 $?
grep -q "gpurec can record on this machine" "$TMP/check.out" && ok "check: says so" || not_ok "check output: $(cat "$TMP/check.out")"
# the CUDA driver: a warning, never a failure; the toolkit's stub libcuda.so is not a driver
nodrv="  no CUDA driver: programs will run but every CUDA call will fail; gpurec still records their calls
gpurec can record on this machine (CUDA calls fail: no driver)"
if [ -e /dev/nvidiactl ]; then
	ok "check: no-driver lines # SKIP this machine has /dev/nvidiactl"
else
	check "check: no libcuda.so.1 here" "  [warn] CUDA driver                  libcuda.so.1 does not load (libcuda.so.1: cannot open shared object file: No such file or directory)
$nodrv" "$(tail -n 3 "$TMP/check.out")"
	mkdir "$TMP/stubs" && ln -s /usr/local/cuda/lib64/stubs/libcuda.so "$TMP/stubs/libcuda.so.1"
	LD_LIBRARY_PATH=$TMP/stubs "$GPUREC" check >"$TMP/check-stub.out" 2>&1
	check "check with the stub: exit 0" 0 $?
	check "check: the stub is not a driver" "  [warn] CUDA driver                  only the toolkit's stub $(realpath /usr/local/cuda/lib64/stubs/libcuda.so)
$nodrv" "$(tail -n 3 "$TMP/check-stub.out")"
	LD_LIBRARY_PATH=$PROGS/fakecuda "$GPUREC" check >"$TMP/check-fake.out" 2>&1
	check "check: a libcuda.so.1 without device nodes" "  [warn] CUDA driver                  $(realpath "$PROGS/fakecuda/libcuda.so.1") loads, but /dev/nvidiactl or /dev/nvidia0 is missing
$nodrv" "$(tail -n 3 "$TMP/check-fake.out")"
fi

# -p: attach to a running process; names then come from symbols (registration was missed).
# The target launches for 60 s, ended by the test: with 4 s, a recorder slow to load its BPF
# side on a busy machine (0.5-0.9 s at load 8 here) had under a second of it left, or none.
# It has libcudart mapped (a bound of 60 s) and has been launching a second when attached.
t_target=$(date +%s%N)
"$PROGS/launch_loop" 0 1 60 20000 >/dev/null &
target=$!
for _ in $(seq 1200); do
	grep -q libcudart "/proc/$target/maps" 2>/dev/null && break
	sleep 0.05
done
sleep 1
"$GPUREC" record -p $target -d 1 -o "$TMP/p.trc" 2>/dev/null
check "-p: recorder exits 0" 0 $?
t_end=$(date +%s%N)
kill $target
wait $target 2>/dev/null
"$GPUREC" info --json "$TMP/p.trc" >"$TMP/p.json"
# At least a quarter of 1 s of launches. At most what the target made in all: it never runs
# ahead of 20000/s since its start (it catches up after a delay). The recording holds more than
# the 1 s of -d (attaching comes first: 1.66 s, 29120 launches at load 8), so no tighter bound.
n=$(json "$TMP/p.json" 'd["launches"]')
most=$(((t_end - t_target) / 50000 + 64))
[ "$n" -ge 5000 ] && [ "$n" -le "$most" ] && ok "-p: about 1 s of 20000 launches/s recorded ($n)" ||
	not_ok "-p: $n launches, want 5000 to $most (20000/s since the target started)"
check "-p: kernel named from its host stub symbol" "tiny(float*)" "$(json "$TMP/p.json" 'd["kernels"][0]["name"]')"
check "-p: the trace says it attached" True "$(json "$TMP/p.json" 'bool(d["attached"])')"

# the program binary deleted after recording: names and mappings come from the trace
cp "$PROGS/launches" "$TMP/doomed"
"$GPUREC" record -o "$TMP/del.trc" -- "$TMP/doomed" 20 >/dev/null 2>&1
rm -f "$TMP/doomed"
"$GPUREC" info --json "$TMP/del.trc" >"$TMP/del.json"
check "deleted binary: kernels still named" '["reduce_rows(float const*, float*)", "scale_bias(float*, float, int)"]' "$(json "$TMP/del.json" 'sorted(k["name"] for k in d["kernels"])')"
[ "$(json "$TMP/del.json" 'd["records_by_kind"]["symbol"]')" -gt 0 ] && ok "deleted binary: frame symbols embedded" || not_ok "no symbol records"
exit $failures
