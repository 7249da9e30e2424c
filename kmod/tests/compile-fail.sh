#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compile-fail.sh [KSRC [KBUILD]]: build each case in compile-fail/ as a
# tiny external module against a kernel build and check the outcome.
# A case named ok-*.c must build (it proves the harness works); every other
# case must fail, with the message on its " * expect: " line among the
# compiler's errors (the BUILD_BUG that rejects it, not some other error).
# Prints a KTAP line per case ("ok N - name" / "not ok N - name"), then
# "N passed, N failed"; exits 1 on any failure.
set -eu

KBUILD=${2:-${KBUILD:-}}
KSRC=${1:-${KSRC:-${KBUILD:+$KBUILD/source}}}
KMOD_DIR=$(cd "$(dirname "$0")/.." && pwd)
CASES_DIR=$KMOD_DIR/tests/compile-fail
HEADERS="build_bug_const.h compat.h rbtree_santos.h rbtree_generic_internal.h rbtree_overstreet.h tests/compile-fail/cf_common.h tests/compile-fail/cf_use.h"

die() {
	echo "compile-fail.sh: $*" >&2
	exit 2
}

if [ -z "$KSRC" ] || [ ! -d "$KSRC" ]; then
	die "KSRC (kernel source) not set or missing"
fi
[ -z "$KBUILD" ] || [ -d "$KBUILD" ] || die "KBUILD $KBUILD missing"

work=$(mktemp -d /tmp/rbti-compile-fail.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The expected error message of a case (empty for ok-* cases).
expected_message() {
	sed -n 's/^ \* expect: //p' "$1" | head -n 1
}

# Build one case in its own directory; the log is left in $dir/build.log.
build_case() {
	local case=$1 dir=$2 name
	name=$(basename "$case" .c)
	mkdir -p "$dir"
	cp "$case" "$dir/$name.c"
	for h in $HEADERS; do
		cp "$KMOD_DIR/$h" "$dir/"
	done
	echo "obj-m := $name.o" >"$dir/Kbuild"
	make -C "$KSRC" ${KBUILD:+O="$KBUILD"} M="$dir" modules \
		>"$dir/build.log" 2>&1
}

passed=0
failed=0
for case in "$CASES_DIR"/*.c; do
	name=$(basename "$case" .c)
	dir=$work/$name
	want=$(expected_message "$case")
	if build_case "$case" "$dir"; then
		built=1
	else
		built=0
	fi
	verdict=FAIL
	case $name in
	ok-*)
		[ $built = 1 ] && verdict=PASS
		why="expected to build"
		;;
	*)
		why="expected an error containing: $want"
		if [ $built = 0 ] && [ -n "$want" ] &&
			grep -F -e "$want" "$dir/build.log" | grep -q 'error'; then
			verdict=PASS
		fi
		;;
	esac
	if [ $verdict = PASS ]; then
		passed=$((passed + 1))
		echo "ok $((passed + failed)) - $name"
	else
		failed=$((failed + 1))
		echo "not ok $((passed + failed)) - $name"
		echo "#   $why; build log:"
		grep -E 'error|warning' "$dir/build.log" | head -n 5 | sed 's/^/#     /'
	fi
done

echo "$passed passed, $failed failed"
[ $failed = 0 ]
