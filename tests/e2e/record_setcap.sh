#!/usr/bin/env bash
# The setcap route: a copy of gpurec with CAP_BPF and CAP_PERFMON as file capabilities records
# for a plain user, with that user's rights for everything else. As a real non-root user: the
# copy without capabilities refuses, naming what is missing and both routes; with them it
# records tests/progs/launches 20 exactly (84 launches, 12 copies), the command runs as the user
# with no capability, the trace is the user's, and -p on root's process or -o into /etc is
# refused as it would be for the user.
. "$(dirname "$0")/lib.sh"
need_root record_setcap

for tool in setcap useradd userdel runuser; do
	if ! command -v $tool >/dev/null; then
		ok "setcap route # SKIP $tool is not installed (tests/install-deps.sh installs it)"
		exit 0
	fi
done
user=gpurec-cap
created=
cleanup() {
	[ -n "${sleeper:-}" ] && kill "$sleeper" 2>/dev/null
	rm -f /etc/gpurec-cap-test.trc
	rm -rf "$TMP"
	[ -n "$created" ] && userdel -r "$user" 2>/dev/null
}
trap cleanup EXIT
if ! id -u "$user" >/dev/null 2>&1; then
	useradd --create-home --shell /bin/sh "$user" || { not_ok "cannot create the test user $user"; exit 1; }
	created=1
fi
uid=$(id -u "$user")

# the copy and the program where the user can run them; an output directory of the user's own
chmod 0755 "$TMP"
cp "$GPUREC" "$TMP/gpurec" && cp "$PROGS/launches" "$TMP/launches" && chmod 0755 "$TMP/gpurec" "$TMP/launches"
# the NVTX tool beside the copy, where record looks for it; an NVTX v2 program and its library
cp "$(dirname "$GPUREC")/libgpurec_nvtx.so" "$TMP/" && cp -r "$PROGS/nvtx2" "$PROGS/nvtx_v2prog" "$TMP/" &&
	chmod -R a+rX "$TMP/libgpurec_nvtx.so" "$TMP/nvtx2" "$TMP/nvtx_v2prog"
mkdir "$TMP/out" && chown "$user" "$TMP/out" && chmod 0700 "$TMP/out"
as_user() { (cd / && runuser -u "$user" -- "$TMP/gpurec" "$@"); }

as_user record -o "$TMP/out/none.trc" -- "$TMP/launches" 20 >/dev/null 2>"$TMP/none.err"
check "no capabilities: refused" 1 $?
check "no capabilities: names what is missing and both routes" \
	"gpurec record: not enough privilege to load BPF programs: missing CAP_BPF, CAP_PERFMON; run it as root (sudo gpurec record ...) or give this binary the capabilities (sudo setcap cap_bpf,cap_perfmon+ep $TMP/gpurec)" \
	"$(cat "$TMP/none.err")"
[ ! -e "$TMP/out/none.trc" ] && ok "no capabilities: no trace written" || not_ok "no capabilities: a trace was written"

if ! setcap cap_bpf,cap_perfmon+ep "$TMP/gpurec" 2>"$TMP/setcap.err"; then
	ok "setcap route # SKIP this file system takes no file capabilities: $(cat "$TMP/setcap.err")"
	exit $failures
fi
as_user check >"$TMP/check.out" 2>&1
check "check: the capabilities are enough" "  [ ok ] privileges                   CAP_BPF, CAP_PERFMON (file capabilities)" \
	"$(grep privileges "$TMP/check.out")"

as_user record -o "$TMP/out/cap.trc" -- "$TMP/launches" 20 >/dev/null 2>"$TMP/cap.err"
check "file capabilities: records, the command's status passed through" 3 $?
"$GPUREC" info --json "$TMP/out/cap.trc" >"$TMP/cap.json" 2>"$TMP/info.err" || not_ok "info: $(cat "$TMP/info.err")"
check "file capabilities: launches, copies" "84 12" \
	"$(json "$TMP/cap.json" 'd["launches"]') $(json "$TMP/cap.json" 'd["events_by_kind"]["copy"]')"
check "file capabilities: kernels named" '["reduce_rows(float const*, float*)", "scale_bias(float*, float, int)"]' \
	"$(json "$TMP/cap.json" 'sorted(k["name"] for k in d["kernels"])')"
check "file capabilities: the trace is the user's, mode 0600" "$uid 600" "$(stat -c '%u %a' "$TMP/out/cap.trc")"

# the command runs as the user, with no capability left (exec drops the file's)
as_user record -o "$TMP/out/id.trc" -- sh -c 'id -u; grep CapEff /proc/self/status' >"$TMP/id.out" 2>/dev/null
check "the command: the user, no capabilities" "$uid
CapEff:	0000000000000000" "$(cat "$TMP/id.out")"

# NVTX: the variable reaches the command (AT_SECURE is gpurec's, not the command's: the command's
# exec gains no capability), and the command's NVTX calls are recorded
as_user record -o "$TMP/out/env.trc" -- /usr/bin/env >"$TMP/env.out" 2>/dev/null
check "file capabilities: the command gets the NVTX tool" "NVTX_INJECTION64_PATH=$TMP/libgpurec_nvtx.so" \
	"$(grep ^NVTX_INJECTION64_PATH= "$TMP/env.out")"
as_user record -o "$TMP/out/nvtx.trc" -- "$TMP/nvtx_v2prog" 1 >/dev/null 2>&1
check "file capabilities: NVTX recorded" "push mark pop start end" \
	"$("$O/tests/tool_trace_nvtx" "$TMP/out/nvtx.trc" | awk '{print $1}' | paste -sd' ')"

# nothing beyond the user's own rights: root's process, root's directory
sleep 60 &
sleeper=$!
as_user record -p $sleeper -d 1 -o "$TMP/out/p.trc" >/dev/null 2>"$TMP/p.err"
check "-p on root's process: refused" 1 $?
check "-p on root's process: says why" "gpurec record: -p $sleeper: not your process: gpurec attaches only to processes the invoking user could debug" \
	"$(cat "$TMP/p.err")"
as_user record -o /etc/gpurec-cap-test.trc -- true >/dev/null 2>"$TMP/etc.err"
check "-o into /etc: refused" 1 $?
check "-o into /etc: permission denied" "gpurec record: cannot create /etc/gpurec-cap-test.trc: Permission denied" \
	"$(cat "$TMP/etc.err")"
[ ! -e /etc/gpurec-cap-test.trc ] && ok "-o into /etc: nothing created" || not_ok "-o into /etc: a file was created"
exit $failures
