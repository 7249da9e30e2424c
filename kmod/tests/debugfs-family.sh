# SPDX-License-Identifier: GPL-2.0
#
# debugfs-family.sh: the tests of debugfs-shell.sh for the trees of the
# kernel's rbtree family whose input or queries differ from plain keys
# (mainline_aug, interval, latch) and for the lockless lookups (`stress`
# on latch and mainline_rcu), sourced by it (they use its helpers).
# mainline_cached and mainline_rcu also run every generic test ($TREES).

# The trees that only some kernels have (TREE SINCE MACRO a line): which
# of them this kernel must have follows from its version (uname -r, or
# RBTI_KERNEL_RELEASE), never from the module under test.
MODULE_TREES=${RBTI_MODULE_TREES:-$(dirname "$0")/module-trees}
KERNEL_RELEASE=${RBTI_KERNEL_RELEASE:-$(uname -r)}

# since RELEASE VERSION: whether kernel RELEASE (6.12.57+deb13-amd64) is
# VERSION (6.12) or later.
since() {
	_r=${1%%[!0-9.]*}
	_rmaj=${_r%%.*} _r=${_r#*.}
	_rmin=${_r%%.*} _smaj=${2%%.*} _smin=${2#*.}
	[ "${_rmaj:-0}" -gt "$_smaj" ] ||
		{ [ "${_rmaj:-0}" -eq "$_smaj" ] && [ "${_rmin:-0}" -ge "$_smin" ]; }
}

# expected_trees: "TREE yes|no" for each tree of the table: whether this
# kernel must have it.
expected_trees() {
	while read -r _t _since _; do
		case $_t in '' | \#*) continue ;; esac
		if since "$KERNEL_RELEASE" "$_since"; then
			echo "$_t yes"
		else
			echo "$_t no"
		fi
	done <"$MODULE_TREES"
}

# A tree this kernel must have runs every generic test even when the
# module lacks it (then they fail, beside test_family_expected_trees).
if [ -z "${RBTI_SHELL_TREES:-}" ]; then
	for _t in $(expected_trees | awk '$2 == "yes" { print $1 }'); do
		case " $TREES " in *" $_t "*) ;; *) TREES="$TREES $_t" ;; esac
	done
fi

# The module has exactly the table's trees this kernel's version calls for.
test_family_expected_trees() {
	if [ ! -r "$MODULE_TREES" ]; then
		not_ok "the table of version-dependent trees is readable" "$MODULE_TREES"
		return
	fi
	expected_trees >"$TMP/expected-trees"
	while read -r _t _want; do
		_have=no
		[ ! -d "$D/$_t" ] || _have=yes
		is "$_t: there on $KERNEL_RELEASE? (module-trees)" "$_have" "$_want"
	done <"$TMP/expected-trees"
}

# node_line TREE KEY: the first node line of the dump whose key is KEY
# (copy 0 of a latch tree), without the "node" word.
node_line() {
	awk -v k="$2" '$1 == "node" && $3 == k { $1 = ""; print substr($0, 2); exit }' \
		"$D/$1/dump"
}

# field N WORDS...: the Nth of WORDS.
field() {
	shift "$1"
	echo "$1"
}

# stress_field FILE NAME: a value of a saved `stress` report.
stress_field() {
	while read -r _f _v; do
		[ "$_f" != "$2" ] || { echo "$_v"; return; }
	done <"$1"
}

# mainline_cached: the leftmost cache follows erases of the first node.
test_family_cached() {
	t=mainline_cached
	fill "$t"
	put "$D/$t/insert" 1
	put_ok "$t: erase the first of two equal first keys" "$D/$t/erase" 1
	is "$t: leftmost is the other" "$(dump_field "$t" leftmost) $(line "$D/$t/check")" \
		"$(node_field "$t" id key 1) ok"
	put "$D/$t/erase" 1
	put "$D/$t/erase" 2
	is "$t: leftmost follows the erases" \
		"$(key_of "$t" "$(dump_field "$t" leftmost)") $(line "$D/$t/check")" "3 ok"
	put "$D/$t/clear" 1
}

# mainline_aug: KEY VALUE pairs and the `max` augment.
test_family_aug() {
	t=mainline_aug
	put "$D/$t/clear" 1
	put_ok "$t: insert KEY VALUE pairs" "$D/$t/insert" "5 50
3 30	8 -80 1 100 4 4"
	put_err "$t: an odd number of tokens is EINVAL" EINVAL "$D/$t/insert" "6 60 7"
	put_err "$t: a present key is EEXIST" EEXIST "$D/$t/insert" "5 1"
	put_err "$t: KEY@HINT is EINVAL" EINVAL "$D/$t/insert" "6@5 60"
	put_err "$t: a bad value is EINVAL" EINVAL "$D/$t/insert" "6 x"
	is "$t: keys" "$(keys "$t")" "1 3 4 5 8"
	get "$D/$t/dump" >"$TMP/fdump"
	is "$t: header aug max, then value value" \
		"$(awk '$1 == "aug" || $1 == "value" { printf "%s %s ", $1, $2 }' "$TMP/fdump")" \
		"aug max value value "
	is "$t: node lines have 9 fields" \
		"$(awk '$1 == "node" && NF == 9 { n++ } END { print n }' "$TMP/fdump")" 5
	is "$t: the root's aug is the greatest value" \
		"$(awk '$1 == "node" { print $8; exit }' "$TMP/fdump")" 100
	# shellcheck disable=SC2046
	is "$t: a leaf's aug is its value" "$(field 7 $(node_line "$t" 8))" -80
	is "$t: leftmost cached" "$(key_of "$t" "$(dump_field "$t" leftmost)")" 1
	is "$t: check ok" "$(line "$D/$t/check")" ok
	put "$D/$t/find" 3
	is "$t: find reads ID KEY VALUE" "$(line "$D/$t/find")" "$(node_field "$t" id key 3) 3 30"
	put "$D/$t/near" 3
	is "$t: near reads ID KEY VALUE" "$(line "$D/$t/near")" "$(node_field "$t" id key 4) 4 4"
	id1=$(node_field "$t" id key 1)
	exec 3<>"$D/$t/ops"
	put_fd3 "i 9 900
f 9
e 1
n 8"
	res=$(get_fd3)
	id9=$(node_field "$t" id key 9)
	is "$t: ops i KEY VALUE, found and near with the value" "$res" "ok $id9
found $id9 9 900
erased $id1
near $id9 9 900"
	errs "$t: ops i with one key is EINVAL" EINVAL put_fd3 "i 10"
	errs "$t: ops o is EINVAL" EINVAL put_fd3 "o 1 2"
	exec 3>&-
	is "$t: root aug follows an insert and an erase" \
		"$(get "$D/$t/dump" | awk '$1 == "node" { print $8; exit }')" 900
	is "$t: check ok after the batch" "$(line "$D/$t/check")" ok

	echo 1 >"$P/allow_corrupt"
	put_ok "$t: corrupt value 3" "$D/$t/corrupt" "value 3"
	is "$t: corrupt value: augment, blaming the node" \
		"$(check_class "$t") $(check_node "$t")" "augment $(node_field "$t" id key 3)"
	put "$D/$t/clear" 1
	put "$D/$t/insert" "5 50 3 30 8 80 1 10 4 4"
	put_ok "$t: corrupt aug 4" "$D/$t/corrupt" "aug 4"
	is "$t: corrupt aug: augment" "$(check_class "$t")" augment
	put "$D/$t/clear" 1
	put "$D/$t/insert" "5 50 3 30 8 80 1 10 4 4"
	put_ok "$t: corrupt leftmost" "$D/$t/corrupt" leftmost
	is "$t: corrupt leftmost: leftmost" "$(check_class "$t")" leftmost
	put_err "value on a tree without values is EINVAL" EINVAL "$D/mainline/corrupt" "value 1"
	put_err "value on santos_aug (size rule) is EINVAL" EINVAL "$D/santos_aug/corrupt" "value 1"
	echo 0 >"$P/allow_corrupt"
	put "$D/$t/clear" 1
}

# interval: START LAST nodes, overlap queries, __subtree_last.
test_family_interval() {
	t=interval
	put "$D/$t/clear" 1
	# clear keeps the counters: count from here.
	_o0=$(stat_field "$t" overlaps)
	errs "$t: overlap read before any query is ENODATA" ENODATA get "$D/$t/overlap"
	put_ok "$t: insert START LAST pairs" "$D/$t/insert" "5 10 3 7 3 4 8 20 1 2 15 15"
	put_err "$t: START > LAST is EINVAL" EINVAL "$D/$t/insert" "9 8"
	put_err "$t: an odd number of tokens is EINVAL" EINVAL "$D/$t/insert" "9 10 11"
	put_ok "$t: an equal interval is kept (dup)" "$D/$t/insert" "3 7"
	is "$t: starts in order" "$(keys "$t")" "1 3 3 3 5 8 15"
	get "$D/$t/dump" >"$TMP/fdump"
	is "$t: header aug interval-last, value last" \
		"$(awk '$1 == "aug" || $1 == "value" { printf "%s %s ", $1, $2 }' "$TMP/fdump")" \
		"aug interval-last value last "
	is "$t: the root's aug is the greatest LAST" \
		"$(awk '$1 == "node" { print $8; exit }' "$TMP/fdump")" 20
	is "$t: check ok" "$(line "$D/$t/check")" ok
	put "$D/$t/find" 3
	is "$t: find START: the first in order, with its LAST" "$(line "$D/$t/find")" \
		"$(awk '$1 == "node" && $3 == 3 && $9 == 7 { print $2; exit }' "$TMP/fdump") 3 7"
	put_err "$t: find of an absent START is ENOENT" ENOENT "$D/$t/find" 4
	put_err "$t: near is EOPNOTSUPP" EOPNOTSUPP "$D/$t/near" 3
	put_err "$t: erase of one key is EINVAL" EINVAL "$D/$t/erase" 3
	put_err "$t: erase of an absent interval is ENOENT" ENOENT "$D/$t/erase" "3 5"

	# overlap: every stored interval meeting [4, 6], in START order.
	exec 3<>"$D/$t/overlap"
	put_fd3 "4 6"
	got=$(get_fd3 | awk 'NF == 3 { printf "%s-%s ", $2, $3 } $1 == "end" { printf "end %s", $2 }')
	is "$t: overlap 4 6: in START order, equal STARTs in insertion order" \
		"$got" "3-7 3-4 3-7 5-10 end 4"
	put_fd3 "21 30"
	is "$t: overlap with nothing: end 0" "$(get_fd3)" "end 0"
	errs "$t: overlap START > LAST is EINVAL" EINVAL put_fd3 "6 4"
	errs "$t: overlap of one key is EINVAL" EINVAL put_fd3 "6"
	errs "$t: overlap of three keys is EINVAL" EINVAL put_fd3 "1 2 3"
	is "$t: a failed query neither rewinds nor replaces the results" \
		"$(get_fd3)" ""
	exec 3>&-
	is "$t: stats counts overlaps" "$(($(stat_field "$t" overlaps) - _o0))" 2
	is "stats overlaps is 0 without overlap queries" "$(stat_field mainline overlaps)" 0

	exec 3<>"$D/$t/ops"
	put_fd3 "o 15 15
o 100 200
e 3 7
e 3 7
e 3 7
i 2 3
f 2"
	res=$(get_fd3)
	id15=$(node_field "$t" id key 15)
	id8=$(node_field "$t" id key 8)
	id2=$(node_field "$t" id key 2)
	is "$t: ops o, e START LAST, i START LAST" \
		"$(echo "$res" | awk '{ print ($1 == "erased" ? "erased" : $0) }')" "overlap 2 $id8 $id15
overlap 0
erased
erased
ENOENT
ok $id2
found $id2 2 3"
	errs "$t: ops n is EINVAL" EINVAL put_fd3 "n 3"
	errs "$t: ops o START > LAST is EINVAL" EINVAL put_fd3 "o 5 4"
	errs "$t: ops e of one key is EINVAL" EINVAL put_fd3 "e 3"
	errs "$t: ops i START > LAST is EINVAL" EINVAL put_fd3 "i 5 4"
	exec 3>&-
	put_ok "$t: erase START LAST" "$D/$t/erase" "3 4"
	is "$t: check ok after erases" "$(line "$D/$t/check")" ok
	errs "ops o on a tree without intervals is EINVAL" EINVAL put "$D/mainline_aug/ops" "o 1 2"

	echo 1 >"$P/allow_corrupt"
	fill_interval() {
		put "$D/$t/clear" 1
		put "$D/$t/insert" "5 10 3 7 3 4 8 20 1 2 15 15 9 9"
	}
	fill_interval
	put_err "$t: key past LAST is EINVAL" EINVAL "$D/$t/corrupt" "key 1 3"
	put_ok "$t: corrupt value 9" "$D/$t/corrupt" "value 9"
	is "$t: corrupt value: augment, blaming the node" \
		"$(check_class "$t") $(check_node "$t")" "augment $(node_field "$t" id key 9)"
	fill_interval
	put_ok "$t: corrupt aug 8" "$D/$t/corrupt" "aug 8"
	is "$t: corrupt aug: augment" "$(check_class "$t")" augment
	fill_interval
	put_ok "$t: corrupt key 15 0" "$D/$t/corrupt" "key 15 0"
	is "$t: corrupt key: order" "$(check_class "$t")" order
	put_ok "$t: overlap runs on a corrupt tree" "$D/$t/overlap" "0 100"
	echo 0 >"$P/allow_corrupt"
	put "$D/$t/clear" 1
}

# latch: both copies dumped and checked.
test_family_latch() {
	t=latch
	fill "$t"
	put_err "$t: a present key is EEXIST" EEXIST "$D/$t/insert" 3
	put_err "$t: near is EOPNOTSUPP" EOPNOTSUPP "$D/$t/near" 3
	errs "$t: ops n is EINVAL" EINVAL put "$D/$t/ops" "n 3"
	get "$D/$t/dump" >"$TMP/fdump"
	is "$t: copy 1 section: header" \
		"$(awk '/^copy 1$/ { c = 1 } c && ($1 == "copy" || $1 == "root" || $1 == "height") { printf "%s ", $1 }' "$TMP/fdump")" \
		"copy root height "
	is "$t: copy 1 node lines are copy 0's, both ending in end 15" \
		"$(awk '$1 == "node" { if (c) b = b $0 "|"; else a = a $0 "|" } /^copy 1$/ { c = 1 } $1 == "end" { e = e $2 " " } END { print (a == b) ? "same " e : "differ" }' "$TMP/fdump")" \
		"same 15 15 "
	is "$t: check ok" "$(line "$D/$t/check")" ok
	put_ok "$t: erase" "$D/$t/erase" 8
	put "$D/$t/find" 9
	is "$t: find" "$(result_key "$D/$t/find")" 9
	is "$t: check ok after erase" "$(line "$D/$t/check")" ok
	echo 1 >"$P/allow_corrupt"
	put_ok "$t: corrupt latch 9" "$D/$t/corrupt" "latch 9"
	is "$t: corrupt latch: latch, blaming the node" \
		"$(check_class "$t") $(check_node "$t")" "latch $(node_field "$t" id key 9)"
	is "$t: copy 1 lacks it, copy 0 keeps it" \
		"$(get "$D/$t/dump" | awk '$1 == "node" && $3 == 9 { n++ } END { print n }')" 1
	put_err "latch on a tree without copies is EINVAL" EINVAL "$D/mainline/corrupt" "latch 1"
	fill "$t"
	put_ok "$t: corrupt color of the root" "$D/$t/corrupt" "color $(root_key "$t")"
	is "$t: copy 0 is checked first" "$(check_class "$t")" root-color
	echo 0 >"$P/allow_corrupt"
	put "$D/$t/clear" 1
}

# stress: bounded lockless lookups under fire on a private tree.
test_family_stress() {
	is "stress_seconds defaults to 120" "$(cat "$P/stress_seconds")" 120
	for t in latch mainline_rcu; do
		[ -d "$D/$t" ] || continue
		exec 3<>"$D/$t/stress"
		errs "$t: stress read before any run is ENODATA" ENODATA cat_fd3
		for bad in 0 1000000001 x "5 6" -5; do
			errs "$t: stress '$bad' is EINVAL" EINVAL put_fd3 "$bad"
		done
		if put_fd3 20000; then
			cat_fd3 >"$TMP/stress"
			is "$t: stress 20000: ok 1, every lookup done, none wrong" \
				"$(stress_field "$TMP/stress" ok) $(stress_field "$TMP/stress" lookups) $(stress_field "$TMP/stress" wrong) $(stress_field "$TMP/stress" absent_found) $(stress_field "$TMP/stress" missed) $(stress_field "$TMP/stress" timeout)" \
				"1 20000 0 0 0 0"
			is "$t: present and absent alternate" \
				"$(stress_field "$TMP/stress" present) $(stress_field "$TMP/stress" absent)" "10000 10000"
			is "$t: the writers wrote" \
				"$([ "$(stress_field "$TMP/stress" writes)" -gt 0 ] && echo yes)" yes
		else
			not_ok "$t: stress 20000" "$(read_err)"
		fi
		exec 3>&-
		# Readers race writers: over 200000 lookups some must see the
		# write seqcount move and retry (about 1 in 7000 do in the
		# debug guest), or the writers do not bump it.
		if [ "$t" = mainline_rcu ]; then
			exec 3<>"$D/$t/stress"
			put_fd3 200000
			cat_fd3 >"$TMP/stress"
			exec 3>&-
			is "$t: stress 200000: ok 1 and some lookups retried" \
				"$(stress_field "$TMP/stress" ok) $([ "$(stress_field "$TMP/stress" retries)" -gt 0 ] && echo retried)" \
				"1 retried"
		fi
		# The time limit ends a run that asks for too much: the run says
		# so itself (timeout 1, fewer lookups than asked), whatever the
		# guest's speed. Its wall time is bounded loosely: under half
		# the default limit (120 s), so that a run that ignores
		# stress_seconds fails, and far above what a 2 s run takes on a
		# busy host.
		echo 2 >"$P/stress_seconds"
		_s=$(date +%s)
		exec 3<>"$D/$t/stress"
		put_fd3 1000000000
		cat_fd3 >"$TMP/stress"
		exec 3>&-
		_e=$(date +%s)
		is "$t: stress_seconds 2 ends a run of 10^9: timeout 1, ok 0" \
			"$(stress_field "$TMP/stress" timeout) $(stress_field "$TMP/stress" ok)" "1 0"
		is "$t: ... with fewer lookups than asked, in under 60 s" \
			"$([ "$(stress_field "$TMP/stress" lookups)" -lt 1000000000 ] && [ $((_e - _s)) -lt 60 ] && echo yes || echo "$(stress_field "$TMP/stress" lookups) lookups, $((_e - _s)) s")" yes
		# One run at a time per tree. The first runs in the background
		# until it is killed; its threads, which exist only while it
		# holds the tree's stress lock, show that it is running.
		echo 120 >"$P/stress_seconds"
		(echo 1000000000 >"$D/$t/stress") 2>/dev/null &
		_bg=$!
		_polls=0
		while [ "$(stress_threads_alive)" -eq 0 ] && [ "$_polls" -lt 2000 ]; do
			_polls=$((_polls + 1))
		done
		put_err "$t: a second stress while one runs is EBUSY" EBUSY "$D/$t/stress" 10
		kill -9 "$_bg"
		wait "$_bg" 2>/dev/null
		is "$t: ... and the first, killed, ends and leaves no stress thread" \
			"$(stress_threads_alive)" 0
	done
}

test_family_all() {
	timed test_family_expected_trees
	timed test_family_cached
	timed test_family_aug
	timed test_family_interval
	timed test_family_latch
	timed test_family_stress
}
