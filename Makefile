# rbtree-inspector: two generic rbtree APIs for Linux 6.1 and 6.12, a debugfs tree
# inspector, and a guest-side fuzzer and checker. `make help` lists targets.
# The work lives in scripts under qemu/ (and kmod/, tools/, viz/); the targets
# here only chain them. Everything kernel-side runs in a QEMU guest.

# Where the extracted kernel source and its builds are cached.
RBTI_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rbtree-inspector
# The kernel to build against and boot: 6.1 (default) or 6.12.
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
FLAVOUR ?= stock
export FLAVOUR
# make test SUITES=kunit,tools: only those suites (qemu/test-all --list).
SUITES ?=
export SUITES

.PHONY: help deps kernel module run test shell check bench patches mutants coverage clean distclean

help:
	@echo "KERNEL=6.1|6.12 with any target: the kernel (default 6.1; patches: 6.1 only)"
	@echo "make run        fetch Debian's prebuilt kernel, build the module, boot, run the"
	@echo "                demo (FLAVOUR=debug|fast: a kernel built from source instead)"
	@echo "make test       every suite on KERNEL's debug build, the other kernel's and the"
	@echo "                stock kernels' checks; ends on 'N passed, N failed, N skipped'"
	@echo "                (SUITES=kunit,tools: only those; qemu/test-all --list names them)"
	@echo "make shell      boot the guest (FLAVOUR as for run), module loaded, shell on it"
	@echo "make check      checkpatch --strict, a W=1 build and sparse over kmod/ (builds"
	@echo "                the debug kernel first, for its headers)"
	@echo "make bench      benchmarks on the host and in the guest (QUICK=1: short);"
	@echo "                tables in docs/generated/bench.md"
	@echo "make patches    the API as a patch series on a copy of the 6.1 tree"
	@echo "make mutants    build each mutant of kmod/tests/mutants, fuzz it on 10 seeds and"
	@echo "                run debugfs-shell and kunit on it; table in out/mutants/table.md"
	@echo "                (MUTANTS='a b': only those; MUTANT_ARGS: more options of its run)"
	@echo "make coverage   the guest suites on a gcov build of the module; line and branch"
	@echo "                coverage of kmod/*.c in out/coverage (summary.txt, uncovered.txt)"
	@echo "make clean      remove out/; make distclean also drops $(RBTI_CACHE)"

deps:
	@qemu/install-deps

kernel: deps
	@qemu/build-kernel debug >/dev/null

module: kernel
	@qemu/build-module debug

run: deps
	@qemu/demo

test: deps
	@qemu/test-all

shell: deps
	@qemu/run-in-guest --flavour "$(FLAVOUR)" --shell

check: kernel
	@kmod/tests/static-checks "$$(. qemu/lib.sh; kernel_src_dir)" "$$(qemu/build-kernel debug)"

bench: deps
	@qemu/bench

patches: deps
	@qemu/patches

# Not part of make test: a boot (and a module build) per mutant.
MUTANTS ?=
MUTANT_ARGS ?=
mutants: deps kernel
	@kmod/tests/mutants/run $(MUTANT_ARGS) $(MUTANTS)

coverage: deps
	@qemu/coverage

clean:
	rm -rf "$(RBTI_OUT)"
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf "$(RBTI_CACHE)"
