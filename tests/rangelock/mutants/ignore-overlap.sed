# The overlap search finds nothing: every request is granted at once.
# Reported as writers beside other holders.
# expect: ^VIOLATION
s/range_it_iter_first(&tree->root, lock->start, lock->last)/NULL/
