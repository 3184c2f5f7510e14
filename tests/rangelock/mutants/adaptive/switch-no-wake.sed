# The switch clears the word but does not wake the requests sleeping in
# the drain: a lost wake-up.
# run: stress
# expect: ^STALL
/^static noinline void range_adaptive_switch(/,/^}/{/wake_up_var(&lock->cheat);/d}
