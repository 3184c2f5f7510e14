#!/bin/bash
# kernels/check-stock's comparison, on small objects built here: code that
# only moved must compare identical, a changed instruction, an added
# function or a grown data object must be reported (exit 1), and a
# difference in the allow-list must be accepted with its reason.  The full
# run (two kernel builds) is `make check-stock`, not part of this test.
source "$(dirname "$0")/lib/tap.sh"
plan 16

cs=kernels/check-stock
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc() {	# cc <name> <source on stdin>: compile like the kernel does, -O2
	gcc -O2 -fno-asynchronous-unwind-tables -fno-pic -mcmodel=kernel \
		-ffreestanding -c -x c -o "$tmp/$1.o" -
}

cc base <<'EOF'
extern void down_write(void *);
extern void up_write(void *);
int table[4];
static __attribute__((noinline)) int helper(int x) { return table[x & 3] * 7; }
int punch(void *m, int x) { down_write(m); x = helper(x); up_write(m); return x; }
int fault(int x) { return helper(x + 1) + 1; }
EOF
# The same code, moved: other order, other lines, so other addresses.
cc moved <<'EOF'
extern void down_write(void *);
extern void up_write(void *);
int table[4];


static __attribute__((noinline)) int helper(int x) { return table[x & 3] * 7; }
int fault(int x) { return helper(x + 1) + 1; }

int punch(void *m, int x) { down_write(m); x = helper(x); up_write(m); return x; }
EOF
# One instruction changed: a different lock call.
cc changed <<'EOF'
extern void down_write(void *);
extern void up_write(void *);
extern void down_write_killable(void *);
int table[4];
static __attribute__((noinline)) int helper(int x) { return table[x & 3] * 7; }
int punch(void *m, int x) { down_write_killable(m); x = helper(x); up_write(m); return x; }
int fault(int x) { return helper(x + 1) + 1; }
EOF
# A grown data object, same code.
cc bigger <<'EOF'
extern void down_write(void *);
extern void up_write(void *);
int table[5];
static __attribute__((noinline)) int helper(int x) { return table[x & 3] * 7; }
int punch(void *m, int x) { down_write(m); x = helper(x); up_write(m); return x; }
int fault(int x) { return helper(x + 1) + 1; }
EOF
# An added function: in mm/filemap.o, whose additions the allow-list does
# not accept, and in an object the allow-list accepts whole.
for f in filemap_invalidate_sneaky mapping_lock_init; do
	{ cat <<'EOF'
extern void down_write(void *);
extern void up_write(void *);
int table[4];
static __attribute__((noinline)) int helper(int x) { return table[x & 3] * 7; }
int punch(void *m, int x) { down_write(m); x = helper(x); up_write(m); return x; }
int fault(int x) { return helper(x + 1) + 1; }
EOF
	  echo "void $f(void *a, void *b) { down_write(a); down_write(b); }"; } | cc "$f"
done

run $cs --compare "$tmp/base.o" "$tmp/moved.o"
ok "$(( RC != 0 ))" "moved code compares identical (exit $RC)"
like "$OUT" "1 identical objects; 0 allowed and 0 other" "summary counts it identical"

run $cs --compare "$tmp/base.o" "$tmp/changed.o"
is "$RC" 1 "a changed call is a difference"
like "$OUT" "DIFFERS +changed changed.o punch .*[+]call <?[^;]*; R_X86_64_[A-Z0-9]+ down_write_killable" \
	"the report names the function and shows the new call"

run $cs --compare "$tmp/base.o" "$tmp/bigger.o"
is "$RC" 1 "a data object that grew is a difference"
like "$OUT" "DIFFERS +changed bigger.o table \(16 -> 20 bytes\)" "with both sizes"

mkdir -p "$tmp/a/mm" "$tmp/b/mm" "$tmp/c/mm"
cp "$tmp/base.o" "$tmp/a/mm/filemap.o"
cp "$tmp/base.o" "$tmp/b/mm/filemap.o"
cp "$tmp/mapping_lock_init.o" "$tmp/b/mm/mapping_lock.o"
cp "$tmp/filemap_invalidate_sneaky.o" "$tmp/c/mm/filemap.o"
run $cs --compare "$tmp/a" "$tmp/b"
ok "$RC" "a new object the allow-list accepts is accepted"
like "$OUT" "allowed +new +mm/mapping_lock.o mapping_lock_init .*: /sys/kernel/mapping_lock/strategy" \
	"with the allow-list's reason"
run $cs --compare "$tmp/a" "$tmp/c"
is "$RC" 1 "a new function not in the allow-list is a difference"
like "$OUT" "DIFFERS +new +mm/filemap.o filemap_invalidate_sneaky" "... named in the report"

# The same calls, but the lock taken after the work it protected: in a
# function whose reshaping the allow-list accepts, still a difference.
for v in base swapped; do
	mkdir -p "$tmp/$v/fs/ext4"
	body='down_write(m); x = helper(x); up_write(m);'
	[ $v = swapped ] && body='x = helper(x); down_write(m); up_write(m);'
	cc "ord-$v" <<EOF
extern void down_write(void *);
extern void up_write(void *);
int table[4];
static __attribute__((noinline)) int helper(int x) { return table[x & 3] * 7; }
int ext4_setattr(void *m, int x) { $body return x; }
EOF
	cp "$tmp/ord-$v.o" "$tmp/$v/fs/ext4/inode.o"
done
run $cs --compare "$tmp/base" "$tmp/swapped"
is "$RC" 1 "a lock call moved past the work it guards is a difference"
like "$OUT" "DIFFERS +changed +fs/ext4/inode.o ext4_setattr" "even where the allow-list accepts reshaping"

# The same control flow in another block order (the branch hint flips
# which path falls through, so the calls are laid out in another order):
# reshaping, which the allow-list accepts for ext4_setattr.
for v in likely unlikely; do
	mkdir -p "$tmp/$v/fs/ext4"
	hint=1; [ $v = unlikely ] && hint=0
	cc "lay-$v" <<EOF
extern void down_write(void *);
extern void up_write(void *);
extern int other(int);
int table[4];
static __attribute__((noinline)) int helper(int x) { return table[x & 3] * 7; }
int ext4_setattr(void *m, int x)
{
	down_write(m);
	if (__builtin_expect(x > 3, $hint)) {
		x = helper(x);
		up_write(m);
		return x;
	}
	x = other(x);
	up_write(m);
	return x + 1;
}
EOF
	cp "$tmp/lay-$v.o" "$tmp/$v/fs/ext4/inode.o"
done
laid_out() { objdump -d -r "$1" | grep -oE 'R_X86_64_PLT32[[:space:]]+(helper|other)|call.*<helper>' | grep -oE 'helper|other' | xargs; }
l1=$(laid_out "$tmp/lay-likely.o") l2=$(laid_out "$tmp/lay-unlikely.o")
ok "$([ -n "$l1" ] && [ "$l1" != "$l2" ]; echo $?)" "(the two builds lay the paths out in different orders: $l1 / $l2)"
run $cs --compare "$tmp/likely" "$tmp/unlikely"
like "$RC:$OUT" "^0:.*allowed +fs/ext4/inode.o" "blocks in another order, each call followed by the same calls: reshaped, allowed"

# An unlock added on one path: the same functions called, one more call
# site; how many sites a call has is the compiler's, but here an unlock now
# comes before the work: changed.
mkdir -p "$tmp/extra/fs/ext4"
cc extra <<'EOF'
extern void down_write(void *);
extern void up_write(void *);
int table[4];
static __attribute__((noinline)) int helper(int x) { return table[x & 3] * 7; }
int ext4_setattr(void *m, int x) { down_write(m); if (x == 5) up_write(m); x = helper(x); up_write(m); return x; }
EOF
cp "$tmp/extra.o" "$tmp/extra/fs/ext4/inode.o"
run $cs --compare "$tmp/base" "$tmp/extra"
like "$RC:$OUT" "^1:.*DIFFERS +changed +fs/ext4/inode.o ext4_setattr" "an unlock added before the work it guards is a difference"

run $cs --compare "$tmp/base.o" "$tmp/nonexistent.o"
is "$RC" 2 "a missing input is bad input: $OUT"

done_testing
