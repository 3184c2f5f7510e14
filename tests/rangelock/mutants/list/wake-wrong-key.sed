# Leaving the list wakes the sleepers on the lock's address rather than
# on the entry's, where requests that met the entry sleep.
# Reported as a lost wake-up.
# expect: ^STALL
/^static void range_list_leave(/,/^}/s/range_list_wake(lock, node);/range_list_wake(lock, lock);/
