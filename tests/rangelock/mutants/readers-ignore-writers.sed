# A reader never conflicts, not even with a writer.
# Reported as a writer beside readers.
# expect: ^VIOLATION
s/return !a->reader || !b->reader;/return !a->reader \&\& !b->reader;/
