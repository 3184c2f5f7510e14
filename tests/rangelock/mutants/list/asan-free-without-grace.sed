# Whoever unlinks an entry frees it at once, without waiting for an RCU
# grace period: a walker still on it reads freed memory.
# Only AddressSanitizer can see this; the build uses its flags.
# expect: ERROR: AddressSanitizer: (heap-use-after-free|SEGV)
s/^\t\tkfree_rcu(node, rcu);$/\t\tkfree(node);/
