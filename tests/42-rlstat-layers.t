#!/bin/bash
# analysis/ in layers (analysis/README.md): every include points down,
# one header a layer, so no circle; check-layers proves it and fails on a
# tree with an upward include. The commands[] table, each builtin's
# --help and analysis/README.md's synopsis name the same commands.
. "$(dirname "$0")/lib/tap.sh"
plan 7
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2

run analysis/check-layers
is "$RC:$OUT" "0:" "analysis/ has no include of a layer above the file's own"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
broken() {	# NAME: a scratch copy of analysis/ to break
	mkdir -p "$tmp/$1"
	git ls-files -z analysis | tar --null -T - -cf - | tar -C "$tmp/$1" -xf -
	echo "$tmp/$1/analysis"
}
a=$(broken up)
sed -i 's|^#include "base/base.h"$|#include "gate/gate.h"|' "$a/base/util.c"
run "$a/check-layers" "$a"
like "$RC:$OUT" "^1:base/util.c:[0-9]+: includes \"gate/gate.h\", a layer above its own$" \
	"a base/ file including gate/'s header fails, named with its line"
a=$(broken hdr)
sed -i 's|^#include "base/base.h"$|#include "base/base.h"\n#include "report/report.h"|' "$a/run/run.h"
run "$a/check-layers" "$a"
like "$RC:$OUT" "^1:run/run.h:[0-9]+: includes \"report/report.h\"" \
	"a layer's header including one above fails"
a=$(broken two)
printf '/* a second header */\n' >"$a/gate/extra.h"
run "$a/check-layers" "$a"
like "$RC:$OUT" "^1:gate/: 2 headers; a layer has exactly one" \
	"a second header in a layer fails"
a=$(broken top)
sed -i 's|^#include "history/history.h"$|#include "builtin.h"|' "$a/history/series.c"
run "$a/check-layers" "$a"
like "$RC:$OUT" "^1:history/series.c:[0-9]+: includes \"builtin.h\"" \
	"a layer including the builtins' header fails"

# every command of the table: its own --help, and its line in the README
cmds=$(analysis/rlstat --help | awk 'NR > 2 && NF { print $1 }')
bad=
for c in $cmds; do
	run analysis/rlstat "$c" --help
	[ "$RC" = 0 ] && [[ $OUT == "usage: rlstat $c "* ]] || bad+=" $c(help)"
	grep -q "^    analysis/rlstat $c " analysis/README.md || bad+=" $c(README)"
done
is "$(wc -w <<<"$cmds"):${bad:-none}" "10:none" \
	"each command of rlstat --help has its --help and its synopsis line in analysis/README.md"
run analysis/rlstat nosuch
like "$RC:$OUT" "^2:rlstat: unknown command \"nosuch\"; accepted: report summary mail regress next charts validate history profile plan$" \
	"an unknown command exits 2 naming the accepted ones"

done_testing
