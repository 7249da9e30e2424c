# rbtree-inspector: two generic rbtree APIs for Linux 6.1, a debugfs tree
# inspector, and a guest-side fuzzer and checker. `make help` lists targets.
# The work lives in scripts under qemu/ (and kmod/, tools/, viz/); the targets
# here only chain them. Everything kernel-side runs in a QEMU guest.

# Where the extracted kernel source and its builds are cached.
RBTI_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rbtree-inspector
# Where results (snapshots, logs, benchmark tables) are written.
RBTI_OUT ?= $(CURDIR)/out
export RBTI_CACHE RBTI_OUT

QUICK ?=
export QUICK
# make test SUITES=kunit,tools: only those suites (qemu/test-all --list).
SUITES ?=
export SUITES

.PHONY: help deps kernel module run test shell check bench patches mutants coverage clean distclean

help:
	@echo "make run        install what is missing, build, boot the guest, run the demo"
	@echo "make test       the same, then every test suite; ends on 'N passed, N failed, N skipped'"
	@echo "                (SUITES=kunit,tools: only those; qemu/test-all --list names them;"
	@echo "                QUICK=1: the quick tier of qemu/suites-quick, every kind of check"
	@echo "                at small sizes, for the inner loop; the full run is what CI runs)"
	@echo "make shell      boot the guest with the module loaded, shell on the console"
	@echo "make check      static checks only: checkpatch, W=1, sparse"
	@echo "make bench      benchmarks on the host and in the guest (QUICK=1: short)"
	@echo "make patches    the API as a patch series on a copy of the 6.1 tree"
	@echo "make mutants    build each mutant of kmod/tests/mutants, fuzz it on 10 seeds and"
	@echo "                run debugfs-shell and kunit on it; table in docs/generated/mutants.md;"
	@echo "                fails unless every mutant is killed (MUTANTS='a b': only those,"
	@echo "                table in out/mutants/; MUTANT_ARGS: more options of its run)"
	@echo "make coverage   the guest suites on a gcov build of the module; line and branch"
	@echo "                coverage of kmod/*.c in docs/generated/coverage.md and out/coverage"
	@echo "                (summary.txt, uncovered.txt); fails if a suite fails"
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
	@qemu/run-in-guest --flavour fast --shell

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
