#!/usr/bin/env bash
# Interactive use, driven in a tmux pane: the prompt, completion of commands,
# register fields, key= parameters and other commands' words (fault kinds,
# bench's experiments, allow='s flags), Ctrl-C (abandons the line or stops a
# long command, the shell goes on), Ctrl-D (exit 0), the history file.
# Skipped (counted as a skip, with the reason) when tmux is not installed.
. "$(dirname "$0")/lib.sh"
if ! command -v tmux >/dev/null 2>&1; then
	skip "tmux not installed: interactive use not tried"
	finish
	exit
fi
SOCK="$T_TMP/tmux.sock"
H="$T_TMP/home"
mkdir -p "$H"
tm() { tmux -S "$SOCK" "$@"; }
kill_tmux() { tm kill-server >/dev/null 2>&1; }
# A new session on a server that is surely gone: a server still shutting
# down after kill-server takes the new session with it under load.
new_session() {
	local i
	tm kill-server >/dev/null 2>&1
	for i in $(seq 50); do tm has-session 2>/dev/null || break; sleep 0.1; done
	rm -f "$SOCK"
	for i in 1 2 3; do
		tm new-session -d -s dsh -x 150 -y 40 "$1" && sleep 0.2 && tm has-session 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}
trap 'kill_tmux; cleanup' EXIT
screen() { tm capture-pane -p -t dsh 2>/dev/null; }
# wait_screen NAME REGEX: poll the pane (at most 10 s) until REGEX matches.
wait_screen() {
	local i
	for i in $(seq 100); do
		if screen | grep -Eq -- "$2"; then pass; return 0; fi
		sleep 0.1
	done
	fail "$1: /$2/ not on screen: $(screen | grep -v '^$' | tail -n 5)"
	return 1
}
new_session \
	"env HOME='$H' TERM=xterm '$DSH' 2>&1; echo \"EXIT=\$?\" >'$T_TMP/exit'; sleep 60"
# (capture-pane drops trailing blanks: "dsh > " shows as "dsh >")
wait_screen "prompt" '^dsh >$' || { finish; exit 1; }
wait_screen "banner: program, version, backend, help" \
	"^dsh [0-9.]+: DIMMnet-2 shell on sim:nodes=2 \(embedded emulator in virtual time; 2 nodes, on node 1, WID 0\)\. 'help' lists"
# the prompt names the node when it is not the starting one
tm send-keys -t dsh 'node 2' Enter
wait_screen "prompt names node 2" '^dsh@2 >$'
tm send-keys -t dsh 'node 1' Enter
wait_screen "prompt back to default" '^dsh >$' 
# completion of a command name
tm send-keys -t dsh 'llcm_re' Tab
wait_screen "complete command" '^dsh > llcm_read$'
tm send-keys -t dsh '0 16' Enter   # the completion appended the blank
wait_screen "command ran" '^#4215c000: 0000000000000000 0000000000000000'
# completion of a register field
tm send-keys -t dsh 'reg ctl_status.status_e' Tab
wait_screen "complete field" '^dsh > reg ctl_status\.status_empty$'
tm send-keys -t dsh Enter
wait_screen "field read" 'ctl_status\.status_empty = 0x1'
# completion of a key= parameter, then Ctrl-C abandons the line
tm send-keys -t dsh 'prim VS si' Tab
wait_screen "complete key" '^dsh > prim VS size=$'
tm send-keys -t dsh C-c
tm send-keys -t dsh 'echo after-ctrl-c' Enter
wait_screen "Ctrl-C at the prompt keeps the shell" '^after-ctrl-c$'
if screen | grep -q 'cmd:'; then fail "the abandoned prim line ran"; else pass; fi
# completion of every command's words, from the command table (complete.c)
tm send-keys -t dsh 'fault dr' Tab
wait_screen "complete a fault kind" '^dsh > fault drop$'
tm send-keys -t dsh C-c
tm send-keys -t dsh 'bench E' Tab Tab
wait_screen "list the experiments" 'E1 +E2 +E3 +E4 +E5 +E6 +E7 +E8 +E9'
tm send-keys -t dsh C-c
tm send-keys -t dsh 'wait allow=status_f' Tab
wait_screen "complete a flag of allow=" '^dsh > wait allow=status_full$'
tm send-keys -t dsh C-c
tm send-keys -t dsh 'echo after-completion' Enter
wait_screen "abandoned completions ran nothing" '^after-completion$'
# Ctrl-C stops a long command, the shell goes on
tm send-keys -t dsh 'watch ctl_status 1ms 1000000' Enter
wait_screen "watch runs" 't=\+'
tm send-keys -t dsh C-c
wait_screen "watch interrupted" 'watch: interrupted after [0-9]+ of 1000000 samples'
tm send-keys -t dsh 'echo still-here' Enter
wait_screen "shell alive after interrupt" '^still-here$'
# the terminal's echoed ^C ends its line: the message starts a line of its own
if screen | grep -q '\^C.'; then fail "^C shares a line: $(screen | grep '\^C.')"; else pass; fi
# Ctrl-C stops bench all (between measurements), as other long commands
tm send-keys -t dsh C-l   # readline's clear-screen: the bench's lines alone on the pane
tm send-keys -t dsh 'bench all' Enter
wait_screen "bench runs" 'bench E1: [0-9.]+ s'
tm send-keys -t dsh C-c
wait_screen "bench interrupted" 'bench: bench E[0-9]: interrupted'
tm send-keys -t dsh 'echo after-bench' Enter
wait_screen "shell alive after the bench" '^after-bench$'
if screen | grep -q 'bench E9: [0-9.]* s'; then fail "bench all ran on to E9 after Ctrl-C"; else pass; fi
if screen | grep -q '\^C.'; then fail "^C shares a line after bench: $(screen | grep '\^C.')"; else pass; fi
# Ctrl-D: exit status 0 (failed commands do not change it interactively)
tm send-keys -t dsh 'frobnicate' Enter
wait_screen "error shown" "unknown command 'frobnicate'"
tm send-keys -t dsh C-d
for i in $(seq 100); do [ -s "$T_TMP/exit" ] && break; sleep 0.1; done
expect_eq "Ctrl-D exits 0" "EXIT=0" "$(cat "$T_TMP/exit" 2>/dev/null)"
# the history file holds the lines run, not the abandoned one
hist=$(cat "$H/.dsh_history" 2>/dev/null)
expect_match "history written" "^echo still-here$" "$hist"
if grep -q '^prim VS' <<<"$hist"; then fail "abandoned line in history"; else pass; fi

# ~/.dshrc runs at an interactive start; -i stays interactive after -c
printf 'set greeting hello-from-rc\n' >"$H/.dshrc"
rm -f "$T_TMP/exit"
new_session \
	"env HOME='$H' TERM=xterm '$DSH' -i -c 'echo from-c' 2>&1; echo \"EXIT=\$?\" >'$T_TMP/exit'; sleep 60"
wait_screen "-c ran before the prompt" '^from-c$'
tm send-keys -t dsh 'echo $greeting' Enter
wait_screen "rc file ran" '^hello-from-rc$'
tm send-keys -t dsh 'exit 4' Enter
for i in $(seq 100); do [ -s "$T_TMP/exit" ] && break; sleep 0.1; done
expect_eq "exit 4 at the prompt" "EXIT=4" "$(cat "$T_TMP/exit" 2>/dev/null)"

# make run: Ctrl-C at the prompt reaches dsh only; make does not fail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
rm -f "$T_TMP/exit"
new_session \
	"cd '$ROOT' && env HOME='$H' TERM=xterm make --no-print-directory run 2>&1; echo \"EXIT=\$?\" >'$T_TMP/exit'; sleep 60"
if wait_screen "make run: prompt" '^dsh >$'; then
	tm send-keys -t dsh C-c
	tm send-keys -t dsh 'echo after-ctrl-c' Enter
	wait_screen "make run: shell alive after Ctrl-C" '^after-ctrl-c$'
	tm send-keys -t dsh C-d
	for i in $(seq 100); do [ -s "$T_TMP/exit" ] && break; sleep 0.1; done
	expect_eq "make run: make exits 0 after Ctrl-C" "EXIT=0" "$(cat "$T_TMP/exit" 2>/dev/null)"
	if screen | grep -q 'Interrupt'; then fail "make reported an interrupt"; else pass; fi
fi
finish
