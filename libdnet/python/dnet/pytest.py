# SPDX-License-Identifier: MIT
"""pytest plugin: dsh scripts as test items, and a dnet_dev fixture.

Load it with `pytest -p dnet.pytest` (build tree: PYTHONPATH=libdnet/python)
or, installed, through its pytest11 entry point.  Every *.dsh file collected
is one test, run by dsh (bin/dsh next to the library, or --dnet-dsh) or, for
a rank count (--dnet-ranks N, or the marker dnet_ranks(N) a conftest.py
gives), by dsh-run with its CTRF report.  A failure is reported at the
script's file:line with the failing command and its output, from dsh's
--json records (man/dsh.1, docs/json-schema.md) or dsh-run's report
(docs/reports.md), so pytest's JUnit XML names the script line.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from typing import List, Optional

import pytest

DEFAULT_BACKEND = 'sim:nodes=2'


def pytest_addoption(parser):
    g = parser.getgroup('dnet', 'DIMMnet-2 (dsh scripts, dnet_dev)')
    g.addoption('--dnet-backend', metavar='SPEC', default=None,
                help=f'backend of the dnet_dev fixture and of dsh (default {DEFAULT_BACKEND}; '
                     'dsh-run: its private emulator)')
    g.addoption('--dnet-dsh', metavar='PATH', default=None,
                help='the dsh to run .dsh files with (default: bin/dsh next to libdnet.so, else $PATH); '
                     'dsh-run is taken from the same directory')
    g.addoption('--dnet-ranks', metavar='N', type=int, default=None,
                help='run every .dsh file with dsh-run -n N (default: the dnet_ranks marker, else dsh)')
    g.addoption('--dnet-timeout', metavar='DUR', default='60s', help='the real time a script may take: dsh --max-time, dsh-run --timeout (default 60s)')


def pytest_configure(config):
    config.addinivalue_line('markers', 'dnet_ranks(n): run the .dsh script with dsh-run -n N')


def _tool(config, name: str) -> str:
    given = config.getoption('--dnet-dsh')
    if given:
        d = os.path.dirname(os.path.abspath(given))
        return given if name == 'dsh' else os.path.join(d, name)
    from . import _lib  # bin/ next to lib/libdnet.so (the build tree, an install)
    if os.path.isabs(_lib.path):  # not a bare name the loader resolved
        cand = os.path.join(os.path.dirname(os.path.dirname(_lib.path)), 'bin', name)
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    found = shutil.which(name)
    if not found:
        raise pytest.UsageError(f'dnet.pytest: no {name} next to {_lib.path} nor on $PATH (give --dnet-dsh PATH)')
    return found


def pytest_collect_file(file_path, parent):
    if file_path.suffix == '.dsh':
        return DshFile.from_parent(parent, path=file_path)
    return None


class DshFile(pytest.File):
    def collect(self):
        yield DshItem.from_parent(self, name=self.path.name)


class DshFailure(Exception):
    def __init__(self, where: str, text: str):
        self.where, self.text = where, text
        super().__init__(f'{where}: {text}')


class DshItem(pytest.Item):
    """One .dsh script; it fails where its first failing command is."""

    def _ranks(self) -> Optional[int]:
        n = self.config.getoption('--dnet-ranks')
        if n is not None:
            return n
        m = self.get_closest_marker('dnet_ranks')
        return int(m.args[0]) if m else None

    def runtest(self):
        ranks = self._ranks()
        if ranks:
            self._run_ranks(ranks)
        else:
            self._run_dsh()

    def _run_dsh(self):
        dsh = _tool(self.config, 'dsh')
        cmd = [dsh, '--json', '--max-time', self.config.getoption('--dnet-timeout'),
               '-b', self.config.getoption('--dnet-backend') or DEFAULT_BACKEND, '-f', str(self.path)]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=str(self.path.parent))
        recs = []
        for line in p.stdout.splitlines():
            try:
                recs.append(json.loads(line))
            except ValueError:
                pass
        self.add_report_section('call', 'dsh', ' '.join(cmd))
        if p.returncode == 0:
            return
        for r in recs:
            if 'summary' not in r and r.get('ok') is False:
                out = json.dumps(r.get('result'), indent=None) if r.get('result') is not None else ''
                raise DshFailure(f'{r.get("file", self.path)}:{r.get("lineno", "?")}',
                                 f'{r.get("line", r.get("cmd"))}\n  {r.get("error")}\n  result: {out}'
                                 f'\n{p.stderr.strip()}')
        raise DshFailure(str(self.path), f'dsh exit status {p.returncode}\n{p.stderr.strip()}')

    def _run_ranks(self, ranks: int):
        run = _tool(self.config, 'dsh-run')
        with tempfile.TemporaryDirectory(prefix='dnet-pytest-') as tmp:
            rep = os.path.join(tmp, 'ctrf.json')
            cmd = [run, '-n', str(ranks), '--timeout', self.config.getoption('--dnet-timeout'),
                   '--dsh', _tool(self.config, 'dsh'), '--report', rep]
            if self.config.getoption('--dnet-backend'):
                cmd += ['-b', self.config.getoption('--dnet-backend')]
            cmd.append(str(self.path))
            p = subprocess.run(cmd, capture_output=True, text=True, cwd=str(self.path.parent))
            self.add_report_section('call', 'dsh-run', ' '.join(cmd))
            if p.returncode == 0:
                return
            try:
                with open(rep) as f:
                    tests = json.load(f)['results']['tests']
            except (OSError, ValueError, KeyError):
                tests = []
            for t in tests:
                if t.get('status') != 'passed':
                    fails = t.get('extra', {}).get('failures') or []
                    where = (f'{fails[0]["file"]}:{fails[0]["line"]}' if fails else
                             f'{t.get("filePath", self.path)}:{t.get("line", "?")}')
                    raise DshFailure(where, f'{t.get("name")}: {t.get("message")}\n{t.get("trace", "")}')
            raise DshFailure(str(self.path), f'dsh-run exit status {p.returncode}\n{p.stderr.strip()}')

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, DshFailure):
            return f'{excinfo.value.where}: {excinfo.value.text}'
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f'dsh script {self.path.name}'


@pytest.fixture
def dnet_dev(request):
    """A dnet.Device on --dnet-backend (default sim:nodes=2), closed after the test."""
    import dnet
    with dnet.open(request.config.getoption('--dnet-backend') or DEFAULT_BACKEND) as dev:
        yield dev
