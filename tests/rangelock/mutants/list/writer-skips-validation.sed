# A writer that joined never checks the entries before it: a reader
# that joined in front of it at the same time holds beside it.
# Reported as a writer beside other holders.
# expect: ^VIOLATION
/^range_list_write_validate(/,/^}/s/^again:$/\treturn NULL;\n&/
