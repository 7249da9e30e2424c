# SPDX-License-Identifier: GPL-2.0
#
# debugfs-lockless.sh: the tests of debugfs-shell.sh about the trees whose
# `find` runs lockless (latch, and mainline_rcu on kernels that have it)
# and about the `stress` file's threads; sourced by it (they use its
# helpers).

LOCKLESS_TREES="latch mainline_rcu"

# during_insert TREE: insert 1..40000 in one write in the background and
# meanwhile look up 1, the first key the write links, until it is there,
# then 40000, the last: prints "part" if 40000 was not there yet (the find
# saw part of the write), "whole" if it was; clears TREE. Keys go in in the
# order written, so the window is the whole of the write's linking, not a
# quarter of it: a find that waits for the tree lock can only see "whole".
during_insert() {
	put "$D/$1/clear" 1
	seq 1 40000 | tr '\n' ' ' >"$TMP/keys"
	put_file "$D/$1/insert" "$TMP/keys" &
	_pid=$!
	_seen=never
	_i=0
	while [ "$_i" -lt 200000 ]; do
		if put "$D/$1/find" 1; then
			_seen=whole
			put "$D/$1/find" 40000 || _seen=part
			break
		fi
		_i=$((_i + 1))
	done
	wait "$_pid"
	put "$D/$1/clear" 1
	echo "$_seen"
}

# find on a lockless tree takes no tree lock: it sees part of an insert
# write, which holds the lock until all of its keys are in (under the
# lock a find sees all of a write or none of it: 1 present and 40000
# absent would be impossible). A write fast enough to end before a find
# gets through (a vCPU descheduled by a busy host) is tried again, five
# times in all.
test_lockless_find() {
	for t in $LOCKLESS_TREES; do
		[ -d "$D/$t" ] || continue
		put "$D/$t/clear" 1
		put "$D/$t/insert" "1 2 3"
		_l0=$(stat_field "$t" lockless_finds)
		put "$D/$t/find" 2
		put "$D/$t/find" 9
		is "$t: find runs lockless, counted in stats lockless_finds" \
			"$(($(stat_field "$t" lockless_finds) - _l0)) $(result_key "$D/$t/find")" \
			"2 2"
		case $(stat_field "$t" retries) in
		"" | *[!0-9]*) not_ok "$t: stats count its retries" "no retries line" ;;
		*) ok "$t: stats count its retries" ;;
		esac
		_r=
		for _try in 1 2 3 4 5; do
			_r=$(during_insert "$t")
			[ "$_r" = whole ] || break
		done
		is "$t: a find sees part of an insert write still running" "$_r" part
	done
	put "$D/mainline/clear" 1
	put "$D/mainline/insert" "1 2 3"
	put "$D/mainline/find" 2
	is "mainline: find takes the lock (lockless_finds 0)" \
		"$(stat_field mainline lockless_finds)" 0
	put "$D/mainline/clear" 1
}

# Lockless finds racing inserts, erases, clears and a corrupt: each
# answers its own key or ENOENT, and the erased nodes they may still be
# reading are freed after a grace period (KASAN would report a read of a
# freed one, and the harness the report).
test_lockless_race() {
	for t in $LOCKLESS_TREES; do
		[ -d "$D/$t" ] || continue
		put "$D/$t/clear" 1
		(
			exec 3<>"$D/$t/find"
			_bad=0
			_i=0
			while [ "$_i" -lt 3000 ]; do
				_k=$((_i % 20 + 1))
				if put_fd3 "$_k"; then
					read -r _id _got <&3
					[ "$_got" = "$_k" ] || _bad=$((_bad + 1))
				fi
				_i=$((_i + 1))
			done
			echo "$_bad" >"$TMP/race.$t"
		) &
		_pid=$!
		_n=0
		while kill -0 "$_pid" 2>/dev/null && [ "$_n" -lt 2000 ]; do
			put "$D/$t/insert" "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"
			put "$D/$t/erase" $((_n % 20 + 1))
			put "$D/$t/ops" "e 3
e 7
i 7
e 11"
			if [ $((_n % 50)) -eq 0 ]; then
				echo 1 >"$P/allow_corrupt"
				put "$D/$t/corrupt" "color 5"
				echo 0 >"$P/allow_corrupt"
			fi
			put "$D/$t/clear" 1
			_n=$((_n + 1))
		done
		wait "$_pid"
		is "$t: finds racing writers and clears answer their own key" \
			"$(cat "$TMP/race.$t")" 0
		is "$t: check ok after the race" \
			"$(put "$D/$t/insert" "1 2 3"; line "$D/$t/check")" ok
		put "$D/$t/clear" 1
	done
}

# The stress threads: a reader per online CPU, writers no more than the
# keys they share out (stress_keys), every CPU count safe.
test_stress_threads() {
	_cpus=$(nproc)
	for t in $LOCKLESS_TREES; do
		[ -d "$D/$t" ] || continue
		exec 3<>"$D/$t/stress"
		put_fd3 2000
		cat_fd3 >"$TMP/stress"
		exec 3>&-
		is "$t: stress: a reader and a writer per online CPU" \
			"$(stress_field "$TMP/stress" ok) $(stress_field "$TMP/stress" readers) $(stress_field "$TMP/stress" writers) $(stress_field "$TMP/stress" keys)" \
			"1 $_cpus $_cpus 512"
		echo 1 >"$P/stress_keys"
		exec 3<>"$D/$t/stress"
		put_fd3 2000
		cat_fd3 >"$TMP/stress"
		exec 3>&-
		echo 512 >"$P/stress_keys"
		is "$t: stress_keys 1: one writer, whatever the CPU count" \
			"$(stress_field "$TMP/stress" ok) $(stress_field "$TMP/stress" readers) $(stress_field "$TMP/stress" writers) $(stress_field "$TMP/stress" keys)" \
			"1 $_cpus 1 1"
	done
}

test_lockless_all() {
	timed test_lockless_find
	timed test_lockless_race
	timed test_stress_threads
}
