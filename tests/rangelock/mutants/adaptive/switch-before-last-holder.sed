# Any unlock of a draining lock completes the switch, not only the last
# holder's: the tree admits requests while other holders in cheat mode
# still hold (VIOLATION when one conflicts in time), and their unlocks
# then subtract from the cleared word (LEAK: the word is never 0 again).
# run: stress
# expect: ^(VIOLATION|LEAK)
/^range_adaptive_unlock(/,/^}/s/if (unlikely(v == (RANGE_ADAPTIVE_CHEATING | RANGE_ADAPTIVE_DRAINING)))/if (unlikely(v \& RANGE_ADAPTIVE_DRAINING))/
