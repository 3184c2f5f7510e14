# Leaving the list marks the entry but wakes nobody: requests that
# sleep for it sleep on.
# Reported as a lost wake-up.
# expect: ^STALL
/^static void range_list_leave(/,/^}/{/range_list_wake(lock, node);/d;}
