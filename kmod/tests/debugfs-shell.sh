#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# debugfs-shell.sh: exercise every file and errno of rbtree_inspector's
# debugfs interface (kmod/DEBUGFS.md) with the busybox shell, under which
# the script re-executes itself, and a few standard tools. Runs as root in
# the guest with the module freshly loaded:
#
#	qemu/run-in-guest -- sh kmod/tests/debugfs-shell.sh
#
# Prints TAP-like "ok N - desc" / "not ok N - desc" lines and a last line
# "N passed, N failed"; exits 1 if anything failed.
#
# Errors are recognised by the strerror() text in the shell's or cat's
# message. A shell cannot make an empty or a positioned write; the Python
# tests cover those.
set -u

# The busybox shell's builtins are what the helpers below rely on.
if [ -z "${RBTI_BUSYBOX_SH:-}" ]; then
	if ! command -v busybox >/dev/null 2>&1; then
		echo "not ok 1 - busybox is needed"
		echo "0 passed, 1 failed"
		exit 1
	fi
	RBTI_BUSYBOX_SH=1 exec busybox sh "$0" "$@"
fi

D=${RBTI_DEBUGFS:-/sys/kernel/debug/rbtree_inspector}
P=${RBTI_PARAMS:-/sys/module/rbtree_inspector/parameters}
# The trees the generic tests run on (plain keys, with near); mainline_rcu
# exists only on kernels with rb_find_add_rcu() (6.12 and later).
TREES=${RBTI_SHELL_TREES:-"overstreet overstreet_dup santos santos_dup santos_aug santos_replace mainline mainline_cached"}
[ -n "${RBTI_SHELL_TREES:-}" ] || [ ! -d "$D/mainline_rcu" ] || TREES="$TREES mainline_rcu"
# The trees whose input or queries differ (tests/debugfs-family.sh).
FAMILY="mainline_aug interval latch"
FILES="insert find erase near dump stats check clear ops corrupt"
KEYS15="1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0
skipped=0

# The helpers (ok, is, put, get, dump_field ...).
. "$(dirname "$0")/debugfs-lib.sh"

# --- Tests ---

test_layout() {
	get "$D/trees" >"$TMP/trees"
	cat >"$TMP/want" <<-EOF
	rbtree-inspector format 1
	overstreet overstreet unique,outofline
	overstreet_dup overstreet dup,outofline
	santos santos unique,leftmost,rightmost,count
	santos_dup santos dup,leftmost,rightmost,count
	santos_aug santos unique,count,augmented
	santos_replace santos unique,replace,count
	mainline mainline unique
	mainline_cached mainline dup,leftmost
	mainline_aug mainline unique,leftmost,augmented,value
	interval interval dup,augmented,value,interval
	latch latch unique,latch
	EOF
	[ ! -d "$D/mainline_rcu" ] ||
		echo "mainline_rcu mainline unique,lockless" >>"$TMP/want"
	is "trees lists every tree with its api and flags" \
		"$(cat "$TMP/trees")" "$(cat "$TMP/want")"
	# One ls per directory: "-rw------- ... NAME" for each file.
	for dir in "" $TREES $FAMILY; do
		got=
		while read -r mode _ _ _ _ _ _ _ name; do
			case $mode in
			-*) got="$got $name=$mode" ;;
			esac
		done <<-EOF
		$(ls -l "$D/$dir")
		EOF
		want=
		names=trees
		[ -z "$dir" ] || names=$FILES
		case $dir in
		interval) names="$names overlap" ;;
		latch | mainline_rcu) names="$names stress" ;;
		esac
		for f in $names; do
			want="$want $f=-rw-------"
		done
		is "${dir:-top level}: files exist with mode 0600" \
			"$(sorted_words "$got")" "$(sorted_words "$want")"
	done
	is "max_nodes defaults to 1048576" "$(cat "$P/max_nodes")" 1048576
	is "max_total_nodes defaults to 2097152" "$(cat "$P/max_total_nodes")" 2097152
	is "allow_corrupt defaults to 0" "$(cat "$P/allow_corrupt")" N
}

test_nodata() {
	t=$1
	errs "$t: find before any query is ENODATA" ENODATA get "$D/$t/find"
	errs "$t: near before any query is ENODATA" ENODATA get "$D/$t/near"
	exec 3<>"$D/$t/ops"
	errs "$t: ops read before any batch is ENODATA" ENODATA cat_fd3
	exec 3>&-
}

test_basic() {
	t=$1
	put "$D/$t/clear" 1
	put_ok "$t: insert several keys in one write" "$D/$t/insert" "5 3 8
1	4 +7 -2"
	is "$t: dump holds the keys" "$(keys "$t")" "-2 1 3 4 5 7 8"
	is "$t: dump count" "$(dump_field "$t" count)" 7
	is "$t: dump end counts the node lines" "$(dump_field "$t" end)" 7
	is "$t: check ok" "$(line "$D/$t/check")" ok
	is "$t: stats count" "$(stat_field "$t" count)" 7

	put_ok "$t: find a present key" "$D/$t/find" 4
	id=$(result_id "$D/$t/find")
	is "$t: find reads back ID KEY" "$(line "$D/$t/find")" "$id 4"
	is "$t: the id is the node's" "$(key_of "$t" "$id")" 4
	put_err "$t: find of an absent key is ENOENT" ENOENT "$D/$t/find" 6
	is "$t: a failed find keeps the last result" "$(line "$D/$t/find")" "$id 4"
	put_ok "$t: near 5" "$D/$t/near" 5
	is "$t: near 5 is key 7" "$(result_key "$D/$t/near")" 7
	put_ok "$t: near 6 (between keys)" "$D/$t/near" 6
	is "$t: near 6 is key 7" "$(result_key "$D/$t/near")" 7
	put_ok "$t: near below every key" "$D/$t/near" -9223372036854775808
	is "$t: near -2^63 is key -2" "$(result_key "$D/$t/near")" -2
	put_err "$t: near of the greatest key is ENOENT" ENOENT "$D/$t/near" 8

	put_ok "$t: erase a present key" "$D/$t/erase" 3
	put_err "$t: erase it again is ENOENT" ENOENT "$D/$t/erase" 3
	is "$t: erased key gone" "$(keys "$t")" "-2 1 4 5 7 8"
	is "$t: check ok after erase" "$(line "$D/$t/check")" ok
	is "$t: stats counts inserts" "$(stat_field "$t" inserts)" 7
	is "$t: stats counts erases" "$(stat_field "$t" erases)" 1
	is "$t: stats corrupt 0" "$(stat_field "$t" corrupt)" 0
	is "$t: stats max_nodes" "$(stat_field "$t" max_nodes)" 1048576

	put_ok "$t: clear" "$D/$t/clear" 1
	is "$t: cleared tree dumps no node" "$(dump_field "$t" end) $(dump_field "$t" root)" "0 -"
	is "$t: cleared tree checks ok" "$(line "$D/$t/check")" ok
}

test_duplicates() {
	t=$1
	put "$D/$t/clear" 1
	put "$D/$t/insert" "1 2 3"
	put "$D/$t/find" 2
	first=$(result_id "$D/$t/find")
	if has_flag "$t" dup; then
		put_ok "$t: dup tree takes a present key" "$D/$t/insert" 2
		put_ok "$t: dup tree takes a key twice in one write" "$D/$t/insert" "2 2"
		is "$t: all equal keys kept" "$(keys "$t")" "1 2 2 2 2 3"
		put "$D/$t/find" 2
		is "$t: find returns the first (oldest) equal node" "$(result_id "$D/$t/find")" "$first"
		put_ok "$t: erase one of several equal keys" "$D/$t/erase" 2
		is "$t: one equal key gone" "$(keys "$t")" "1 2 2 2 3"
		is "$t: check ok with duplicates" "$(line "$D/$t/check")" ok
	elif has_flag "$t" replace; then
		old=$first
		put_ok "$t: replace tree takes a present key" "$D/$t/insert" 2
		put "$D/$t/find" 2
		new=$(result_id "$D/$t/find")
		is "$t: the key now has a new node" "$([ "$new" -gt "$old" ] && echo yes)" yes
		put_ok "$t: a key twice in one write replaces in order" "$D/$t/insert" "3 3"
		is "$t: no key repeated" "$(keys "$t")" "1 2 3"
		is "$t: count unchanged by replacing" "$(dump_field "$t" count)" 3
		is "$t: check ok after replacing" "$(line "$D/$t/check")" ok
	else
		put_err "$t: insert of a present key is EEXIST" EEXIST "$D/$t/insert" 2
		put_err "$t: insert with one present key is EEXIST" EEXIST "$D/$t/insert" "4 5 3"
		put_err "$t: a key twice in one write is EEXIST" EEXIST "$D/$t/insert" "6 6"
		is "$t: failed inserts applied nothing" "$(keys "$t")" "1 2 3"
	fi
}

test_parsing() {
	t=mainline
	put "$D/$t/clear" 1
	put_ok "leading + is accepted" "$D/$t/insert" +5
	put_ok "leading zeroes are decimal" "$D/$t/insert" 010
	put_ok "extreme keys are accepted" "$D/$t/insert" "9223372036854775807 -9223372036854775808"
	is "keys parsed as decimal" "$(keys "$t")" "-9223372036854775808 5 10 9223372036854775807"
	put_err "hex is EINVAL" EINVAL "$D/$t/insert" 0x10
	put_err "2^63 is EINVAL (ERANGE)" EINVAL "$D/$t/insert" 9223372036854775808
	put_err "-2^63-1 is EINVAL (ERANGE)" EINVAL "$D/$t/insert" -9223372036854775809
	put_err "a word is EINVAL" EINVAL "$D/$t/insert" "1 two 3"
	put_err "a lone sign is EINVAL" EINVAL "$D/$t/insert" "-"
	put_err "whitespace only is EINVAL" EINVAL "$D/$t/insert" "
"
	printf '1\0002' >"$TMP/nul"
	errs "an embedded NUL is EINVAL" EINVAL put_file "$D/$t/insert" "$TMP/nul"
	# Only space, tab and newline separate keys (isspace() took 0xA0).
	printf '11\24012' >"$TMP/sep"
	errs "byte 0xA0 between keys is EINVAL" EINVAL put_file "$D/$t/insert" "$TMP/sep"
	printf '11\r12' >"$TMP/sep"
	errs "CR between keys is EINVAL" EINVAL put_file "$D/$t/insert" "$TMP/sep"
	printf '11\v12' >"$TMP/sep"
	errs "VT between keys is EINVAL" EINVAL put_file "$D/$t/insert" "$TMP/sep"
	printf '11\f' >"$TMP/sep"
	errs "FF after a key is EINVAL" EINVAL put_file "$D/$t/insert" "$TMP/sep"
	printf '5\240' >"$TMP/sep"
	errs "find: byte 0xA0 after the key is EINVAL" EINVAL put_file "$D/$t/find" "$TMP/sep"
	printf 'i 11\240\n' >"$TMP/sep"
	errs "ops: byte 0xA0 after the key is EINVAL" EINVAL put_file "$D/$t/ops" "$TMP/sep"
	is "rejected writes applied nothing" "$(keys "$t")" "-9223372036854775808 5 10 9223372036854775807"
	put_err "find takes one key only" EINVAL "$D/$t/find" "5 10"
	put_err "erase takes one key only" EINVAL "$D/$t/erase" "5 10"
	put_err "near takes one key only" EINVAL "$D/$t/near" "5 10"
	put_err "find of whitespace is EINVAL" EINVAL "$D/$t/find" " "
	put_err "clear takes a single token" EINVAL "$D/$t/clear" "1 2"
	put_err "clear of whitespace is EINVAL" EINVAL "$D/$t/clear" " "

	# 256 KiB exactly is allowed, one byte more is E2BIG.
	put "$D/$t/clear" 1
	{ printf 7; head -c 262143 /dev/zero | tr '\0' ' '; } >"$TMP/big"
	if put_file "$D/$t/insert" "$TMP/big"; then
		ok "a 256 KiB write is accepted"
	else
		not_ok "a 256 KiB write is accepted" "$(cat "$TMP/err")"
	fi
	printf ' ' >>"$TMP/big"
	errs "a write over 256 KiB is E2BIG" E2BIG put_file "$D/$t/insert" "$TMP/big"
	is "only the 256 KiB write applied" "$(keys "$t")" 7
	put "$D/$t/clear" 1
}

test_max_nodes() {
	t=santos
	put "$D/$t/clear" 1
	echo 3 >"$P/max_nodes"
	is "stats shows max_nodes" "$(stat_field "$t" max_nodes)" 3
	put_err "insert past max_nodes is ENOSPC" ENOSPC "$D/$t/insert" "1 2 3 4"
	is "ENOSPC applied nothing" "$(dump_field "$t" count)" 0
	put_ok "insert up to max_nodes" "$D/$t/insert" "1 2 3"
	put_err "one more is ENOSPC" ENOSPC "$D/$t/insert" 4
	put_err "ops that may insert past it is ENOSPC" ENOSPC "$D/$t/ops" "e 1
i 4"
	is "ENOSPC batch applied nothing" "$(keys "$t")" "1 2 3"
	echo 1048576 >"$P/max_nodes"
	put "$D/$t/clear" 1
}

test_ops() {
	t=$1
	put "$D/$t/clear" 1
	exec 3<>"$D/$t/ops"
	put_fd3 "i 5
i 5

f 5
n 4
n 5
e 5
e 5
f 5
"
	res=$(get_fd3)
	id=${res#ok }
	id=${id%%[!0-9]*}
	id2=$((id + 1))
	if has_flag "$t" dup; then
		second="ok $id2" found=$id erase2="erased $id2"
	elif has_flag "$t" replace; then
		second="replaced $id2 $id" found=$id2 erase2=ENOENT
	else
		second=EEXIST found=$id erase2=ENOENT
	fi
	is "$t: ops batch results, one line per operation" "$res" "ok $id
$second
found $found 5
near $found 5
ENOENT
erased $found
$erase2
ENOENT"
	put_fd3 "i 1"
	for bad in "x 3" "i" "i 3 4" "f 0x3" "ii 3"; do
		errs "$t: ops line '$bad' is EINVAL" EINVAL put_fd3 "i 2
$bad"
	done
	errs "$t: ops of blank lines only is EINVAL" EINVAL put_fd3 "
 
"
	is "$t: rejected batches applied nothing" "$(keys "$t")" 1
	res=$(get_fd3)
	is "$t: a batch's results, read after rejected batches" "${res%% *}" ok
	exec 3>&-
	put "$D/$t/clear" 1
}

test_dump_format() {
	t=santos_aug
	fill "$t"
	get "$D/$t/dump" >"$TMP/dump"
	is "dump header lines in order" \
		"$(awk 'NR <= 10 { printf "%s ", $1 }' "$TMP/dump")" \
		"tree api flags count nodes root leftmost rightmost height aug "
	is "dump header values" \
		"$(awk 'NR <= 10 && NR != 6 && NR != 9 { printf "%s ", $2 }' "$TMP/dump")" \
		"santos_aug santos unique,count,augmented 15 15 - - size "
	is "dump ends with end N" "$(tail -n1 "$TMP/dump")" "end 15"
	is "node lines have 8 fields" \
		"$(awk '$1 == "node" && NF == 8 { n++ } END { print n }' "$TMP/dump")" 15
	is "root's node line comes first, with parent -" \
		"$(awk 'NR == 11 { print $2, $5 }' "$TMP/dump")" \
		"$(awk 'NR == 6 { print $2 }' "$TMP/dump") -"
	is "root's aug is the node count" \
		"$(awk 'NR == 11 { print $8 }' "$TMP/dump")" 15
	is "height within bounds" \
		"$(awk 'NR == 9 { print ($2 >= 4 && $2 <= 8) ? "yes" : $2 }' "$TMP/dump")" yes
	is "a valid tree has no lost line" \
		"$(awk '$1 == "lost" { n++ } END { print n + 0 }' "$TMP/dump")" 0
	is "santos dump shows the cached leftmost and rightmost" \
		"$(fill santos && key_of santos "$(dump_field santos leftmost)") $(key_of santos "$(dump_field santos rightmost)")" \
		"1 15"
	is "mainline dump has no caches and no aug" \
		"$(fill mainline && get "$D/mainline/dump" | awk '$1 == "leftmost" || $1 == "rightmost" || $1 == "aug" { printf "%s ", $2 } $1 == "node" { printf "%s ", $8; exit }')" \
		"- - - - "
	put "$D/santos/clear" 1
	put "$D/mainline/clear" 1
	put "$D/$t/clear" 1
}

# node_id_any TREE KEY: the id of the node (reached or lost) with KEY.
node_id_any() {
	while read -r _f _id _key _; do
		case $_f in node | lost) ;; *) continue ;; esac
		[ "$_key" = "$2" ] && { echo "$_id"; return; }
	done <"$D/$1/dump"
}

# dup-order: equal keys whose ids go down in order (made with `key`).
test_dup_order() {
	echo 1 >"$P/allow_corrupt"
	for t in $TREES; do
		put "$D/$t/clear" 1
		put "$D/$t/insert" "2 1"
		put "$D/$t/corrupt" "key 1 2"
		if has_flag "$t" dup; then
			is "$t: an older equal key after a newer one is dup-order" \
				"$(check_class "$t") $(check_node "$t")" "dup-order $(node_id_any "$t" 2 | head -n1)"
		else
			is "$t: equal keys on a unique tree are order" "$(check_class "$t")" order
		fi
		put "$D/$t/clear" 1
	done
	echo 0 >"$P/allow_corrupt"
}

# find/near results belong to the open file; writes rewind it.
test_query_files() {
	t=santos
	put "$D/$t/clear" 1
	put "$D/$t/insert" "123456789 7 8"
	exec 3<>"$D/$t/find"
	put_fd3 123456789
	a=$(cat_fd3)
	put_fd3 7
	b=$(cat_fd3)
	is "find: write, read, write, read on one descriptor: whole lines" \
		"${a#* } ${b#* }" "123456789 7"
	put "$D/$t/find" 8
	c=$(cat_fd3)
	is "find: a read at EOF of a descriptor gives nothing" "$c" ""
	put_fd3 7
	put "$D/$t/find" 8
	is "find: another descriptor's query does not change this one's line" \
		"$(cat_fd3)" "$(node_field "$t" id key 7) 7"
	is "find: a fresh open reads the tree's last result" \
		"$(result_key "$D/$t/find")" 8
	errs "find: a failed write keeps the descriptor's line" ENOENT put_fd3 99
	exec 3>&-
	exec 3<>"$D/$t/near"
	put_fd3 123456
	a=$(cat_fd3)
	put_fd3 7
	b=$(cat_fd3)
	is "near: write, read, write, read on one descriptor: whole lines" \
		"${a#* } ${b#* }" "123456789 8"
	exec 3>&-
	put "$D/$t/clear" 1
}

# A dump whose tree changes between two reads ends with "error stale".
test_dump_stale() {
	t=mainline
	fill "$t"
	exec 3<"$D/$t/dump"
	read -r first <&3
	put "$D/$t/insert" 16
	rest=$(cat <&3)
	exec 3<&-
	is "dump: first line read before the change" "$first" "tree $t"
	is "dump: after a change the rest is error stale" "$rest" "error stale"
	exec 3<"$D/$t/dump"
	read -r first <&3
	put "$D/$t/find" 16
	cat <&3 >"$TMP/rest"
	exec 3<&-
	is "dump: a query is not a change: the dump goes on to end" \
		"$(tail -n1 "$TMP/rest")" "end 16"
	put "$D/$t/clear" 1
}

# Hints: KEY@HINT in insert, "KEY HINT" in near, I and N in ops.
test_hints() {
	for t in $TREES; do
		put "$D/$t/clear" 1
		put "$D/$t/insert" "10 20 30"
		case $t in
		santos*)
			put_ok "$t: insert with a present hint" "$D/$t/insert" "15@10"
			put_ok "$t: insert with an absent hint" "$D/$t/insert" "25@99"
			put_ok "$t: hint naming a key of the same write" "$D/$t/insert" "40 35@40"
			is "$t: hinted inserts land in order" "$(keys "$t")" "10 15 20 25 30 35 40"
			is "$t: check ok after hinted inserts" "$(line "$D/$t/check")" ok
			put_ok "$t: near with a hint" "$D/$t/near" "21 40"
			is "$t: hinted near is the first greater key" "$(result_key "$D/$t/near")" 25
			put_ok "$t: near with an absent hint" "$D/$t/near" "21 22"
			is "$t: near with an absent hint searches from the root" "$(result_key "$D/$t/near")" 25
			exec 3<>"$D/$t/ops"
			put_fd3 "I 12 40
N 12 10
N 12 77
n 12"
			res=$(get_fd3)
			exec 3>&-
			id=$(node_field "$t" id key 12)
			id15=$(node_field "$t" id key 15)
			is "$t: ops I and N run with hints" "$res" "ok $id
near $id15 15
near $id15 15
near $id15 15"
			put_err "$t: ops I takes two keys" EINVAL "$D/$t/ops" "I 5"
			put_err "$t: near takes at most two keys" EINVAL "$D/$t/near" "1 2 3"
			put_err "$t: a hint without a key is EINVAL" EINVAL "$D/$t/insert" "@10"
			put_err "$t: a bad hint is EINVAL" EINVAL "$D/$t/insert" "5@x"
			if has_flag "$t" unique && ! has_flag "$t" replace; then
				put_err "$t: hinted insert of a present key is EEXIST" EEXIST "$D/$t/insert" "20@10"
			fi
			echo 1 >"$P/allow_corrupt"
			put "$D/$t/corrupt" "parent 40"
			put_err "$t: hinted near on a corrupt tree is EUCLEAN" EUCLEAN "$D/$t/near" "21 40"
			put_ok "$t: unhinted near on a corrupt tree still runs" "$D/$t/near" 21
			echo 0 >"$P/allow_corrupt"
			;;
		*)
			put_err "$t: insert KEY@HINT is EINVAL (no hints)" EINVAL "$D/$t/insert" "15@10"
			put_err "$t: near KEY HINT is EINVAL (no hints)" EINVAL "$D/$t/near" "21 10"
			put_err "$t: ops I is EINVAL (no hints)" EINVAL "$D/$t/ops" "I 15 10"
			put_err "$t: ops N is EINVAL (no hints)" EINVAL "$D/$t/ops" "N 15 10"
			is "$t: rejected hints applied nothing" "$(keys "$t")" "10 20 30"
			;;
		esac
		put "$D/$t/clear" 1
	done
}

# max_total_nodes bounds all trees together.
test_total_nodes() {
	for t in $TREES; do
		put "$D/$t/clear" 1
	done
	echo 20 >"$P/max_total_nodes"
	put_ok "budget: 15 nodes in santos" "$D/santos/insert" "$KEYS15"
	put_err "budget: 6 more in mainline is ENOSPC" ENOSPC "$D/mainline/insert" "1 2 3 4 5 6"
	put_err "budget: ops that may pass it is ENOSPC" ENOSPC "$D/overstreet/ops" "i 1
i 2
i 3
i 4
i 5
i 6"
	put_ok "budget: 5 more in mainline" "$D/mainline/insert" "1 2 3 4 5"
	put_err "budget: one more anywhere is ENOSPC" ENOSPC "$D/santos_dup/insert" 1
	put "$D/santos/erase" 1
	put_ok "budget: an erase makes room" "$D/santos_replace/insert" 1
	put_ok "budget: replacing a key takes no room" "$D/santos_replace/insert" 1
	put_err "budget: an ops insert needs room even if it replaces" ENOSPC "$D/santos_replace/ops" "i 1"
	put "$D/santos/clear" 1
	put_ok "budget: clear gives its nodes back" "$D/santos_aug/insert" "1 2 3 4 5 6 7 8 9 10 11 12 13 14"
	echo 2097152 >"$P/max_total_nodes"
	for t in $TREES; do
		put "$D/$t/clear" 1
	done
}

# The corrupt tests (test_corrupt_*, test_shape).
. "$(dirname "$0")/debugfs-corrupt.sh"
# The resource-limit tests (test_big_batch, test_dump_memory).
. "$(dirname "$0")/debugfs-limits.sh"
# Lockless finds and the stress threads (test_lockless_*).
. "$(dirname "$0")/debugfs-lockless.sh"
# The value, interval, latch and lockless trees (test_family_*).
. "$(dirname "$0")/debugfs-family.sh"

if [ ! -d "$D" ]; then
	echo "not ok 1 - $D missing: is rbtree_inspector loaded?"
	echo "0 passed, 1 failed"
	exit 1
fi

# timed TEST ARGS...: run TEST, then a KTAP comment with its seconds (the
# suite's slow parts, for whoever budgets make test).
timed() {
	_t0=$(date +%s)
	"$@"
	echo "# $*: $(($(date +%s) - _t0)) s"
}

# RBTI_SHELL_ONLY="test_shape test_hints ...": run only these (development).
if [ -n "${RBTI_SHELL_ONLY:-}" ]; then
	get "$D/trees" >"$TMP/trees"
	for f in $RBTI_SHELL_ONLY; do
		"$f"
	done
else
	for t in $TREES; do
		timed test_nodata "$t"
	done
	timed test_layout
	for t in $TREES; do
		timed test_basic "$t"
		timed test_duplicates "$t"
		timed test_ops "$t"
	done
	timed test_parsing
	timed test_max_nodes
	timed test_dump_format
	timed test_corrupt_denied
	timed test_corrupt_classes
	timed test_corrupt_errnos
	timed test_corrupt_erase
	timed test_shape
	timed test_corrupt_queries
	timed test_dup_order
	timed test_query_files
	timed test_dump_stale
	timed test_dump_cost
	timed test_hints
	timed test_total_nodes
	timed test_dump_memory
	timed test_big_batch
	timed test_ops_result_bound
	test_family_all
	test_lockless_all
fi

# Leave every tree populated, one of them corrupted, for rmmod to free
# (the guest harness runs kmemleak after it).
for t in $TREES; do
	fill "$t"
done
put "$D/mainline_aug/insert" "1 10 2 20 3 30"
put "$D/interval/insert" "1 10 2 20 2 3"
put "$D/latch/insert" "$KEYS15"
echo 1 >"$P/allow_corrupt"
put "$D/latch/corrupt" "latch 8"
put "$D/santos_aug/corrupt" "parent 15"
put "$D/mainline/corrupt" "detach $(child_key mainline "$(dump_field mainline root)" left)"
put "$D/santos_dup/corrupt" "cycle 15"
put "$D/overstreet/corrupt" "share $(child_key overstreet "$(dump_field overstreet root)" right)"
echo 0 >"$P/allow_corrupt"
is "trees left populated for rmmod, santos_aug corrupted, three shapes broken" \
	"$(stat_field santos_aug corrupt) $(check_class mainline) $(check_class santos_dup) $(check_class overstreet) $(dump_field santos count) $(check_class latch)" \
	"1 unreachable cycle shared 15 latch"

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
