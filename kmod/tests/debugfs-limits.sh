# SPDX-License-Identifier: GPL-2.0
#
# debugfs-limits.sh: the tests of debugfs-shell.sh about the module's
# resource limits, sourced by it (they use its helpers): the longest
# writes apply whole, open dump files pin bounded memory, a
# dump costs O(n) however it is read, and an `ops` batch past the bound on
# its results is refused whole.

# big_write FILE WORD COUNT SEP: write COUNT copies of WORD, separated by
# SEP, to FILE in one write(2).
big_write() {
	yes "$2" | head -n "$3" | tr '\n' "$4" >"$TMP/big"
	put_file "$1" "$TMP/big"
}

# The longest writes (256 KiB: 131072 inserts, or 65536 `ops` lines) run
# their loops under the tree's mutex: each applies whole and leaves a
# valid tree, with lockdep and every other detector of the debug guest
# quiet. That the loops give the CPU up now and then (cond_resched()) is
# the hardening suite's test (kmod/tests/hardening_lib/resched.py), which
# counts the wake-ups of a task on the writer's CPU and runs the same
# writes on overstreet_dup too; here, on every kernel of the matrix, one
# tree of each longest write.
test_big_batch() {
	t=santos_dup
	put "$D/$t/clear" 1
	if big_write "$D/$t/insert" 1 131072 ' '; then
		ok "$t: one 256 KiB insert write of 131072 keys"
	else
		not_ok "$t: one 256 KiB insert write of 131072 keys" "$(read_err)"
	fi
	if big_write "$D/$t/ops" "f 1" 65536 '\n'; then
		ok "$t: one 256 KiB ops write of 65536 finds"
	else
		not_ok "$t: one 256 KiB ops write of 65536 finds" "$(read_err)"
	fi
	if big_write "$D/$t/ops" "e 1" 65536 '\n'; then
		ok "$t: one 256 KiB ops write of 65536 erases"
	else
		not_ok "$t: one 256 KiB ops write of 65536 erases" "$(read_err)"
	fi
	is "$t: after them, 65536 nodes and a valid tree" \
		"$(dump_field "$t" count) $(get "$D/$t/check")" "65536 ok"
	put "$D/$t/clear" 1
}

# Each open dump file keeps the text of the generation it reads; all texts
# together stay under max_dump_bytes, past which a dump is ENOBUFS. A
# 1000-node tree's text takes 64512 bytes (512 + 64 a node, as allocated).
test_dump_memory() {
	t=santos
	put "$D/$t/clear" 1
	put "$D/$t/insert" "$(seq -s ' ' 1 1000)"
	_old=$(cat "$P/max_dump_bytes")
	echo 100000 >"$P/max_dump_bytes"
	exec 3<"$D/$t/dump"
	IFS= read -r _first <&3
	is "dump memory: a reader holds the text of 1000 nodes" "$_first" "tree $t"
	put "$D/$t/insert" 1001
	errs "dump memory: a second text past max_dump_bytes is ENOBUFS" ENOBUFS \
		get "$D/$t/dump"
	exec 3<&-
	is "dump memory: once the first reader closes, the dump is whole" \
		"$(get "$D/$t/dump" | tail -n1)" "end 1001"
	echo 1000 >"$P/max_dump_bytes"
	errs "dump memory: a text larger than max_dump_bytes is ENOBUFS" ENOBUFS \
		get "$D/$t/dump"
	echo "$_old" >"$P/max_dump_bytes"
	is "dump memory: under the default bound it reads again" \
		"$(get "$D/$t/dump" | tail -n1)" "end 1001"
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

# An `ops` batch whose results could pass max_result_bytes is refused
# before any of it runs (ENOBUFS), so a batch applies entirely or not at
# all. 200 intervals that all overlap [0, 2000]: each overlap result holds
# 200 ids (about 800 bytes), 12 of them pass 8192 bytes.
test_ops_result_bound() {
	t=interval
	put "$D/$t/clear" 1
	_iv=
	_i=0
	while [ "$_i" -lt 200 ]; do
		_iv="$_iv $_i 1000"
		_i=$((_i + 1))
	done
	put "$D/$t/insert" "$_iv"
	_batch="i 5000 5001"
	_i=0
	while [ "$_i" -lt 12 ]; do
		_batch="$_batch
o 0 2000"
		_i=$((_i + 1))
	done
	_ins=$(stat_field "$t" inserts)
	_old=$(cat "$P/max_result_bytes")
	echo 8192 >"$P/max_result_bytes"
	put_err "ops: results that could pass max_result_bytes are ENOBUFS" \
		ENOBUFS "$D/$t/ops" "$_batch"
	is "ops: the refused batch inserted nothing" \
		"$(dump_field "$t" count) $(stat_field "$t" inserts) $(check_class "$t")" \
		"200 $_ins ok"
	echo "$_old" >"$P/max_result_bytes"
	put_ok "ops: under the default bound the batch runs" "$D/$t/ops" "$_batch"
	is "ops: and inserts its node" "$(dump_field "$t" count)" 201
	put "$D/$t/clear" 1
}
