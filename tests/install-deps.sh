#!/usr/bin/env bash
# Installs the Debian packages gpurec needs to build and test, when they are missing.
# Used by `make deps`, `make demo` and .ci/run. Run by a user, it asks sudo for the installation
# (and says so); as root it needs no sudo.
# Another apt or dpkg (unattended-upgrades, a second shell) may hold the package locks: this
# waits for them, up to INSTALL_DEPS_LOCK_WAIT seconds (default 600), instead of failing at once.
# apt-get waits for the dpkg locks itself (DPkg::Lock::Timeout); `apt-get update` does not for
# the package lists' lock (apt 2.6), so that one is retried here, once a second.
# --list prints the packages, one a line, and changes nothing. --no-browser leaves out chromium
# and firefox-esr, which only the HTML report's browser tests need (tests/browser/): `make demo`
# does without them.
set -eu
pkgs="make gcc clang libclang-rt-dev llvm bpftool libbpf-dev libelf-dev libdw-dev libzstd-dev
zlib1g-dev python3 sudo passwd time libcap2-bin strace
libsqlite3-dev sqlite3
protobuf-compiler"
if [ "${1:-}" = --no-browser ]; then
	shift
else
	pkgs="$pkgs chromium firefox-esr"
fi
if [ "${1:-}" = --list ]; then
	printf '%s\n' $pkgs
	exit 0
fi
lock_wait=${INSTALL_DEPS_LOCK_WAIT:-600}
case "$lock_wait" in
'' | *[!0-9]*)
	echo "install-deps: INSTALL_DEPS_LOCK_WAIT=$lock_wait is not a number of seconds" >&2
	exit 1
	;;
esac
missing=()
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
as_root=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "install-deps: missing packages: ${missing[*]}; run as root (make deps)" >&2
		exit 1
	fi
	echo "install-deps: missing packages: ${missing[*]}; installing them with sudo"
	as_root=(sudo)
fi

# apt-get update, retried while another process holds the lists' lock. Its messages are read,
# so they are asked for in English.
update_lists() {
	local err start=$SECONDS said=0

	while :; do
		if err=$("${as_root[@]}" env LC_ALL=C apt-get update -qq 2>&1 >/dev/null); then
			return 0
		fi
		case "$err" in
		*"Could not get lock"* | *"Unable to lock"*) ;;
		*)
			echo "$err" >&2
			return 1
			;;
		esac
		if [ $((SECONDS - start)) -ge "$lock_wait" ]; then
			echo "$err" >&2
			echo "install-deps: gave up after ${lock_wait}s (INSTALL_DEPS_LOCK_WAIT)" >&2
			return 1
		fi
		if [ $said -eq 0 ]; then
			echo "install-deps: waiting for another apt to release the package lists:" \
				"${err%%$'\n'*}"
			said=1
		fi
		sleep 1
	done
}

echo "install-deps: installing ${missing[*]}"
update_lists
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$lock_wait" \
	install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
