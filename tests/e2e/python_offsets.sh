#!/usr/bin/env bash
# record/python/pybuild.c's view of each CPython on the machine equals what its own headers say: every
# offset tests/python/py_offsets.c computes with offsetof() against that version's headers (the
# per-version table for 3.10-3.12, the _Py_DebugOffsets parse for 3.13+). Versions whose
# headers are not installed are checked for their version line only. Then the builds gpurec
# cannot read are named as such: older than 3.10, free-threaded, a version it cannot tell.
. "$(dirname "$0")/lib.sh"
BUILD=$PWD/$O/tests/tool_py_build

# the file holding _PyRuntime: libpython when the executable links it, else the executable
runtime_file() {
	local lib
	lib=$(ldd "$1" 2>/dev/null | awk '/libpython3/ {print $3; exit}')
	realpath "${lib:-$1}"
}

pythons=$(ls /usr/bin/python3 /root/.pyenv/versions/3.1[0-9]*/bin/python3 2>/dev/null |
	grep -v 't/bin' || true)
[ -n "$pythons" ] || { ok "no CPython 3.10+ on this machine # SKIP"; exit 0; }
for py in $pythons; do
	ver=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
	file=$(runtime_file "$py")
	"$BUILD" "$file" >"$TMP/got" 2>&1
	want_version=$ver
	# 3.10 says its version only in its file name: the minor
	case $ver in 3.10.*) want_version=3.10 ;; esac
	check "$ver ($file): version" "version $want_version" "$(head -1 "$TMP/got")"
	check "$ver: readable" "" "$(grep '^unreadable' "$TMP/got")"
	inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
	if [ ! -d "$inc/internal" ]; then
		ok "$ver: no internal headers to check offsets against # SKIP"
		continue
	fi
	if ! gcc -w -I"$inc" -o "$TMP/off" tests/python/py_offsets.c 2>"$TMP/cc"; then
		not_ok "$ver: py_offsets.c does not build against $inc: $(head -3 "$TMP/cc")"
		continue
	fi
	"$TMP/off" | while read -r name value; do
		got=$(awk -v n="$name" '$1 == n {print $2}' "$TMP/got")
		# 3.10 tells its minor version only: compare that much
		[ "$name" = hexversion ] && [ "$want_version" = 3.10 ] &&
			value=$((value >> 16 << 16))
		[ "$got" = "$value" ] || echo "$name: headers $value, gpurec ${got:-none}"
	done >"$TMP/diff"
	check "$ver: every offset as its headers say ($(wc -l <<<"$("$TMP/off")") fields)" "" \
		"$(cat "$TMP/diff")"
done

# builds gpurec cannot read, by what they are
old=$(ls /root/.pyenv/versions/3.9*/lib/libpython3.9.so.1.0 2>/dev/null | head -1)
if [ -n "$old" ]; then
	check "3.9: named, not read" "unreadable older than 3.10, the first version gpurec reads" \
		"$("$BUILD" "$old" | grep '^unreadable')"
else
	ok "no CPython 3.9 to name as too old # SKIP"
fi
lib310=$(ls /root/.pyenv/versions/3.10*/lib/libpython3.10.so.1.0 2>/dev/null | head -1)
if [ -n "$lib310" ]; then
	cp "$lib310" "$TMP/libpython3.10t.so.1.0"
	check "a free-threaded name: not read" \
		"unreadable a free-threaded build (its frames are not read)" \
		"$("$BUILD" "$TMP/libpython3.10t.so.1.0" | grep '^unreadable')"
	cp "$lib310" "$TMP/libinterp.so"
	check "3.10 under another name: its version is not known" \
		"unreadable its version is not known (no Py_Version, a file name without it)" \
		"$("$BUILD" "$TMP/libinterp.so" | grep '^unreadable')"
else
	ok "no CPython 3.10 library to rename # SKIP"
fi
check "not a CPython" "not cpython" "$("$BUILD" /bin/true)"
exit $((failures > 0))
