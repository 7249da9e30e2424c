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
# saw part of the write), "whole" if it was, "never" if the write ended
# without linking 1; clears TREE. Keys go in in the order written, so the
# window is the whole of the write's linking, not a quarter of it: a find
# that waits for the tree lock can only see "whole". The writer and the
# finds share CPU 0, so that the guest's scheduler interleaves them, not
# the host's: the finds never sleep, and the write gives them the CPU at a
# cond_resched() (every 1024 keys linked) once its time slice is used.
# A subshell, which it pins.
during_insert() (
	put "$D/$1/clear" 1
	seq 1 40000 | tr '\n' ' ' >"$TMP/keys"
	read -r _me _ </proc/self/stat
	if ! taskset -p 1 "$_me" >/dev/null 2>&1; then
		echo "unpinned"
		return
	fi
	put_file "$D/$1/insert" "$TMP/keys" &
	_pid=$!
	_seen=never
	while :; do
		if put "$D/$1/find" 1; then
			_seen=whole
			put "$D/$1/find" 40000 || _seen=part
			break
		fi
		# The writer gone (reaped, or a zombie): 1 is there now, or
		# the write failed.
		if ! read -r _ _ _st _ 2>/dev/null <"/proc/$_pid/stat" ||
			[ "$_st" = Z ]; then
			if put "$D/$1/find" 1; then
				_seen=whole
			fi
			break
		fi
	done
	wait "$_pid"
	put "$D/$1/clear" 1
	echo "$_seen"
)

# find on a lockless tree takes no tree lock: it sees part of an insert
# write, which holds the lock until all of its keys are in (under the
# lock a find sees all of a write or none of it: 1 present and 40000
# absent would be impossible). A write whose linking ends within one time
# slice of its CPU would show whole: it is tried again, five times in all.
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

# stress_threads_alive: how many rbti-stress kthreads exist that are not
# exiting. kthread_stop() returns once its
# thread has begun to exit (PF_EXITING, 4, in the flags, the ninth field
# of /proc/PID/stat), and such a thread may still be on the process list
# a moment after: it is not counted; a thread never stopped is.
stress_threads_alive() {
	_alive=0
	for _stat in /proc/[0-9]*/stat; do
		read -r _ _name _ _ _ _ _ _ _flags _ 2>/dev/null <"$_stat" || continue
		case $_name in
		"(rbti-stress-"*)
			[ $((_flags & 4)) -ne 0 ] || _alive=$((_alive + 1))
			;;
		esac
	done
	echo "$_alive"
}

# put_fd3_once DATA: put_fd3 through coreutils' printf, which makes one
# write(2) and reports EINTR; busybox's echo writes again on EINTR.
put_fd3_once() {
	/usr/bin/printf %s "$1" >&3 2>"$TMP/err"
}

# The fault attr fail_stress_spawn (kernels with
# CONFIG_FAULT_INJECTION_DEBUG_FS) fails one creation of a stress thread
# as kthread_create() fails when its caller is killed: the write is EINTR
# (kthread_create()'s errno, not ENOMEM), the threads already made are
# stopped, and the next stress runs whole. Once in the readers' creation
# (its last) and once in the writers' (the last of all), on latch, which
# every kernel has.
test_stress_spawn_fails() {
	_f=$D/fail_stress_spawn
	_desc="stress: a failed thread creation is EINTR"
	if [ ! -d "$_f" ]; then
		# failslab's directory proves fault injection's debugfs.
		if [ -d /sys/kernel/debug/failslab ]; then
			not_ok "$_desc" "no $_f, though the kernel has failslab's"
		else
			skip "$_desc" "this kernel has no CONFIG_FAULT_INJECTION_DEBUG_FS"
		fi
		return
	fi
	t=latch
	_cpus=$(nproc)
	read -r _verbose <"$_f/verbose"
	# The failure's line in the kernel log, without a stack trace (the
	# harness fails a boot whose log has a Call Trace).
	echo 1 >"$_f/verbose"
	echo 100 >"$_f/probability"
	for _nth in "$_cpus" $((2 * _cpus)); do
		# space N: the Nth should_fail() fails, the ones before pass.
		echo "$_nth" >"$_f/space"
		echo 1 >"$_f/times"
		exec 3<>"$D/$t/stress"
		errs "$t: stress whose thread $_nth of $((2 * _cpus)) cannot be created is EINTR" \
			EINTR put_fd3_once 2000
		errs "$t: ... and leaves no report (ENODATA)" ENODATA cat_fd3
		exec 3>&-
		is "$t: ... one failure injected, no stress thread left" \
			"$(cat "$_f/times") $(stress_threads_alive)" "0 0"
	done
	exec 3<>"$D/$t/stress"
	put_fd3 2000
	cat_fd3 >"$TMP/stress"
	exec 3>&-
	is "$t: the next stress runs whole: ok, lookups, readers, writers" \
		"$(stress_field "$TMP/stress" ok) $(stress_field "$TMP/stress" lookups) $(stress_field "$TMP/stress" readers) $(stress_field "$TMP/stress" writers)" \
		"1 2000 $_cpus $_cpus"
	echo 0 >"$_f/probability"
	echo 0 >"$_f/space"
	echo 1 >"$_f/times"
	echo "$_verbose" >"$_f/verbose"
	is "fail_stress_spawn is off again (probability 0), no stress thread left" \
		"$(cat "$_f/probability") $(stress_threads_alive)" "0 0"
}

test_lockless_all() {
	timed test_lockless_find
	timed test_lockless_race
	timed test_stress_threads
	timed test_stress_spawn_fails
}
