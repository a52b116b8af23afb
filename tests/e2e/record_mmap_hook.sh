#!/usr/bin/env bash
# How the recorder sees the traced processes' new mappings (record/mmap_hook.h): fexit on the
# mmap system call (ksys_mmap_pgoff) where the kernel lets an fexit program attach, else the
# dynamic loader's debug hook (a uprobe on ld.so's _dl_debug_state); tp_btf/sys_exit, a program
# run at every system call of the machine, only when asked for. The kernel's own list of the
# programs the recorder holds is the oracle: exactly one of the three is loaded, the one the
# trace names. Every way, a renamed libcudart dlopen()ed late is found and every launch through
# it is recorded (nothing else would find it: it is loaded after the exec).
. "$(dirname "$0")/lib.sh"
need_root record_mmap_hook

info() { "$GPUREC" info --json "$1" >"$1.json" 2>"$1.err" || not_ok "info $1: $(cat "$1.err")"; }

# The traced command: list the BPF programs its parent, the recorder, holds (their names, from
# the kernel: the recorder's descriptors, then bpftool), then load the runtime late.
cat >"$TMP/probe.sh" <<'SH'
for f in /proc/$PPID/fdinfo/*; do
	id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$f" 2>/dev/null)
	[ -n "$id" ] && bpftool prog show id "$id" | sed -n 's/.* name \([^ ]*\) .*/\1/p'
done | sort -u >"$1"
shift
exec "$@"
SH
mkdir -p "$TMP/lib"
cp /usr/local/cuda/lib64/libcudart.so.13 "$TMP/lib/libcudart-0a1b2c3d.so.13"
cp "$PROGS/libkern.so" "$TMP/lib/libkern.so"

# record MODE [OPTIONS]: the recording with the hook the kernel allows (MODE default), or the one
# OPTIONS ask for
record() {
	local mode=$1
	shift
	"$GPUREC" record -v "$@" -o "$TMP/$mode.trc" -- bash "$TMP/probe.sh" "$TMP/$mode.progs" \
		"$PROGS/late_loader" "$TMP/lib/libcudart-0a1b2c3d.so.13" "$TMP/lib/libkern.so" 33 \
		>/dev/null 2>"$TMP/$mode.err"
	check "$mode: recorded" 0 $?
	info "$TMP/$mode.trc"
	check "$mode: late dlopen of a renamed runtime: 33 launches" 33 \
		"$(json "$TMP/$mode.trc.json" 'd["launches"]')"
	hook=$(json "$TMP/$mode.trc.json" 'd["mmap_hook"]')
	progs=$(grep -E '^on_(mmap_return|sys_exit|dl_debug_state)$' "$TMP/$mode.progs" |
		tr '\n' ' ')
	said=$(grep -c 'instead, a program that ran at every system call' "$TMP/$mode.err")
	loaders=$(grep -c "probing the loader's _dl_debug_state in " "$TMP/$mode.err")
}

# the loader's hook: the program, one probe on the one loader this machine's programs use (bash,
# late_loader, bpftool, sed, sort share it), and no sys_exit said
ldso_checks() {
	check "$1: the recorder holds the loader's hook only" "on_dl_debug_state " "$progs"
	check "$1: one loader probed" 1 "$loaders"
	check "$1: no sys_exit said" 0 "$said"
	check "$1: info says it" 1 "$("$GPUREC" info "$TMP/$1.trc" |
		grep -c "^  mappings     seen by uprobe ld.so _dl_debug_state (fexit unavailable; code mapped without the loader is not seen)$")"
}

record default
case "$hook" in
"fexit ksys_mmap_pgoff")
	check "default (fexit): the recorder holds no sys_exit program" "on_mmap_return " "$progs"
	check "default (fexit): no fallback said" 0 "$said"
	;;
"uprobe ld.so _dl_debug_state")
	# a kernel that refuses fexit there (this one does: EPERM to every fexit load)
	echo "# fexit cannot attach to ksys_mmap_pgoff on this kernel: the loader's hook"
	ldso_checks default
	;;
*) not_ok "default: the trace names no expected mmap hook: '$hook'" ;;
esac

record ldso --mmap-hook=ldso
check "ldso: the trace names the loader's hook" "uprobe ld.so _dl_debug_state" "$hook"
ldso_checks ldso

# the loader holds a process once when it has mapped the program's libraries and once per
# dlopen() that maps something, not at the RT_ADD call before each (that would be 6)
ZLIB=$(ldconfig -p | awk '$1 == "libz.so.1" && /x86-64/ { print $NF; exit }')
LIBM=$(ldconfig -p | awk '$1 == "libm.so.6" && /x86-64/ { print $NF; exit }')
"$GPUREC" record -v --mmap-hook=ldso -o "$TMP/holds.trc" -- "$PROGS/dlopen_all" "$ZLIB" "$LIBM" \
	>/dev/null 2>"$TMP/holds.err"
check "ldso: dlopen_all of 2 libraries: recorded" 0 $?
check "ldso: startup + 2 dlopens: 3 holds" 1 \
	"$(grep -c "debug hook, 3 holds (code mapped without" "$TMP/holds.err")"

record sys_exit --mmap-hook=sys_exit
check "sys_exit: the trace says it" "tp_btf sys_exit" "$hook"
check "sys_exit: the recorder holds the sys_exit program only" "on_sys_exit " "$progs"
check "sys_exit: said on stderr" 1 "$said"
check "sys_exit: no loader probed" 0 "$loaders"
check "sys_exit: info says it" 1 "$("$GPUREC" info "$TMP/sys_exit.trc" | grep -c '^  mappings     seen by tp_btf sys_exit (it ran at every system call of the machine)$')"

# the test knob asks for it as the option does
GPUREC_TEST_MMAP_HOOK=sys_exit record sys_exit_env
check "GPUREC_TEST_MMAP_HOOK=sys_exit: the trace says it" "tp_btf sys_exit" "$hook"
check "GPUREC_TEST_MMAP_HOOK=sys_exit: the sys_exit program only" "on_sys_exit " "$progs"

check "--mmap-hook: an unknown mode is refused" 1 \
	"$("$GPUREC" record --mmap-hook=kprobe -- true 2>&1 | grep -c "^gpurec record: --mmap-hook 'kprobe': use auto, ldso or sys_exit$")"

exit $failures
