#!/bin/bash
# kernels/build against a stand-in kernel tree (KSRC= with a Makefile that
# imitates kbuild's targets), so its own logic is tested without a real
# build: flavour names and fragments, exit 1 with the first errors when the
# build fails (also when the log is far longer than a pipe holds) or when
# Kconfig drops a value of a fragment (one it sets, or one it turns off),
# exit 2 on bad input; a variant with features (KERNEL=stock+<feature>)
# builds in a directory and release of its own, from its fragments.
. "$(dirname "$0")/lib/tap.sh"
plan 37

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/linux
mkdir -p "$src/scripts/kconfig"
# FAIL=1 makes bzImage print 30000 error lines (~1 MiB) and fail.
cat >"$src/Makefile" <<'M'
VERSION = 6
PATCHLEVEL = 12
SUBLEVEL = 0
tinyconfig:
	@mkdir -p $(O) && : >$(O)/.config
olddefconfig:
	@if [ -e $(CURDIR)/DROP ]; then sed -i '/^CONFIG_EXT4_FS=y/d' $(O)/.config; fi
	@if [ -e $(CURDIR)/SELECT ]; then echo CONFIG_INET=y >>$(O)/.config; fi
bzImage:
	@if [ -e $(CURDIR)/FAIL ]; then seq 30000 | sed 's/^/drivers\/x.c: error: stand-in failure /'; exit 1; fi
	@echo "start $(O) $$(date +%s.%N)" >>$(CURDIR)/kbuild.log
	@if [ -e $(CURDIR)/SLOW ]; then sleep 2; fi
	@mkdir -p $(O)/arch/x86/boot $(O)/include/config
	@ccache gcc -c $(CURDIR)/a.c -o $(O)/a.o && ccache gcc -c $(CURDIR)/b.c -o $(O)/b.o
	@echo '6.12.0$(LOCALVERSION)' >$(O)/include/config/kernel.release
	@cat $(O)/.config >$(O)/arch/x86/boot/bzImage
	@echo "end $(O) $$(date +%s.%N)" >>$(CURDIR)/kbuild.log
M
cat >"$src/scripts/kconfig/merge_config.sh" <<'M'
#!/bin/bash
# merge_config.sh -m -O DIR BASE FRAGMENT...: append the fragments
shift 3; base=$1; shift; cat "$@" >>"$base"
M
chmod +x "$src/scripts/kconfig/merge_config.sh"
echo 'int a(void) { return 1; }' >"$src/a.c"
echo 'int b(void) { return 2; }' >"$src/b.c"
export KSRC=$src RLBENCH_CACHE=$tmp/cache

run kernels/build stock --xfs --debug
is "$RC" 0 "a build with two flavours succeeds"
out=$(tail -1 <<<"$OUT")
is "$out" "$tmp/cache/build/stock-debug-xfs" "its directory names the flavours in a fixed order"
is "$(cat "$out/include/config/kernel.release")" "6.12.0-rl-stock-debug-xfs" "and so does its release"
img=$(cat "$out/arch/x86/boot/bzImage")
ok "$(grep -q '^CONFIG_XFS_FS=y' <<<"$img" && grep -q '^CONFIG_PROVE_LOCKING=y' <<<"$img" &&
	grep -q '^CONFIG_MAPPING_LOCK_RWSEM=y' <<<"$img" && grep -q '^CONFIG_MAPPING_LOCK_STATS=y' <<<"$img"; echo $?)" \
	"the config holds guest, variant, debug and xfs fragments, and the lock counters"

like "$OUT" "built 6.12.0-rl-stock-debug-xfs in [0-9]+ s \(ccache: 0 of 2 compilations hit, 0%\)" \
	"the first build's own ccache counts: two compilations, no hit"
run kernels/build rangelock
like "$OUT" "\(ccache: 2 of 2 compilations hit, 100%\)" "a second variant counts its own hits, not the cache's totals"
ok "$(grep -q '^CONFIG_MAPPING_LOCK_STATS=y' "$tmp/cache/build/rangelock/.config"; echo $?)" \
	"every variant with a lock carries the lock counters (off unless booted to count)"
run kernels/build imutex
ok "$(! grep -q 'MAPPING_LOCK_STATS' "$tmp/cache/build/imutex/.config"; echo $?)" \
	"the no-lock variant has nothing to count: no counters asked for"

# What Kconfig does to a value whose dependency is unmet, or to an option
# something else selects: the build must not go on with that kernel.
touch "$src/DROP"
run kernels/build stock
like "$RC:$OUT" "^1:.*config values dropped by Kconfig:.*CONFIG_EXT4_FS=y \(final: unset\)" \
	"a value a fragment sets that Kconfig drops fails the build, naming it"
rm "$src/DROP"; touch "$src/SELECT"
run kernels/build stock
like "$RC:$OUT" "^1:.*config values dropped by Kconfig:.*# CONFIG_INET is not set \(final: CONFIG_INET=y\)" \
	"so does one a fragment turns off and Kconfig turns back on"
rm "$src/SELECT"

touch "$src/FAIL"
run kernels/build stock
is "$RC" 1 "a failed build exits 1, not 141, though its log is longer than a pipe"
is "$(grep -c 'stand-in failure' <<<"$OUT")" 20 "and shows its first 20 errors"

# Checkouts sharing one RLBENCH_CACHE: two builds of a variant at once
# run kbuild in its directory one after the other (a KSRC tree is built
# each time), and builds of two variants do not overlap either (the
# source tree they read is not re-patched under them).
rm "$src/FAIL"; touch "$src/SLOW"; : >"$src/kbuild.log"
kernels/build imutex >"$tmp/b1.log" 2>&1 & b1=$!
sleep 0.5
kernels/build imutex >"$tmp/b2.log" 2>&1 & b2=$!
kernels/build stock >"$tmp/b3.log" 2>&1 & b3=$!
rc1=0 rc2=0 rc3=0
wait $b1 || rc1=$?; wait $b2 || rc2=$?; wait $b3 || rc3=$?
rm "$src/SLOW"
is "$rc1 $rc2 $rc3" "0 0 0" "three builds at once from one cache all succeed"
is "$(grep -c "^start $tmp/cache/build/imutex " "$src/kbuild.log")" 2 "imutex was built twice"
like "$(cat "$tmp/b1.log" "$tmp/b2.log")" "waiting for another build of imutex to end" \
	"the later imutex build said it waits for the other"
overlap() { awk '$1 == "start" {if (open) exit 1; open = 1} $1 == "end" {open = 0}'; }
ok "$(overlap <"$src/kbuild.log"; echo $?)" "no two kbuilds overlapped"
ok "$(printf 'start a 1\nstart b 2\nend a 3\nend b 4\n' | overlap; [ $? = 1 ]; echo $?)" \
	"(the overlap check fails an overlap)"

# A kernel that is up to date is found so without the source lock, which
# a build of another variant holds until it ends: a tree with a series
# stamp (a patched tree's, as prepare-src writes it) is what allows
# "up to date" at all.
echo "hash: standin" >"$src/.rlbench-series"
run kernels/build imutex
is "$RC" 0 "(imutex built against the stamped tree)"
touch "$src/SLOW"
kernels/build stock >"$tmp/b4.log" 2>&1 & b4=$!
for _ in $(seq 50); do grep -q "^start $tmp/cache/build/stock " "$src/kbuild.log" && break; sleep 0.1; done
run kernels/build imutex
still=$(kill -0 $b4 2>/dev/null && echo running)
wait $b4 || true
rm "$src/SLOW" "$src/.rlbench-series"
like "$RC:$still:$OUT" "^0:running:.*imutex: up to date" \
	"an up-to-date variant is found so while another variant builds"
ok "$(! grep -q "waiting for the source tree" <<<"$OUT"; echo $?)" "... without waiting for the source tree"

run kernels/build stock --lockdep
like "$RC:$OUT" "^2:.*unknown option '--lockdep' \(accepted: --debug, --kcsan, --xfs\)" "an unknown flavour: exit 2, the accepted ones named"
run kernels/build stockk
like "$RC:$OUT" "^2:.*unknown KERNEL='stockk'; valid: stock imutex" "an unknown variant: exit 2"

# Features: <variant>+<feature>... resolves to one spelling (features in
# kernels/features' order), its own build directory and release, and the
# feature fragments after the variant's.
run kernels/build stock+shared-alloc-dio
is "$RC" 0 "a variant with a feature builds"
out=$(tail -1 <<<"$OUT")
is "$out" "$tmp/cache/build/stock+shared-alloc-dio" "in a directory named after it"
is "$(cat "$out/include/config/kernel.release")" "6.12.0-rl-stock+shared-alloc-dio" "and a release that names its feature"
ok "$(grep -qx 'CONFIG_EXT4_DIO_WRITE_SHARED=y' "$out/.config" && grep -qx 'CONFIG_MAPPING_LOCK_RWSEM=y' "$out/.config"; echo $?)" \
	"its config holds the variant's and the feature's fragments"
run kernels/build --resolve rangelock+fault-retry+shared-alloc-dio --debug
is "$OUT" "name rangelock+shared-alloc-dio+fault-retry-debug
build $tmp/cache/build/rangelock+shared-alloc-dio+fault-retry-debug
localversion -rl-rangelock+shared-alloc-dio+fault-retry-debug
fragment configs/guest.config
fragment configs/rangelock.config
fragment configs/feature-shared-alloc-dio.config
fragment configs/feature-fault-retry.config
fragment configs/stats.config
fragment configs/debug.config" "--resolve: features in kernels/features' order, whatever order they were typed in"
# What kernels/check-stock builds as stock: guest.config, stock.config and
# the lock counters (which it turns off unless --stats), no feature
# fragment; KERNEL=stock must be that same kernel.
run kernels/build --resolve stock
is "$(grep '^fragment' <<<"$OUT" | xargs)" "fragment configs/guest.config fragment configs/stock.config fragment configs/stats.config" \
	"stock carries no feature: check-stock's fragments and no others"
# shellcheck disable=SC2016  # check-stock's own text, $here unexpanded
is "$(sed -n '/^fragments=/p' kernels/check-stock)" 'fragments=("$here/configs/guest.config" "$here/configs/stock.config" "$here/configs/stats.config")' \
	"and check-stock's own list is just those"

run kernels/build stock+
like "$RC:$OUT" "^2:.*KERNEL='stock\+': an empty feature after '\+'; accepted: <variant>\[\+<feature>...\], features: shared-alloc-dio fault-retry" \
	"an empty feature after '+': exit 2"
run kernels/build stock+nosuch
like "$RC:$OUT" "^2:.*KERNEL='stock\+nosuch': unknown feature 'nosuch'; accepted: shared-alloc-dio fault-retry" \
	"an unknown feature: exit 2, the features named"
run kernels/build stock+fault-retry+fault-retry
like "$RC:$OUT" "^2:.*KERNEL='stock\+fault-retry\+fault-retry': feature 'fault-retry' named twice" \
	"a feature named twice: exit 2"
run kernels/build imutex+fault-retry
like "$RC:$OUT" "^2:.*KERNEL='imutex\+fault-retry': feature 'fault-retry' does not apply to imutex; accepted on: stock rangelock rwsem-range bitmap adaptive listlock" \
	"a feature its strategy has no use for: exit 2, the strategies it applies to named"
ok "$([ ! -e "$tmp/cache/build/imutex+fault-retry" ]; echo $?)" "and nothing was built for it"
run kernels/build --resolve rwsem-range+shared-alloc-dio+fault-retry --debug --kcsan --xfs
like "$RC:$OUT" "^2:.*LOCALVERSION -rl-rwsem-range\+shared-alloc-dio\+fault-retry-debug-kcsan-xfs is 60 characters; accepted: at most 56" \
	"a release longer than the kernel's 64 characters is refused before kbuild"
# DEBUG=kcsan: the debug kernel with KCSAN on top, a build of its own
run kernels/build --resolve listlock --kcsan --debug
like "$RC:$OUT" $'^0:name listlock-debug-kcsan\n.*\nfragment configs/debug.config\nfragment configs/kcsan.config$' \
	"--kcsan: its own build directory, kcsan.config after debug.config"
run kernels/build --resolve listlock --kcsan
like "$RC:$OUT" "^2:.*--kcsan is a debug kernel's: accepted with --debug only" "--kcsan alone: exit 2"
done_testing
