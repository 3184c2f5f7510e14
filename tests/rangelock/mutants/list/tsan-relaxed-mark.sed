# A request leaves by marking its entry without release ordering, so
# the next holder of its range may not see the writes of its section.
# Only ThreadSanitizer can see this; the build uses its flags.
# expect: ^WARNING: ThreadSanitizer: data race
s/atomic_long_fetch_or(RANGE_LIST_MARK, &node->next)/atomic_long_fetch_or_relaxed(RANGE_LIST_MARK, \&node->next)/
