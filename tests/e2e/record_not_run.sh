#!/usr/bin/env bash
# A command that cannot be started costs no trace: the output and its .old are rotated only once
# the command's exec succeeded. Each failed start (a file without exec permission, a non-ELF file
# with +x and no #! line, a #! interpreter that is missing, a command not found after the PATH
# lookup) exits as a shell does (126 found but not runnable, 127 not found), says why, and leaves
# the trace and its .old byte-identical, with no file of its own beside them; done twice, the
# good trace is still there. A command that runs then rotates as before.
. "$(dirname "$0")/lib.sh"
need_root record_not_run

dir=$TMP/out
mkdir -p "$dir"
printf 'GPUREC-TRACE-A' >"$dir/t.trc"
printf 'GPUREC-TRACE-OLD' >"$dir/t.trc.old"
sums() { (cd "$dir" && ls -A | sort && md5sum t.trc t.trc.old); }
before=$(sums)

printf 'data\n' >"$TMP/noexec"
chmod 644 "$TMP/noexec"
printf 'plain text, not a program\n' >"$TMP/notelf"
chmod 755 "$TMP/notelf"
printf '#!/nonexistent/interpreter\n' >"$TMP/nointerp"
chmod 755 "$TMP/nointerp"

# try NAME EXIT MESSAGE CMD...: twice, each leaving the directory as it was
try() {
	local name=$1 want=$2 msg=$3 rc
	shift 3
	for n in 1 2; do
		"$GPUREC" record -o "$dir/t.trc" -- "$@" >"$TMP/cmd.out" 2>"$TMP/cmd.err"
		rc=$?
		check "$name ($n): exits $want as a shell would" "$want" "$rc"
		check "$name ($n): says why" 1 "$(grep -c -- "$msg" "$TMP/cmd.err")"
		check "$name ($n): trace, .old and the directory untouched" "$before" "$(sums)"
	done
}
try "no exec permission" 126 "Permission denied" "$TMP/noexec"
try "not a program (+x, no ELF, no #!)" 126 "Exec format error (not a program this machine runs" \
	"$TMP/notelf"
try "missing #! interpreter" 127 "its #! interpreter or its ELF loader is not" "$TMP/nointerp"
try "not found in PATH" 127 "command not found" gpurec-no-such-command-$$
check "a failed exec says nothing was recorded" 1 \
	"$(grep -c "nothing recorded; $dir/t.trc left as it was" <("$GPUREC" record -o "$dir/t.trc" -- "$TMP/notelf" 2>&1))"

"$GPUREC" record -o "$dir/t.trc" -- true >/dev/null 2>&1
check "a command that runs: exit 0" 0 $?
check "its trace rotates the previous one to .old" "GPUREC-TRACE-A" "$(cat "$dir/t.trc.old")"
check "the new trace opens" 0 "$("$GPUREC" info "$dir/t.trc" >/dev/null 2>&1; echo $?)"
check "no other file beside them" "t.trc t.trc.old" "$(cd "$dir" && ls -A | sort | paste -sd' ')"
exit $failures
