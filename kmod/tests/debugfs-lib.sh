# SPDX-License-Identifier: GPL-2.0
#
# debugfs-lib.sh: the helpers of debugfs-shell.sh (reporting, access to the
# debugfs files, reading a tree), sourced by it before its tests.

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
	EINTR) echo "Interrupted system call" ;;
	EINVAL) echo "Invalid argument" ;;
	ENOBUFS) echo "No buffer space available" ;;
	ENODATA) echo "No data available" ;;
	ENOENT) echo "No such file or directory" ;;
	ENOMEM) echo "Cannot allocate memory" ;;
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
