# The hand-off from the last blocker to a waiter loses its release/acquire
# pair, so a woken holder may not see the previous holder's writes.
# Only ThreadSanitizer can see this; the build uses its flags.
# expect: ^WARNING: ThreadSanitizer: data race
s/smp_load_acquire(&lock->blocking_ranges)/READ_ONCE(lock->blocking_ranges)/
s/smp_store_release(&node->blocking_ranges, 0);/WRITE_ONCE(node->blocking_ranges, 0);/
