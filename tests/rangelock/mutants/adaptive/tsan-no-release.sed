# A cheat-mode unlock gives the lock back without release ordering, so
# the next holder may not see the writes of the section.  Only
# ThreadSanitizer can see this; the build uses its flags.
# run: stress
# expect: ^WARNING: ThreadSanitizer: data race
/^range_adaptive_unlock(/,/^}/s/atomic_long_sub_return_release(/atomic_long_sub_return_relaxed(/
