# A writer never waits for the readers of its segments to drain.
# Reported as a writer beside readers.
# expect: ^VIOLATION
/^range_bitmap_drained(/,/^}/s/^\tif (atomic_read_acquire(&lock->all_readers))$/\treturn true;\n&/
