# A writer's unlock clears its bits without release ordering, so the next
# holder of its segments may not see the writes of its section.
# Only ThreadSanitizer can see this; the build uses its flags.
# expect: ^WARNING: ThreadSanitizer: data race
/^static void range_bitmap_write_release(/,/^}/s/atomic_long_fetch_andnot(/atomic_long_fetch_andnot_relaxed(/
