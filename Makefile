# rlbench: range locks vs whole-file locks for the page cache.
# `make help` lists the targets and variables.

SHELL := /bin/bash
.DEFAULT_GOAL := help

KERNEL    ?= stock
MATRIX    ?= default
ACCEL     ?= auto
DEBUG     ?= 0
BASELINE  ?= stock
MODE      ?=
PROFILE   ?=
STATS     ?=
ITERATIONS ?=
BUDGET    ?=
THRESHOLD ?= 2%
RESUME    ?=
RUN       ?=
CANDIDATE ?=
SCRATCH   ?=
FORCE     ?= 0
KSRC      ?=
BRANCH    ?=
GOOD      ?=
BAD       ?=
POINT     ?=
METRIC    ?=
VARIANT   ?= stock
DEB       ?= 0
DEVICE_TYPE ?= qemu
KERNEL_URL ?=
LAVA      ?=
JOBS      ?=
BASE_CONFIG ?=

# DEBUG=1: the debug kernels; kcsan: the same with KCSAN
ifeq ($(filter 0 1 kcsan,$(DEBUG)),)
$(error DEBUG='$(DEBUG)' is not one of 0, 1, kcsan)
endif
DEBUG_ARGS = $(if $(filter 1,$(DEBUG)),--debug,$(if $(filter kcsan,$(DEBUG)),--debug --kcsan))
ifneq ($(KSRC),)
export KSRC
endif

# Parts that have a Makefile; each builds with `make -C <dir> all`.
SUBDIRS := $(patsubst %/Makefile,%,$(wildcard workloads/Makefile analysis/Makefile runners/plugins/Makefile tests/rangelock/Makefile))

.PHONY: help setup all tools kernels bench report mail regress rerun bench-locks \
	bench-generator bench-noise bench-profile bench-gate bench-matrix bench-analysis check-race test clean \
	lava-jobs lava-submit lava-collect test-lava test-lava-server \
	nightly bisect test-nightly test-kernels

help:
	@echo 'rlbench: what range locks cost and buy the Linux page cache'
	@echo
	@echo 'Targets:'
	@echo '  setup            install the Debian packages the suite needs (idempotent)'
	@echo '  all              build rlwork, rlstat, the profiler plugin and the userspace lock harness'
	@echo '  tools            build rlwork, rlstat and the profiler plugin (what bench and report need)'
	@echo '  kernels          build KERNEL=<variant>[+<feature>...]|all (DEBUG=1, KSRC=<6.12 tree>)'
	@echo '  bench            build, boot and run MATRIX on KERNEL, then report'
	@echo '  report           write report.txt/.html and charts into RUN'
	@echo '  mail             print RUN'"'"'s comparison as text for a mailing-list thread'
	@echo '  regress          compare CANDIDATE against BASELINE run; exit 1 on regression'
	@echo '  rerun            run RUN again with the same settings into a new directory'
	@echo '  bench-locks      lock+unlock microbenchmark, prints ratios'
	@echo '  bench-generator  rlwork vs fio on the same job, prints ratios'
	@echo '  bench-gate       the regression gate'"'"'s false-alarm rate, power and boots used, simulated'
	@echo '  bench-analysis   rlstat summary'"'"'s time against the ops in a result, prints CPU us/op'
	@echo '  bench-noise      the 1-thread points in cost and time mode, CoeffVar per mode and point'
	@echo '  bench-profile    host seconds of a cost boot without and with PROFILE=insn, and the ratio'
	@echo '  bench-matrix     runners/matrix on 10^4 generated points and 10^5 comment lines, seconds'
	@echo '  check-race       DEBUG kernels of every variant on the widened punch race:'
	@echo '                   imutex must lose data to the punch race, the others none'
	@echo '  nightly          one night: build KSRC'"'"'s BRANCH (or Debian'"'"'s source), run'
	@echo '                   MATRIX (default nightly) in MODE=both, index it in the history,'
	@echo '                   write its mail and the trend page (results/nightly/)'
	@echo '  bisect           KSRC= GOOD= BAD= POINT= METRIC= [VARIANT=] [MODE=cost]: the'
	@echo '                   commit that moved METRIC of POINT (git bisect run)'
	@echo '  test-nightly     the slow checks: two real nights and a real bisection'
	@echo '  test-kernels     kernel tests beyond CI: debug guests of the other safe variants (tests/slow)'
	@echo '  lava-jobs        LAVA job definitions of MATRIX on KERNEL (one per boot), validated'
	@echo '                   with lava-run; prints the job files (DEVICE_TYPE=, KERNEL_URL=)'
	@echo '  lava-submit      JOBS=<job dir|files> [LAVA=<lavacli identity>]: submit, wait, collect'
	@echo '  lava-collect     JOBS=<job ids|run-local dirs> [LAVA=]: finished jobs to a run directory'
	@echo '  test-lava        a real lava-run of the smoke matrix and of a panicking job'
	@echo '  test-lava-server a real lava-server and worker on loopback (root): the smoke'
	@echo '                   matrix through lava-jobs, lava-submit and report (tests/76)'
	@echo '  test             everything CI runs'
	@echo '  clean            remove build outputs in the tree (not the kernel cache)'
	@echo
	@echo 'Variables:'
	@echo '  KERNEL=$(KERNEL)   variant: $(shell sed -e 's/#.*//' -e '/^\s*$$/d' kernels/variants | awk '{print $$1}' | xargs), all, host'
	@echo '                     (a variant + features: KERNEL=rangelock+shared-alloc-dio; kernels/features)'
	@echo '  MATRIX=$(MATRIX)   configs/<name>.matrix, one of (runners/matrix --list):'
	@list=$$(runners/matrix --list) && printf '%s\n' "$$list" | sed 's/^/    /'
	@echo '  ACCEL=$(ACCEL)     auto|kvm|tcg (auto tries KVM, falls back to TCG)'
	@echo '  DEBUG=$(DEBUG)     1: lockdep/hung-task debug kernels; kcsan: the same with KCSAN'
	@echo '  RESUME=<run dir>   finish an interrupted run'
	@echo '  RUN=<run dir>      for report and rerun'
	@echo '  BASELINE=$(BASELINE)  variant (report) or run dir (regress); for bench: the variant'
	@echo '                     run alongside KERNEL, interleaved (none: only KERNEL)'
	@echo '  MODE=auto|time|cost|both  bench: wall-clock time, or instructions per op'
	@echo '                     under QEMU icount (deterministic), or both; auto (the'
	@echo '                     default): both with KVM, else cost for single-role points'
	@echo '                     and time for the contention points (docs/measuring.md)'
	@echo '  PROFILE=insn|none  bench: the cost boots'"'"'s per-function instruction profile'
	@echo '                     (docs/profile.md; default: the matrix'"'"'s profile, none)'
	@echo '  ITERATIONS=N|auto  bench: boots per variant; auto: cost 2 (3 where they'
	@echo '                     differ); time 3, then boots for the points still'
	@echo '                     undecided, up to max_iterations'
	@echo '  BUDGET=none|8|8m|90s  bench: auto adds a round only if the time boots fit'
	@echo '                     in this (default: the matrix'"'"'s budget; default.matrix 8m)'
	@echo '  STATS=1|0          bench: one boot per variant with its lock counters on for'
	@echo '                     the report'"'"'s lock waits, beside the timed boots (default:'
	@echo '                     the matrix'"'"'s stats_boot; default.matrix yes)'
	@echo '  CANDIDATE=<run dir> THRESHOLD=$(THRESHOLD)  for regress'
	@echo '  SCRATCH=<dir|dev> FORCE=1  for KERNEL=host'
	@echo '  KSRC=<path>        build from this 6.12 tree instead of Debian'"'"'s source'
	@echo '  BRANCH=<branch>    nightly: the branch of KSRC to follow (default: its current one)'
	@echo '  GOOD= BAD= POINT=<p003-dio> METRIC=<read.insn_per_op> VARIANT=$(VARIANT)  for bisect'
	@echo '  DEB=1 [BASE_CONFIG=/boot/config-...]  kernels: also make .deb packages'
	@echo '                     (of the guest kernel, or on a lab machine'"'"'s config)'
	@echo '  DEVICE_TYPE=$(DEVICE_TYPE) KERNEL_URL=<url of the job dir'"'"'s artifacts/>  for lava-jobs'
	@echo '  LAVA=<identity>    lavacli identity (its server and token stay in ~/.config/lavacli.yaml)'
	@echo '  BENCH_JSON=<path>  where bench-locks writes its JSON (default tests/rangelock/bench-locks.json)'
	@echo '  RLBENCH_CACHE      kernel sources, builds, ccache (default ~/.cache/rlbench)'

setup:
	@scripts/setup

all: setup
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -C $$d all || exit 2; done

# What runs and reports need: not the lock harness of tests/rangelock,
# whose sanitizer builds and mutants (about 2 min cold) serve its own
# tests and bench-locks.
RUN_SUBDIRS := $(filter-out tests/rangelock,$(SUBDIRS))
tools: setup
	@for d in $(RUN_SUBDIRS); do $(MAKE) --no-print-directory -C $$d all || exit 2; done

kernels: setup
	@$(if $(and $(filter 1,$(DEB)),$(BASE_CONFIG)),:,runners/run kernels --kernel $(KERNEL) $(DEBUG_ARGS))
	@$(if $(filter 1,$(DEB)),kernels/package $(KERNEL) $(DEBUG_ARGS) \
		$(if $(BASE_CONFIG),--base-config $(BASE_CONFIG)))

bench: tools
	@runners/run bench --kernel $(KERNEL) --matrix $(MATRIX) --accel $(ACCEL) \
		$(DEBUG_ARGS) $(if $(RESUME),--resume $(RESUME)) \
		$(if $(SCRATCH),--scratch $(SCRATCH)) $(if $(filter 1,$(FORCE)),--force) \
		--baseline $(BASELINE) $(if $(MODE),--mode $(MODE)) $(if $(ITERATIONS),--iterations $(ITERATIONS)) \
		$(if $(BUDGET),--budget $(BUDGET)) $(if $(PROFILE),--profile $(PROFILE)) \
		$(if $(STATS),--stats $(STATS))

report: tools
	@test -n "$(RUN)" || { echo 'make report: set RUN=results/<run>' >&2; exit 2; }
	@analysis/rlstat report $(RUN) --baseline $(BASELINE)

mail: tools
	@test -n "$(RUN)" || { echo 'make mail: set RUN=results/<run>' >&2; exit 2; }
	@analysis/rlstat mail $(RUN) --baseline $(BASELINE)

regress: tools
	@test -n "$(CANDIDATE)" || { echo 'make regress: set BASELINE=results/<a> CANDIDATE=results/<b>' >&2; exit 2; }
	@analysis/rlstat regress $(BASELINE) $(CANDIDATE) --threshold $(THRESHOLD)

rerun: tools
	@test -n "$(RUN)" || { echo 'make rerun: set RUN=results/<run>' >&2; exit 2; }
	@runners/run rerun --run $(RUN)

bench-locks: all
	@$(MAKE) --no-print-directory -C tests/rangelock bench $(if $(BENCH_JSON),BENCH_JSON=$(abspath $(BENCH_JSON)))

bench-generator: all
	@workloads/bench-generator

bench-gate: all
	@analysis/bench-gate

bench-matrix: all
	@runners/bench-matrix

bench-analysis: all
	@analysis/bench-analysis

bench-noise: all
	@runners/bench-noise --kernel $(KERNEL) --accel $(ACCEL)

bench-profile: all
	@runners/bench-profile --kernel $(KERNEL)

# The nightly job and the bisection: timers call runners/nightly directly
# for its exit codes (0, 1 regression, 3 inconclusive); make turns them
# into 2.  MATRIX and KERNEL default to the nightly matrix on every variant.
nightly: tools
	@runners/nightly $(if $(KSRC),--ksrc $(KSRC)) $(if $(BRANCH),--branch $(BRANCH)) \
		--matrix $(if $(filter command line environment,$(origin MATRIX)),$(MATRIX),nightly) \
		--kernel $(if $(filter command line environment,$(origin KERNEL)),$(KERNEL),all) \
		--mode $(or $(MODE),both) --accel $(ACCEL) --threshold $(THRESHOLD) \
		$(if $(ITERATIONS),--iterations $(ITERATIONS))

bisect: tools
	@runners/bisect --ksrc "$(KSRC)" --good "$(GOOD)" --bad "$(BAD)" --point "$(POINT)" \
		--metric "$(METRIC)" --variant $(VARIANT) --mode $(or $(MODE),cost) --accel $(ACCEL) \
		--threshold $(THRESHOLD) \
		--matrix $(if $(filter command line environment,$(origin MATRIX)),$(MATRIX),nightly)

test-nightly: all
	@RLBENCH_SLOW=1 prove --exec '' $(if $(V),-v) tests/85-nightly-real.t

# LAVA (runners/lava): the dispatcher and client are a setup group of
# their own (scripts/setup lava), installed only for these targets.
lava-jobs: tools
	@scripts/setup lava
	@jobs=$$(runners/lava jobs --kernel $(KERNEL) --matrix $(MATRIX) --baseline $(BASELINE) \
		--device-type $(DEVICE_TYPE) $(if $(KERNEL_URL),--kernel-url $(KERNEL_URL)) \
		$(if $(ITERATIONS),--iterations $(ITERATIONS))) && runners/lava validate $$jobs >&2 && echo "$$jobs"

lava-submit: tools
	@scripts/setup lava
	@test -n "$(JOBS)" || { echo 'make lava-submit: set JOBS=<job dir or files> (make lava-jobs)' >&2; exit 2; }
	@runners/lava submit $(if $(LAVA),--identity $(LAVA)) $(JOBS)

lava-collect: tools
	@test -n "$(JOBS)" || { echo 'make lava-collect: set JOBS=<job ids or run-local dirs>' >&2; exit 2; }
	@runners/lava collect $(if $(LAVA),--identity $(LAVA)) $(JOBS)

test-lava: all
	@scripts/setup lava
	@RLBENCH_LAVA=1 prove --exec '' $(if $(V),-v) tests/73-lava-run.t

# A throwaway LAVA lab on this machine (runners/lava-server), its own
# setup group: lava-server and PostgreSQL are installed for it alone.
test-lava-server: all
	@scripts/setup lava-server
	@RLBENCH_LAVA_SERVER=1 prove --exec '' $(if $(V),-v) tests/76-lava-server.t

check-race: tools
	@runners/check-race --accel $(ACCEL)

test: all
	@prove --exec '' $(if $(V),-v) tests/*.t

# Kernel tests that need more cold builds than CI's time allows
# (rwsem-range-debug); run them before posting a series.
test-kernels: all
	@prove --exec '' $(if $(V),-v) tests/slow/*.t

clean:
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -C $$d clean; done
