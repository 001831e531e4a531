# Every layer of dsh's verdict for one script (docs/reports.md "dsh's
# verdict table"), sourced after lib.sh by the verdict suites: a MODE is
# sim (in process), dnetd / dnetd-off (the daemon on $S, posting on / off)
# or user / user-off (a user token on $U), or b=SPEC (that backend).
backend_of() { # MODE -> the -b argument (empty: in process)
	case $1 in
	sim) echo "" ;;
	dnetd | dnetd-off) echo "remote:unix:$S" ;;
	user | user-off) echo "remote:unix:$U,token=usr1,user" ;;
	b=*) echo "${1#b=}" ;; # any backend spec, as given
	esac
}
prefix_of() { case $1 in *-off) echo "set posted off; " ;; *) echo "" ;; esac; }

# run_layers NAME MODE WANT(fail|pass) SCRIPT: text and JSON runs, every layer.
run_layers() {
	local name=$1 mode=$2 want=$3 script=$4 b p rc jrc sum last
	b=$(backend_of "$mode")
	p=$(prefix_of "$mode")
	local args=()
	[ -n "$b" ] && args=(-b "$b")
	"$DSH" "${args[@]}" --summary -c "$p$script" >"$T_TMP/t.out" 2>"$T_TMP/t.err"
	rc=$?
	sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$T_TMP/t.out" | tail -n 1)
	"$DSH" "${args[@]}" --json --summary -c "$p$script" >"$T_TMP/j.out" 2>"$T_TMP/j.err"
	jrc=$?
	last=$(tail -n 1 "$T_TMP/j.out")
	local jok jst
	jok=$(jq -r '.summary.ok' <<<"$last" 2>/dev/null)
	jst=$(jq -r '.summary.exit_status' <<<"$last" 2>/dev/null)
	if [ "$want" = fail ]; then
		if [ "$rc" -ne 0 ]; then pass; else fail "$name [$mode]: exit 0 for a failing script; stderr: $(head -c 300 "$T_TMP/t.err")"; fi
		if [[ "$sum" =~ \ [1-9][0-9]*\ failed || "$sum" =~ error || "$sum" =~ asked\ to\ exit\ [1-9] ]]; then pass; else
			fail "$name [$mode]: text summary [$sum] shows no failure"; fi
		# every failure says why: on stderr, or the summary names the exit asked for
		if [ -s "$T_TMP/t.err" ] || [[ "$sum" =~ asked\ to\ exit ]]; then pass; else
			fail "$name [$mode]: nothing on stderr"; fi
		expect_eq "$name [$mode] JSON ok" false "$jok"
		if [ "$jrc" -ne 0 ]; then pass; else fail "$name [$mode]: --json exit 0"; fi
	else
		expect_eq "$name [$mode] exit" 0 "$rc"
		expect_match "$name [$mode] text summary" "^[0-9]+ passed, 0 failed( \(|$)" "$sum"
		expect_eq "$name [$mode] stderr" "" "$(grep -v 'warning:' "$T_TMP/t.err")"
		expect_eq "$name [$mode] JSON ok" true "$jok"
		expect_eq "$name [$mode] --json exit" 0 "$jrc"
	fi
	expect_eq "$name [$mode] JSON exit_status = exit" "$jrc" "$jst"
}

# case NAME MODES FAILING PASSING
verdict_case() {
	local name=$1 modes=$2 bad=$3 good=$4 m
	for m in $modes; do
		run_layers "$name" "$m" fail "$bad"
		run_layers "$name (failure removed)" "$m" pass "$good"
	done
}
