# SPDX-License-Identifier: MIT
"""The ctypes structures of dnet._lib have the C layout: a C program built
with cc against libdnet/include prints sizeof and offsetof of every struct
and the offset and size of every field the bindings declare, and each must match ctypes (a header change
cannot silently break the bindings; decision D-PY-CTYPES)."""
import ctypes
import os
import shutil
import subprocess
import tempfile

import pytest

from dnet import _lib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


@pytest.mark.skipif(not shutil.which('cc'), reason='no C compiler')
def test_struct_layouts():
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include <dnet/dnet.h>', 'int main(void) {']
    want = []
    for s in _lib.STRUCTS:
        n = s.__name__
        lines.append(f'printf("{n} %zu\\n", sizeof(struct {n}));')
        want.append(f'{n} {ctypes.sizeof(s)}')
        for f in s._fields_:
            lines.append(f'printf("{n}.{f[0]} %zu %zu\\n", offsetof(struct {n}, {f[0]}), '
                         f'sizeof(((struct {n} *)0)->{f[0]}));')
            want.append(f'{n}.{f[0]} {getattr(s, f[0]).offset} {getattr(s, f[0]).size}')
    lines.append('return 0; }')
    with tempfile.TemporaryDirectory() as t:
        src, exe = os.path.join(t, 'layout.c'), os.path.join(t, 'layout')
        with open(src, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        # The compiler and the probe are not this test's subject: without the
        # ASan runtime a sanitized run preloads into python3.
        env = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}
        subprocess.run(['cc', '-std=c11', '-I', os.path.join(ROOT, 'libdnet', 'include'), src, '-o', exe],
                       check=True, env=env)
        got = subprocess.run([exe], capture_output=True, text=True, check=True, env=env).stdout.split('\n')[:-1]
    assert got == want
