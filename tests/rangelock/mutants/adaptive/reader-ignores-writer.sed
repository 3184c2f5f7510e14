# A reader in cheat mode ignores the writer bit and shares the lock with
# a writer.
# run: stress
# expect: ^VIOLATION
/^static __always_inline bool range_adaptive_free(/,/^}/s/return !(v & (RANGE_ADAPTIVE_WRITER | RANGE_ADAPTIVE_DRAINING));/return !(v \& RANGE_ADAPTIVE_DRAINING);/
