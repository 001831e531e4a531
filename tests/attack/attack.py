#!/usr/bin/env python3
"""Attacks on a live dnetd (issue 12, cases 1-11 and more), each while a
well-behaved client's register reads are timed.

    attack.py --bin BIN --tmp DIR [--bound-ms MS] [--worst-ms MS]
              [--other-uid-dir DIR] [NAME...]

Every attack starts its own dnetd (UNIX socket in DIR, or TCP on 127.0.0.1
with a token file), starts a probe -- a separate process, so that the
attacker's Python threads cannot slow it down -- that reads Controller
Status (0x40200) every 5 ms over its own connection, runs the attack, and
stops everything it started.  One line per attack:

    ok|FAIL NAME: N reads, median M ms, worst W ms[; details]
    SKIP NAME: why it cannot run here

A FAIL line says what did not hold.  An attack made as uid nobody (through
runuser, as root) needs --other-uid-dir: a directory nobody can reach that
holds a copy of this script; that daemon's socket goes there too.  Only
loopback and UNIX sockets; every loop and wait is bounded.
"""
import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

HDR = struct.Struct("<IHHI")
T_HELLO, T_READ, T_READ_BLOCK, T_WRITE_BLOCK = 0x1, 0x2, 0x4, 0x5
T_WAIT, T_DELAY, T_NOW, T_SODIMM_READ, T_ERROR = 0xA, 0xB, 0xC, 0xE, 0x80FF
CTL_STATUS = 0x40200
SREG = 0x50000
CAP_PRIVILEGED = 0x08
E_PERM, E_PROTO = 3, 8


# ---- the protocol (docs/protocol.md) ----

def connect(addr, timeout=5.0, src=None):
    if addr.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(addr[5:])
    else:
        host, port = addr[4:].rsplit(":", 1)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(timeout)
        if src:
            s.bind((src, 0))
        s.connect((host, int(port)))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


# Protocol 2.0: a request that acts on a node names it before its payload
# (D-NODE-HANDLE); frames name the node of the last session's HELLO.
NODED = {0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0xA, 0xB, 0xC, 0xD, 0xE, 0xF, 0x10}
_node = 1


def frame(t, i, p=b""):
    if t in NODED:
        p = struct.pack("<I", _node) + p
    return HDR.pack(len(p), t, 0, i) + p


def hello(node=1, wid=0, priv=1, token=b""):
    global _node
    _node = node or 1
    return frame(T_HELLO, 1, b"DNET" + struct.pack("<HHIBBH", 2, 0, node, wid, priv, len(token)) + token)


def read_req(i, off=CTL_STATUS, width=8):
    return frame(T_READ, i, struct.pack("<IB3x", off, width))


def wait_req(i, off, cond, mask, value, timeout_ns):
    return frame(T_WAIT, i, struct.pack("<IIQQQ", off, cond, mask, value, timeout_ns))


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            return None
        b += c
    return b


def reply(s):
    h = recv_exact(s, 12)
    if h is None:
        return None
    n, t, _f, i = HDR.unpack(h)
    p = recv_exact(s, n) if n else b""
    if p is None:
        return None
    return t, i, p


def err_code(r):
    return struct.unpack("<I", r[2][:4])[0] if r and r[0] == T_ERROR else None


def session(addr, node=1, wid=0, priv=1, token=b"", timeout=5.0, src=None):
    """A connection that said HELLO; (socket, hello reply)."""
    s = connect(addr, timeout, src)
    s.sendall(hello(node, wid, priv, token))
    return s, reply(s)


# ---- the probe: a well-behaved client, in its own process ----

def probe_main(addr, node, token):
    """Read ctl_status every 5 ms until stdin closes; print the round trips (ms)."""
    import select
    s, r = session(addr, node=node, priv=0, token=token.encode(), timeout=10)
    if not r or r[0] != (T_HELLO | 0x8000):
        print("probe: HELLO refused: %r" % (r,), flush=True)
        return 1
    print("ready", flush=True)
    rtt, fails, i = [], 0, 1
    while True:
        rd, _, _ = select.select([sys.stdin], [], [], 0.005)
        if rd:
            break
        i += 1
        t0 = time.monotonic()
        try:
            s.sendall(read_req(i))
            r = reply(s)
            ok = r is not None and r[0] == (T_READ | 0x8000) and r[1] == i
        except OSError:
            ok = False
        rtt.append((time.monotonic() - t0) * 1000.0)
        if not ok:
            fails += 1
            try:
                s.close()
                s, r = session(addr, node=node, priv=0, token=token.encode(), timeout=10)
            except OSError:
                time.sleep(0.05)
    print("fails %d" % fails)
    print(" ".join("%.3f" % x for x in rtt), flush=True)
    return 0


class Probe:
    def __init__(self, addr, node=1, token=""):
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--probe", addr, str(node), token],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline().strip()
        if line != "ready":
            self.p.kill()
            raise RuntimeError("probe did not start: %s" % line)

    def stop(self):
        try:
            out, _ = self.p.communicate(timeout=30)  # closes stdin: the probe stops
        except subprocess.TimeoutExpired:
            self.p.kill()
            return [], 1
        lines = out.splitlines()
        fails = int(lines[0].split()[1]) if lines else 1
        rtt = [float(x) for x in lines[1].split()] if len(lines) > 1 else []
        return rtt, fails


# ---- daemons ----

class Env:
    def __init__(self, bindir, tmp, other_uid_dir=None):
        self.bin, self.tmp, self.other_uid_dir = bindir, tmp, other_uid_dir
        self.procs = []
        self.n = 0

    def dnetd(self, *args, tcp=False, token=None, ulimit_n=None, log=None, sockdir=None):
        """Start a dnetd; returns (process, address)."""
        self.n += 1
        log = log or os.path.join(self.tmp, "dnetd%d.log" % self.n)
        argv = [os.path.join(self.bin, "dnetd"), "--sim", "-N", "3"]
        if tcp:
            tf = os.path.join(self.tmp, "token%d" % self.n)
            with open(tf, "w") as f:
                f.write(token + "\n")
            os.chmod(tf, 0o600)
            argv += ["--listen", "tcp:127.0.0.1:0", "--token-file", tf]
            addr = None
        else:
            addr = "unix:" + os.path.join(sockdir or self.tmp, "a%d.sock" % self.n)
            argv += ["--listen", addr]
        argv += list(args)

        def pre():
            if ulimit_n:
                import resource
                resource.setrlimit(resource.RLIMIT_NOFILE, (ulimit_n, ulimit_n))
        out = open(log, "w")
        # Under ASan freed memory waits in a quarantine (256 MB by default):
        # keep it small so that the daemon's size says what it holds.
        env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=16")
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, preexec_fn=pre, env=env)
        out.close()
        p.log = log
        self.procs.append(p)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = open(log).read()
            if "serving" in text:
                if tcp:
                    import re
                    addr = re.search(r"tcp:127\.0\.0\.1:[0-9]+", text).group(0)
                return p, addr
            if p.poll() is not None:
                raise RuntimeError("dnetd exited: %s" % text)
            time.sleep(0.02)
        raise RuntimeError("dnetd did not start: %s" % open(log).read())

    def stop(self, p):
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def stop_all(self):
        for p in self.procs:
            self.stop(p)

    def dsh(self, addr, cmds, timeout=30, extra=(), node=1, pre=None):
        argv = [os.path.join(self.bin, "dsh")] + list(extra) + ["-b", "remote:%s,node=%d" % (addr, node), "-c", cmds]
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                              preexec_fn=pre)


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return int(v[11]) + int(v[12])


def hold(seconds):
    time.sleep(seconds)


def closeall(socks):
    for s in socks:
        try:
            s.close()
        except OSError:
            pass


# ---- the attacks: each returns a list of problems (empty: it held) and notes ----
# Each gets (env, addr of a fresh daemon, its process); the probe runs on node 3.

def a_long_wait(env, addr, d):
    """1: eight 4 GiB RVS queued, then a wait on a never-true condition."""
    t0 = time.monotonic()
    r = env.dsh(addr, "repeat 8; prim RVS dl=2 size=0xfffffff0 src=0 dst=0 force; end; "
                "wait ctl_status == 0 timeout=2s", timeout=60)
    el = time.monotonic() - t0
    note = "attacker's wait ended after %.1f s (exit %d)" % (el, r.returncode)
    return [], note


def a_grown_slice(env, addr, d):
    """1b: a never-true wait beside one 4 GiB RVS, its slices grown while the
    work was light; then another client queues eight 4 GiB RVS: the next
    slice must not run them all at once."""
    env.dsh(addr, "prim RVS dl=2 size=0xfffffff0 src=0 dst=0 force", timeout=60)
    w, r = session(addr, node=1)
    w.sendall(wait_req(2, CTL_STATUS, 1, 0, 0, 60 * 10**9))  # (x & 0) != 0: never
    time.sleep(0.5)
    r = env.dsh(addr, "repeat 8; prim RVS dl=2 size=0xfffffff0 src=0 dst=0 force; end", timeout=60, node=2)
    hold(2.0)
    w.close()
    return [], "queued by node 2: exit %d" % r.returncode


def a_many_waiters(env, addr, d):
    """1c: eight 4 GiB RVS queued, then 24 clients each wait on a never-true
    condition at once (the loop must not give each of them its full slice
    budget in every turn)."""
    env.dsh(addr, "repeat 8; prim RVS dl=2 size=0xfffffff0 src=0 dst=0 force; end", timeout=60)
    socks = []
    for k in range(24):
        s, r = session(addr, node=1 + k % 2)
        s.sendall(wait_req(2, CTL_STATUS, 1, 0, 0, 60 * 10**9))
        socks.append(s)
    hold(2.5)
    closeall(socks)
    return [], "24 waiters"


def a_delay_max(env, addr, d):
    """2: DELAY 2^64-1 ns refused; the virtual clock still moves afterwards."""
    probs = []
    s, r = session(addr, node=1, priv=0)
    s.sendall(frame(T_DELAY, 2, struct.pack("<Q", (1 << 64) - 1)))
    r = reply(s)
    if not r or r[0] != T_ERROR:
        probs.append("DELAY 2^64-1 not refused: %r" % (r,))
    s.sendall(frame(T_NOW, 3))
    r = reply(s)
    now = struct.unpack("<Q", r[2])[0] if r and len(r[2]) == 8 else None
    if now is None or now >= 1 << 62:
        probs.append("clock after the DELAY: %r" % now)
    out = env.dsh(addr, "prim RVS dl=2 size=4096 src=0 dst=0x1000 wait; stat vtime_ns", timeout=30)
    if out.returncode != 0:
        probs.append("a primitive after it failed: %s" % out.stderr.decode(errors="replace")[:200])
    s.close()
    return probs, "refused; clock at %s ns" % now


def until_admitted(addr, secs):
    """Try a new client's HELLO every 0.1 s for up to secs: (admitted, tries, seconds)."""
    t0 = time.monotonic()
    ok, tries = False, 0
    while time.monotonic() - t0 < secs and not ok:
        tries += 1
        try:
            s, r = session(addr, node=1, priv=0)
            ok = r is not None and r[0] == (T_HELLO | 0x8000)
            s.close()
        except OSError:
            pass
        if not ok:
            time.sleep(0.1)
    return ok, tries, time.monotonic() - t0


def a_silent(env, addr, d):
    """4: 80 sockets connect and say nothing (max-clients 64): a real client
    is served within the grace logic (the oldest silent one makes room)."""
    socks = []
    for k in range(80):
        try:
            socks.append(connect(addr))
        except OSError:
            pass
    hold(1.3)
    ok, tries, el = until_admitted(addr, 5)
    el *= 1000
    closeall(socks)
    return ([] if ok else ["no HELLO answered beside 80 silent sockets within 5 s"]), \
        "a new client admitted after %.0f ms (%d tries)" % (el, tries)


def a_idle(env, addr, d):
    """4b: 70 clients say HELLO and then nothing (dnetd --idle-timeout 1s):
    a new client is admitted once they time out; the probe stays served."""
    socks = []
    refused = 0
    for k in range(70):
        try:
            s, r = session(addr, node=1, priv=0)
            if r and r[0] == (T_HELLO | 0x8000):
                socks.append(s)
            else:
                refused += 1
                s.close()
        except OSError:
            refused += 1
    t0 = time.monotonic()
    ok = False
    while time.monotonic() - t0 < 6 and not ok:
        try:
            s, r = session(addr, node=1, priv=0)
            ok = r is not None and r[0] == (T_HELLO | 0x8000)
            s.close()
        except OSError:
            pass
        if not ok:
            time.sleep(0.1)
    el = time.monotonic() - t0
    closeall(socks)
    return ([] if ok else ["no new client admitted within 6 s beside 70 idle ones"]), \
        "%d idle held, %d refused; a new client admitted after %.1f s" % (len(socks), refused, el)


def a_idle_hello(env, addr, d):
    """4c: 64 clients say HELLO and then nothing, with no --idle-timeout
    (the default): once the table is full, a new client replaces the one
    idle longest (--idle-evict 1s here, 60 s by default), which is told why;
    the probe, never idle, keeps its place."""
    socks = []
    for k in range(64):
        try:
            s, r = session(addr, node=1, priv=0)
            if r and r[0] == (T_HELLO | 0x8000):
                socks.append(s)
            else:
                s.close()
        except OSError:
            pass
    ok, tries, el = until_admitted(addr, 6)
    # the client that made room was told so
    told = ""
    for s in socks:
        s.settimeout(0.01)
        try:
            r = reply(s)
        except OSError:
            continue
        if r and r[0] == T_ERROR:
            told = r[2][6:].decode(errors="replace")
            break
    closeall(socks)
    probs = [] if ok else ["no new client admitted within 6 s beside %d idle ones" % len(socks)]
    if ok and "idle" not in told:
        probs.append("the client dropped was not told why: %r" % told)
    if ok and "idle-evict" not in open(d.log).read():
        probs.append("the eviction was not logged")
    return probs, "%d idle held; a new client admitted after %.1f s (%d tries)" % (len(socks), el, tries)


def a_vclock(env, addr, d):
    """12: one peer (127.0.0.2) tries to push the shared virtual clock to its
    end for 2 s, reconnecting for every try: DELAY 2^61 ns, DELAY 59 min,
    a never-true WAIT of 2^61 ns.  Its budget (--vtime-budget, 1 h refilled
    per minute) stops it; a client from 127.0.0.1 then runs a primitive and
    reads a sane virtual time."""
    tok = env.token.encode()
    stop = time.monotonic() + 2.0
    ok = refused = 0
    while time.monotonic() < stop:
        try:
            s, r = session(addr, node=1, priv=0, token=tok, src="127.0.0.2")
        except OSError:
            time.sleep(0.01)
            continue
        reqs = (frame(T_DELAY, 2, struct.pack("<Q", 1 << 61)),
                frame(T_DELAY, 3, struct.pack("<Q", 3540 * 10**9)),
                wait_req(4, CTL_STATUS, 1, 0, 0, 1 << 61))
        for q in reqs:
            try:
                s.sendall(q)
                r = reply(s)
            except OSError:
                r = None
            if r and r[0] == T_ERROR:
                refused += 1
            elif r:
                ok += 1
        s.close()
    s, r = session(addr, node=2, priv=0, token=tok)
    s.sendall(frame(T_NOW, 2))
    r = reply(s)
    s.close()
    now = struct.unpack("<Q", r[2])[0] if r and len(r[2]) == 8 else None
    probs = []
    if now is None or now > 2 * 3600 * 10**9:
        probs.append("the clock after the attack: %r ns" % now)
    out = subprocess.run([os.path.join(env.bin, "dsh"), "-b", "remote:%s,node=1,token=%s" % (addr, env.token), "-c",
                          "prim RVS dl=2 size=4096 src=0 dst=0x1000 wait; stat vtime_ns"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    txt = out.stdout.decode(errors="replace")
    vt = int(txt.split("vtime_ns")[-1].split()[0]) if "vtime_ns" in txt else None
    if out.returncode != 0 or vt is None or vt > 2 * 3600 * 10**9:
        probs.append("a primitive after it: exit %d, %r %r" % (out.returncode, txt[-80:],
                                                               out.stderr.decode(errors="replace")[:200]))
    return probs, "%d pushes granted, %d refused; clock then %.1f min, a primitive after it ends at %.1f min" % (
        ok, refused, (now or 0) / 6e10, (vt or 0) / 6e10)


def a_privilege(env, addr, d):
    """5: a HELLO asking for privilege is served as a user when the peer's uid
    is not root or the daemon's (run as uid nobody through --socket-group)."""
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    script = os.path.join(env.other_uid_dir, os.path.basename(__file__))
    r = subprocess.run(["runuser", "-u", "nobody", "--", py, script, "--as-user", addr],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
    out = r.stdout.decode(errors="replace").strip()
    return ([] if out == "confined" else ["uid nobody: %s" % out]), "uid nobody asked for privilege: %s" % out


def as_user_main(addr):
    s, r = session(addr, node=1, priv=1)
    if not r or r[0] != (T_HELLO | 0x8000):
        print("HELLO refused %r" % (r,))
        return 1
    caps = struct.unpack("<I", r[2][12:16])[0]
    if caps & CAP_PRIVILEGED:
        print("granted PRIVILEGED (caps 0x%x)" % caps)
        return 1
    s.sendall(read_req(2, SREG, 8))
    e1 = err_code(reply(s))
    s.sendall(frame(T_SODIMM_READ, 3, struct.pack("<QI4x", 0, 64)))
    e2 = err_code(reply(s))
    print("confined" if e1 == E_PERM and e2 == E_PERM else "System Register %r, SO-DIMM %r" % (e1, e2))
    return 0


def a_tokens(env, addr, d):
    """7: 32 connections guess tokens in a loop for 3 s: failures are delayed
    and logged, the right token still gets in at once."""
    stop = time.monotonic() + 3.0
    answered = [0]
    lock = threading.Lock()

    def guesser(k):
        n = 0
        while time.monotonic() < stop:
            try:
                s, r = session(addr, node=1, token=b"guess-%d-%d" % (k, n), timeout=4)
                s.close()
                if r and r[0] == T_ERROR:
                    with lock:
                        answered[0] += 1
            except OSError:
                time.sleep(0.01)
            n += 1
    th = [threading.Thread(target=guesser, args=(k,)) for k in range(32)]
    for t in th:
        t.start()
    time.sleep(1.0)
    t0 = time.monotonic()
    ok = False
    try:
        s, r = session(addr, node=1, token=env.token.encode(), timeout=5)
        ok = r is not None and r[0] == (T_HELLO | 0x8000)
        s.close()
    except OSError:
        pass
    right_ms = (time.monotonic() - t0) * 1000
    for t in th:
        t.join(10)
    rate = answered[0] / 3.0
    probs = []
    if rate > 20:
        probs.append("%.0f wrong tokens answered per second" % rate)
    if not ok:
        probs.append("the right token was refused during the attack")
    logged = open(d.log).read().count("bad token")
    if logged == 0:
        probs.append("failed tokens not logged")
    return probs, "%.1f wrong tokens answered/s; right token in %.0f ms; %d log lines" % (rate, right_ms, logged)


def a_pidfile(env, addr, d):
    """8: a pid file that is a symlink (or a FIFO) is refused, its target untouched."""
    probs = []
    env.n += 1
    victim = os.path.join(env.tmp, "victim%d" % env.n)
    with open(victim, "w") as f:
        f.write("keep\n")
    link = os.path.join(env.tmp, "pid%d.link" % env.n)
    os.symlink(victim, link)
    fifo = os.path.join(env.tmp, "pid%d.fifo" % env.n)
    os.mkfifo(fifo)
    for what, path in (("symlink", link), ("fifo", fifo)):
        r = subprocess.run([os.path.join(env.bin, "dnetd"), "--sim", "--listen", "unix:" + env.tmp + "/pf.sock",
                            "--pidfile", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
        if r.returncode != 1:
            probs.append("pid file %s: exit %d" % (what, r.returncode))
    if open(victim).read() != "keep\n":
        probs.append("the symlink's target was written")
    return probs, "symlink and FIFO refused"


def a_slow_readers(env, addr, d):
    """9: 60 clients pipeline 256 KiB reads and never read the replies: the
    daemon's memory stays bounded (1 MiB per client, 64 MiB in all)."""
    before = rss_kb(d.pid)
    socks = []
    req = b"".join(frame(T_SODIMM_READ, 2 + k, struct.pack("<QI4x", 0, 0x40000)) for k in range(24))
    for k in range(60):
        try:
            s, r = session(addr, node=1 + k % 3)
            s.setblocking(False)
            try:
                s.send(req)
            except OSError:
                pass
            socks.append(s)
        except OSError:
            pass
    hold(2.5)
    peak = rss_kb(d.pid)
    closeall(socks)
    grow = (peak - before) / 1024.0
    limit = 160 if "build-san" in env.bin else 100  # ASan: redzones and quarantine
    probs = ["daemon grew by %.0f MB (> %d)" % (grow, limit)] if grow > limit else []
    return probs, "%d slow readers: daemon RSS +%.0f MB" % (len(socks), grow)


def a_huge_frame(env, addr, d):
    """9b: frames claiming 4 GiB (and one byte over the maximum) are refused
    with ERROR and a close, before and after HELLO."""
    probs = []
    for k in range(40):
        after = k % 2 == 1
        s = connect(addr)
        if after:
            s.sendall(hello(priv=0))
            reply(s)
        s.sendall(struct.pack("<IHHI", 0xFFFFFFFF if k % 4 < 2 else 0x80001, T_WRITE_BLOCK, 0, 9))
        r = reply(s)
        if err_code(r) != E_PROTO:
            probs.append("4 GiB frame answered %r" % (r,))
            break
        try:
            if reply(s) is not None:
                probs.append("connection not closed after a 4 GiB frame")
                break
        except OSError:
            pass
        s.close()
    return probs, "40 oversize frames refused"


def a_half_frames(env, addr, d):
    """9c: 50 clients send HELLO and the first 100 bytes of a 512 KiB frame,
    then nothing: memory stays bounded, a new client is admitted."""
    before = rss_kb(d.pid)
    socks = []
    for k in range(50):
        s, r = session(addr, node=1, priv=0)
        s.sendall(struct.pack("<IHHI", 0x80000, T_WRITE_BLOCK, 0, 2) + b"\0" * 100)
        socks.append(s)
    hold(1.5)
    peak = rss_kb(d.pid)
    s, r = session(addr, node=1, priv=0)
    ok = r is not None and r[0] == (T_HELLO | 0x8000)
    s.close()
    closeall(socks)
    grow = (peak - before) / 1024.0
    probs = [] if ok else ["a new client refused beside 50 half-sent frames: %r" % (r,)]
    if grow > 64:
        probs.append("daemon grew by %.0f MB" % grow)
    return probs, "daemon RSS +%.0f MB" % grow


def limit_as(mb):
    def pre():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    return pre


def a_source_zero(env, addr, d):
    """10: `source /dev/zero` in dsh (remote backend) under a memory limit
    fails loudly and quickly."""
    san = "build-san" in env.bin
    t0 = time.monotonic()
    r = env.dsh(addr, "source /dev/zero", timeout=60, pre=None if san else limit_as(512))
    el = time.monotonic() - t0
    err = r.stderr.decode(errors="replace").strip().splitlines()
    probs = []
    if r.returncode == 0:
        probs.append("exit 0")
    if not err or "/dev/zero" not in err[0]:
        probs.append("no message naming /dev/zero: %r" % err[:1])
    return probs, "exit %d after %.1f s: %s" % (r.returncode, el, err[0][:90] if err else "")


def a_c1_bytes(env, addr, d):
    """11: C1 (0x9b) and ESC bytes never reach the terminal raw, whether dsh
    or the daemon (an unknown STAT name) words the message."""
    probs = []
    # (bytes of the -c argument, what stderr must say: the message came from
    # dsh's check, from dsh, or from the daemon through the protocol)
    cases = ((b"frob\x9b[31m\x1b[2J", b"control character"),
             (b"frob\xc2\x9b[31m", b"unknown command"),
             (b"stat vtime\xc2\x9b[2Jx", b"no statistic"))
    for cmd, why in cases:
        r = subprocess.run([os.path.join(env.bin, "dsh").encode(), b"-b", ("remote:" + addr).encode(), b"-c", cmd],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        if b"\x9b" in r.stderr or b"\x1b" in r.stderr:
            probs.append("raw control byte in %r" % r.stderr[:120])
        if why not in r.stderr:
            probs.append("%r: no %r in %r" % (cmd, why, r.stderr[:120]))
    # the daemon's own message for a STAT name with a raw C1 byte (a raw client)
    sk, _ = session(addr, node=1, priv=0)
    name = b"vtime\x9b\x1b[2J"
    sk.sendall(frame(0x10, 2, struct.pack("<H", len(name)) + name))
    r = reply(sk)
    sk.close()
    if not r or r[0] != T_ERROR:
        probs.append("STAT of a C1 name answered %r" % (r,))
    return probs, "escaped in dsh's check, dsh's and the daemon's messages"


def a_repeat(env, addr, d):
    """11b: nested repeat of 10^16 register reads through the daemon, stopped
    by --max-time 2s; the daemon serves the probe fairly meanwhile."""
    t0 = time.monotonic()
    r = env.dsh(addr, "repeat 100000000; repeat 100000000; reg ctl_status; end; end", timeout=60,
                extra=("--max-time", "2s"))
    el = time.monotonic() - t0
    probs = []
    if r.returncode != 1 or el > 10:
        probs.append("exit %d after %.1f s" % (r.returncode, el))
    return probs, "stopped after %.1f s (exit %d)" % (el, r.returncode)


def a_emfile(env, addr, d):
    """3: dnetd with ulimit -n 64; 150 connections held: no spin, refused
    clients told so, the probe served; after they go, a new client is served."""
    socks = []
    for k in range(150):
        try:
            socks.append(connect(addr, timeout=2))
        except OSError:
            pass
    time.sleep(0.3)
    c0 = cpu_ticks(d.pid)
    hold(1.5)
    ticks = cpu_ticks(d.pid) - c0
    closeall(socks)
    time.sleep(0.3)
    ok = False
    try:
        s, r = session(addr, node=1, priv=0)
        ok = r is not None and r[0] == (T_HELLO | 0x8000)
        s.close()
    except OSError:
        pass
    probs = []
    hz = os.sysconf("SC_CLK_TCK")
    if ticks > 0.5 * 1.5 * hz:
        probs.append("dnetd used %d ticks of CPU in 1.5 s at its fd limit" % ticks)
    if not ok:
        probs.append("no client served after the flood")
    return probs, "%d connections; %.0f%% CPU while at the limit" % (len(socks), 100.0 * ticks / hz / 1.5)


def a_churn(env, addr, d):
    """More: 1500 connections opened and closed as fast as 4 threads can
    (half of them after a HELLO)."""
    cnt = [0]

    def churn(k):
        for n in range(375):
            try:
                if n % 2:
                    s, r = session(addr, node=1, priv=0)
                else:
                    s = connect(addr)
                s.close()
                cnt[0] += 1
            except OSError:
                pass
    th = [threading.Thread(target=churn, args=(k,)) for k in range(4)]
    for t in th:
        t.start()
    for t in th:
        t.join(60)
    return [], "%d connections" % cnt[0]


def a_flood(env, addr, d):
    """More: 8 clients each keep 200 reads in flight for 2.5 s."""
    stop = time.monotonic() + 2.5
    cnt = [0] * 8

    def flood(k):
        s, r = session(addr, node=1 + k % 2)
        batch = b"".join(read_req(10 + j) for j in range(200))
        while time.monotonic() < stop:
            s.sendall(batch)
            for j in range(200):
                if reply(s) is None:
                    return
            cnt[k] += 200
        s.close()
    th = [threading.Thread(target=flood, args=(k,)) for k in range(8)]
    for t in th:
        t.start()
    for t in th:
        t.join(30)
    return [], "%d reads by the flooders" % sum(cnt)


def a_garbage(env, addr, d):
    """More: 200 connections of random bytes (some after a HELLO)."""
    import random
    rnd = random.Random(12)
    for k in range(200):
        try:
            s = connect(addr, timeout=2)
            if k % 2:
                s.sendall(hello(priv=0))
            s.sendall(bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(1, 600))))
            s.shutdown(socket.SHUT_WR)
            while reply(s):
                pass
        except (OSError, struct.error):
            pass
        s.close()
    return [], "200 connections of garbage"


# name: (function, daemon options, description)
ATTACKS = [
    ("long-wait", a_long_wait, {}),
    ("grown-slice", a_grown_slice, {}),
    ("many-waiters", a_many_waiters, {}),
    ("delay-2^64", a_delay_max, {"loop": True}),
    ("emfile", a_emfile, {"ulimit_n": 64}),
    ("silent-sockets", a_silent, {}),
    ("idle-clients", a_idle, {"args": ["--idle-timeout", "1s"]}),
    ("idle-hello", a_idle_hello, {"args": ["--idle-evict", "1s"]}),
    ("vclock-push", a_vclock, {"tcp": True}),
    ("privilege-claim", a_privilege, {"args": ["--socket-group", "nogroup"], "other_uid": True}),
    ("wrong-tokens", a_tokens, {"tcp": True}),
    ("pidfile", a_pidfile, {"loop": True}),
    ("slow-readers", a_slow_readers, {}),
    ("huge-frames", a_huge_frame, {"loop": True}),
    ("half-frames", a_half_frames, {}),
    ("source-zero", a_source_zero, {}),
    ("c1-bytes", a_c1_bytes, {"loop": True}),
    ("nested-repeat", a_repeat, {}),
    ("churn", a_churn, {"loop": True}),
    ("read-flood", a_flood, {}),
    ("garbage", a_garbage, {"loop": True}),
]


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--bound-ms", type=float, default=10.0, help="bound on the probe's median read")
    ap.add_argument("--worst-ms", type=float, default=0, help="bound on the probe's worst read (0: none)")
    ap.add_argument("--other-uid-dir", help="reachable by uid nobody, with a copy of this script")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args(argv)
    env = Env(a.bin, a.tmp, a.other_uid_dir)
    env.token = "tok-%d" % os.getpid()
    chosen = [x for x in ATTACKS if not a.names or x[0] in a.names]
    bad = 0
    try:
        for name, fn, opt in chosen:
            try:
                tcp = opt.get("tcp", False)
                other = opt.get("other_uid", False)
                if other and (os.geteuid() != 0 or not a.other_uid_dir):
                    print("SKIP %s: %s: needs uid nobody through runuser" % (
                        name, "not root" if os.geteuid() != 0 else "no --other-uid-dir"), flush=True)
                    continue
                d, addr = env.dnetd(*opt.get("args", []), tcp=tcp, token=env.token if tcp else None,
                                    ulimit_n=opt.get("ulimit_n"), sockdir=a.other_uid_dir if other else None)
                probe = Probe(addr, node=3, token=env.token if tcp else "")
                t0 = time.monotonic()
                try:
                    # a quick attack is repeated for 1 s: the probe needs several reads
                    runs = 0
                    while True:
                        probs, note = fn(env, addr, d)
                        runs += 1
                        if probs or not opt.get("loop") or time.monotonic() - t0 >= 1.0 or runs >= 50:
                            break
                    if runs > 1:
                        note += " (x%d)" % runs
                finally:
                    rtt, pfails = probe.stop()
                secs = time.monotonic() - t0
                if d.poll() is not None:
                    probs.append("dnetd exited (status %s)" % d.returncode)
                env.stop(d)
                log = open(d.log, errors="replace").read()
                if "Sanitizer" in log or "runtime error" in log:
                    probs.append("sanitizer report: %s" % log[log.find("ERROR"):][:300])
            except Exception as e:  # noqa: BLE001 - report, go on with the next
                probs, note, rtt, pfails, secs = ["%s: %s" % (type(e).__name__, e)], "", [], 0, 0
            med = statistics.median(rtt) if rtt else float("nan")
            worst = max(rtt) if rtt else float("nan")
            if pfails:
                probs.append("the probe's reads failed %d times" % pfails)
            if rtt and med > a.bound_ms:
                probs.append("median read %.2f ms > %.0f ms" % (med, a.bound_ms))
            if rtt and a.worst_ms and worst > a.worst_ms:
                probs.append("worst read %.1f ms > %.0f ms" % (worst, a.worst_ms))
            if not rtt and not probs:
                probs.append("no read measured")
            bad += bool(probs)
            print("%s %s: %d reads in %.1f s, median %.2f ms, worst %.1f ms; %s%s" % (
                "FAIL" if probs else "ok", name, len(rtt), secs, med, worst, note,
                "; " + "; ".join(probs) if probs else ""), flush=True)
    finally:
        env.stop_all()
    return 1 if bad else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if len(sys.argv) > 1 and sys.argv[1] == "--probe":
        sys.exit(probe_main(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else ""))
    if len(sys.argv) > 1 and sys.argv[1] == "--as-user":
        sys.exit(as_user_main(sys.argv[2]))
    sys.exit(main(sys.argv[1:]))
