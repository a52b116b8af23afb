#!/usr/bin/env bash
# tests/install-deps.sh waits for another apt instead of failing at once, and then installs.
# Nothing of this machine's packages is touched: APT_CONFIG and DPKG_ADMINDIR (read by apt-get
# and dpkg-query themselves) point both at a private tree in $TMP, where every package the
# script wants is missing and a local repository offers an empty stand-in for each; dpkg
# installs those into a private root. Another apt is a process holding apt's own lock (an fcntl
# lock, as apt takes it) on the private copy of the package lists' lock or of dpkg's frontend
# lock; the test releases it only once it has seen the script wait for it.
. "$(dirname "$0")/lib.sh"
need_root
INSTALL=$PWD/tests/install-deps.sh
A=$TMP/apt
mkdir -p "$A"/lists/partial "$A"/cache/archives/partial "$A"/dpkg/updates "$A"/dpkg/info \
	"$A"/etc/apt.conf.d "$A"/etc/sources.list.d "$A"/etc/preferences.d "$A"/log "$A"/repo \
	"$A"/root
echo "deb [trusted=yes] file:$A/repo ./" >"$A/etc/sources.list"
cat >"$A/apt.conf" <<EOF
Dir::State::Lists "$A/lists";
Dir::State::status "$A/dpkg/status";
Dir::Cache "$A/cache";
Dir::Log "$A/log";
Dir::Etc::Parts "$A/etc/apt.conf.d";
Dir::Etc::SourceList "$A/etc/sources.list";
Dir::Etc::SourceParts "$A/etc/sources.list.d";
Dir::Etc::Preferences "$A/etc/preferences";
Dir::Etc::PreferencesParts "$A/etc/preferences.d";
APT::Sandbox::User "root";
DPkg::Options { "--admindir=$A/dpkg"; "--instdir=$A/root"; };
EOF
export APT_CONFIG=$A/apt.conf DPKG_ADMINDIR=$A/dpkg

# the repository: one empty package (no files, no scripts) per name the script installs
pkgs=$(bash "$INSTALL" --list)
npkgs=$(echo "$pkgs" | wc -l)
for p in $pkgs; do
	mkdir -p "$A/build/$p/DEBIAN"
	printf 'Package: %s\nVersion: 0.0-gpurec-test\nArchitecture: all\nMaintainer: gpurec tests <root@localhost>\nDescription: empty stand-in\n' \
		"$p" >"$A/build/$p/DEBIAN/control"
	dpkg-deb -b "$A/build/$p" "$A/repo/$p.deb" >/dev/null
	{
		dpkg-deb -f "$A/repo/$p.deb"
		echo "Filename: ./$p.deb"
		echo "Size: $(stat -c %s "$A/repo/$p.deb")"
		echo "SHA256: $(sha256sum "$A/repo/$p.deb" | cut -d' ' -f1)"
		echo
	} >>"$A/repo/Packages"
done

installed() { # how many packages the private dpkg has installed
	dpkg-query -W -f='${Status}\n' 2>/dev/null | grep -c "install ok installed"
}

# hold LOCK: a process takes apt's kind of lock on LOCK and keeps it until release()
hold() {
	rm -f "$TMP/held" "$TMP/release"
	mkfifo "$TMP/release"
	python3 -c 'import fcntl, sys
f = open(sys.argv[1], "a")
fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
sys.stdin.read()' "$1" "$TMP/held" <"$TMP/release" &
	holder=$!
	exec 7>"$TMP/release"
	until_true 600 test -e "$TMP/held" || not_ok "the lock holder never took $1"
}
release() {
	exec 7>&-
	wait "$holder"
}

until_true() { # TENTHS CMD...: polls CMD every 0.1 s until it succeeds, at most TENTHS times
	local n=$1
	shift
	until "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}

# the script's apt-get child, when it runs `apt-get ... install`
installing() {
	local c
	for c in $(pgrep -P "$script" -x apt-get); do
		tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q ' install ' && return 0
	done
	return 1
}

# --- the package lists' lock: apt-get update fails at once on it; the script retries ---
check "every package missing from the private dpkg" 0 "$(installed)"
hold "$A/lists/lock"
bash "$INSTALL" >"$TMP/out" 2>&1 7>&- &
script=$!
until_true 600 grep -q "waiting for another apt to release the package lists" "$TMP/out" &&
	ok "waits for the package lists' lock: $(grep waiting "$TMP/out" | head -1)" ||
	not_ok "no wait for the package lists' lock: $(cat "$TMP/out")"
kill -0 $script 2>/dev/null && ok "still running while the lock is held" ||
	not_ok "gave up while the lock was held: $(cat "$TMP/out")"
release
wait $script
check "installs once the lists' lock is released (status)" 0 $?
check "... every package ($npkgs)" "$npkgs" "$(installed)"
bash "$INSTALL" >"$TMP/out" 2>&1
check "nothing missing: exits 0, says nothing, runs no apt" "0 " "$? $(cat "$TMP/out")"

# --- dpkg's frontend lock (what apt-get install and dpkg take): apt-get waits for it ---
: >"$A/dpkg/status"
hold "$A/dpkg/lock-frontend"
bash "$INSTALL" >"$TMP/out" 2>&1 7>&- &
script=$!
until_true 600 installing && ok "apt-get install started while dpkg's frontend lock is held" ||
	not_ok "apt-get install never started: $(cat "$TMP/out")"
release
wait $script
check "installs once dpkg's frontend lock is released (status)" 0 $?
check "... every package ($npkgs)" "$npkgs" "$(installed)"
grep -q "Could not get lock" "$TMP/out" && not_ok "a lock error: $(cat "$TMP/out")" ||
	ok "no lock error"

# --- the wait has an end: INSTALL_DEPS_LOCK_WAIT ---
: >"$A/dpkg/status"
hold "$A/lists/lock"
INSTALL_DEPS_LOCK_WAIT=1 bash "$INSTALL" >"$TMP/out" 2>&1
rc=$?
release
[ $rc -ne 0 ] && grep -q "gave up after 1s (INSTALL_DEPS_LOCK_WAIT)" "$TMP/out" &&
	ok "gives up after INSTALL_DEPS_LOCK_WAIT=1 with a clear error (status $rc)" ||
	not_ok "INSTALL_DEPS_LOCK_WAIT=1: status $rc, $(cat "$TMP/out")"
check "... and installs nothing" 0 "$(installed)"
INSTALL_DEPS_LOCK_WAIT=soon bash "$INSTALL" >"$TMP/out" 2>&1
check "INSTALL_DEPS_LOCK_WAIT=soon is refused" \
	"1 install-deps: INSTALL_DEPS_LOCK_WAIT=soon is not a number of seconds" "$? $(cat "$TMP/out")"
exit $failures
