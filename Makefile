# SPDX-License-Identifier: GPL-2.0
# rbtree-inspector: two generic rbtree APIs for Linux 6.1, 6.12 and 7.3, a debugfs tree
# inspector, and a guest-side fuzzer and checker. `make help` lists targets.
# The work lives in scripts under qemu/ (and kmod/, tools/, viz/); the targets
# here only chain them. Everything kernel-side runs in a QEMU guest.

# Where the extracted kernel source and its builds are cached.
RBTI_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rbtree-inspector
# The kernel to build against and boot: 6.1 (default), 6.12 or 7.3 (make
# test's second debug kernel: docs/kernels.md). The patch
# series' default is 6.12, its base: PATCHES_KERNEL is the kernel given.
PATCHES_KERNEL := $(or $(KERNEL),$(RBTI_KERNEL),6.12)
# make kcsan's kernel: 6.12 unless KERNEL says otherwise.
KCSAN_KERNEL := $(or $(KERNEL),$(RBTI_KERNEL),6.12)
KERNEL ?= $(or $(RBTI_KERNEL),6.1)
RBTI_KERNEL := $(KERNEL)
export RBTI_KERNEL
# Where results (snapshots, logs, benchmark tables) are written.
RBTI_OUT ?= $(CURDIR)/out
export RBTI_CACHE RBTI_OUT

QUICK ?=
export QUICK
# The guest kernel of make run and make shell: stock (Debian's prebuilt
# kernel, nothing to build), fast or debug (built from the source package).
# (Passed to those two only: other scripts have a FLAVOUR of their own.)
FLAVOUR ?= stock
# make test SUITES=kunit,tools: only those suites (qemu/test-all --list);
# make coverage SUITES=kunit: only those of qemu/suites-coverage.
SUITES ?=
export SUITES

.PHONY: help deps kernel module run test soak shell check bench patches mutants coverage kcsan clean distclean

help:
	@echo "KERNEL=6.1|6.12|7.3 with any target: the kernel (default 6.1; patches, kcsan: 6.12); docs/kernels.md"
	@echo "make run        fetch Debian's prebuilt kernel, build the module, boot, run the"
	@echo "                demo (FLAVOUR=debug|fast: a kernel built from source instead)"
	@echo "make test       every suite on KERNEL's debug build, the other kernel's and the"
	@echo "                stock kernels' checks; ends on 'N passed, N failed, N skipped'"
	@echo "                (SUITES=kunit,tools: only those, qemu/test-all --list; QUICK=1:"
	@echo "                qemu/suites-quick, every check at small sizes, the inner loop)"
	@echo "make soak       the long runs beside the gate, qemu/suites-soak; docs/generated/soak.md"
	@echo "make shell      boot the guest (FLAVOUR as for run), module loaded, shell on it"
	@echo "make check      checkpatch --strict, W=1 and sparse over kmod/ (debug kernel first)"
	@echo "make bench      benchmarks, host and guest (QUICK=1: short); docs/generated/bench.md"
	@echo "make patches    the API as a patch series on 6.12 (KERNEL=6.1: 6.1), booted with the inspector"
	@echo "make mutants    fuzz each mutant of kmod/tests/mutants on 10 seeds, run debugfs-shell,"
	@echo "                kunit and ifuzz on it; fails unless all are killed; table: docs/generated/"
	@echo "                (MUTANTS='a b': only those, out/mutants/; MUTANT_ARGS: run options)"
	@echo "make coverage   the guest suites on a gcov build (SUITES=kunit: only those); line and"
	@echo "                branch coverage in docs/generated/coverage[-kunit].md, out/coverage"
	@echo "make kcsan      lockless trees on a KCSAN build of 6.12, its page in docs/generated/"
	@echo "make clean      remove out/; make distclean also drops $(RBTI_CACHE)"

# The census's C core, $(RBTI_OUT)/ccore/librbti_cc-HASH.so
# (tools/build-ccore), with the run and test dependencies: rbti census
# loads it from there in the guest too. If it cannot be built, rbti
# census checks in Python and says so.
CCORE = tools/build-ccore --quiet || echo "make: the census's C core was not built; rbti census checks in Python" >&2

deps:
	@qemu/install-deps
	@$(CCORE)

# make run and make shell install only what they use: the run set with the
# stock kernel, and the kernel set too for one built from source.
RUN_DEPS := run $(if $(filter stock,$(FLAVOUR)),,kernel)

kernel: deps
	@qemu/build-kernel debug >/dev/null

module: kernel
	@qemu/build-module debug

run:
	@qemu/install-deps $(RUN_DEPS)
	@$(CCORE)
	@FLAVOUR="$(FLAVOUR)" qemu/demo

test: deps
	@qemu/test-all

soak: deps
	@SOAK=1 qemu/test-all

shell:
	@qemu/install-deps $(RUN_DEPS)
	@$(CCORE)
	@qemu/run-in-guest --flavour "$(FLAVOUR)" --shell

check: kernel
	@kmod/tests/static-checks "$$(. qemu/lib.sh; kernel_src_dir)" "$$(qemu/build-kernel debug)"

bench: deps
	@qemu/bench

patches: deps
	@RBTI_KERNEL=$(PATCHES_KERNEL) qemu/patches \
		--page docs/generated/patches$(if $(filter 6.1,$(PATCHES_KERNEL)),-6.1).md

# Not part of make test: a boot (and a module build) per mutant.
MUTANTS ?=
MUTANT_ARGS ?=
mutants: deps kernel
	@kmod/tests/mutants/run $(MUTANT_ARGS) $(MUTANTS)

coverage: deps
	@qemu/coverage

# Not part of make test: a kernel of its own (KCSAN excludes KASAN).
kcsan: deps
	@RBTI_KERNEL=$(KCSAN_KERNEL) qemu/kcsan

clean:
	rm -rf "$(RBTI_OUT)"
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf "$(RBTI_CACHE)"
