# SPDX-License-Identifier: MIT
"""Loading libdnet.so and the C structures, for ctypes (decision D-PY-CTYPES).

Every struct here mirrors one of libdnet/include/dnet/*.h field by field;
tests/python/test_layout.py compiles a C program printing sizeof/offsetof
of each and compares, so a header change cannot silently break them.
"""
import ctypes
import ctypes.util
import os
from ctypes import (POINTER, Structure, c_bool, c_char, c_char_p, c_int, c_size_t,
                    c_uint, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

ERR_MSG_MAX = 1024


def _candidates():
    """Where libdnet.so may be, in the order tried: $DNET_LIBRARY when set
    (an explicit choice: a sanitized or another build), next to the package
    in the build tree (lib/ of the repository when imported from
    libdnet/python), the LIBDIR make install wrote (_install.py), the
    loader's search (find_library), libdnet.so.0 by name."""
    here = os.path.dirname(os.path.realpath(__file__))  # a symlinked copy: the tree it is in
    tree = os.path.normpath(os.path.join(here, '..', '..', '..', 'lib', 'libdnet.so'))
    env = os.environ.get('DNET_LIBRARY')
    if env:
        yield env
    if os.path.exists(tree):
        yield tree
    try:
        from ._install import LIBDIR  # an installed copy
        yield os.path.join(LIBDIR, 'libdnet.so.0')
    except ImportError:
        pass
    found = ctypes.util.find_library('dnet')
    if found:
        yield found
    yield 'libdnet.so.0'


def load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(f'{path}: {e}')
    raise ImportError('dnet: libdnet.so not found (set DNET_LIBRARY to its path): ' + '; '.join(errors))


lib, path = load()


class dnet_err(Structure):
    _fields_ = [('code', c_int), ('msg', c_char * ERR_MSG_MAX)]


class dnet_req_ex(Structure):
    _fields_ = [('otype', c_uint), ('dtype', c_uint), ('iter', c_uint), ('size', c_uint32)]


class dnet_req(Structure):
    _fields_ = [('otype', c_uint), ('dtype', c_uint), ('iter', c_uint), ('dwid', c_uint),
                ('dclid', c_uint), ('eflag', c_uint), ('size', c_uint32), ('srcoff', c_uint32),
                ('dstoff', c_uint32), ('has_ex', c_bool), ('ex', dnet_req_ex)]


class dnet_cmd(Structure):
    _fields_ = [('upper', c_uint64), ('lower', c_uint64), ('ex', c_uint64), ('has_ex', c_bool),
                ('lower_only', c_bool)]


class dnet_otype_info(Structure):
    _fields_ = [('code', c_int), ('name', c_char_p), ('desc', c_char_p), ('family', c_int),
                ('variant', c_int), ('remote', c_bool), ('uses', c_uint), ('size_name', c_char_p)]


class dnet_field(Structure):
    _fields_ = [('name', c_char_p), ('lsb', c_uint), ('width', c_uint), ('desc', c_char_p),
                ('codes', c_void_p), ('states', POINTER(c_char_p)), ('nstates', c_uint)]


class dnet_reg(Structure):
    _fields_ = [('name', c_char_p), ('title', c_char_p), ('block', c_int), ('offset', c_uint32),
                ('access', c_uint), ('width', c_uint), ('valid_mask', c_uint64), ('flags', c_uint),
                ('fields', POINTER(dnet_field)), ('nfields', c_uint), ('desc', c_char_p)]


class dnet_param(Structure):
    _fields_ = [('name', c_char_p), ('type', c_int), ('flags', c_uint), ('help', c_char_p)]


class dnet_param_value(Structure):
    _fields_ = [('name', c_char_p), ('value', c_char_p)]


class dnet_tap_rec(Structure):
    _fields_ = [('kind', c_int), ('node', c_uint), ('off', c_uint32), ('width', c_uint),
                ('confirmed', c_bool), ('val', c_uint64 * 2), ('data', c_void_p), ('len', c_size_t),
                ('mask', c_uint64), ('value', c_uint64), ('timeout_ns', c_uint64), ('ns', c_uint64),
                ('cond', c_int), ('rc', c_int), ('msg', c_char_p)]


class dnet_msg_rank(Structure):
    _fields_ = [('node', c_uint), ('wid', c_uint)]


class dnet_sync_params(Structure):
    _fields_ = [('rank', c_uint), ('size', c_uint), ('peers', POINTER(dnet_msg_rank)),
                ('run_id', c_uint32), ('area', c_uint32), ('ops', c_void_p), ('ctx', c_void_p)]


# Every struct the bindings lay out, by C name (the layout test walks it).
STRUCTS = [dnet_err, dnet_req_ex, dnet_req, dnet_cmd, dnet_otype_info, dnet_field, dnet_reg,
           dnet_param, dnet_param_value, dnet_tap_rec, dnet_msg_rank, dnet_sync_params]

TAP_FN = ctypes.CFUNCTYPE(None, c_void_p, POINTER(dnet_tap_rec))

dev_p = c_void_p
E = POINTER(dnet_err)


def _missing(name):
    def f(*_a):
        raise NotImplementedError(f'{path} has no {name} (an older libdnet)')
    return f


def _proto(name, restype, *argtypes):
    try:
        f = getattr(lib, name)
    except AttributeError:
        # an older library: the module still imports, the call says what is missing
        setattr(lib, name, _missing(name))
        return None
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_P = [
    ('dnet_version', c_char_p),
    ('dnet_strerror', c_char_p, c_int),
    ('dnet_open', c_int, c_char_p, POINTER(dev_p), E),
    ('dnet_close', None, dev_p),
    ('dnet_dev_backend', c_char_p, dev_p),
    ('dnet_dev_spec', c_char_p, dev_p),
    ('dnet_dev_caps', c_uint, dev_p),
    ('dnet_caps_format', c_char_p, c_uint, c_char_p, c_char_p, c_size_t),
    ('dnet_node_count', c_uint, dev_p),
    ('dnet_node', c_uint, dev_p),
    ('dnet_read8', c_int, dev_p, c_uint32, POINTER(c_uint8), E),
    ('dnet_read16', c_int, dev_p, c_uint32, POINTER(c_uint16), E),
    ('dnet_read32', c_int, dev_p, c_uint32, POINTER(c_uint32), E),
    ('dnet_read64', c_int, dev_p, c_uint32, POINTER(c_uint64), E),
    ('dnet_read128', c_int, dev_p, c_uint32, POINTER(c_uint64), E),
    ('dnet_write8', c_int, dev_p, c_uint32, c_uint8, E),
    ('dnet_write16', c_int, dev_p, c_uint32, c_uint16, E),
    ('dnet_write32', c_int, dev_p, c_uint32, c_uint32, E),
    ('dnet_write64', c_int, dev_p, c_uint32, c_uint64, E),
    ('dnet_write128', c_int, dev_p, c_uint32, POINTER(c_uint64), E),
    ('dnet_read', c_int, dev_p, c_uint32, c_void_p, c_uint, E),
    ('dnet_write', c_int, dev_p, c_uint32, c_void_p, c_uint, E),
    ('dnet_read_block', c_int, dev_p, c_uint32, c_void_p, c_size_t, E),
    ('dnet_write_block', c_int, dev_p, c_uint32, c_void_p, c_size_t, E),
    ('dnet_wc_flush', c_int, dev_p, E),
    ('dnet_cache_flush', c_int, dev_p, c_uint32, c_size_t, E),
    ('dnet_set_posted', c_int, dev_p, c_int, E),
    ('dnet_set_tag', None, dev_p, c_uint64),
    ('dnet_sync', c_int, dev_p, POINTER(c_uint64), E),
    ('dnet_wait', c_int, dev_p, c_uint32, c_uint64, c_int, c_uint64, c_uint64, POINTER(c_uint64), E),
    ('dnet_delay', c_int, dev_p, c_uint64, E),
    ('dnet_now', c_int, dev_p, POINTER(c_uint64), E),
    ('dnet_busy', c_int, dev_p, POINTER(c_bool), E),
    ('dnet_sodimm_access', c_int, dev_p, c_uint64, c_void_p, c_size_t, c_bool, E),
    ('dnet_stat', c_int, dev_p, c_char_p, POINTER(c_uint64), E),
    ('dnet_reg_by_name', POINTER(dnet_reg), c_char_p),
    ('dnet_regs', POINTER(dnet_reg), POINTER(c_uint)),
    ('dnet_reg_addr', c_uint32, POINTER(dnet_reg), c_uint),
    ('dnet_field_read', c_int, dev_p, c_uint, c_char_p, POINTER(c_uint64), E),
    ('dnet_field_write', c_int, dev_p, c_uint, c_char_p, c_uint64, POINTER(c_uint64), E),
    ('dnet_otype_by_name', POINTER(dnet_otype_info), c_char_p),
    ('dnet_otype_info', POINTER(dnet_otype_info), c_uint),
    ('dnet_family_name', c_char_p, c_int),
    ('dnet_req_encode', c_int, POINTER(dnet_req), POINTER(dnet_cmd), E),
    ('dnet_issue', c_int, dev_p, c_uint, c_int, POINTER(dnet_cmd), c_uint64, E),
    ('dnet_param_list', c_int, dev_p, POINTER(POINTER(dnet_param)), POINTER(c_uint), E),
    ('dnet_param_get', c_int, dev_p, c_char_p, c_char_p, c_size_t, E),
    ('dnet_param_set', c_int, dev_p, c_char_p, c_char_p, E),
    ('dnet_param_get_all', c_int, dev_p, POINTER(POINTER(dnet_param_value)), POINTER(c_uint), E),
    ('dnet_set_tap', None, dev_p, TAP_FN, c_void_p),
    ('dnet_tap_kind_name', c_char_p, c_int),
    ('dnet_sync_params_default', None, POINTER(dnet_sync_params)),
    ('dnet_sync_open', c_int, dev_p, POINTER(dnet_sync_params), POINTER(c_void_p), E),
    ('dnet_sync_close', None, c_void_p),
    ('dnet_sync_generation', c_uint32, c_void_p),
    ('dnet_sync_barrier', c_int, c_void_p, c_uint64, POINTER(c_uint32), POINTER(c_uint), E),
    ('dnet_sync_signal', c_int, c_void_p, c_uint, c_uint64, POINTER(c_uint32), E),
    ('dnet_sync_waitfor', c_int, c_void_p, c_uint, c_uint64, POINTER(c_uint32), E),
    ('dnet_sync_ibarrier', c_int, c_void_p, c_uint64, E),
    ('dnet_sync_isignal', c_int, c_void_p, c_uint, c_uint64, E),
    ('dnet_sync_iwaitfor', c_int, c_void_p, c_uint, c_uint64, E),
    ('dnet_sync_test', c_int, c_void_p, POINTER(c_bool), POINTER(c_uint32), E),
]
for _p in _P:
    _proto(*_p)

libc = ctypes.CDLL(None)
libc.free.argtypes = [c_void_p]
libc.free.restype = None


def node_dev_fn():
    """dnet_node_dev(dev, node, err) -> dev, or None where the library
    predates node handles (it had dnet_set_node).  The one place the
    bindings adapt to that change."""
    try:
        f = lib.dnet_node_dev
    except AttributeError:
        return None
    f.restype = dev_p
    f.argtypes = [dev_p, c_uint, E]
    return f
