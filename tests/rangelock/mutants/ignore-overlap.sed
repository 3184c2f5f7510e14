# The overlap search finds nothing: every request is granted at once.
# Expected report: writers beside other holders.
s/range_it_iter_first(&tree->root, lock->start, lock->last)/NULL/
