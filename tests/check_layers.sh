#!/usr/bin/env bash
# analyze/'s layering, checked on every `make test` (check-deps): arrows point one way only,
#   commands (cmd_*) -> sections (report*, info*, diff*, export*, html*) -> shared layer -> model -> format
# A file may include headers of its own layer or of a layer below it, never above. The layer of a
# file is told by its name, so `ls analyze/` shows it too; a new file that fits no rule fails here.
set -u
cd "$(dirname "$0")/.."

MODEL="model model_impl model_read model_comm memmap keymap strtab demangle pool"
SHARED="units json load damage options dist timeline launch_stats outcome probe_cost graphs frames launch_sites gpu outfile"

layer() { # layer NAME (no extension): prints 1 model, 2 shared, 3 section, 4 command
	local n=$1 w
	for w in $MODEL; do [ "$n" = "$w" ] && { echo 1; return; }; done
	for w in $SHARED; do [ "$n" = "$w" ] && { echo 2; return; }; done
	case $n in
	cmd_*) echo 4 ;;
	report | report_* | info | info_* | diff | diff_* | export | export_* | html | html_*) echo 3 ;;
	*) echo 0 ;;
	esac
}

names=(model shared section command)
bad=0
for f in analyze/*.[ch]; do
	base=$(basename "$f")
	base=${base%.*}
	mine=$(layer "$base")
	if [ "$mine" = 0 ]; then
		echo "$f: no layer (tests/check_layers.sh lists them)" >&2
		bad=1
		continue
	fi
	while read -r inc; do
		[ -f "analyze/$inc" ] || continue
		theirs=$(layer "${inc%.h}")
		if [ "$theirs" -gt "$mine" ]; then
			echo "$f: a ${names[mine - 1]} file includes $inc, a ${names[theirs - 1]} header" >&2
			bad=1
		fi
	done < <(sed -n 's/^#include "\([^"/]*\.h\)".*/\1/p' "$f")
done
exit $bad
