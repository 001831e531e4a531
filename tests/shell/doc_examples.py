#!/usr/bin/env python3
"""Extract every example of README.md and man/*.[1358] and run it.

Driven by tests/shell/test_doc_examples.sh, which holds the marker
convention (its header), the tables (not here, pending, plain only,
substitutions, provided files) and turns the lines printed here into passes,
failures and skips:

    PASS<TAB>FILE:LINE<TAB>what
    FAIL<TAB>FILE:LINE<TAB>why      followed by detail lines "  | ..."
    SKIP<TAB>FILE:LINE<TAB>reason
    NOTE<TAB>FILE:LINE<TAB>text     (a block marked not to run: not counted)

usage: doc_examples.py ROOT BIN TABLES [--san] [--check-only] FILE...
(--check-only: the markers, the tables and the inline commands, no block run)
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT = 120       # s, one command: a hang, not slowness (the slowest takes 10 s on an idle machine)
BG_WAIT = 10        # s, a background command's socket to appear
ANY = '<...>'       # in shown output: any text within the line


def out(kind, loc, text, detail=()):
    print(f'{kind}\t{loc}\t{text}')
    for d in detail:
        print(f'  | {d}')
    sys.stdout.flush()


class Example:
    """One block: kind 'sh' (commands), 'console' ($ commands and their
    shown output), 'session' (a dsh transcript), 'script' (a dsh script),
    'python' (a program using the dnet package), 'file' (a file later
    blocks of the page use), 'text' (not run)."""

    def __init__(self, path, line, kind, arg=''):
        self.path, self.line, self.kind, self.arg = path, line, kind, arg
        self.lines = []     # (line number, text) of the content

    def loc(self, n=None):
        return f'{self.path}:{self.line if n is None else n}'


def strip_comment(cmd):
    """The command without a trailing shell comment (# after a blank,
    outside quotes)."""
    q = None
    prev = ' '
    for i, c in enumerate(cmd):
        if q:
            if c == q:
                q = None
        elif c in '\'"':
            q = c
        elif c == '#' and prev in ' \t':
            return cmd[:i].rstrip()
        prev = c
    return cmd.rstrip()


def commands(ex, prompt):
    """(line, command, shown output lines) of a block: with prompt '$ ',
    lines after a command are its output; without, every line is a command
    (comment-only and blank lines skipped).  A line ending in a backslash
    continues on the next."""
    res = []
    errors = []
    cur = None
    cont = False
    for n, t in ex.lines:
        if cont:
            cur[1] = cur[1][:-1].rstrip() + ' ' + t.strip()
            cont = t.endswith('\\')
            continue
        if prompt:
            if t.startswith(prompt):
                cur = [n, t[len(prompt):], []]
                res.append(cur)
                cont = cur[1].endswith('\\')
            elif cur is None:
                if t.strip():
                    errors.append((n, f"'{t}' before the first '{prompt.strip()}' command line"))
            else:
                cur[2].append(t)
        else:
            if not t.strip() or t.lstrip().startswith('#'):
                continue
            cur = [n, t.strip(), []]
            res.append(cur)
            cont = cur[1].endswith('\\')
    for c in res:
        c[1] = strip_comment(c[1])
        while c[2] and not c[2][-1].strip():
            c[2].pop()
    return res, errors


# ---- Markdown --------------------------------------------------------------
FENCE = re.compile(r'^( *)```(.*)$')
NOT_RUN = re.compile(r'^\s*<!-- not run: (.+?) -->\s*$')
# An inline code span in prose that reads as a command: a program of the
# toolkit with arguments, a make target, a tool the README has you run.
COMMAND_SPAN = re.compile(r'^(sudo )?((bin/)?(dsh|dsh-run|dnetd) [^\s>]|make \S|mpirun |dmesg\b|scripts/\S+\.sh\b|echo .*>\s*/)')
MD_KINDS = {'sh': 'sh', 'console': 'console', 'dsh': 'session', 'python': 'python', 'text': 'text'}


def inline_commands(rel, lineno, spans, exs):
    """The spans of one line of prose that read as a command, as examples."""
    for span in spans:
        if COMMAND_SPAN.match(span):
            ex = Example(rel, lineno, 'inline')
            ex.lines = [(lineno, span)]
            exs.append(ex)


def parse_md(path, rel):
    exs, errors = [], []
    lines = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            inline_commands(rel, i + 1, re.findall(r'`([^`]+)`', lines[i]), exs)
            i += 1
            continue
        indent, info = len(m.group(1)), m.group(2).strip()
        start = i + 1
        tag = info.split()[0] if info else ''
        kind = MD_KINDS.get(tag)
        ex = Example(rel, start, kind or 'bad', ' '.join(info.split()[1:]))
        i += 1
        while i < len(lines) and not re.match(r'^ *```\s*$', lines[i]):
            ex.lines.append((i + 1, lines[i][indent:] if lines[i][:indent].strip() == '' else lines[i]))
            i += 1
        if i >= len(lines):
            errors.append((f'{rel}:{start}', 'a fenced block that is never closed'))
            break
        i += 1
        if kind is None:
            errors.append((f'{rel}:{start}', f"fenced block without a marker ('```{info}'): tag it "
                           "```sh (commands), ```console ($ commands and their output), ```dsh "
                           "(a dsh > transcript), ```python (a program of the dnet package) or ```text with '<!-- not run: REASON -->' on the line before"))
            continue
        if kind == 'text':
            prev = lines[start - 2] if start >= 2 else ''
            r = NOT_RUN.match(prev)
            if not r:
                errors.append((f'{rel}:{start}', "```text block without '<!-- not run: REASON -->' on the line before"))
                continue
            ex.arg = r.group(1)
        exs.append(ex)
    return exs, errors


# ---- roff --------------------------------------------------------------------
ROFF_ESC = [('\\(aq', "'"), ('\\(dq', '"'), ('\\(ti', '~'), ('\\(ha', '^'),
            ('\\(em', '--'), ('\\(en', '-'), ('\\(bu', '*'), ('\\-', '-'), ('\\&', ''),
            ('\\ ', ' '), ('\\~', ' '), ('\\e', '\\')]
MARK = re.compile(r'^\.\\"\s*doctest:\s*(.*?)\s*$')
SKIPPABLE = re.compile(r'^\.(PP|P|LP|RS|RE|IP|sp|in)\b')


def unroff(t):
    t = re.sub(r'\\f(\[[^]]*\]|\(..|.)', '', t)
    t = re.sub(r'\\s[-+]?\d', '', t)
    out_ = ''
    i = 0
    while i < len(t):
        for k, v in ROFF_ESC:
            if t.startswith(k, i):
                out_ += v
                i += len(k)
                break
        else:
            out_ += t[i]
            i += 1
    return out_


def bold_spans(t):
    """The bold text of a roff line: a .B line's, each \\fB...\\fR (or \\fP)
    span's (an italic placeholder inside kept as text)."""
    if t.startswith('.B '):
        return [unroff(t[3:].replace('"', '')).strip()]
    return [unroff(m).strip() for m in re.findall(r'\\fB(.*?)\\f[RP]', t)]


def parse_man(path, rel):
    exs, errors = [], []
    lines = open(path, encoding='utf-8').read().split('\n')
    section = ''
    i = 0
    while i < len(lines):
        t = lines[i]
        if t.startswith('.SH'):
            section = t[3:].strip().strip('"')
        if t.strip() not in ('.EX', '.nf'):
            if section != 'SYNOPSIS' and not t.startswith('.\\"'):
                inline_commands(rel, i + 1, bold_spans(t), exs)
            i += 1
            continue
        end = '.EE' if t.strip() == '.EX' else '.fi'
        start = i + 1
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != end:
            s = lines[i]
            if s.startswith('.\\"') or s.startswith("'\\\"") or s.strip() in ('.br', '.'):
                pass
            elif re.match(r'^\.(B|I|BI|IB|BR|RB|IR|RI)\s', s):
                body.append((i + 1, unroff(s.split(None, 1)[1].replace('"', ''))))
            elif s.startswith('.'):
                pass
            else:
                body.append((i + 1, unroff(s)))
            i += 1
        if i >= len(lines):
            errors.append((f'{rel}:{start}', f'{t.strip()} never closed by {end}'))
            break
        i += 1
        if section == 'SYNOPSIS':
            continue
        # the marker: the nearest line above that is not .PP/.RS/.IP/...
        j = start - 2
        while j >= 0 and (SKIPPABLE.match(lines[j]) or not lines[j].strip()):
            j -= 1
        m = MARK.match(lines[j]) if j >= 0 else None
        mark = m.group(1) if m else ''
        ex = Example(rel, start, 'console')
        ex.lines = body
        if mark.startswith('not run:'):
            ex.kind, ex.arg = 'text', mark[len('not run:'):].strip()
        elif mark.startswith('file '):
            ex.kind, ex.arg = 'file', mark[5:].strip()
        elif mark == 'dsh':
            ex.kind = 'script'
        elif mark:
            errors.append((f'{rel}:{j + 1}', f"unknown doctest marker '{mark}'"))
            continue
        else:
            first = next((x for _, x in body if x.strip()), '')
            if not first.startswith('$ '):
                errors.append((f'{rel}:{start}', f"example block ({t.strip()}) without '$ ' command lines "
                               "and without a marker: prefix commands with '$ ' (output follows them), "
                               "or put '.\\\" doctest: dsh' (a dsh script), "
                               "'.\\\" doctest: file NAME' or '.\\\" doctest: not run: REASON' above it"))
                continue
        exs.append(ex)
    return exs, errors


# ---- running -----------------------------------------------------------------
class Runner:
    def __init__(self, root, bindir, tables, san):
        self.root, self.bin, self.san = root, bindir, san
        self.table = {}     # (file, command) -> {kind: reason}
        self.used = set()
        self.subst = []     # (from, to with {dir})
        self.provide = {}   # name -> path under ROOT
        self.inline = set()  # (file, span): an inline command that is run
        self.fragment = {}  # (file, span) -> why it is a fragment, not run
        for raw in open(tables, encoding='utf-8'):
            raw = raw.rstrip('\n')
            if not raw:
                continue
            kind, a, b, c = (raw.split('\t') + ['', '', ''])[:4]
            if kind == 'subst':
                self.subst.append((a, b))
            elif kind == 'provide':
                self.provide[a] = b
            elif kind == 'inline_run':
                self.inline.add((a, b))
            elif kind == 'fragment':
                self.fragment[(a, b)] = c
            else:
                self.table.setdefault((a, b), {})[kind] = c
        self.tmp = tempfile.mkdtemp(prefix='doctest.')
        self.n = 0
        self.bg = []
        self.last_session = None
        self.ran = {}       # a plain_only command, bin/ dropped -> (where, passed)

    def private_dir(self, files):
        self.n += 1
        d = os.path.join(self.tmp, f'ex{self.n}')
        os.mkdir(d)
        os.symlink(self.bin, os.path.join(d, 'bin'))
        os.symlink(os.path.join(self.root, 'scripts'), os.path.join(d, 'scripts'))
        for name, src in self.provide.items():
            shutil.copy(os.path.join(self.root, src), os.path.join(d, name))
        for name, text in files.items():
            with open(os.path.join(d, name), 'w', encoding='utf-8') as f:
                f.write(text)
        with open(os.path.join(d, 'board.mem'), 'wb') as f:  # a devmem stand-in
            f.truncate(0x51000)
        return d

    def env(self, d):
        e = dict(os.environ)
        e.update(PATH=self.bin + os.pathsep + e.get('PATH', ''), HOME=d,
                 XDG_RUNTIME_DIR=d, TMPDIR=d)
        e.pop('DSH_BACKEND', None)
        e.pop('DNET_TOKEN', None)
        return e

    def sub(self, text, d):
        for a, b in self.subst:
            text = text.replace(a, b.replace('{dir}', d))
        return text

    def lookup(self, ex, cmd):
        k = (ex.path, cmd)
        if k in self.table:
            self.used.add(k)
            return self.table[k]
        return None

    def start_bg(self, cmd, d, loc):
        log = open(os.path.join(d, f'bg{len(self.bg)}.log'), 'w')
        before = set(socks(d))
        # bounded by timeout(1) too: nothing outlives a killed test
        p = subprocess.Popen(['timeout', '-k', '5', '300', 'bash', '-c', cmd], cwd=d, env=self.env(d),
                             stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.bg.append(p)
        t0 = time.monotonic()
        while time.monotonic() - t0 < BG_WAIT:
            if p.poll() is not None:
                return f'exited with status {p.returncode} before serving: ' + tail(log.name)
            if set(socks(d)) - before:
                return None
            time.sleep(0.05)
        return f'no socket appeared within {BG_WAIT} s: ' + tail(log.name)

    def stop_bg(self):
        for p in self.bg:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        self.bg = []

    def run(self, cmd, d, stdin=None):
        """(exit status or None on timeout, output)."""
        p = subprocess.Popen(['timeout', '-k', '5', str(TIMEOUT + 10), 'bash', '-c', cmd], cwd=d,
                             env=self.env(d), stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            o, _ = p.communicate(stdin.encode() if stdin is not None else None, timeout=TIMEOUT)
            return p.returncode, o.decode(errors='replace')
        except subprocess.TimeoutExpired:
            # SIGTERM first: dsh-run then stops the dnetd it started (in
            # a process group of its own, out of reach of a SIGKILL here)
            os.killpg(p.pid, signal.SIGTERM)
            try:
                o, _ = p.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                o, _ = p.communicate()
            return None, o.decode(errors='replace')

    def check(self, loc, what, rc, output, shown, d, want=0):
        if rc is None:
            out('FAIL', loc, f'{what}: timed out after {TIMEOUT} s', lastlines(output))
            return
        if rc != want:
            out('FAIL', loc, f'{what}: exit {rc}' + (f', the page says {want}' if want else ''),
                lastlines(output))
            return
        if shown:
            bad = compare([self.sub(s, d) for s in shown], output)
            if bad:
                out('FAIL', loc, f'{what}: output differs from the one shown', bad)
                return
        out('PASS', loc, what)

    def example(self, ex, files):
        if ex.kind == 'text':
            out('NOTE', ex.loc(), f'not run: {ex.arg}')
            return
        if ex.kind == 'file':
            files[ex.arg] = ''.join(t + '\n' for _, t in ex.lines)
            out('NOTE', ex.loc(), f'the file {ex.arg} of the examples below')
            return
        if ex.kind == 'inline':
            self.inline_span(ex, files)
            return
        d = self.private_dir(files)
        try:
            if ex.kind == 'script':
                with open(os.path.join(d, 'example.dsh'), 'w', encoding='utf-8') as f:
                    f.write(''.join(t + '\n' for _, t in ex.lines))
                rc, o = self.run(f'{self.bin}/dsh -e -f example.dsh', d)
                self.check(ex.loc(), 'dsh script (dsh -e -f)', rc, o, [], d)
            elif ex.kind == 'python':
                self.python(ex, d)
            elif ex.kind == 'session':
                self.session(ex, d)
            else:
                cmds, errors = commands(ex, '$ ' if ex.kind == 'console' else None)
                for n, e in errors:
                    out('FAIL', ex.loc(n), e)
                self.provide_dnetd(ex, cmds, d)
                for n, cmd, shown in cmds:
                    self.command(ex, n, cmd, shown, d)
        finally:
            self.stop_bg()

    def python(self, ex, d):
        """A Python block: the program run by python3 on the package of the
        tree and the libdnet.so of the build under test (a sanitized one
        with the ASan runtime preloaded); it must exit 0 (it checks itself)."""
        with open(os.path.join(d, 'example.py'), 'w', encoding='utf-8') as f:
            f.write(''.join(t + '\n' for _, t in ex.lines))
        lib = os.path.join(os.path.dirname(os.path.abspath(self.bin)), 'lib', 'libdnet.so')
        pre = f'PYTHONPATH={self.root}/libdnet/python DNET_LIBRARY={lib} PYTHONDONTWRITEBYTECODE=1 '
        if self.san:
            asan = subprocess.run(['cc', '-print-file-name=libasan.so'], capture_output=True,
                                  text=True).stdout.strip()
            pre += f'LD_PRELOAD={asan} ASAN_OPTIONS=detect_leaks=0 '
        py = '/usr/bin/python3' if os.access('/usr/bin/python3', os.X_OK) else 'python3'
        rc, o = self.run(pre + f'{py} example.py', d)
        self.check(ex.loc(), 'python example (python3)', rc, o, [], d)

    def inline_span(self, ex, files):
        """An inline command of the prose: run when listed inline_run,
        skipped when not_here or pending, a fragment when listed so; any
        other is an error (so that no new one escapes)."""
        n, span = ex.lines[0]
        k = (ex.path, span)
        if k in self.fragment:
            self.used.add(k)
            out('NOTE', ex.loc(), f'inline `{span}`: a fragment, not run ({self.fragment[k]})')
            return
        t = self.table.get(k)
        if k in self.inline:
            self.used.add(k)
        elif not t or not set(t) & {'not_here', 'pending', 'elsewhere', 'in_root'}:
            out('FAIL', ex.loc(), f"inline command `{span}` in no table of tests/shell/test_doc_examples.sh: "
                "inline_run it, not_here it (with the reason) or call it a fragment (with the reason)")
            return
        d = self.private_dir(files)
        try:
            self.command(ex, n, span, [], d)
        finally:
            self.stop_bg()

    def provide_dnetd(self, ex, cmds, d):
        """A page that names unix:/tmp/d.sock in a block that starts no
        dnetd assumes one serves it: started here, 8 emulated nodes
        (dnetd(8)'s example cluster)."""
        text = ' '.join(c for _, c, _ in cmds)
        if 'unix:/tmp/d.sock' in text and not re.search(r'\bdnetd\b[^|;]*--listen unix:/tmp/d.sock', text):
            why = self.start_bg(f'exec {self.bin}/dnetd --sim -N 8 --listen unix:{d}/d.sock', d, ex.loc())
            if why:
                out('FAIL', ex.loc(), f'the dnetd serving /tmp/d.sock for this block: {why}')

    def command(self, ex, n, cmd, shown, d):
        loc = ex.loc(n)
        what = cmd
        t = self.lookup(ex, cmd) or {}
        if t:
            if 'pending' in t:
                out('SKIP', loc, f"PENDING {what}: {t['pending']}")
                return
            if 'not_here' in t:
                out('SKIP', loc, f"{what}: {t['not_here']}")
                return
            if 'elsewhere' in t:
                out('NA', loc, f"{what}: run by {t['elsewhere']}")
                return
            if 'plain_only' in t and self.san:
                out('NA', loc, f"{what}: on the plain build only ({t['plain_only']})")
                return
            if 'in_root' in t:
                # a make target of the repository itself (cheap, changes nothing)
                rc, o = self.run(cmd, self.root)
                self.check(loc, what, rc, o, shown, d)
                return
            if 'plain_only' in t:
                # a slow command shown twice (bin/dsh-run in README,
                # dsh-run in a man page) runs once
                same = re.sub(r'^bin/', '', cmd)
                if same in self.ran:
                    prev_loc, ok = self.ran[same]
                    out('PASS' if ok else 'FAIL', loc, f'{what}: as at {prev_loc}')
                    return
                rc, o = self.run(self.sub(cmd, d), d)
                self.ran[same] = (loc, rc == 0)
                self.check(loc, what, rc, o, shown, d)
                return
        real = self.sub(cmd, d)
        if real.endswith('&') and not real.endswith('&&'):
            why = self.start_bg(real[:-1].rstrip(), d, loc)
            if why:
                out('FAIL', loc, f'{what}: {why}')
            else:
                out('PASS', loc, what)
            return
        rc, o = self.run(real, d)
        self.check(loc, what, rc, o, shown, d, int(t.get('exit', 0)))

    def session(self, ex, d):
        """A transcript; '```dsh continues' goes on with the session of the
        transcript before it (both run, both compared)."""
        if not ex.lines or not ex.lines[0][1].startswith('dsh > '):
            out('FAIL', ex.loc(), "a ```dsh transcript starts with a 'dsh > ' line")
            return
        lines = [t for _, t in ex.lines]
        if ex.arg == 'continues':
            if self.last_session is None:
                out('FAIL', ex.loc(), "'```dsh continues' with no ```dsh transcript before it")
                return
            lines = self.last_session + lines
        elif ex.arg:
            out('FAIL', ex.loc(), f"'```dsh {ex.arg}': the only word after dsh is 'continues'")
            return
        self.last_session = lines
        inp = [t[len('dsh > '):] for t in lines if t.startswith('dsh > ')]
        rc, o = self.run(f'{self.bin}/dsh -x', d, stdin=''.join(c + '\n' for c in inp))
        self.check(ex.loc(), f'dsh session of {len(inp)} commands', rc, o, lines, d)

    def stale(self):
        for k in self.inline | set(self.fragment):
            if k not in self.used:
                out('FAIL', k[0], f"inline_run/fragment entry '{k[1]}' matches no inline command any more: "
                    "remove it (or correct it) in tests/shell/test_doc_examples.sh")
        for k, kinds in self.table.items():
            kind = '/'.join(sorted(kinds))
            if k not in self.used:
                out('FAIL', k[0], f"{kind} entry '{k[1]}' matches no example any more: remove it "
                    "(or correct it) in tests/shell/test_doc_examples.sh")


def socks(d):
    try:
        return [f for f in os.listdir(d) if os.path.exists(os.path.join(d, f)) and
                __import__('stat').S_ISSOCK(os.lstat(os.path.join(d, f)).st_mode)]
    except OSError:
        return []


def tail(path, n=5):
    try:
        return ' / '.join(open(path, errors='replace').read().strip().split('\n')[-n:])
    except OSError:
        return ''


def lastlines(o, n=15):
    ls = o.rstrip('\n').split('\n')
    return ls[-n:] if o.strip() else ['(no output)']


def compare(shown, output):
    """Lines where the output differs from the shown lines (ANY matches any
    text within a line; trailing blanks ignored); [] when it matches."""
    got = output.rstrip('\n').split('\n') if output.strip() else []
    got = [g.rstrip() for g in got]
    for i in range(max(len(shown), len(got))):
        s = shown[i].rstrip() if i < len(shown) else None
        g = got[i] if i < len(got) else None
        if s is not None and g is not None:
            rx = '.*'.join(re.escape(p) for p in s.split(ANY))
            if re.fullmatch(rx, g):
                continue
        return [f'line {i + 1}: shown  {s!r}' if s is not None else f'line {i + 1}: shown  (nothing more)',
                f'line {i + 1}: output {g!r}' if g is not None else f'line {i + 1}: output (nothing more)']
    return []


def once(exs):
    """An inline command is one example per file, and none when a block of
    the file shows it (the block runs it)."""
    shown = set()
    for ex in exs:
        if ex.kind in ('sh', 'console'):
            shown.update(c for _, c, _ in commands(ex, '$ ' if ex.kind == 'console' else None)[0])
    res = []
    for ex in exs:
        if ex.kind == 'inline':
            span = ex.lines[0][1]
            if span in shown:
                continue
            shown.add(span)
        res.append(ex)
    return res


def main(argv):
    flags = [a for a in argv if a.startswith('--')]
    args = [a for a in argv if not a.startswith('--')]
    root, bindir, tables, files = args[0], args[1], args[2], args[3:]
    runner = Runner(root, bindir, tables, '--san' in flags)
    try:
        for f in files:
            rel = os.path.relpath(f, root)
            exs, errors = (parse_md if f.endswith('.md') else parse_man)(f, rel)
            exs = once(exs)
            for loc, e in errors:
                out('FAIL', loc, e)
            page_files = {}
            for ex in exs:
                # --check-only: the markers, the tables and the inline
                # commands' listing (runs only what its tables list)
                if '--check-only' not in flags or ex.kind == 'inline':
                    runner.example(ex, page_files)
        runner.stale()
    finally:
        runner.stop_bg()
        shutil.rmtree(runner.tmp, ignore_errors=True)


if __name__ == '__main__':
    main(sys.argv[1:])
