# Progress on a terminal (analyze/util/progress.h): report, info, diff and export show what they
# are doing and how far on stderr when it is a terminal (script(1) gives the command one), once
# the work has run GPUREC_PROGRESS_AFTER_MS (2 s by default: 0 here, so a small trace shows it);
# never with -q, never when stderr is a file, and never a byte on stdout. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "progress.sh"
if ! command -v script >/dev/null; then
	not_ok "script(1) is not installed (bsdutils)"
	exit 1
fi
LIB=/usr/local/cuda/lib64
if ! LD_LIBRARY_PATH=$LIB "$GPUREC" record -o "$TMP/a.trc" -- "$PROGS/launch_loop" 20000 >"$TMP/rec.out" 2>&1; then
	not_ok "record: $(tail -3 "$TMP/rec.out")"
	exit 1
fi
cp "$TMP/a.trc" "$TMP/b.trc"

# on_tty NAME CMD: runs CMD (a shell line, stdout to $TMP/NAME.out) with a terminal on stderr;
# what the terminal got is $TMP/NAME.tty
on_tty() {
	script -qec "$2 >$TMP/$1.out" /dev/null >"$TMP/$1.tty" 2>&1 </dev/null
}
shown() { tr '\r' '\n' <"$TMP/$1.tty" | grep -c "^gpurec $2: $3"; }

for cmd in "info" "report" "diff" "export"; do
	case $cmd in
	diff) args="$TMP/a.trc $TMP/b.trc" ;;
	export) args="$TMP/a.trc -o $TMP/x.json --force" ;;
	*) args="$TMP/a.trc" ;;
	esac
	GPUREC_PROGRESS_AFTER_MS=0 on_tty "$cmd" "'$GPUREC' $cmd $args"
	check "$cmd on a terminal: progress of the load" "yes" \
		"$([ "$(shown "$cmd" "$cmd" "loading: ")" -ge 1 ] && echo yes || cat -v "$TMP/$cmd.tty")"
	"$GPUREC" $cmd $args >"$TMP/$cmd.plain" 2>"$TMP/$cmd.err"
	# export's output names the file it wrote and its size: the same file, the same line
	check "$cmd: stdout the same with a terminal on stderr as without" "same" \
		"$(cmp -s "$TMP/$cmd.out" "$TMP/$cmd.plain" && echo same || diff "$TMP/$cmd.out" "$TMP/$cmd.plain" | head -5)"
	check "$cmd: stderr to a file holds no progress" "0" "$(grep -c 'loading\|\[K' "$TMP/$cmd.err")"
	GPUREC_PROGRESS_AFTER_MS=0 on_tty "$cmd-q" "'$GPUREC' $cmd -q $args"
	check "$cmd -q on a terminal: no progress" "0" "$(tr '\r' '\n' <"$TMP/$cmd-q.tty" | grep -c '^gpurec')"
done
check "export on a terminal: progress of the writing" "yes" \
	"$([ "$(shown export export "writing: ")" -ge 1 ] && echo yes || cat -v "$TMP/export.tty")"
check "report on a terminal: what it computes" "yes" \
	"$([ "$(shown report report "computing the report")" -ge 1 ] && echo yes || cat -v "$TMP/report.tty")"
# the line is cleared before the output: the terminal's last bytes before stdout are the erase
check "report: the line is erased when the work ends" "yes" \
	"$(grep -q $'\r\033\\[K' "$TMP/report.tty" && echo yes || cat -v "$TMP/report.tty")"
# record: nothing while the command runs (the terminal is its own), then the naming of its
# functions and lines once it is over: the line comes after the command's last output
GPUREC_PROGRESS_AFTER_MS=0 on_tty record "LD_LIBRARY_PATH=$LIB '$GPUREC' record -o '$TMP/r.trc' -- \
	sh -c '\"$PROGS/launch_loop\" 2000; echo command-ends >&2'"
check "record on a terminal: progress of the naming, after the command's last output" "yes" \
	"$(tr '\r' '\n' <"$TMP/record.tty" | sed -n '/command-ends/,$p' |
		grep -q '^gpurec record: naming functions and lines: ' && echo yes || cat -v "$TMP/record.tty")"
check "record: no progress before the command's end" "0" \
	"$(tr '\r' '\n' <"$TMP/record.tty" | sed '/command-ends/q' | grep -c '^gpurec record: naming')"
GPUREC_PROGRESS_AFTER_MS=0 on_tty record-q "LD_LIBRARY_PATH=$LIB '$GPUREC' record -q -o '$TMP/r.trc' -- '$PROGS/launch_loop' 2000"
check "record -q on a terminal: no progress" "0" "$(tr '\r' '\n' <"$TMP/record-q.tty" | grep -c '^gpurec record: naming')"
GPUREC_PROGRESS_AFTER_MS=0 LD_LIBRARY_PATH=$LIB "$GPUREC" record -o "$TMP/r.trc" -- "$PROGS/launch_loop" 2000 \
	>/dev/null 2>"$TMP/record.err"
check "record: stderr to a file holds no progress" "0" "$(grep -c 'naming\|\[K' "$TMP/record.err")"
# -d stops the recording while the command runs on: it still owns the terminal
GPUREC_PROGRESS_AFTER_MS=0 on_tty record-d "LD_LIBRARY_PATH=$LIB '$GPUREC' record -d 0.5 -o '$TMP/r.trc' -- \
	sh -c '\"$PROGS/launch_loop\" 2000; sleep 1.5'"
check "record -d: no progress while the command runs on" "0" \
	"$(tr '\r' '\n' <"$TMP/record-d.tty" | grep -c '^gpurec record: naming')"
# with the default delay, work of less than 2 s shows nothing
on_tty "quick" "'$GPUREC' info '$TMP/a.trc'"
check "the default delay: a short info shows nothing" "0" "$(wc -c <"$TMP/quick.tty")"
exit $((failures > 0))
