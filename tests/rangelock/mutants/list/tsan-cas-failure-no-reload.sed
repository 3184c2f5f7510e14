# A failed join goes on with the value the cmpxchg returned, which is
# not an acquire: the entry it points to may look uninitialised.
# Only ThreadSanitizer can see this; the build uses its flags.
# expect: ^WARNING: ThreadSanitizer: data race
/^static struct range_list_node \*range_list_insert(/,/^}/{/^\t\tv = range_list_load(prev);$/d;}
