# What a kernel patch does to files that exist (tests/66-69): every line
# it removes, and every line it adds to an existing file, except the
# lines its caller allows, given in the environment (regexes read as
# they are, no escapes processed):
#   MAKEFILE, MAKE_RE   the Makefile and its lines the patch may add
#   KCONFIG, CONFIG_RE  the Kconfig file and the "config" lines it may add
#   BODY_RE             those entries' other lines (type, select, help);
#                       their help text and blank lines are allowed too
# MAINTAINERS is not compiled and never counts.  Prints
# "<file>: removes: <line>" and "<file>: adds: <line>".
/^--- / { existing = ($2 != "/dev/null"); next }
/^\+\+\+ / { file = substr($2, 3); next }
!existing || file == "MAINTAINERS" { next }
/^-/ { print file ": removes: " substr($0, 2); next }
/^\+/ {
	line = substr($0, 2)
	if (file == ENVIRON["MAKEFILE"] && line ~ ENVIRON["MAKE_RE"])
		next
	if (file == ENVIRON["KCONFIG"] && (line ~ ENVIRON["CONFIG_RE"] ||
	    line ~ ENVIRON["BODY_RE"] || line ~ /^\t  / || line == ""))
		next
	print file ": adds: " line
}
