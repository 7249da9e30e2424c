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

# --- Reporting ---

ok() {
	passed=$((passed + 1))
	echo "ok $((passed + failed + skipped)) - $1"
}

# skip DESC WHY: a test this kernel cannot run (KTAP's "# SKIP").
skip() {
	skipped=$((skipped + 1))
	echo "ok $((passed + failed + skipped)) - $1 # SKIP $2"
}

not_ok() {
	failed=$((failed + 1))
	echo "not ok $((passed + failed + skipped)) - $1"
	[ $# -lt 2 ] || printf '%s\n' "$2" | sed 's/^/#   /'
}

# is DESC GOT WANT
is() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "got '$2', want '$3'"
	fi
}

# The message strerror() gives for an errno name.
strerror() {
	case $1 in
	E2BIG) echo "Argument list too long" ;;
	EBUSY) echo "Device or resource busy" ;;
	EEXIST) echo "File exists" ;;
	EINVAL) echo "Invalid argument" ;;
	ENOBUFS) echo "No buffer space available" ;;
	ENODATA) echo "No data available" ;;
	ENOENT) echo "No such file or directory" ;;
	ENOSPC) echo "No space left on device" ;;
	EPERM) echo "Operation not permitted" ;;
	EUCLEAN) echo "Structure needs cleaning" ;;
	EOPNOTSUPP) echo "Operation not supported" ;;
	*) echo "unknown errno $1" ;;
	esac
}

# --- Access: $TMP/err holds the error text of the last one ---
#
# Writes use the busybox shell's echo builtin: one write(2) of exactly the
# bytes given, and an error message with the strerror() text. Starting a
# program costs about half a second in the emulated guest, so the helpers
# avoid them.

# shellcheck disable=SC3037 # busybox echo has -n
# put FILE DATA: write DATA (exactly, no newline added) to FILE.
put() {
	echo -n "$2" >"$1" 2>"$TMP/err"
}

# put_file FILE SRC: write the bytes of SRC (which may hold a NUL) to FILE.
put_file() {
	dd if="$2" of="$1" bs=1M conv=notrunc status=none 2>"$TMP/err"
}

# put_fd3 DATA, get_fd3: write DATA to, and read, the file open on
# descriptor 3 (not through /dev/fd/3, which would open the file anew).
# shellcheck disable=SC3037
put_fd3() {
	echo -n "$1" >&3 2>"$TMP/err"
}

get_fd3() {
	while IFS= read -r _x; do
		echo "$_x"
	done <&3
}

cat_fd3() {
	cat <&3 2>"$TMP/err"
}

# get FILE: print FILE's contents, with cat's error message on failure.
get() {
	cat "$1" 2>"$TMP/err"
}

# put_ok DESC FILE DATA: the write succeeds.
put_ok() {
	if put "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "$(read_err)"
	fi
}

read_err() {
	_e=
	read -r _e <"$TMP/err"
	echo "$_e"
}

# errs DESC ERRNO CMD...: CMD fails with ERRNO.
errs() {
	_desc=$1 _want=$(strerror "$2")
	shift 2
	if "$@" >/dev/null; then
		not_ok "$_desc" "succeeded, want '$_want'"
		return
	fi
	_got=$(read_err)
	case $_got in
	*"$_want"*) ok "$_desc" ;;
	*) not_ok "$_desc" "got '$_got', want '$_want'" ;;
	esac
}

# put_err DESC ERRNO FILE DATA: the write fails with ERRNO.
put_err() {
	errs "$1" "$2" put "$3" "$4"
}

# --- Reading a tree (shell builtins where possible: every process costs
# a lot in an emulated guest) ---

# line FILE: the first line of FILE.
line() {
	IFS= read -r _l <"$1" && printf '%s\n' "$_l"
}

# dump_field TREE NAME: the value of a dump header line (or of "end").
dump_field() {
	while read -r _f _v _; do
		[ "$_f" != "$2" ] || { echo "$_v"; return; }
	done <"$D/$1/dump"
}

# stat_field TREE NAME: a stats value.
stat_field() {
	while read -r _f _v; do
		[ "$_f" != "$2" ] || { echo "$_v"; return; }
	done <"$D/$1/stats"
}

# black_under_red TREE: key of the first node, in the dump's preorder, that
# is black with a red parent. Flipping it to red breaks red-red at that
# node before any black-height mismatch can be seen (the nodes before it
# in preorder are outside its subtree, so their paths keep their counts).
black_under_red() {
	_reds=" "
	while read -r _f _id _key _c _; do
		[ "$_f" = node ] && [ "$_c" = R ] && _reds="$_reds$_id "
	done <"$D/$1/dump"
	while read -r _f _id _key _c _p _; do
		[ "$_f" = node ] && [ "$_c" = B ] || continue
		case $_reds in
		*" $_p "*) echo "$_key"; return ;;
		esac
	done <"$D/$1/dump"
}

# node_field TREE FIELD MATCH VALUE: field FIELD (2 id, 3 key, 4 colour,
# 5 parent) of the first node line whose field MATCH is VALUE, or whose
# colour is VALUE's and which is not the root if MATCH is "color".
node_field() {
	while read -r _f _id _key _c _p _; do
		[ "$_f" = node ] || continue
		case $3 in
		id) [ "$_id" = "$4" ] || continue ;;
		key) [ "$_key" = "$4" ] || continue ;;
		color) if [ "$_c" != "$4" ] || [ "$_p" = - ]; then continue; fi ;;
		esac
		case $2 in
		id) echo "$_id" ;;
		key) echo "$_key" ;;
		parent) echo "$_p" ;;
		esac
		return
	done <"$D/$1/dump"
}

# result_id FILE, result_key FILE: the parts of a find or near result.
result_id() {
	read -r _id _key <"$1" && echo "$_id"
}

result_key() {
	read -r _id _key <"$1" && echo "$_key"
}

# key_of TREE ID: the key of node ID.
key_of() {
	node_field "$1" key id "$2"
}

# root_key TREE: the key of the root.
root_key() {
	key_of "$1" "$(dump_field "$1" root)"
}

# sorted KEY...: the keys in ascending order, on one line.
sorted() {
	_out=
	for _k; do
		_new='' _put=''
		for _o in $_out; do
			if [ -z "$_put" ] && [ "$_k" -lt "$_o" ]; then
				_new="$_new $_k"
				_put=1
			fi
			_new="$_new $_o"
		done
		[ -n "$_put" ] || _new="$_new $_k"
		_out=$_new
	done
	echo "${_out# }"
}

# sorted_words WORDS: WORDS in lexical order (for comparing sets).
sorted_words() {
	# shellcheck disable=SC2086
	printf '%s\n' $1 | sort | tr '\n' ' '
}

# keys TREE: the keys of the dump, sorted, on one line.
keys() {
	_ks=
	while read -r _f _id _key _; do
		[ "$_f" != node ] || _ks="$_ks $_key"
	done <"$D/$1/dump"
	# shellcheck disable=SC2086
	sorted $_ks
}

# check_class TREE: "ok" or the class the module's check reports.
check_class() {
	read -r _a _b _ <"$D/$1/check"
	if [ "$_a" = ok ]; then echo ok; else echo "$_b"; fi
}

# fill TREE: clear TREE and insert keys 1..15.
fill() {
	put "$D/$1/clear" 1 && put "$D/$1/insert" "$KEYS15"
}

# has_flag TREE FLAG: TREE's line in the trees file has FLAG.
has_flag() {
	while read -r _t _ _flags; do
		[ "$_t" = "$1" ] || continue
		case ",$_flags," in
		*",$2,"*) return 0 ;;
		esac
	done <"$TMP/trees"
	return 1
}

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

# dd_dump TREE OUT: read TREE's dump into OUT in 64-byte read() calls;
# prints the number of reads that returned data (dd's "FULL+PARTIAL
# records in": a read returns whole lines, so most are partial).
dd_dump() {
	dd if="$D/$1/dump" of="$2" bs=64 2>"$TMP/dd"
	read -r _r _ <"$TMP/dd"
	echo $((${_r%%+*} + ${_r#*+}))
}

# A dump costs O(n) however it is read: `stats` counts the node lines the
# module has formatted (dump_lines), and reading a dump in small pieces,
# by two readers at once, or again after the tree changed, formats each
# node once per tree generation. A dump rebuilt, or re-walked up to the
# file position, at every read() would format about n lines per read: with
# 500 nodes in ~200 reads, ~100000 instead of 500. (No timing: the bound is
# on work done.)
test_dump_cost() {
	t=santos
	n=500
	put "$D/$t/clear" 1
	put "$D/$t/insert" "$(seq -s ' ' 1 $n)"
	d0=$(stat_field "$t" dump_lines)
	reads=$(dd_dump "$t" "$TMP/small")
	d1=$(stat_field "$t" dump_lines)
	is "dump cost: read in 64-byte pieces, the dump is whole" \
		"$(tail -n1 "$TMP/small") $(grep -c '^node ' "$TMP/small")" "end $n $n"
	is "dump cost: that took many reads" "$([ "$reads" -ge 100 ] && echo yes || echo "$reads")" yes
	is "dump cost: $reads reads formatted each node once" "$((d1 - d0))" "$n"
	exec 3<"$D/$t/dump"
	IFS= read -r first <&3
	dd_dump "$t" "$TMP/second" >/dev/null
	cat <&3 >"$TMP/rest"
	exec 3<&-
	d2=$(stat_field "$t" dump_lines)
	is "dump cost: two readers of one generation share one text" \
		"$((d2 - d1)) $(tail -n1 "$TMP/second") $(tail -n1 "$TMP/rest")" "$n end $n end $n"
	exec 3<"$D/$t/dump"
	IFS= read -r first <&3
	put "$D/$t/insert" $((n + 1))
	cat <&3 >"$TMP/rest"
	exec 3<&-
	d3=$(stat_field "$t" dump_lines)
	dd_dump "$t" "$TMP/again" >/dev/null
	d4=$(stat_field "$t" dump_lines)
	is "dump cost: a reader gone stale formats no more; the next dump n + 1" \
		"$(cat "$TMP/rest") $((d3 - d2)) $((d4 - d3)) $(tail -n1 "$TMP/again")" \
		"error stale $n $((n + 1)) end $((n + 1))"
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

# The resource-limit tests (test_big_batch, test_dump_memory).
. "$(dirname "$0")/debugfs-limits.sh"
# The value, interval, latch and lockless trees (test_family_*).
. "$(dirname "$0")/debugfs-family.sh"

if [ ! -d "$D" ]; then
	echo "not ok 1 - $D missing: is rbtree_inspector loaded?"
	echo "0 passed, 1 failed"
	exit 1
fi

# RBTI_SHELL_ONLY="test_shape test_hints ...": run only these (development).
if [ -n "${RBTI_SHELL_ONLY:-}" ]; then
	get "$D/trees" >"$TMP/trees"
	for f in $RBTI_SHELL_ONLY; do
		"$f"
	done
else
	for t in $TREES; do
		test_nodata "$t"
	done
	test_layout
	for t in $TREES; do
		test_basic "$t"
		test_duplicates "$t"
		test_ops "$t"
	done
	test_parsing
	test_max_nodes
	test_dump_format
	test_corrupt_denied
	test_corrupt_classes
	test_corrupt_errnos
	test_shape
	test_dup_order
	test_query_files
	test_dump_stale
	test_dump_cost
	test_hints
	test_total_nodes
	test_dump_memory
	test_big_batch
	test_family_all
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
