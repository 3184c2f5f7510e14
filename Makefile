# rlbench: range locks vs whole-file locks for the page cache.
# `make help` lists the targets and variables.

SHELL := /bin/bash
.DEFAULT_GOAL := help

KERNEL    ?= stock
MATRIX    ?= default
ACCEL     ?= auto
DEBUG     ?= 0
BASELINE  ?= stock
THRESHOLD ?= 2%
RESUME    ?=
RUN       ?=
CANDIDATE ?=
SCRATCH   ?=
FORCE     ?= 0
KSRC      ?=
DEB       ?= 0
BASE_CONFIG ?=
ifneq ($(KSRC),)
export KSRC
endif

# Parts that have a Makefile; each builds with `make -C <dir> all`.
SUBDIRS := $(patsubst %/Makefile,%,$(wildcard workloads/Makefile analysis/Makefile tests/rangelock/Makefile))

.PHONY: help setup all kernels bench report regress rerun bench-locks \
	bench-generator bench-gate check-race test clean

help:
	@echo 'rlbench: what range locks cost and buy the Linux page cache'
	@echo
	@echo 'Targets:'
	@echo '  setup            install the Debian packages the suite needs (idempotent)'
	@echo '  all              build rlwork, rlstat and the userspace lock harness'
	@echo '  kernels          build KERNEL=<variant>|all (DEBUG=1, KSRC=<6.12 tree>)'
	@echo '  bench            build, boot and run MATRIX on KERNEL, then report'
	@echo '  report           write report.txt/.html and charts into RUN'
	@echo '  regress          compare CANDIDATE against BASELINE run; exit 1 on regression'
	@echo '  rerun            run RUN again with the same settings into a new directory'
	@echo '  bench-locks      lock+unlock microbenchmark, prints ratios'
	@echo '  bench-generator  rlwork vs fio on the same job, prints ratios'
	@echo '  bench-gate       the regression gate'"'"'s false-alarm rate, power and boots used, simulated'
	@echo '  check-race       DEBUG kernels of every variant on the widened punch race:'
	@echo '                   imutex must lose data, the others none'
	@echo '  test             everything CI runs'
	@echo '  clean            remove build outputs in the tree (not the kernel cache)'
	@echo
	@echo 'Variables:'
	@echo '  KERNEL=$(KERNEL)   variant: $(shell sed -e 's/#.*//' -e '/^\s*$$/d' kernels/variants | awk '{print $$1}' | xargs), all, host'
	@echo '  MATRIX=$(MATRIX)   configs/<name>.matrix, one of (runners/matrix --list):'
	@list=$$(runners/matrix --list) && printf '%s\n' "$$list" | sed 's/^/    /'
	@echo '  ACCEL=$(ACCEL)     auto|kvm|tcg (auto tries KVM, falls back to TCG)'
	@echo '  DEBUG=$(DEBUG)     1: lockdep/hung-task debug kernels'
	@echo '  RESUME=<run dir>   finish an interrupted run'
	@echo '  RUN=<run dir>      for report and rerun'
	@echo '  BASELINE=$(BASELINE)  variant (report) or run dir (regress)'
	@echo '  CANDIDATE=<run dir> THRESHOLD=$(THRESHOLD)  for regress'
	@echo '  SCRATCH=<dir|dev> FORCE=1  for KERNEL=host'
	@echo '  KSRC=<path>        build from this 6.12 tree instead of Debian'"'"'s source'
	@echo '  DEB=1 [BASE_CONFIG=/boot/config-...]  kernels: also make .deb packages'
	@echo '                     (of the guest kernel, or on a lab machine'"'"'s config)'
	@echo '  BENCH_JSON=<path>  where bench-locks writes its JSON (default tests/rangelock/bench-locks.json)'
	@echo '  RLBENCH_CACHE      kernel sources, builds, ccache (default ~/.cache/rlbench)'

setup:
	@scripts/setup

all: setup
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -C $$d all || exit 2; done

kernels: setup
	@$(if $(and $(filter 1,$(DEB)),$(BASE_CONFIG)),:,runners/run kernels --kernel $(KERNEL) $(if $(filter 1,$(DEBUG)),--debug))
	@$(if $(filter 1,$(DEB)),kernels/package $(KERNEL) $(if $(filter 1,$(DEBUG)),--debug) \
		$(if $(BASE_CONFIG),--base-config $(BASE_CONFIG)))

bench: all
	@runners/run bench --kernel $(KERNEL) --matrix $(MATRIX) --accel $(ACCEL) \
		$(if $(filter 1,$(DEBUG)),--debug) $(if $(RESUME),--resume $(RESUME)) \
		$(if $(SCRATCH),--scratch $(SCRATCH)) $(if $(filter 1,$(FORCE)),--force) \
		--baseline $(BASELINE)

report: all
	@test -n "$(RUN)" || { echo 'make report: set RUN=results/<run>' >&2; exit 2; }
	@analysis/rlstat report $(RUN) --baseline $(BASELINE)

regress: all
	@test -n "$(CANDIDATE)" || { echo 'make regress: set BASELINE=results/<a> CANDIDATE=results/<b>' >&2; exit 2; }
	@analysis/rlstat regress $(BASELINE) $(CANDIDATE) --threshold $(THRESHOLD)

rerun: all
	@test -n "$(RUN)" || { echo 'make rerun: set RUN=results/<run>' >&2; exit 2; }
	@runners/run rerun --run $(RUN)

bench-locks: all
	@$(MAKE) --no-print-directory -C tests/rangelock bench $(if $(BENCH_JSON),BENCH_JSON=$(abspath $(BENCH_JSON)))

bench-generator: all
	@workloads/bench-generator

bench-gate: all
	@analysis/bench-gate

check-race: all
	@runners/check-race --accel $(ACCEL)

test: all
	@prove --exec '' $(if $(V),-v) tests/*.t

clean:
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -C $$d clean; done
