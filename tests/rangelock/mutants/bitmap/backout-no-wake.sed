# A reader that finds a writer backs its counts out without waking the
# writer that may be waiting for them to drain.
# Reported as a lost wake-up.
# expect: ^STALL
/^range_bitmap_read_try(/,/^}/{/range_bitmap_wake(lock);/d;}
