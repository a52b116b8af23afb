#!/usr/bin/env bash
# Root opens only what it means to (docs/SECURITY.md). tests/progs/hostile_map maps a library,
# deletes it and puts at the path /proc/PID/maps then shows for it ("DIR/victim.so (deleted)")
# a FIFO nobody writes, or a symbolic link, before the recorder first examines the mapping; then
# it loads libcudart and makes 20 syncs. As root (the link leads to a root-only copy of the
# runtime with a marker appended) and as a plain user through the setcap route (no
# CAP_SYS_ADMIN, so no /proc/PID/map_files: the path is all the recorder has; the link leads to
# a copy of the runtime the user can read): the recorder neither waits on the FIFO (each
# recording is bounded by timeout) nor takes what the link leads to for the mapped file (no
# CUDA runtime named victim.so, the marker nowhere in info or export), and records the 20 syncs.
. "$(dirname "$0")/lib.sh"
need_root record_hostile_paths
CUDART=${CUDART:-/usr/local/cuda/lib64/libcudart.so.13}
MARKER=gpurec-hostile-marker-$$-$RANDOM

if [ ! -f "$CUDART" ] || [ ! -x "$PROGS/hostile_map" ]; then
	not_ok "needs $CUDART and $PROGS/hostile_map (make progs)"
	exit 1
fi
user=gpurec-hp$$
created=
cleanup() {
	# only what this script started: every command line names $TMP; resumed, then killed
	for p in $(pgrep -f "$TMP/"); do
		kill -CONT "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$TMP"
	[ -n "$created" ] && userdel -r "$user" 2>/dev/null
}
trap cleanup EXIT
chmod 0755 "$TMP"
cp "$PROGS/hostile_map" "$TMP/hostile_map" && chmod 0755 "$TMP/hostile_map"

# record NAME DIR MODE TARGET [as_user]: one recording of hostile_map into $TMP/out/NAME.trc
record() {
	local name=$1 dir=$2 mode=$3 target=$4 run=()
	[ -n "${5:-}" ] && run=(runuser -u "$user" --)
	cp /bin/true "$dir/victim.so"
	chmod 0644 "$dir/victim.so"
	[ -n "${5:-}" ] && chown "$user" "$dir/victim.so"
	rm -f "$dir/victim.so (deleted)"
	(cd / && timeout -k 5 60 "${run[@]}" "$REC" record -o "$TMP/out/$name.trc" -- \
		"$TMP/hostile_map" "$dir" "$mode" "$target" "$CUDART" 20 >"$TMP/$name.out" 2>&1)
	local rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		not_ok "$name: the recorder hung (killed after 60 s): $(tail -2 "$TMP/$name.out")"
		return 1
	fi
	check "$name: records, the command's status passed through" 0 $rc
	"$GPUREC" info --json "$TMP/out/$name.trc" >"$TMP/$name.json" 2>"$TMP/$name.err" ||
		{ not_ok "$name: info: $(cat "$TMP/$name.err")"; return 1; }
	check "$name: the 20 syncs recorded" 20 "$(json "$TMP/$name.json" 'd["events_by_kind"]["sync"]')"
	check "$name: libcudart probed, nothing at the victim's path taken for a runtime" \
		"[\"$(basename "$(readlink -f "$CUDART")")\"]" \
		"$(json "$TMP/$name.json" '[p.rsplit("/", 1)[-1] for p in d["cuda_libraries"]]')"
	"$GPUREC" info "$TMP/out/$name.trc" >"$TMP/$name.info" 2>&1
	"$GPUREC" export "$TMP/out/$name.trc" -o "$TMP/$name.export.json" >/dev/null 2>&1 ||
		not_ok "$name: export failed"
	if grep -qa "$MARKER" "$TMP/$name.json" "$TMP/$name.info" "$TMP/$name.export.json"; then
		not_ok "$name: the link's target was read into the trace"
	else
		ok "$name: nothing of the link's target in info or export"
	fi
}

mkdir -p "$TMP/out" "$TMP/root"
# root-only: a copy of the runtime (what the recorder would probe) carrying the marker
cp "$CUDART" "$TMP/secret.so" && echo "$MARKER" >>"$TMP/secret.so" && chmod 0600 "$TMP/secret.so"
REC=$GPUREC
record root-fifo "$TMP/root" fifo none
record root-link "$TMP/root" link "$TMP/secret.so"

# --- the setcap route: no map_files, only the path ---
for tool in setcap useradd userdel runuser; do
	if ! command -v $tool >/dev/null; then
		ok "setcap route # SKIP $tool is not installed (tests/install-deps.sh installs it)"
		exit $((failures > 0))
	fi
done
if ! useradd --create-home --shell /bin/sh "$user"; then
	not_ok "cannot create the test user $user"
	exit 1
fi
created=1
cp "$GPUREC" "$TMP/gpurec" && chmod 0755 "$TMP/gpurec"
if ! setcap cap_bpf,cap_perfmon+ep "$TMP/gpurec" 2>"$TMP/setcap.err"; then
	ok "setcap route # SKIP this file system takes no file capabilities: $(cat "$TMP/setcap.err")"
	exit $((failures > 0))
fi
mkdir -p "$TMP/user" && chown "$user" "$TMP/user" "$TMP/out"
cp "$CUDART" "$TMP/decoy.so" && echo "$MARKER" >>"$TMP/decoy.so" && chmod 0644 "$TMP/decoy.so"
REC=$TMP/gpurec
record user-fifo "$TMP/user" fifo none as_user
record user-link "$TMP/user" link "$TMP/decoy.so" as_user
exit $((failures > 0))
