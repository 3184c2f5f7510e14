# The mask of a range leaves out its last segment (a one-segment range
# locks nothing).
# Reported as writers beside other holders.
# expect: ^VIOLATION
s/mask = (2UL << n) - 1;/mask = (1UL << n) - 1;/
