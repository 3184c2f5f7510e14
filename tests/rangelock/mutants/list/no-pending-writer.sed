# A waiting writer never becomes the pending writer: later overlapping
# readers join ahead of it.  Not a safety bug, so the stress validator
# passes it; rl_list_test's fairness group reports it.
# run: rl_list_test fairness
# expect: ^not ok .* a waiting writer is pending
/^static void range_list_pend_claim(/,/^}/s/^\tif (atomic_read(&lock->pending))$/\tif (true)/
