# shellcheck shell=bash
# Running test suites and counting their results. A suite is a command whose
# output ends on a line "N passed, N failed" (pytest's and KUnit's summaries
# are translated); its log is kept in $RESULTS/NAME.log and its counts in
# $RESULTS/NAME.count as "PASSED FAILED". Source it; do not run it.

# Print "PASSED FAILED" from a suite's log and exit status. A suite that
# failed without counting a failure, or printed no summary, counts one
# failure, so a crash can never pass for success.
suite_counts() {
	local log=$1 rc=$2 line p=0 f=0
	line=$(tr -d '\r' <"$log" | grep -E '([0-9]+ passed|[0-9]+ failed)' | tail -n 1 || true)
	if [[ $line =~ ([0-9]+)\ passed ]]; then p=${BASH_REMATCH[1]}; fi
	if [[ $line =~ ([0-9]+)\ failed ]]; then f=${BASH_REMATCH[1]}; fi
	if [[ $line =~ ([0-9]+)\ error ]]; then f=$((f + BASH_REMATCH[1])); fi
	if [ -z "$line" ] || { [ "$rc" != 0 ] && [ "$f" = 0 ]; }; then
		f=$((f + 1))
	fi
	echo "$p $f"
}

# run_suite NAME CMD...: run one suite, showing its output, and record it.
run_suite() {
	local name=$1 rc t0
	shift
	t0=$(date +%s)
	echo "==== suite $name: $*"
	set +e
	"$@" 2>&1 | tee "$RESULTS/$name.log"
	rc=${PIPESTATUS[0]}
	set -e
	record_suite "$name" "$rc" "$(( $(date +%s) - t0 ))"
}

# record_suite NAME RC SECONDS: count a suite whose log is already written.
record_suite() {
	local counts
	counts=$(suite_counts "$RESULTS/$1.log" "$2")
	echo "$counts" >"$RESULTS/$1.count"
	echo "==== suite $1: ${counts% *} passed, ${counts#* } failed (exit $2, $3 s)"
}

# Print the per-suite table and the final "N passed, N failed" line; exit
# status 1 if anything failed.
summarize() {
	local c name p f tp=0 tf=0
	echo "==== summary"
	for c in "$RESULTS"/*.count; do
		name=${c##*/}
		read -r p f <"$c"
		printf '  %-16s %5d passed, %d failed\n' "${name%.count}" "$p" "$f"
		tp=$((tp + p))
		tf=$((tf + f))
	done
	echo "logs: $RESULTS"
	echo "$tp passed, $tf failed"
	[ "$tf" = 0 ]
}
