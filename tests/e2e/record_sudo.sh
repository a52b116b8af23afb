#!/usr/bin/env bash
# `sudo gpurec record` grants BPF and nothing else: a user allowed to run it through sudo can
# create, rename or open only what they could themselves. Run as a real non-root user through
# a real sudo (a sudoers line for this gpurec binary alone), the output is tried in a root-owned
# directory as /etc is ($TMP/etc: the real /etc is shared with every other run, which adds and
# removes its own files there, so a listing of it changed under a concurrent run), onto
# a root-owned file, onto directories, onto a symbolic link and in the user's own directory:
# only the last succeeds, and nothing outside it changes (listings and checksums compared).
. "$(dirname "$0")/lib.sh"
need_root record_sudo

user=gpurec-test
# this run's own sudoers line (a name with no dot, or sudo skips it): another run's, for its
# own gpurec binary, neither replaces it nor removes it when that run ends
sudoers=/etc/sudoers.d/gpurec-test-${TMP##*.}
etc=$TMP/etc
etc_new=$etc/gpurec-test-new.trc
etc_victim=$etc/gpurec-test-victim
cleanup() {
	rm -f "$sudoers"
	rm -rf "$TMP"
}
trap cleanup EXIT

if ! command -v sudo >/dev/null; then
	not_ok "sudo is not installed (tests/install-deps.sh installs it)"
	exit 1
fi
# (a run beside this one may have created it meanwhile: useradd then fails, and id says so)
id -u "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/sh "$user" ||
	id -u "$user" >/dev/null 2>&1 || { not_ok "cannot create the test user $user"; exit 1; }
uid=$(id -u "$user")
gid=$(id -g "$user")
home=$(getent passwd "$user" | cut -d: -f6)
echo "$user ALL=(root) NOPASSWD: $GPUREC" >"$sudoers"
chmod 0440 "$sudoers"

chmod 0755 "$TMP"
mkdir -m 0755 "$etc"
mkdir "$TMP/log"
own="$TMP/own" # the user's own directory
mkdir "$own" && chown "$user:$gid" "$own" && chmod 0700 "$own"
echo precious >"$etc_victim" && chmod 0644 "$etc_victim"
mkdir "$own/rootdir" && chmod 0700 "$own/rootdir" && echo secret >"$own/rootdir/f"
mkdir "$TMP/pub" && chmod 1777 "$TMP/pub" && mkdir "$TMP/pub/rootdir" && chmod 0700 "$TMP/pub/rootdir"
ln -s "$etc_victim" "$own/link.trc"
chown -h "$user:$gid" "$own/link.trc"

# what must not change: every entry of $etc and of the directories tried, with owners, modes, sizes,
# times and file contents
snapshot() {
	(
		cd / || exit 1
		find "$etc" "$own" "$TMP/pub" -xdev -printf '%p %U:%G %m %s %T@ %y %l\n' 2>/dev/null | sort
		sha256sum "$etc_victim" "$own/rootdir/f"
	) | grep -v "^$own/ok\.trc"
}

# as the user, through sudo, from a directory they can read; stderr kept for the messages
as_user() { (cd / && runuser -u "$user" -- sudo -n "$GPUREC" record "$@"); }

# refused WHAT PATH MESSAGE: recording to PATH as the user fails, saying MESSAGE
refused() {
	as_user -o "$2" -- true 2>"$TMP/log/err"
	rc=$?
	[ $rc -ne 0 ] && ok "-o $1 refused (exit $rc)" || not_ok "-o $1 succeeded"
	grep -q "cannot create $2: $3" "$TMP/log/err" && ok "-o $1: says '$3'" ||
		not_ok "-o $1 message: $(cat "$TMP/log/err")"
}

# a trace anyone may read, and one only root may: for the replay commands under sudo
"$GPUREC" record -o "$TMP/pub/src.trc" -- true 2>/dev/null && chmod 0644 "$TMP/pub/src.trc"
cp "$TMP/pub/src.trc" "$TMP/rootonly.trc" && chmod 0600 "$TMP/rootonly.trc"

before=$(snapshot)
refused "into a root-owned directory" "$etc_new" "Permission denied"
refused "onto a root-owned file" "$etc_victim" "Permission denied"
refused "onto a root-owned directory" "$own/rootdir" "it is a directory"
refused "onto a root-owned directory in a sticky directory" "$TMP/pub/rootdir" "it is a directory"
refused "onto a symbolic link" "$own/link.trc" "it is a symbolic link"
# the sudoers line lends the whole binary: replay must not write or read with root's rights
(cd / && runuser -u "$user" -- sudo -n "$GPUREC" export "$TMP/pub/src.trc" -o "$etc_new.json") 2>"$TMP/log/err"
check "sudo gpurec export -o into a root-owned directory: refused" 1 $?
grep -q "Permission denied" "$TMP/log/err" && ok "sudo gpurec export: says permission denied" ||
	not_ok "sudo export message: $(cat "$TMP/log/err")"
(cd / && runuser -u "$user" -- sudo -n "$GPUREC" info "$TMP/rootonly.trc") >/dev/null 2>"$TMP/log/err"
check "sudo gpurec info on a file only root may read: refused" 1 $?
(cd / && runuser -u "$user" -- sudo -n "$GPUREC" info "$TMP/pub/src.trc") >/dev/null 2>&1
check "sudo gpurec info on the user's readable trace: works" 0 $?
after=$(snapshot)
if [ "$before" = "$after" ]; then
	ok "nothing outside the user's own directory changed"
else
	not_ok "files changed: $(diff <(echo "$before") <(echo "$after") | head -10 | tr '\n' ' ')"
fi
check "root-owned victim unchanged" "precious 0:0 644" "$(cat "$etc_victim") $(stat -c '%u:%g %a' "$etc_victim")"

# into the user's own directory: works, and the command runs as the user with the user's basics
as_user -o "$own/ok.trc" -- sh -c "echo \$(id -u) \$(id -g) \$HOME \$USER \$LOGNAME > $own/env" 2>"$TMP/log/err5"
check "-o into the user's own directory succeeds" 0 $?
check "the trace belongs to the user, mode 0600" "$uid:$gid 600" "$(stat -c '%u:%g %a' "$own/ok.trc" 2>/dev/null)"
check "the command ran as the user with the user's HOME, USER and LOGNAME" \
	"$uid $gid $home $user $user" "$(cat "$own/env" 2>/dev/null)"
as_user -o "$own/ok.trc" -- true 2>/dev/null
check "a second recording keeps the first as .old, both the user's" "$uid:$gid 600 $uid:$gid 600" \
	"$(stat -c '%u:%g %a' "$own/ok.trc" "$own/ok.trc.old" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
check "the user's trace opens" 0 "$("$GPUREC" info "$own/ok.trc" >/dev/null 2>&1; echo $?)"

# a command the user cannot see is reported as the user would see it, not as root would
mkdir -p "$TMP/rootonly" && chmod 0700 "$TMP/rootonly" && cp /bin/true "$TMP/rootonly/prog"
as_user -o "$own/x.trc" -- "$TMP/rootonly/prog" 2>"$TMP/log/err6"
check "a command in a directory only root can read: not run (126, as a shell says)" 126 $?
grep -q "Permission denied" "$TMP/log/err6" && ok "says permission denied, as for the user" ||
	not_ok "hidden command message: $(cat "$TMP/log/err6")"
# -p: sudo opens only the user's own processes, never root's or another user's
sleep 30 &
rootproc=$!
as_user -p "$rootproc" -d 0.2 -o "$own/p-root.trc" 2>"$TMP/log/err7"
check "-p on a root process: refused" 1 $?
grep -q "not your process" "$TMP/log/err7" && ok "-p on a root process: says it is not the user's" ||
	not_ok "-p root message: $(cat "$TMP/log/err7")"
[ ! -e "$own/p-root.trc" ] && ok "-p on a root process: no trace created" || not_ok "-p on a root process wrote a trace"
kill "$rootproc"
wait "$rootproc" 2>/dev/null
# the sleep this script started: runuser's child (the user's newest sleep may be another run's)
runuser -u "$user" -- sleep 30 &
runjob=$!
userproc=
for _ in $(seq 1200); do
	userproc=$(pgrep -P "$runjob" -u "$user" -x sleep)
	[ -n "$userproc" ] && break
	sleep 0.05
done
as_user -p "$userproc" -d 0.2 -o "$own/p-own.trc" 2>/dev/null
check "-p on the user's own process: recorded" 0 $?
kill "$userproc" 2>/dev/null
wait "$runjob" 2>/dev/null

# a privileged program the command starts (here a setuid-root copy of a CUDA program) is not
# traced: its memory is root's, not the user's; it still runs normally
cp "$PROGS/launches" "$TMP/suid-launches" && chmod 4755 "$TMP/suid-launches"
"$PROGS/launches" 5 >/dev/null 2>&1
plain_rc=$?
as_user -o "$own/plain.trc" -- "$PROGS/launches" 5 >/dev/null 2>&1
plain=$("$GPUREC" info --json "$own/plain.trc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["launches"])')
as_user -o "$own/suid.trc" -- sh -c "$TMP/suid-launches 5 >/dev/null 2>&1; echo \$? > $own/suid-rc;
	$PROGS/launches 5 >/dev/null 2>&1" 2>"$TMP/log/err8"
check "a setuid program under the recording ran as it does alone (exit $plain_rc)" "$plain_rc" "$(cat "$own/suid-rc" 2>/dev/null)"
grep -q "1 privileged programs .* were not traced" "$TMP/log/err8" && ok "record says one privileged program was not traced" ||
	not_ok "setuid message: $(cat "$TMP/log/err8")"
"$GPUREC" info --json "$own/suid.trc" >"$TMP/log/suid.json"
check "info: one privileged program untraced" 1 "$(json "$TMP/log/suid.json" 'd["untraced_privileged"]')"
check "only the unprivileged run's launches are recorded ($plain, as alone)" "$plain" "$(json "$TMP/log/suid.json" 'd["launches"]')"
exit $failures
