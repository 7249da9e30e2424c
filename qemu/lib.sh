# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared settings and helpers for the qemu/ scripts. Source it; do not run it.
# Every variable can be overridden from the environment.

# A failing command inside a pipeline or a $(...) fails the script: a die in
# a command substitution must not leave an empty string behind.
set -o pipefail
shopt -s inherit_errexit

QEMU_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO_DIR=$(cd "$QEMU_DIR/.." && pwd -P)

# The kernel everything builds against and boots: 6.1 (the default: Debian
# 12's own kernel, the one its linux-image-amd64 installs), 6.12 (the LTS
# from Debian 12's security suite) or 7.3 (from Debian 13's backports,
# fetched download-only: kernel_src_suite). `make ... KERNEL=6.12` sets it.
RBTI_KERNEL=${RBTI_KERNEL:-6.1}
RBTI_KERNELS="6.1 6.12 7.3"
# make test's second debug kernel (the suites NAME@other): the first of
# this list that is not RBTI_KERNEL, so 7.3 beside 6.1, the newest kernel
# beside the oldest. 6.12's debug suites are make soak's (guest@debug-6.12).
RBTI_OTHER_KERNELS="7.3 6.1"
case " $RBTI_KERNELS " in
*" $RBTI_KERNEL "*) ;;
*) printf '%s: error: RBTI_KERNEL=%s: the supported kernels are %s\n' \
	"${0##*/}" "$RBTI_KERNEL" "$RBTI_KERNELS" >&2; exit 2 ;;
esac
export RBTI_KERNEL RBTI_KERNELS RBTI_OTHER_KERNELS
# The kernel the committed patch series (kmod/patches/) is generated
# against; `make patches KERNEL=6.1` applies and builds the same series on 6.1.
RBTI_SERIES_KERNEL=6.12
# KERNEL_PKG and KERNEL_TARBALL, where set, override the source package of
# linux-source-$RBTI_KERNEL and its tarball (kernel_pkg, kernel_tarball).
RBTI_CACHE=${RBTI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rbtree-inspector}
RBTI_OUT=${RBTI_OUT:-$REPO_DIR/out}
# Kernel builds kept in the cache (~1 GB each); older ones are pruned, but
# never the newest of each kernel and flavour (prune_builds).
RBTI_KEEP_BUILDS=${RBTI_KEEP_BUILDS:-6}
JOBS=${JOBS:-$(nproc)}

die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
# Progress lines name the kernel they are about.
info() { printf '%s: [%s] %s\n' "${0##*/}" "$RBTI_KERNEL" "$*" >&2; }

# The guest learns its paths from the kernel command line (split on spaces)
# and QEMU's -fsdev options (split on commas): refuse such paths up front.
check_path() {
	case $2 in
	*[[:space:],]*) die "$1 '$2' contains a space or a comma, which the QEMU command line and the guest's kernel command line cannot carry; use a path without them" ;;
	esac
}

# The Debian suite the source package of $RBTI_KERNEL is fetched from,
# download-only, when the host's own suites (Debian 12's) do not carry it;
# empty for the kernels qemu/install-deps installs. Such a suite is never
# added to the host's sources: qemu/fetch-source gives apt-get a sources
# list and package lists of its own under the cache.
kernel_src_suite() {
	case $RBTI_KERNEL in
	7.3) echo trixie-backports ;;
	esac
}
# Where qemu/fetch-source keeps the package it downloaded.
kernel_src_fetch_dir() { echo "$RBTI_CACHE/source-$RBTI_KERNEL"; }

# The kernel source package of $RBTI_KERNEL, and the tarball it installs
# (for a fetched package: the .deb, which holds the tarball).
# Functions, not variables: a caller may set RBTI_KERNEL for one command.
kernel_pkg() { echo "${KERNEL_PKG:-linux-source-$RBTI_KERNEL}"; }
kernel_tarball() {
	local deb
	if [ -n "${KERNEL_TARBALL:-}" ] || [ -z "$(kernel_src_suite)" ]; then
		echo "${KERNEL_TARBALL:-/usr/src/linux-source-$RBTI_KERNEL.tar.xz}"
		return
	fi
	for deb in "$(kernel_src_fetch_dir)/$(kernel_pkg)"_*.deb; do
		echo "$deb"
		return
	done
}

# Version of the kernel source package, e.g. 6.1.192-3: the installed one,
# or the one qemu/fetch-source downloaded (fetching it the first time).
kernel_src_version() {
	local v pkg dir
	pkg=$(kernel_pkg)
	if [ -n "$(kernel_src_suite)" ]; then
		dir=$(kernel_src_fetch_dir)
		[ -f "$dir/.rbti-done" ] || "$QEMU_DIR/fetch-source" >/dev/null ||
			die "cannot fetch $pkg from $(kernel_src_suite)"
		v=$(cat "$dir/version") && [ -n "$v" ] || die "$dir/version is empty"
		echo "$v"
		return
	fi
	v=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) && [ -n "$v" ] ||
		die "$pkg is not installed (run qemu/install-deps)"
	echo "$v"
}

# The compiler and linker the kernel is built with: part of the build key,
# so that a toolchain update gives a fresh build instead of a kernel that
# prints "the compiler differs" and modules built with another gcc.
toolchain_version() {
	local cc ld
	cc=$("${CC:-gcc}" --version 2>/dev/null | head -n 1) && [ -n "$cc" ] ||
		die "cannot run ${CC:-gcc} (run qemu/install-deps)"
	ld=$("${LD:-ld}" --version 2>/dev/null | head -n 1) && [ -n "$ld" ] ||
		die "cannot run ${LD:-ld} (run qemu/install-deps)"
	printf '%s\n%s\n' "$cc" "$ld"
}

# version_fragments FLAVOUR: the kernel version's own fragments, where it
# needs any, merged after the flavour's: qemu/config/linux-VERSION.config
# for every flavour, then linux-VERSION-FLAVOUR.config for that one. They
# only undo what that version's tinyconfig does differently, or ask for
# what the flavours ask for by the names and values that version uses.
version_fragments() {
	local f
	for f in "$QEMU_DIR/config/linux-$RBTI_KERNEL.config" \
		"$QEMU_DIR/config/linux-$RBTI_KERNEL-$1.config"; do
		[ ! -f "$f" ] || echo "$f"
	done
}

# Fragments merged onto tinyconfig for a flavour, in merge order: the
# flavour's, then the kernel version's own (version_fragments).
flavour_fragments() {
	local frags version
	case $1 in
	fast) frags="$QEMU_DIR/config/base.config" ;;
	debug) frags="$QEMU_DIR/config/base.config $QEMU_DIR/config/debug.config" ;;
	# gcov for `make coverage` (qemu/coverage).
	coverage) frags="$QEMU_DIR/config/base.config $QEMU_DIR/config/coverage.config" ;;
	# KCSAN for `make kcsan` (qemu/kcsan).
	kcsan) frags="$QEMU_DIR/config/base.config $QEMU_DIR/config/kcsan.config" ;;
	*) die "unknown kernel flavour '$1' (fast, debug, coverage or kcsan)" ;;
	esac
	version=$(version_fragments "$1")
	# shellcheck disable=SC2086 # one path a word
	echo $frags $version
}

# Extracted source tree (shared by all flavours of one source version).
kernel_src_dir() {
	local v
	v=$(kernel_src_version) || exit 1
	echo "$RBTI_CACHE/linux-$v"
}

# Build directory: keyed by source version, toolchain, flavour and fragment
# contents, so that changing any gives a fresh build and nothing is rebuilt
# otherwise.
kernel_build_dir() {
	local flavour=$1 v frags tc key
	v=$(kernel_src_version) || exit 1
	frags=$(flavour_fragments "$flavour") || exit 1
	tc=$(toolchain_version) || exit 1
	# shellcheck disable=SC2086
	key=$(printf '%s\n%s\n' "$v" "$tc" | cat - $frags | sha256sum | cut -c1-12) ||
		die "cannot compute the build key of flavour $flavour"
	[ ${#key} = 12 ] || die "empty build key for flavour $flavour"
	echo "$RBTI_CACHE/build-$v-$flavour-$key"
}

# kernel_merge_config SRC BUILD LOG FRAGMENT...: the one recipe for a guest
# kernel's .config: tinyconfig, the fragments merged in order, olddefconfig.
# qemu/patches uses it alone for a commit that predates an option its
# fragments name; everyone else wants kernel_configure.
kernel_merge_config() {
	local src=$1 build=$2 log=$3
	shift 3
	make -C "$src" O="$build" tinyconfig >>"$log" 2>&1 ||
		die "make tinyconfig failed; see $log"
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$@" >>"$log" 2>&1 ||
		die "merge_config.sh failed; see $log"
	make -C "$src" O="$build" olddefconfig >>"$log" 2>&1 ||
		die "make olddefconfig failed; see $log"
}

# kernel_configure SRC BUILD LOG FRAGMENT...: kernel_merge_config, then
# check-config proves no option was silently dropped. Used by build-kernel
# and qemu/patches.
kernel_configure() {
	kernel_merge_config "$@"
	local src=$1 build=$2
	shift 3
	"$QEMU_DIR/check-config" --src "$src" "$build/.config" "$@" ||
		die "merged config of $build lacks options the fragments ask for"
}

# build_lock WHAT: take the cache's build lock on file descriptor 9 (held
# until the script exits), waiting with a message if another build has it:
# kernel builds share the source tree and the cores. Used by build-kernel
# and qemu/patches.
build_lock() {
	mkdir -p "$RBTI_CACHE" || die "cannot create RBTI_CACHE=$RBTI_CACHE"
	exec 9>"$RBTI_CACHE/build.lock" || die "cannot open $RBTI_CACHE/build.lock"
	if ! flock -n 9; then
		info "$1: another kernel build is running; waiting for it"
		flock 9
	fi
}

# build_group DIR: the kernel and flavour of a build directory
# build-VERSION-FLAVOUR-KEY, as "6.12 debug" for
# build-6.12.118-1~deb12u1-debug-226ff5cd9e9a; nothing for another name.
build_group() {
	[[ ${1##*/} =~ ^build-([0-9]+[.][0-9]+)([.~+-][^/]*)?-([a-z0-9]+)-[0-9a-f]{12}$ ]] ||
		return 0
	echo "${BASH_REMATCH[1]} ${BASH_REMATCH[3]}"
}

# prune_builds KEEP_DIR: delete the least recently used kernel builds past
# $RBTI_KEEP_BUILDS, never KEEP_DIR, never the most recently used build of
# a kernel and flavour (6.1 debug, 6.12 debug, 7.3 debug, 6.1 fast, ...:
# a kernel's build is not pruned because others were built since), and
# never one whose lock is held (a run of another clone is using it). What
# goes is a build that a newer build of the same kernel and flavour has
# replaced (a new source version, toolchain or fragment). Call with the
# build lock held.
prune_builds() {
	local keep=$1 dir n=0 group
	local -A newest=()
	[ "$RBTI_KEEP_BUILDS" -ge 1 ] 2>/dev/null ||
		die "RBTI_KEEP_BUILDS must be a number >= 1, not '$RBTI_KEEP_BUILDS'"
	# Newest first by the time of last use (build-kernel touches .rbti-done);
	# check_path keeps spaces out of RBTI_CACHE.
	# shellcheck disable=SC2045
	for dir in $(ls -1dt "$RBTI_CACHE"/build-*/.rbti-done 2>/dev/null); do
		dir=${dir%/.rbti-done}
		n=$((n + 1))
		group=$(build_group "$dir")
		if [ -n "$group" ] && [ -z "${newest[$group]:-}" ]; then
			newest[$group]=$dir
			continue
		fi
		[ "$dir" = "$keep" ] && continue
		[ $n -gt "$RBTI_KEEP_BUILDS" ] || continue
		# A build in use holds a shared lock on it.
		exec 8>"$dir.use"
		if flock -n -x 8; then
			info "pruning the old kernel build $dir (RBTI_KEEP_BUILDS=$RBTI_KEEP_BUILDS${group:+; a newer $group build replaces it})"
			rm -rf "$dir" "$dir.log" "$dir.use"
		fi
		exec 8>&-
	done
}

# qemu_command ACCEL MEM SMP BZIMAGE INITRD APPEND: set the array QEMU_CMD
# to the one QEMU command line that boots the test guest (run-in-guest adds
# its disks and console; probe-kvm boots exactly this).
qemu_command() {
	local accel=$1
	# A host thread per vCPU (MTTCG): the guest's 2 CPUs run at the same
	# time, so hardening's processes really race, and the big fuzz's 2
	# processes take half the time of one (tools/measure-fuzz, 420,000
	# ops, quiet host, 2026-12-04: 22.2 s, one process 41.3 s; with one
	# host thread for both vCPUs one process took 45-56 s, and two were
	# no faster). make test from a clone: 12 min 36 s, 23.6 CPU minutes,
	# against 15 min 1 s and 24.1 with one thread (both with the TSC
	# clock; an MTTCG run on the emulated HPET took 22.5 min,
	# run-in-guest's tsc=reliable says why).
	[ "$accel" != tcg ] || accel=tcg,thread=multi
	QEMU_CMD=(qemu-system-x86_64 -nodefaults -no-user-config -no-reboot
		-display none -accel "$accel" -m "$2" -smp "$3")
	# probe-kvm proves that a KVM guest with the host's CPU model boots.
	[ "$1" != kvm ] || QEMU_CMD+=(-cpu host)
	QEMU_CMD+=(-kernel "$4" -initrd "$5" -append "$6")
}

# Where build-module builds kmod/ for a kernel build directory: one mirror
# per checkout, so that two clones sharing a cache never build into, or
# load from, each other's objects.
module_dir() {
	local h
	h=$(echo "$REPO_DIR" | sha256sum | cut -c1-8) || exit 1
	echo "$1/rbti-kmod-$h"
}
