# Requests in the drain do not wait for the holders in cheat mode: they
# go to the tree at once, beside them.  Reported as a writer beside a
# reader or another writer.
# run: stress
# expect: ^VIOLATION
/^static int range_adaptive_drain_wait(/,/^}/s/^{$/{\n\treturn RANGE_ADAPTIVE_PRECISE;/
