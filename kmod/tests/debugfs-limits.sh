# SPDX-License-Identifier: GPL-2.0
#
# debugfs-limits.sh: the tests of debugfs-shell.sh about the module's
# resource limits, sourced by it (they use its helpers): the longest
# writes keep the CPU shareable, and open dump files pin bounded memory.

# big_write FILE WORD COUNT SEP: write COUNT copies of WORD, separated by
# SEP, to FILE in one write(2).
big_write() {
	yes "$2" | head -n "$3" | tr '\n' "$4" >"$TMP/big"
	put_file "$1" "$TMP/big"
}

# The longest writes (256 KiB: 131072 inserts, or 65536 `ops` lines) run
# their loops under the tree's mutex, and must give the CPU up now and then
# (cond_resched()). They run here with the soft-lockup threshold at its
# minimum (a report after 2 s without scheduling, which panics the debug
# guest and fails the whole run); lockdep and every other detector must
# stay quiet as well. (On this guest the loops under the lock take under
# 2 s, so the detector alone does not catch a loop without cond_resched()
# here; a slower machine or a longer loop would.)
# A kernel without the soft-lockup detector (the coverage flavour) runs
# the writes all the same; only the threshold's two checks are skipped.
test_big_batch() {
	_wd=/proc/sys/kernel/watchdog_thresh
	_wd_was=
	if [ -w "$_wd" ]; then
		# cat, not read: the shell's read takes a byte a time, and a
		# sysctl file gives nothing at a position past 0 ("10" would
		# read as "1").
		_wd_was=$(cat "$_wd")
		echo 1 >"$_wd"
	fi
	for t in santos_dup overstreet_dup; do
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
	done
	if [ -z "$_wd_was" ]; then
		skip "watchdog_thresh set back" "no $_wd: no soft-lockup detector"
		skip "watchdog_thresh was more than the 1 s used here" "no $_wd"
		return
	fi
	echo "$_wd_was" >"$_wd"
	is "watchdog_thresh set back to $_wd_was" "$(cat "$_wd")" "$_wd_was"
	is "watchdog_thresh was more than the 1 s used here" "$([ "$_wd_was" -gt 1 ] && echo yes)" yes
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
