#!/usr/bin/env bash
# How the recorder sees the traced processes' new mappings (record/mmap_hook.h): fexit on the
# mmap system call (ksys_mmap_pgoff) where the kernel lets an fexit program attach, else the
# fallback tp_btf/sys_exit, a program run at every system call of the machine, said on stderr and
# in the trace. The kernel's own list of the programs the recorder holds is the oracle: exactly
# one of the two is loaded, the one the trace names. Either way a renamed libcudart dlopen()ed
# late is found and every launch through it is recorded.
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

# record MODE: the recording with the hook the kernel allows (MODE default), or the fallback
# forced with the test hook (MODE sys_exit)
record() {
	local env=()
	[ "$1" = sys_exit ] && env=(GPUREC_TEST_MMAP_HOOK=sys_exit)
	env "${env[@]}" "$GPUREC" record -o "$TMP/$1.trc" -- bash "$TMP/probe.sh" "$TMP/$1.progs" \
		"$PROGS/late_loader" "$TMP/lib/libcudart-0a1b2c3d.so.13" "$TMP/lib/libkern.so" 33 \
		>/dev/null 2>"$TMP/$1.err"
	check "$1: recorded" 0 $?
	info "$TMP/$1.trc"
	check "$1: late dlopen of a renamed runtime: 33 launches" 33 \
		"$(json "$TMP/$1.trc.json" 'd["launches"]')"
	hook=$(json "$TMP/$1.trc.json" 'd["mmap_hook"]')
	progs=$(grep -E '^on_(mmap_return|sys_exit)$' "$TMP/$1.progs" | tr '\n' ' ')
	said=$(grep -c 'instead, a program that ran at every system call' "$TMP/$1.err")
}

record default
case "$hook" in
"fexit ksys_mmap_pgoff")
	check "default (fexit): the recorder holds no sys_exit program" "on_mmap_return " "$progs"
	check "default (fexit): no fallback said" 0 "$said"
	;;
"tp_btf sys_exit")
	# a kernel that refuses fexit there (this one may: it is what the fallback is for)
	echo "# fexit cannot attach to ksys_mmap_pgoff on this kernel: $(grep "instead, a program" "$TMP/default.err")"
	check "default (fallback): the recorder holds the sys_exit program only" "on_sys_exit " "$progs"
	check "default (fallback): said on stderr" 1 "$said"
	;;
*) not_ok "default: the trace names no mmap hook: '$hook'" ;;
esac

record sys_exit
check "sys_exit: the trace says the fallback" "tp_btf sys_exit" "$hook"
check "sys_exit: the recorder holds the sys_exit program only" "on_sys_exit " "$progs"
check "sys_exit: said on stderr" 1 "$said"
check "sys_exit: info says it" 1 "$("$GPUREC" info "$TMP/sys_exit.trc" | grep -c '^  mappings     seen by tp_btf sys_exit (fexit unavailable')"

exit $failures
