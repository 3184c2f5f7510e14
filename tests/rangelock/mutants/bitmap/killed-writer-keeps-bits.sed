# A writer killed while it claims its bits or waits for readers keeps
# the bits it claimed.
# Reported as a lost wake-up, or as bits left at the end.
# expect: ^(STALL|LEAK)
/^fail:/,/^}/s/range_bitmap_write_release(lock, held);/(void)held;/
