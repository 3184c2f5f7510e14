# Whoever unlinks an entry frees it at once, without waiting for an RCU
# grace period: a walker still on it reads freed memory.
# Only the sanitizers can see this; the build uses ASan+UBSan's flags.
# ASan reports the read of the freed entry, or, once malloc has reused
# it, UBSan the misaligned pointer the walker then follows.
# expect: ERROR: AddressSanitizer: (heap-use-after-free|SEGV)|runtime error: (member access within|load of) misaligned address
s/^\t\tkfree_rcu(node, rcu);$/\t\tkfree(node);/
