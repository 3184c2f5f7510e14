# A reader that joined in front of a writer it overlaps walks past it,
# as it walks past readers, instead of waiting for it to leave.
# Reported as a reader beside a writer.
# expect: ^VIOLATION
/^range_list_read_validate(/,/^}/s/^\t\tif (!cur->reader)$/\t\tif (false)/
