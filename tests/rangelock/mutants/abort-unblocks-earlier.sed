# A killed waiter also decrements the earlier requests it was waiting for,
# which never counted it.
# Reported as a writer beside another holder.
# expect: ^VIOLATION
s/range_conflict(lock, node) && range_later(node, lock)/range_conflict(lock, node)/
