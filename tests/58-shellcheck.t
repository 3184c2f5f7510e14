#!/bin/bash
# Every bash file of the project passes shellcheck (exclusions are written
# next to the line they excuse), and no script that runs under pipefail
# pipes into `head` or `grep -q`: those readers exit early, the writer
# dies of SIGPIPE, and pipefail turns a documented exit status into 141
# or a failed check into a passed one.  Both checkers are first shown to
# catch a broken script.
. "$(dirname "$0")/lib/tap.sh"
plan 5
command -v shellcheck >/dev/null || bail_out "shellcheck not installed: run 'make setup'"

# bash_files: tracked files that are bash: *.sh, *.t, or a sh/bash shebang.
bash_files() {
	local f
	git ls-files -z | while IFS= read -r -d '' f; do
		[ -f "$f" ] || continue
		case $f in
		*.sh|*.t) echo "$f" ;;
		*) head -c 64 "$f" | grep -aqE '^#!.*/(env )?(ba)?sh' && echo "$f" ;;
		esac
	done
	return 0
}

# pipe_traps FILE...: lines of pipefail scripts that pipe into an early
# reader; a line may say why it is safe with "# sigpipe-safe: <reason>".
pipe_traps() {
	local f
	for f in "$@"; do
		# this file holds a broken script as a sample, not as code
		[ "${f##*/}" = "${0##*/}" ] && continue
		grep -qE '^set -[a-z]*o pipefail|^set -o pipefail' "$f" || continue
		grep -nE '\|[[:space:]]*(head|grep[[:space:]]+(-[a-zA-Z]*q|--quiet))\b' "$f" |
			grep -vE '^[0-9]+:[[:space:]]*#|sigpipe-safe:' | sed "s|^|$f:|"
	done
	return 0
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/bad" <<'B'
#!/bin/bash
set -euo pipefail
x=$(ls $1 | head -1)
echo $x
B
if shellcheck "$tmp/bad" >/dev/null 2>&1; then r=1; else r=0; fi
ok "$r" "shellcheck fails a script with unquoted expansions"
is "$(pipe_traps "$tmp/bad" | cut -d: -f2)" 3 "the pipe check finds a | head under pipefail"

mapfile -t files < <(bash_files)
ok "$([ "${#files[@]}" -ge 40 ]; echo $?)" "found the project's bash files (${#files[@]})"
out=$(shellcheck -f gcc "${files[@]}" 2>&1)
is "$out" "" "shellcheck is clean on every bash file"
is "$(pipe_traps "${files[@]}")" "" "no pipefail script pipes into head or grep -q"
done_testing
