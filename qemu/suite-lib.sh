# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Running test suites under a time limit and recording them, on the host
# (qemu/test-all) and in the guest (qemu/guest-suites). The list of suites
# is qemu/suites. For each suite NAME, $RESULTS gets NAME.log (its whole
# output), NAME.rc, NAME.secs and NAME.limit; qemu/results judges them.
# Source it; do not run it.
set -o pipefail

# The tiers: qemu/suites (make test, the gate), QUICK=1 qemu/suites-quick
# (the inner loop), SOAK=1 qemu/suites-soak (make soak: the long runs).
# Exported: the guest's half of a run (qemu/guest-suites) reads the same
# list.
if [ -n "${SOAK:-}" ]; then
	SUITES_FILE=${RBTI_SUITES_FILE:-$QEMU_DIR/suites-soak}
else
	SUITES_FILE=${RBTI_SUITES_FILE:-$QEMU_DIR/suites${QUICK:+-quick}}
fi
export RBTI_SUITES_FILE=$SUITES_FILE

# suite_list [WHERE]: "NAME WHERE LIMIT FLOOR" for every suite in the list (of
# that WHERE only, if given), in order. WHERE: host; guest (the run's
# kernel, debug flavour); guest@other (the second debug kernel, guest_boot);
# guest@debug-VERSION (VERSION's debug kernel); guest@stock-VERSION
# (Debian's prebuilt kernel of VERSION).
suite_list() {
	[ -r "$SUITES_FILE" ] || { echo "suite list $SUITES_FILE missing" >&2; return 1; }
	awk -v where="${1:-}" '!/^[[:space:]]*(#|$)/ {
		if (NF < 5 || ($2 != "host" && $2 !~ /^guest(@(other|(debug|stock)-[0-9]+[.][0-9]+))?$/) ||
		    $3 !~ /^[0-9]+$/ || $4 !~ /^[1-9][0-9]*$/) {
			printf "%s:%d: bad suite line (NAME WHERE LIMIT FLOOR COMMAND...; FLOOR at least 1): %s\n", FILENAME, NR, $0 > "/dev/stderr"
			bad = 1
			exit 1
		}
		if (where == "" || $2 == where) print $1, $2, $3, $4
	} END { exit bad }' "$SUITES_FILE"
}

# suite_command NAME: the command of a suite, as written in the list.
suite_command() {
	awk -v name="$1" '!/^[[:space:]]*#/ && $1 == name {
		sub(/^[[:space:]]*[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]+/, "")
		print
		exit
	}' "$SUITES_FILE"
}

# elapsed: minutes and seconds since $RBTI_T0 (the start of the run).
elapsed() {
	local s=$(( $(date +%s) - ${RBTI_T0:-$(date +%s)} ))
	printf '%d:%02d' $((s / 60)) $((s % 60))
}

# Run first in a new session: give its scheduling group our nice value.
AUTOGROUP_NICE='{ nice >/proc/self/autogroup; } 2>/dev/null; '

# run_limited LIMIT CMD: run CMD under bash in a process group of its own;
# at LIMIT seconds send the group SIGTERM, 10 s later SIGKILL. Exit status:
# CMD's, or 124 (timeout(1)'s) if the limit was reached. Not timeout(1):
# it needs POSIX timers (or alarm()), which a tinyconfig guest kernel may
# lack, and then it never fires; this needs only sleep. The limit is
# watched by one sleeping process, not a poll: in the emulated debug
# guest every process started costs about 0.2 s (200 runs of /bin/true
# took 42 s in the 6.1 one), and a `sleep 1` each second took about a
# fifth of a CPU from the suites for the whole run.
#
# A new session is also a new scheduling group where the kernel has
# CONFIG_SCHED_AUTOGROUP (Debian's does): the group competes for the CPU
# with a weight of its own, whatever the nice value of its tasks, so a
# reniced caller's suite would take an equal share from a guest at nice 0.
# The group gets the caller's nice value (nothing happens without the file).
run_limited() {
	local limit=$1 cmd=$2 pid rc start watch
	start=$SECONDS
	setsid bash -c "$AUTOGROUP_NICE$cmd" &
	pid=$!
	# The watch: SIGTERM to the group at the limit, SIGKILL 10 s later;
	# sent SIGTERM itself, it ends its sleep and exits.
	(
		trap 'kill "$s" 2>/dev/null; exit 0' TERM
		sleep "$limit" & s=$!
		wait "$s"
		kill -TERM -- "-$pid" 2>/dev/null || exit 0
		sleep 10 & s=$!
		wait "$s"
		kill -KILL -- "-$pid" 2>/dev/null
	) &
	watch=$!
	# Its own session outlives ours: if we are stopped, so is the suite.
	trap 'kill -TERM -- "-$pid" 2>/dev/null; kill "$watch" 2>/dev/null; exit 143' TERM INT
	wait "$pid" 2>/dev/null
	rc=$?
	if [ $((SECONDS - start)) -ge "$limit" ]; then
		# Stopped by the watch (what is left of the group goes now).
		kill -KILL -- "-$pid" 2>/dev/null
		rc=124
	fi
	kill "$watch" 2>/dev/null
	wait "$watch" 2>/dev/null
	trap - TERM INT
	return $rc
}

# cpu_seconds PID: the CPU seconds (user and system) of the children of
# shell PID ($BASHPID, read outside the command substitution) that have
# ended and been waited for; "?" where /proc cannot tell.
cpu_seconds() {
	awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" '{
		sub(/^.*\) /, "")	# past "pid (comm) ": field 1 is the state
		printf "%.1f\n", ($14 + $15) / hz
	}' "/proc/$1/stat" 2>/dev/null || echo "?"
}

# cpu_since PID C0: the CPU seconds of PID's children since cpu_seconds
# said C0.
cpu_since() {
	awk -v a="$2" -v b="$(cpu_seconds "$1")" 'BEGIN {
		if (a == "?" || b == "?") print "?"; else printf "%.1f\n", b - a
	}'
}

# run_suite NAME LIMIT: run a suite from the list with its output in
# $RESULTS/NAME.log, under run_limited (SIGTERM to its whole process group
# at LIMIT seconds, SIGKILL 10 s later); then print its progress line. Never
# fails: whatever happened is in the recorded files, or their absence.
# NAME.cpu: the CPU seconds the suite's processes took (in the guest, the
# guest's own CPU time).
run_suite() {
	local name=$1 limit=$2 cmd rc t0 c0 me=$BASHPID
	cmd=$(suite_command "$name")
	t0=$(date +%s)
	c0=$(cpu_seconds "$me")
	echo "[$(elapsed)] suite $name: started (limit $limit s)"
	rm -f "$RESULTS/$name".{log,rc,secs,limit,cpu}
	echo "$limit" >"$RESULTS/$name.limit"
	# Not a pipe through tee: the suite's exit status and nothing else.
	run_limited "$limit" "$cmd" >"$RESULTS/$name.log" 2>&1 </dev/null
	rc=$?
	echo "$rc" >"$RESULTS/$name.rc"
	echo "$(( $(date +%s) - t0 ))" >"$RESULTS/$name.secs"
	cpu_since "$me" "$c0" >"$RESULTS/$name.cpu"
	echo "[$(elapsed)] $("$QEMU_DIR/results" count "$name" "$RESULTS" 2>&1)"
	return 0
}

# guest_boot WHERE: "KERNEL FLAVOUR" a guest group boots (see suite_list).
guest_boot() {
	local k
	case $1 in
	guest) echo "$RBTI_KERNEL debug" ;;
	guest@other)
		for k in $RBTI_OTHER_KERNELS; do
			[ "$k" = "$RBTI_KERNEL" ] || { echo "$k debug"; return 0; }
		done
		return 1 ;;
	guest@debug-*) echo "${1#guest@debug-} debug" ;;
	guest@stock-*) echo "${1#guest@stock-} stock" ;;
	*) return 1 ;;
	esac
}
