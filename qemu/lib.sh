# shellcheck shell=bash
# Shared settings and helpers for the qemu/ scripts. Source it; do not run it.
# Every variable can be overridden from the environment.

QEMU_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$QEMU_DIR/.." && pwd)

KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
KERNEL_PKG=${KERNEL_PKG:-linux-source-6.1}
RBTI_CACHE=${RBTI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rbtree-inspector}
RBTI_OUT=${RBTI_OUT:-$REPO_DIR/out}
JOBS=${JOBS:-$(nproc)}

die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
info() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

# Version of the installed kernel source package, e.g. 6.1.192-3.
kernel_src_version() {
	dpkg-query -W -f='${Version}' "$KERNEL_PKG" 2>/dev/null ||
		die "$KERNEL_PKG is not installed (run qemu/install-deps)"
}

# Fragments merged onto tinyconfig for a flavour, in merge order.
flavour_fragments() {
	case $1 in
	fast) echo "$QEMU_DIR/config/base.config" ;;
	debug) echo "$QEMU_DIR/config/base.config $QEMU_DIR/config/debug.config" ;;
	*) die "unknown kernel flavour '$1' (fast or debug)" ;;
	esac
}

# Extracted source tree (shared by all flavours of one source version).
kernel_src_dir() {
	echo "$RBTI_CACHE/linux-$(kernel_src_version)"
}

# Build directory: keyed by source version, flavour and fragment contents,
# so that changing either gives a fresh build and nothing is rebuilt otherwise.
kernel_build_dir() {
	local flavour=$1 key
	# shellcheck disable=SC2046
	key=$( (kernel_src_version; cat $(flavour_fragments "$flavour")) |
		sha256sum | cut -c1-12)
	echo "$RBTI_CACHE/build-$(kernel_src_version)-$flavour-$key"
}

# Where build-module builds kmod/ for a kernel build directory: one mirror
# per checkout, so that two clones sharing a cache never build into, or
# load from, each other's objects.
module_dir() {
	echo "$1/rbti-kmod-$(echo "$REPO_DIR" | sha256sum | cut -c1-8)"
}
