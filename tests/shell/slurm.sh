# shellcheck shell=bash
# A one-node Slurm (slurm-wlm 22.05, munge 0.5.15) that a test starts and
# stops itself.  Sourced after lib.sh; not a test itself.
#
#   if slurm_start; then ... srun ...; else skip "$SLURM_WHY"; fi
#   slurm_stop   # optional: lib.sh's cleanup stops it too
#
# slurm_start makes a private directory (in T_DIRS), a munge key there and
# starts munged on a socket there, writes a slurm.conf naming this host as
# controller and only node (proctrack/linuxproc, task/none: no cgroups, no
# systemd), its spool, state, pid and log files all in the directory and
# its ports two free TCP ports picked at random, and starts slurmctld
# and slurmd in the foreground (-D), so that their PIDs are the ones $!
# gives: they go to T_PIDS, and are stopped by PID, never by name (other
# tests, and other Slurms, may run at the same time).  It then waits, at
# most SLURM_START_WAIT seconds (default 30), until sinfo shows the node
# idle.  It exports SLURM_CONF (srun, sinfo, scancel read it) and returns
# 0; or returns 1 with the reason in SLURM_WHY: a program missing, or the
# daemon that did not come up with the tail of its log.
#
# slurm_stop cancels the jobs left (a launcher killed with SIGKILL leaves
# its step running), waits for their slurmstepd to go (bounded), kills
# what is still there of them by PID (the slurmstepd whose spool directory
# is ours), then slurmd, slurmctld and munged by PID, and removes the
# directory.
SLURM_DIR=''
SLURM_WHY=''
SLURM_PIDS=()
SLURM_HOST=''

# _slurm_port_free PORT: no TCP socket of this host is bound to PORT
# (/proc/net/tcp and tcp6: no need for iproute2's ss).
_slurm_port_free() {
	local hex
	hex=$(printf '%04X' "$1")
	! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v h=":$hex" '$2 ~ h "$" {f = 1} END {exit !f}'
}
# _slurm_tail FILE: the last lines of a log, on one line, for a reason.
_slurm_tail() {
	if [ -s "$1" ]; then tail -n 6 "$1" | tr '\n' '|' | cut -c1-600; else echo "(${1##*/} empty)"; fi
}
# _slurm_spawn NAME ARGS...: a daemon in the foreground, stderr to
# $SLURM_DIR/NAME.err, remembered for slurm_stop and lib.sh's cleanup.
_slurm_spawn() {
	local name=$1; shift
	"$@" </dev/null >"$SLURM_DIR/$name.err" 2>&1 &
	SLURM_PIDS+=($!)
	T_PIDS+=($!)
	eval "SLURM_PID_$name=$!"
}
# _slurm_alive NAME: the daemon started as NAME still runs.
_slurm_alive() {
	local v="SLURM_PID_$1"
	kill -0 "${!v}" 2>/dev/null
}

slurm_start() {
	local p
	SLURM_WHY=''
	for p in munged mungekey slurmctld slurmd srun sinfo scancel squeue; do
		if ! command -v "$p" >/dev/null 2>&1; then
			SLURM_WHY="no $p (packages slurm-wlm and munge: scripts/install-deps.sh test)"
			return 1
		fi
	done
	if [ "$(id -u)" -ne 0 ]; then
		SLURM_WHY="not root (slurmd runs tasks as their submitting user only as root)"
		return 1
	fi
	# munged wants every directory above its socket searchable by all:
	# /tmp, not TMPDIR (it may be a private mode-700 directory).
	SLURM_DIR=$(mktemp -d /tmp/dsh-slurm.XXXXXX) || { SLURM_WHY="mktemp under /tmp"; return 1; }
	T_DIRS+=("$SLURM_DIR")
	chmod 755 "$SLURM_DIR"
	mkdir -p "$SLURM_DIR/spool" "$SLURM_DIR/state"
	SLURM_HOST=$(hostname -s 2>/dev/null || hostname)
	local d=$SLURM_DIR ncpu
	ncpu=$(nproc)

	# munge: a key of our own, munged in the foreground on our socket.
	if ! mungekey -c -k "$d/munge.key" -b 1024 >"$d/mungekey.err" 2>&1; then
		SLURM_WHY="mungekey failed: $(_slurm_tail "$d/mungekey.err")"
		return 1
	fi
	_slurm_spawn munged munged -F --key-file="$d/munge.key" --socket="$d/munge.sock" \
		--pid-file="$d/munged.pid" --log-file="$d/munged.log" --seed-file="$d/munged.seed"
	if ! wait_for_socket "$d/munge.sock" 50 || ! _slurm_alive munged; then
		SLURM_WHY="munged did not come up: $(_slurm_tail "$d/munged.err")"
		return 1
	fi

	# Two consecutive free ports, at random so that parallel runs differ.
	local port='' i
	for i in $(seq 50); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		if _slurm_port_free "$p" && _slurm_port_free $((p + 1)); then port=$p; break; fi
	done
	[ -n "$port" ] || { SLURM_WHY="no two free TCP ports found"; return 1; }

	cat >"$d/slurm.conf" <<EOF
# written by tests/shell/slurm.sh for one test; removed at its end
ClusterName=dshtest$port
SlurmctldHost=$SLURM_HOST(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge.sock
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdSpoolDir=$d/spool
StateSaveLocation=$d/state
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MessageTimeout=10
MinJobAge=2
NodeName=$SLURM_HOST NodeAddr=127.0.0.1 CPUs=$ncpu State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
	export SLURM_CONF=$d/slurm.conf
	_slurm_spawn slurmctld slurmctld -D -i -f "$d/slurm.conf"
	_slurm_spawn slurmd slurmd -D -f "$d/slurm.conf" -N "$SLURM_HOST"

	local max=${SLURM_START_WAIT:-30} st=''
	for i in $(seq $((max * 5))); do
		if ! _slurm_alive slurmctld; then
			SLURM_WHY="slurmctld exited at start: $(_slurm_tail "$d/slurmctld.log") $(_slurm_tail "$d/slurmctld.err")"
			return 1
		fi
		if ! _slurm_alive slurmd; then
			SLURM_WHY="slurmd exited at start: $(_slurm_tail "$d/slurmd.log") $(_slurm_tail "$d/slurmd.err")"
			return 1
		fi
		st=$(timeout 5 sinfo -h -N -n "$SLURM_HOST" -o '%t' 2>/dev/null)
		[ "$st" = idle ] && return 0
		sleep 0.2
	done
	SLURM_WHY="node $SLURM_HOST not idle after ${max}s (sinfo: [${st}]): slurmctld: $(_slurm_tail "$d/slurmctld.log") slurmd: $(_slurm_tail "$d/slurmd.log")"
	return 1
}

# _slurm_steps: PIDs of the slurmstepd processes of our slurmd (their
# command line names no directory; their open files do: our spool).
_slurm_steps() {
	local p fd
	for p in $(pgrep -x slurmstepd 2>/dev/null); do
		for fd in /proc/"$p"/fd/*; do
			case $(readlink "$fd" 2>/dev/null) in "$SLURM_DIR"/*) echo "$p"; break ;; esac
		done
	done
}

slurm_stop() {
	[ -n "$SLURM_DIR" ] || return 0
	local i p
	if [ -n "${SLURM_CONF:-}" ] && _slurm_alive slurmctld 2>/dev/null; then
		timeout 10 scancel -u "$(id -un)" 2>/dev/null
		for i in $(seq 50); do
			[ -z "$(timeout 5 squeue -h 2>/dev/null)" ] && [ -z "$(_slurm_steps)" ] && break
			sleep 0.2
		done
	fi
	for p in $(_slurm_steps); do kill -KILL "$p" 2>/dev/null; done
	# slurmd, slurmctld, munged: the reverse of their start
	for ((i = ${#SLURM_PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${SLURM_PIDS[i]}"; done
	# out of T_PIDS too: cleanup must not signal a PID reused since
	local keep=() q
	for p in "${T_PIDS[@]}"; do
		for q in "${SLURM_PIDS[@]}"; do [ "$p" = "$q" ] && continue 2; done
		keep+=("$p")
	done
	T_PIDS=("${keep[@]}")
	SLURM_PIDS=()
	rm -rf "$SLURM_DIR"
	SLURM_DIR=''
	unset SLURM_CONF
}
