# A reader never conflicts, not even with a writer.
# Expected report: a writer beside readers.
s/return !a->reader || !b->reader;/return !a->reader \&\& !b->reader;/
