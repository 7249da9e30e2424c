# SPDX-License-Identifier: GPL-2.0
#
# debugfs-corrupt.sh: the tests of debugfs-shell.sh about the `corrupt`
# file: each class, its errnos, shape corruption, and which queries still
# run after each corruption on each tree; sourced by it (they use its
# helpers).

# corrupt_case TREE DESC COMMAND WANT: on a tree of 1..15, COMMAND breaks
# the invariant class WANT (a list of classes, any of which will do).
corrupt_case() {
	t=$1 desc=$2 cmd=$3 want=$4
	fill "$t"
	if ! put "$D/$t/corrupt" "$cmd"; then
		not_ok "$t: corrupt $desc" "$(cat "$TMP/err")"
		return
	fi
	got=$(check_class "$t")
	case " $want " in
	*" $got "*) ok "$t: corrupt $desc: check reports $got" ;;
	*) not_ok "$t: corrupt $desc: check reports $want" "$(line "$D/$t/check")" ;;
	esac
}

test_corrupt_denied() {
	echo 0 >"$P/allow_corrupt"
	for c in "color 1" "black 1" "key 1 2" "parent 1" leftmost rightmost count "aug 1" "bogus"; do
		put_err "corrupt '$c' with allow_corrupt 0 is EPERM" EPERM "$D/santos/corrupt" "$c"
	done
	is "denied corruption left the tree alone" "$(stat_field santos corrupt)" 0
}

test_corrupt_classes() {
	echo 1 >"$P/allow_corrupt"
	for t in $TREES; do
		fill "$t"
		corrupt_case "$t" "color of the root" "color $(key_of "$t" "$(dump_field "$t" root)")" root-color
		fill "$t"
		corrupt_case "$t" "color of a black non-root node" "color $(node_field "$t" key color B)" "black-height red-red"
		fill "$t"
		corrupt_case "$t" "color of a black node under a red one" "color $(black_under_red "$t")" red-red
		fill "$t"
		corrupt_case "$t" "black on a red node" "black $(node_field "$t" key color R)" black-height
		corrupt_case "$t" "key of the first node" "key 1 100" order
		fill "$t"
		corrupt_case "$t" "parent of a leaf" "parent 15" parent
		fill "$t"
		corrupt_case "$t" "parent of the root" "parent $(key_of "$t" "$(dump_field "$t" root)")" parent
	done
	corrupt_case santos "leftmost" leftmost leftmost
	corrupt_case santos_dup "rightmost" rightmost rightmost
	corrupt_case santos_replace "count" count count
	corrupt_case santos_aug "aug" "aug 8" augment
}

test_corrupt_errnos() {
	echo 1 >"$P/allow_corrupt"
	t=santos
	fill "$t"
	put_err "corrupt of an absent key is ENOENT" ENOENT "$D/$t/corrupt" "color 99"
	put_err "unknown corrupt command is EINVAL" EINVAL "$D/$t/corrupt" "bogus 1"
	put_err "corrupt with a missing key is EINVAL" EINVAL "$D/$t/corrupt" "color"
	put_err "corrupt key without NEWKEY is EINVAL" EINVAL "$D/$t/corrupt" "key 1"
	put_err "black on a black node is EINVAL" EINVAL "$D/$t/corrupt" \
		"black $(root_key "$t")"
	put_err "aug on a tree without augment is EINVAL" EINVAL "$D/$t/corrupt" "aug 1"
	put_err "leftmost on a tree without cache is EINVAL" EINVAL "$D/mainline/corrupt" leftmost
	put_err "rightmost on a tree without cache is EINVAL" EINVAL "$D/santos_aug/corrupt" rightmost
	put_err "count on a tree without cache is EINVAL" EINVAL "$D/overstreet/corrupt" count
	put "$D/santos_dup/clear" 1
	put "$D/santos_dup/insert" 1
	put_err "leftmost with one node is EINVAL" EINVAL "$D/santos_dup/corrupt" leftmost
	put_err "parent of a lone root is EINVAL" EINVAL "$D/santos_dup/corrupt" "parent 1"
	is "failed corruption left the tree valid" "$(stat_field "$t" corrupt) $(line "$D/$t/check")" "0 ok"

	# Corrupt mode: read-only access only, until clear.
	put_ok "corrupt count" "$D/$t/corrupt" count
	is "stats shows corrupt 1" "$(stat_field "$t" corrupt)" 1
	put_err "insert in corrupt mode is EUCLEAN" EUCLEAN "$D/$t/insert" 20
	put_err "erase in corrupt mode is EUCLEAN" EUCLEAN "$D/$t/erase" 3
	put_err "ops in corrupt mode is EUCLEAN" EUCLEAN "$D/$t/ops" "f 3"
	put_err "corrupt in corrupt mode is EUCLEAN" EUCLEAN "$D/$t/corrupt" leftmost
	put_ok "find works in corrupt mode" "$D/$t/find" 3
	put_ok "near works in corrupt mode" "$D/$t/near" 3
	is "dump works in corrupt mode" "$(dump_field "$t" end)" 15
	is "dump shows the corrupted count" "$(dump_field "$t" count)" 16
	is "check works in corrupt mode" "$(check_class "$t")" count
	put_ok "clear works in corrupt mode" "$D/$t/clear" 1
	is "clear leaves corrupt mode" "$(stat_field "$t" corrupt)" 0
	put_ok "insert works again after clear" "$D/$t/insert" 1
	# A failure with no node to blame (an empty tree) says "node -".
	put "$D/$t/clear" 1
	put_ok "corrupt count on an empty tree" "$D/$t/corrupt" count
	is "check blames no node on an empty tree" "$(line "$D/$t/check")" \
		"fail count node -: cached count is 1, 0 nodes reachable"
	put_ok "clear leaves corrupt mode on an empty tree" "$D/$t/clear" 1

	# A wrong parent pointer does not derail dump, find or near.
	t=santos_dup
	fill "$t"
	put "$D/$t/corrupt" "parent 15"
	is "dump of a wrong parent pointer names a node" \
		"$(node_field "$t" parent key 15)" "$(node_field "$t" id key 15)"
	put_ok "find on a wrong parent pointer" "$D/$t/find" 15
	is "find still finds it" "$(result_key "$D/$t/find")" 15
	put_ok "near on a wrong parent pointer" "$D/$t/near" 14
	put_ok "clear frees a corrupted tree" "$D/$t/clear" 1
	is "check ok after clear" "$(line "$D/$t/check")" ok
	echo 0 >"$P/allow_corrupt"
	for t in $TREES; do
		put "$D/$t/clear" 1
	done
}

# lost_count TREE: the number of lost lines of the dump.
lost_count() {
	_n=0
	while read -r _f _; do
		[ "$_f" != lost ] || _n=$((_n + 1))
	done <"$D/$1/dump"
	echo "$_n"
}

# first_lost TREE: the id of the first lost line, or nothing.
first_lost() {
	while read -r _f _id _; do
		[ "$_f" != lost ] || { echo "$_id"; return; }
	done <"$D/$1/dump"
}

# check_node TREE: the id the module's check blames ("-" if none).
check_node() {
	read -r _a _b _c _d _ <"$D/$1/check"
	_d=${_d%:}
	echo "$_d"
}

# child_key TREE ID left|right: the key of node ID's child.
child_key() {
	while read -r _f _id _key _c _p _l _r _; do
		[ "$_f" = node ] && [ "$_id" = "$2" ] || continue
		if [ "$3" = left ]; then key_of "$1" "$_l"; else key_of "$1" "$_r"; fi
		return
	done <"$D/$1/dump"
}

# dump_finite TREE DESC: the dump ends with "end N", N = node lines, and
# node + lost lines = the header's nodes.
dump_finite() {
	get "$D/$1/dump" >"$TMP/sdump"
	is "$1: $2: dump is finite and complete" \
		"$(awk '$1 == "node" { n++ } $1 == "lost" { l++ } $1 == "nodes" { h = $2 }
			END { print ($0 == "end " n + 0 && n + l == h) ? "yes" : $0 " " n " " l " " h }' "$TMP/sdump")" yes
}

# shape_locked TREE: after shape corruption only dump, check, stats, clear.
shape_locked() {
	t=$1
	put_err "$t: find after shape corruption is EUCLEAN" EUCLEAN "$D/$t/find" 1
	put_err "$t: near after shape corruption is EUCLEAN" EUCLEAN "$D/$t/near" 1
	put_err "$t: insert after shape corruption is EUCLEAN" EUCLEAN "$D/$t/insert" 99
	put_err "$t: erase after shape corruption is EUCLEAN" EUCLEAN "$D/$t/erase" 1
	put_err "$t: ops after shape corruption is EUCLEAN" EUCLEAN "$D/$t/ops" "f 1"
	put_err "$t: corrupt after shape corruption is EUCLEAN" EUCLEAN "$D/$t/corrupt" "cycle 1"
	is "$t: stats after shape corruption" "$(stat_field "$t" corrupt)" 1
}

test_shape() {
	echo 1 >"$P/allow_corrupt"
	for t in $TREES; do
		fill "$t"
		root=$(dump_field "$t" root)
		rk=$(key_of "$t" "$root")
		put_err "$t: detach of the root is EINVAL" EINVAL "$D/$t/corrupt" "detach $rk"
		put_err "$t: share of the root is EINVAL" EINVAL "$D/$t/corrupt" "share $rk"
		put_err "$t: detach of an absent key is ENOENT" ENOENT "$D/$t/corrupt" "detach 99"
		put_err "$t: cycle takes one key" EINVAL "$D/$t/corrupt" "cycle 1 2"

		# detach: the root's left subtree is lost.
		lk=$(child_key "$t" "$root" left)
		put_ok "$t: detach $lk" "$D/$t/corrupt" "detach $lk"
		is "$t: detach: check reports unreachable" "$(check_class "$t")" unreachable
		is "$t: detach: the first lost node in list order is blamed" \
			"$(check_node "$t")" "$(first_lost "$t")"
		is "$t: detach: the nodes of key 1..$((rk - 1)) are lost, key 1 first" \
			"$(lost_count "$t") $(first_lost "$t")" "$((rk - 1)) $(node_id_any "$t" 1)"
		is "$t: detach: header nodes stays 15" "$(dump_field "$t" nodes)" 15
		dump_finite "$t" detach
		shape_locked "$t"
		put_ok "$t: clear after detach" "$D/$t/clear" 1
		is "$t: check ok after clearing a detached tree" "$(line "$D/$t/check")" ok

		# share: the root links to its left child twice.
		fill "$t"
		root=$(dump_field "$t" root)
		lk=$(child_key "$t" "$root" left)
		put_ok "$t: share $lk" "$D/$t/corrupt" "share $lk"
		is "$t: share: check reports shared, blaming the parent" \
			"$(check_class "$t") $(check_node "$t")" "shared $root"
		dump_finite "$t" share
		is "$t: share: the root's two links are the same node" \
			"$(child_key "$t" "$root" left)" "$(child_key "$t" "$root" right)"
		shape_locked "$t"
		put_ok "$t: clear after share" "$D/$t/clear" 1

		# cycle: a leaf's left link points at its parent.
		fill "$t"
		id15=$(node_field "$t" id key 15)
		put_ok "$t: cycle 15" "$D/$t/corrupt" "cycle 15"
		is "$t: cycle: check reports cycle, blaming the node" \
			"$(check_class "$t") $(check_node "$t")" "cycle $id15"
		dump_finite "$t" cycle
		shape_locked "$t"
		put_ok "$t: clear after cycle" "$D/$t/clear" 1

		# cycle on the root: its left link points at itself.
		fill "$t"
		root=$(dump_field "$t" root)
		put_ok "$t: cycle of the root" "$D/$t/corrupt" "cycle $(key_of "$t" "$root")"
		is "$t: root cycle: check reports cycle, blaming the root" \
			"$(check_class "$t") $(check_node "$t")" "cycle $root"
		dump_finite "$t" "root cycle"
		put_ok "$t: clear after the root cycle" "$D/$t/clear" 1
		is "$t: clear after shape corruption frees every node" \
			"$(dump_field "$t" nodes) $(stat_field "$t" corrupt)" "0 0"
	done
	echo 0 >"$P/allow_corrupt"
}

# --- Queries after every corruption of every tree ---
#
# A query follows child links, and on some trees parent pointers too (the
# interval tree's iter_next climbs them), or augmented values (from 6.15 on,
# the interval tree's subtree search takes a subtree's max for proof that
# a right child exists: `corrupt aug` and `value` could send it into a NULL
# one): after a corruption of links it follows it is refused with EUCLEAN,
# and otherwise it runs and returns.
# A query that loops spins in the kernel with the tree locked: the debug
# kernel's soft-lockup detector panics the guest; elsewhere the poll below
# gives up once the queries make no progress, and reports the hang.

CQ_PLAIN="5 2 6 1 3 8 7 9 4 10"
CQ_PAIRS="5 5 2 3 6 6 1 10 3 4 8 9 7 7 9 12"
CQ_TARGETS="2 5 6"
CQ_KEYS="0 2 3 7 11"
CQ_CORRUPTIONS="color black key parent leftmost rightmost count aug value latch detach share cycle"

# cq_tree TREE: every corruption on TREE, then every query; one line each:
# "TREE CORRUPTION TARGET applied|refused" and "TREE CORRUPTION TARGET
# FILE KEY ok|ERRNO-TEXT".
cq_tree() {
	_t=$1
	_keys=$CQ_PLAIN
	[ ! -e "$D/$_t/overlap" ] && ! grep -q "^$_t .*value" "$D/trees" ||
		_keys=$CQ_PAIRS
	for _c in $CQ_CORRUPTIONS; do
		for _k in $CQ_TARGETS; do
			# These take no target: one round, not one a target.
			case $_c in
			leftmost | rightmost | count)
				[ "$_k" = "${CQ_TARGETS%% *}" ] || continue ;;
			esac
			put "$D/$_t/clear" 1
			put "$D/$_t/insert" "$_keys"
			case $_c in
			leftmost | rightmost | count) _cmd=$_c ;;
			key) _cmd="key $_k 0" ;;
			*) _cmd="$_c $_k" ;;
			esac
			if ! put "$D/$_t/corrupt" "$_cmd"; then
				echo "$_t $_c $_k refused"
				continue
			fi
			echo "$_t $_c $_k applied"
			for _q in $CQ_KEYS; do
				for _f in find near overlap; do
					[ -e "$D/$_t/$_f" ] || continue
					_arg=$_q
					[ "$_f" != overlap ] || _arg="$_q $((_q + 2))"
					# (read, not $(read_err): no fork a query.)
					if put "$D/$_t/$_f" "$_arg"; then
						echo "$_t $_c $_k $_f $_q ok"
					else
						_e=
						read -r _e <"$TMP/err"
						echo "$_t $_c $_k $_f $_q $_e"
					fi
				done
			done
		done
	done
	put "$D/$_t/clear" 1
}

test_corrupt_queries() {
	_trees=
	while read -r _t _; do
		[ -d "$D/$_t" ] && _trees="$_trees $_t"
	done <"$D/trees"
	echo 1 >"$P/allow_corrupt"
	: >"$TMP/cq"
	(
		for _t in $_trees; do
			cq_tree "$_t"
		done
		echo finished
	) >"$TMP/cq" 2>&1 &
	_pid=$!
	# A query that loops makes no more lines: give up after
	# RBTI_CQ_STALL seconds without one (a slow guest still makes some).
	_last=-1
	_still=0
	while [ "$(tail -n1 "$TMP/cq")" != finished ] &&
		[ "$_still" -lt "${RBTI_CQ_STALL:-60}" ]; do
		sleep 5
		_size=$(wc -c <"$TMP/cq")
		if [ "$_size" = "$_last" ]; then
			_still=$((_still + 5))
		else
			_still=0
			_last=$_size
		fi
	done
	if [ "$(tail -n1 "$TMP/cq")" != finished ]; then
		kill "$_pid" 2>/dev/null
		not_ok "queries after each corruption return" \
			"no progress for $_still s; last: $(tail -n1 "$TMP/cq")"
		return
	fi
	wait "$_pid"
	echo 0 >"$P/allow_corrupt"
	is "queries after each corruption of each tree: all ran" \
		"$(tail -n1 "$TMP/cq")" finished
	# Per tree and corruption: refused (EUCLEAN) exactly when it broke a
	# link the tree's queries follow (the child links; on interval, also
	# parent pointers, and from 6.15 on augmented values), else ok or
	# ENOENT; near on a tree without one is EOPNOTSUPP whatever the tree's
	# state. (since and KERNEL_RELEASE: debugfs-family.sh.)
	_aug_links=0
	! since "$KERNEL_RELEASE" 6.15 || _aug_links=1
	awk -v aug_links="$_aug_links" '
	NF == 4 && $4 == "applied" { applied[$1 " " $2] = 1; next }
	NF == 4 || NF < 6 { next }
	{
		tc = $1 " " $2
		msg = $6
		for (i = 7; i <= NF; i++)
			msg = msg " " $i
		broken = $2 == "detach" || $2 == "share" || $2 == "cycle" ||
			 ($1 == "interval" && $2 == "parent") ||
			 ($1 == "interval" && aug_links &&
			  ($2 == "aug" || $2 == "value"))
		if ($4 == "near" && msg ~ /not supported/)
			good = 1
		else if (broken)
			good = msg ~ /Structure needs cleaning/
		else
			good = msg == "ok" || msg ~ /No such file/
		if (!good && !(tc in bad))
			bad[tc] = $3 " " $4 " " $5 ": " msg
		ran[tc] = 1
	}
	END {
		for (tc in applied)
			print tc, (tc in bad) ? "bad " bad[tc] : (tc in ran) ? "ok" : "none"
	}' "$TMP/cq" | sort >"$TMP/cq.sum"
	while read -r _t _c _res; do
		case $_res in
		ok) ok "$_t: queries after corrupt $_c return, refused iff it broke a link they follow" ;;
		*) not_ok "$_t: queries after corrupt $_c return, refused iff it broke a link they follow" "$_res" ;;
		esac
	done <"$TMP/cq.sum"
	# The case that spun for ever: iter_next climbing a parent loop.
	t=interval
	put "$D/$t/clear" 1
	put "$D/$t/insert" "5 5 2 3 6 6 1 10 3 4"
	echo 1 >"$P/allow_corrupt"
	put "$D/$t/corrupt" "parent 2"
	echo 0 >"$P/allow_corrupt"
	put_err "interval: find after corrupt parent is EUCLEAN" EUCLEAN "$D/$t/find" 7
	put_err "interval: overlap after corrupt parent is EUCLEAN" EUCLEAN "$D/$t/overlap" "7 7"
	is "interval: check still names the parent" "$(check_class "$t")" parent
	put "$D/$t/clear" 1
}

# `corrupt erase` and `corrupt reinsert` (DEBUGFS.md): the writes
# DEBUG_RBTREE must catch, so they exist only where the kernel has
# DEBUG_RBTREE; there erase takes only the node a link corruption broke. kmod/patches/debug-rbtree-test, on the
# patched kernel of `make patches`, erases for real.
test_corrupt_erase() {
	t=mainline
	fill "$t"
	echo 0 >"$P/allow_corrupt"
	put_err "corrupt erase without allow_corrupt is EPERM" EPERM "$D/$t/corrupt" erase
	echo 1 >"$P/allow_corrupt"
	put_err "corrupt erase with a key is EINVAL" EINVAL "$D/$t/corrupt" "erase 8"
	put_err "corrupt reinsert without a key is EINVAL" EINVAL "$D/$t/corrupt" reinsert
	if grep -qw __rb_node_valid_or_report /proc/kallsyms; then
		put_err "DEBUG_RBTREE: corrupt erase of an intact tree is ENOENT" \
			ENOENT "$D/$t/corrupt" erase
		put "$D/$t/corrupt" "color 8"
		put_err "DEBUG_RBTREE: corrupt erase after a corruption of no link is ENOENT" \
			ENOENT "$D/$t/corrupt" erase
	else
		_before=$(cat "$D/$t/dump")
		put_err "corrupt reinsert without DEBUG_RBTREE is EOPNOTSUPP" \
			EOPNOTSUPP "$D/$t/corrupt" "reinsert 8"
		is "corrupt reinsert without DEBUG_RBTREE leaves the tree as it was" \
			"$(cat "$D/$t/dump")" "$_before"
		put "$D/$t/corrupt" "parent 8"
		_before=$(cat "$D/$t/dump")
		put_err "corrupt erase without DEBUG_RBTREE is EOPNOTSUPP" \
			EOPNOTSUPP "$D/$t/corrupt" erase
		is "corrupt erase without DEBUG_RBTREE leaves the tree as it was" \
			"$(cat "$D/$t/dump")" "$_before"
	fi
	put "$D/$t/clear" 1
	echo 0 >"$P/allow_corrupt"
}
