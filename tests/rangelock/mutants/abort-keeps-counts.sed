# A killed waiter leaves the tree without releasing the requests that
# counted it.
# Reported as a lost wake-up.
# expect: ^STALL
/^static int range_lock_abort(/,/^}/s/range_dequeue(tree, lock, &wake_q);/range_it_remove(lock, \&tree->root);/
