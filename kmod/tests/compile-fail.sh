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

# Every case is built by one kbuild run: starting kbuild costs more than
# compiling a case, and 28 runs of it made this suite one of the slowest.
# One directory holds every case; `make -k` builds each object apart, and
# --output-sync=target keeps each object's messages together after its
# "CC [M]" line, so the log splits into one log a case ($work/logs/NAME).
# The ok-* cases are then linked as modules (modpost included), as a user
# of the headers would build them.
build_all() {
	local dir=$work/cases h name targets=() oks=() o
	mkdir -p "$dir" "$work/logs"
	for h in $HEADERS; do
		cp "$KMOD_DIR/$h" "$dir/"
	done
	for case in "$CASES_DIR"/*.c; do
		name=$(basename "$case" .c)
		cp "$case" "$dir/$name.c"
		targets+=("$name.o")
		: >"$work/logs/$name"
	done
	echo "obj-m := ${targets[*]}" >"$dir/Kbuild"
	make -C "$KSRC" ${KBUILD:+O="$KBUILD"} M="$dir" -k -j"$(nproc)" \
		--output-sync=target "${targets[@]}" >"$work/build.log" 2>&1 || true
	awk -v logs="$work/logs" '
		/^  CC \[M\]  / {
			name = $NF; sub(/.*\//, "", name); sub(/\.o$/, "", name)
			out = logs "/" name
		}
		/^make(\[[0-9]+\])?: / { out = "" }
		out != "" { print >>out }
	' "$work/build.log"
	# Link the ok-* cases that compiled, in one modules build.
	for o in "$dir"/ok-*.o; do
		[ ! -s "$o" ] || oks+=("$(basename "$o")")
	done
	[ ${#oks[@]} -gt 0 ] || return 0
	echo "obj-m := ${oks[*]}" >"$dir/Kbuild"
	make -C "$KSRC" ${KBUILD:+O="$KBUILD"} M="$dir" modules \
		>"$work/modules.log" 2>&1 || true
}

# built NAME: the case compiled (and, for an ok-* case, linked as a module).
built() {
	case $1 in
	ok-*) [ -s "$work/cases/$1.ko" ] ;;
	*) [ -s "$work/cases/$1.o" ] ;;
	esac
}

build_all
passed=0
failed=0
for case in "$CASES_DIR"/*.c; do
	name=$(basename "$case" .c)
	log=$work/logs/$name
	want=$(expected_message "$case")
	if built "$name"; then
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
			grep -F -e "$want" "$log" | grep -q 'error'; then
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
		case $name in ok-*) cat "$log" "$work/modules.log" ;; *) cat "$log" ;; esac |
			grep -E 'error|warning' | head -n 5 | sed 's/^/#     /'
	fi
done

echo "$passed passed, $failed failed"
[ $failed = 0 ]
