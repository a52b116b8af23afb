# record -o's pattern (record/output_name.h): %h the short host name, %r the launcher's rank,
# %p the recorder's pid, %% a '%'. One launcher line (as srun runs it: one recorder per rank,
# each with its rank in its environment) writes one trace per rank; a pattern that cannot be
# expanded is refused before the command runs or anything is created. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "record_output_pattern.sh"
SIM=${SAMPLES:-$PWD/$O/samples}/sim
unset RANK OMPI_COMM_WORLD_RANK PMI_RANK SLURM_PROCID
host=$(python3 -c 'import re, socket; print(re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname().split(".")[0]))')

# torchrun's RANK; %% stays one '%'
RANK=3 "$GPUREC" record -o "$TMP/t.%h.%r.%%.trc" -- true >"$TMP/a.out" 2>&1
check "RANK=3: the trace is at t.HOST.3.%.trc" "yes" \
	"$([ -f "$TMP/t.$host.3.%.trc" ] && echo yes || { ls "$TMP"; cat "$TMP/a.out"; })"

# %p is the recorder's pid: the recording says which pid it was ("gpurec record: pid N")
"$GPUREC" record -o "$TMP/p.%p.trc" -- true >"$TMP/p.out" 2>&1
check "%p: one trace named by a pid" "1" "$(ls "$TMP" | grep -c '^p\.[0-9][0-9]*\.trc$')"

# refused before anything runs: no rank, an unknown escape, a trailing '%'
for pat in "n.%r.trc" "n.%x.trc" "n.trc%"; do
	rm -f "$TMP/ran"
	"$GPUREC" record -o "$TMP/$pat" -- touch "$TMP/ran" >"$TMP/refused.out" 2>&1
	rc=$?
	check "-o $pat: exit 2, the command not run, nothing created" "2 no 0" \
		"$rc $([ -e "$TMP/ran" ] && echo ran || echo no) $(ls "$TMP" | grep -c '^n\.')"
done
check "no rank: the error names the variables" "1" \
	"$("$GPUREC" record -o "$TMP/n.%r.trc" -- true 2>&1 | grep -c 'no rank in the environment (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID)')"

# an existing recording at the expanded name survives a command that cannot start
echo keep >"$TMP/k.5.trc"
PMI_RANK=5 "$GPUREC" record -o "$TMP/k.%r.trc" -- /nonexistent/cmd >/dev/null 2>&1
check "a failed start leaves the trace at the expanded name as it was" "keep" "$(cat "$TMP/k.5.trc")"

# one launcher line for three ranks, srun's way: SLURM_PROCID per task, each recorder names its
# file from it, and each trace holds its own rank's process
if [ -f "$SIM/libcudart.so.13" ] && [ -x "$PROGS/rank_step" ]; then
	for r in 0 1 2; do
		SLURM_PROCID=$r "$GPUREC" record -o "$TMP/job.%h.%r.trc" -- \
			env LD_LIBRARY_PATH="$SIM" "$PROGS/rank_step" 3 >"$TMP/job$r.out" 2>&1 &
	done
	wait
	check "three recorders, one pattern: three traces" "3" "$(ls "$TMP" | grep -c "^job\.$host\.[0-2]\.trc$")"
	for r in 0 1 2; do
		"$GPUREC" info --json "$TMP/job.$host.$r.trc" >"$TMP/job$r.json" 2>"$TMP/job$r.err"
		check "rank $r's trace holds rank $r's process" "[$r]" \
			"$(json "$TMP/job$r.json" "sorted({p.get('rank') for p in d['processes'] if p.get('rank') is not None})" 2>&1 |
				tr -d ' ')"
	done
else
	not_ok "simulator or progs not built (make samples progs)"
fi
exit $((failures > 0))
