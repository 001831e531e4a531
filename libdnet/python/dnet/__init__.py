# SPDX-License-Identifier: MIT
"""dnet -- the DIMMnet-2 host library, libdnet(3), from Python.

A thin ctypes binding (docs/decisions.md D-PY-CTYPES) that mirrors the C
API of libdnet/include/dnet/*.h; docs/python.md has a complete example.

    with dnet.open("sim:nodes=2") as dev:      # dnet_open / dnet_close
        dev.write64(dnet.LLCM_BASE, 0xaaaa)    # dnet_write64
        dev.read64(dnet.LLCM_BASE)             # dnet_read64
        dev.reg["ctl_status"].rc_state         # dnet_field_read("ctl_status.rc_state")
        v = dev.prim("RVS", dclid=2, eflag=1, size=0x100, srcoff=0x1000, dstoff=0x2000)
        dev.node(2).sodimm_read(0x2000, 0x100) # dnet_node_dev + the emulator backdoor

Offsets are device offsets (map.h: LLCM_BASE, WW_BASE, UREG_BASE, ...).
Every failing call raises dnet.Error, carrying struct dnet_err's code, the
code's name (dnet_strerror) and the message.  Times are nanoseconds
(virtual time on the emulator).
"""
from __future__ import annotations

import ctypes
from ctypes import byref, c_bool, c_uint, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p
from typing import Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple, Union

from . import _lib
from ._lib import lib as _c

__all__ = ['Error', 'Device', 'Register', 'Verdict', 'Param', 'Sync', 'TapRecord', 'open', 'version',
           'strerror', 'library_path']

# ---- constants (map.h, error.h, device.h, regs.h) ----
WW_BASE, PW_BASE, LLCM_BASE, LHB_BASE, UREG_BASE, SREG_BASE = 0x00000, 0x10000, 0x20000, 0x30000, 0x40000, 0x50000
LLCM_SIZE = 0x8000


def LLCM_WID(w: int) -> int:
    """DNET_LLCM_WID: the LLCM of process w."""
    return LLCM_BASE + w * 0x8000


def WW_WID(w: int) -> int:
    """DNET_WW_WID: the Write Window of process w."""
    return WW_BASE + w * 0x2000


def UREG_WID(w: int) -> int:
    """DNET_UREG_WID: the User Register block of process w."""
    return UREG_BASE + w * 0x1000


OK, EINVAL, ENOENT, EPERM, EIO, ERANGE, ETIMEDOUT, ENOTSUP, EPROTO, ENOMEM, EBUSY, EALIGN, EINTR = range(13)
COND_EQ, COND_NE, COND_LT, COND_GT, COND_LE, COND_GE = range(6)
_CONDS = {'==': COND_EQ, '!=': COND_NE, '<': COND_LT, '>': COND_GT, '<=': COND_LE, '>=': COND_GE}
POST_OFF, POST_CONTINUE, POST_STOP = range(3)
CMD0, CMD1 = 0, 1
NO_TAG = (1 << 64) - 1
VTIME_END = 1 << 62
PC_BITS = 10
FAM_BOTF, FAM_VL, FAM_VS, FAM_RVL, FAM_RVS, FAM_IPUSH, FAM_NONE = range(7)
# Controller Status error flags (Tab. A.1): WW source/destination overrun, RC overrun, RC state
_CS_ERRORS = sum(3 << (6 + 3 * w) for w in range(4)) | 1 << 17 | 3 << 18
UR_CTL_STATUS, UR_PRIM_COUNTER = 0x200, 0x300
SYNC_AREA = 0x7000
DEFAULT_TIMEOUT_NS = 10_000_000  # 10 ms, what dsh waits for a primitive by default

library_path: str = _lib.path
"""The libdnet.so the bindings loaded."""


def version() -> str:
    """dnet_version: the library's version, "0.1.0"."""
    return _c.dnet_version().decode()


def strerror(code: int) -> str:
    """dnet_strerror: the short name of a code, "EINVAL"."""
    return (_c.dnet_strerror(code) or b'?').decode()


class Error(Exception):
    """A libdnet call failed: .code (enum dnet_errcode, positive), .name
    ("ETIMEDOUT"), .message (struct dnet_err's msg)."""

    def __init__(self, code: int, message: str):
        self.code, self.name, self.message = code, strerror(code), message
        super().__init__(f'{self.name}: {message}')


def _check(rc: int, e: _lib.dnet_err) -> int:
    if rc < 0:
        raise Error(e.code or -rc, e.msg.decode(errors='replace'))
    return rc


def _b(s: str) -> bytes:
    return s.encode()


class TapRecord(NamedTuple):
    """One struct dnet_tap_rec, as the tap callback receives it."""
    kind: str        # "read", "write", "read_block", ... (dnet_tap_kind_name)
    node: int
    off: int
    width: int
    val: Tuple[int, int]
    data: Optional[bytes]
    mask: int
    value: int
    timeout_ns: int
    ns: int
    rc: int
    msg: Optional[str]


class Verdict(NamedTuple):
    """What a primitive did (Device.prim): whether its Primitive Counter
    moved within the timeout, the time it took, Controller Status and the
    Primitive Counter after it, the family's count, and the Controller
    Status error flags that are set (0: none)."""
    completed: bool
    elapsed_ns: int
    ctl_status: int
    prim_counter: int
    count: int
    errors: int

    @property
    def ok(self) -> bool:
        return self.completed and not self.errors


class Param(NamedTuple):
    """One struct dnet_param: name, type ("u64" or "text"), flags (RO 1, WO 2), help."""
    name: str
    type: str
    flags: int
    help: str


class Register:
    """A register of process wid by name (dev.reg["ctl_status"]): its fields
    as attributes, read with dnet_field_read, assigned with
    dnet_field_write (no shadow: the other fields of a write-only register
    are written as 0); .value is the whole register."""

    def __init__(self, dev: 'Device', name: str, wid: int):
        r = _c.dnet_reg_by_name(_b(name))
        if not r:
            raise Error(ENOENT, f'unknown register "{name}"')
        object.__setattr__(self, '_dev', dev)
        object.__setattr__(self, '_wid', wid)
        object.__setattr__(self, '_reg', r.contents)
        object.__setattr__(self, 'name', r.contents.name.decode())

    @property
    def fields(self) -> Dict[str, Tuple[int, int]]:
        """Field name -> (lsb, width in bits), from regs.h's table."""
        r = self._reg
        return {r.fields[i].name.decode(): (r.fields[i].lsb, r.fields[i].width) for i in range(r.nfields)}

    @property
    def addr(self) -> int:
        """dnet_reg_addr: the register's device offset for this WID."""
        return _c.dnet_reg_addr(ctypes.pointer(self._reg), self._wid)

    @property
    def value(self) -> int:
        return self._dev.field_read(self.name, wid=self._wid)

    @value.setter
    def value(self, v: int) -> None:
        self._dev.field_write(self.name, v, wid=self._wid)

    def __getattr__(self, field: str) -> int:
        if field.startswith('_'):
            raise AttributeError(field)
        return self._dev.field_read(f'{self.name}.{field}', wid=self._wid)

    def __setattr__(self, field: str, v: int) -> None:
        if field == 'value':
            object.__setattr__(self, field, v)  # the property
            return
        self._dev.field_write(f'{self.name}.{field}', v, wid=self._wid)

    def __repr__(self) -> str:
        return f'<dnet.Register {self.name} wid {self._wid}>'


class _Regs:
    def __init__(self, dev: 'Device', wid: int):
        self._dev, self._wid = dev, wid

    def __getitem__(self, name: str) -> Register:
        return Register(self._dev, name, self._wid)

    def __call__(self, wid: int) -> '_Regs':
        """dev.reg(1)["ctl_status"]: the registers of WID 1."""
        return _Regs(self._dev, wid)

    def __iter__(self) -> Iterator[str]:
        n = c_uint()
        t = _c.dnet_regs(byref(n))
        return iter([t[i].name.decode() for i in range(n.value)])


class Device:
    """An open backend (struct dnet_dev): dnet.open(spec) gives one; use it
    as a context manager (dnet_close on exit).  dev.node(k) gives the
    handle of node k (dnet_node_dev), owned by this one."""

    def __init__(self, handle: int, owner: Optional['Device'] = None):
        self._h = c_void_p(handle)
        self._owner = owner      # a node handle keeps its root alive, never closes it
        self._nodes: Dict[int, Device] = {}
        self._tap = None         # the ctypes callback, kept while installed
        self.wid = 0
        self.reg = _Regs(self, 0)

    # ---- the handle ----
    def close(self) -> None:
        """dnet_close (the root handle only; a node handle goes with it)."""
        if self._owner is None and self._h:
            _c.dnet_close(self._h)
        self._h = c_void_p(None)
        for n in self._nodes.values():
            n._h = c_void_p(None)

    def __enter__(self) -> 'Device':
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _dev(self) -> c_void_p:
        if not self._h:
            raise Error(EINVAL, 'device is closed')
        return self._h

    @property
    def backend(self) -> str:
        """dnet_dev_backend: "sim", "remote", ..."""
        return _c.dnet_dev_backend(self._dev()).decode()

    @property
    def spec(self) -> str:
        """dnet_dev_spec: the spec it was opened with, secrets redacted."""
        return _c.dnet_dev_spec(self._dev()).decode()

    @property
    def caps(self) -> List[str]:
        """dnet_dev_caps as names ("multinode", "virtual_time", ...)."""
        buf = ctypes.create_string_buffer(256)
        s = _c.dnet_caps_format(_c.dnet_dev_caps(self._dev()), b' ', buf, 256).decode()
        return s.split()

    @property
    def node_count(self) -> int:
        """dnet_node_count: nodes behind the handle, numbered 1..count."""
        return _c.dnet_node_count(self._dev())

    @property
    def node_id(self) -> int:
        """dnet_node: the node this handle's accesses go to."""
        return _c.dnet_node(self._dev())

    def node(self, k: int) -> 'Device':
        """dnet_node_dev: the handle of node k (0: the handle dnet_open
        gave), a Device over the same open backend.  Error ERANGE for a node
        that does not exist; NotImplementedError on a libdnet without node
        handles."""
        if self._owner is not None:
            return self._owner.node(k)
        if k in self._nodes:
            return self._nodes[k]
        fn = _NODE_DEV
        if fn is None:
            raise NotImplementedError(f'{library_path} has no dnet_node_dev (a libdnet before node handles)')
        e = _lib.dnet_err()
        h = fn(self._dev(), k, byref(e))
        if not h:
            raise Error(e.code or ERANGE, e.msg.decode(errors='replace'))
        d = self if h == self._h.value else Device(h, owner=self)
        self._nodes[k] = d
        return d

    # ---- single accesses ----
    def _rd(self, fn, ctype, off: int) -> int:
        e, v = _lib.dnet_err(), ctype()
        _check(fn(self._dev(), off, byref(v), byref(e)), e)
        return v.value

    def _wr(self, fn, off: int, v: int) -> None:
        e = _lib.dnet_err()
        _check(fn(self._dev(), off, v, byref(e)), e)

    def read8(self, off: int) -> int:
        """dnet_read8: one 8-bit read at off."""
        return self._rd(_c.dnet_read8, c_uint8, off)

    def read16(self, off: int) -> int:
        """dnet_read16."""
        return self._rd(_c.dnet_read16, c_uint16, off)

    def read32(self, off: int) -> int:
        """dnet_read32."""
        return self._rd(_c.dnet_read32, c_uint32, off)

    def read64(self, off: int) -> int:
        """dnet_read64."""
        return self._rd(_c.dnet_read64, c_uint64, off)

    def read128(self, off: int) -> int:
        """dnet_read128: one 128-bit read, as an int (low 64 bits first in C)."""
        e, v = _lib.dnet_err(), (c_uint64 * 2)()
        _check(_c.dnet_read128(self._dev(), off, v, byref(e)), e)
        return v[0] | v[1] << 64

    def write8(self, off: int, v: int) -> None:
        """dnet_write8."""
        self._wr(_c.dnet_write8, off, v)

    def write16(self, off: int, v: int) -> None:
        """dnet_write16."""
        self._wr(_c.dnet_write16, off, v)

    def write32(self, off: int, v: int) -> None:
        """dnet_write32."""
        self._wr(_c.dnet_write32, off, v)

    def write64(self, off: int, v: int) -> None:
        """dnet_write64."""
        self._wr(_c.dnet_write64, off, v)

    def write128(self, off: int, v: int) -> None:
        """dnet_write128: v as a 128-bit int."""
        e = _lib.dnet_err()
        a = (c_uint64 * 2)(v & (1 << 64) - 1, v >> 64)
        _check(_c.dnet_write128(self._dev(), off, a, byref(e)), e)

    def read(self, off: int, width: int) -> int:
        """dnet_read: one access of width bytes (1, 2, 4, 8, 16)."""
        e, buf = _lib.dnet_err(), (ctypes.c_uint8 * 16)()
        _check(_c.dnet_read(self._dev(), off, buf, width, byref(e)), e)
        return int.from_bytes(bytes(buf[:width]), 'little')

    def write(self, off: int, v: int, width: int) -> None:
        """dnet_write: one access of width bytes."""
        e = _lib.dnet_err()
        buf = (ctypes.c_uint8 * 16).from_buffer_copy(v.to_bytes(width, 'little').ljust(16, b'\0'))
        _check(_c.dnet_write(self._dev(), off, buf, width, byref(e)), e)

    # ---- blocks ----
    def read_block(self, off: int, length: int) -> bytes:
        """dnet_read_block: length bytes at off (multiples of 8)."""
        buf = bytearray(length)
        self.read_block_into(off, buf)
        return bytes(buf)

    def read_block_into(self, off: int, buf: Union[bytearray, memoryview]) -> None:
        """dnet_read_block into a writable buffer (bytearray, memoryview)."""
        e, n = _lib.dnet_err(), memoryview(buf).nbytes
        c = (ctypes.c_char * n).from_buffer(buf)
        _check(_c.dnet_read_block(self._dev(), off, c, n, byref(e)), e)

    def write_block(self, off: int, data: Union[bytes, bytearray, memoryview]) -> None:
        """dnet_write_block: data (bytes-like, length a multiple of 8) at off."""
        e, b = _lib.dnet_err(), bytes(data)
        _check(_c.dnet_write_block(self._dev(), off, b, len(b), byref(e)), e)

    def wc_flush(self) -> None:
        """dnet_wc_flush: drain the write-combining buffers."""
        e = _lib.dnet_err()
        _check(_c.dnet_wc_flush(self._dev(), byref(e)), e)

    def cache_flush(self, off: int, length: int) -> None:
        """dnet_cache_flush over [off, off+length) of a write-back region."""
        e = _lib.dnet_err()
        _check(_c.dnet_cache_flush(self._dev(), off, length, byref(e)), e)

    # ---- the emulator's backdoor ----
    def sodimm_read(self, addr: int, length: int) -> bytes:
        """dnet_sodimm_access (read) of this node's SO-DIMM (emulator)."""
        e, buf = _lib.dnet_err(), ctypes.create_string_buffer(length)
        _check(_c.dnet_sodimm_access(self._dev(), addr, buf, length, False, byref(e)), e)
        return buf.raw

    def sodimm_write(self, addr: int, data: bytes) -> None:
        """dnet_sodimm_access (write)."""
        e, b = _lib.dnet_err(), ctypes.create_string_buffer(bytes(data), len(data))
        _check(_c.dnet_sodimm_access(self._dev(), addr, b, len(data), True, byref(e)), e)

    # ---- time, waits ----
    def wait(self, off: int, value: int, mask: int = (1 << 64) - 1, cond: Union[str, int] = '==',
             timeout_ns: int = DEFAULT_TIMEOUT_NS) -> int:
        """dnet_wait: until (read64(off) & mask) <cond> value ("==", "!=",
        "<", ">", "<=", ">=" or COND_*); returns the last value read.
        Error ETIMEDOUT when timeout_ns passes first."""
        c = _CONDS[cond] if isinstance(cond, str) else cond
        e, last = _lib.dnet_err(), c_uint64()
        _check(_c.dnet_wait(self._dev(), off, mask, c, value, timeout_ns, byref(last), byref(e)), e)
        return last.value

    def delay(self, ns: int) -> None:
        """dnet_delay: let ns pass (virtual time on the emulator)."""
        e = _lib.dnet_err()
        _check(_c.dnet_delay(self._dev(), ns, byref(e)), e)

    def now(self) -> int:
        """dnet_now: the device's time in ns."""
        e, v = _lib.dnet_err(), c_uint64()
        _check(_c.dnet_now(self._dev(), byref(v), byref(e)), e)
        return v.value

    def busy(self) -> bool:
        """dnet_busy: whether this node has work in flight."""
        e, v = _lib.dnet_err(), c_bool()
        _check(_c.dnet_busy(self._dev(), byref(v), byref(e)), e)
        return v.value

    def stat(self, name: str) -> int:
        """dnet_stat: a backend statistic ("vtime_ns", "packets_sent", ...)."""
        e, v = _lib.dnet_err(), c_uint64()
        _check(_c.dnet_stat(self._dev(), _b(name), byref(v), byref(e)), e)
        return v.value

    # ---- posting ----
    def set_posted(self, mode: int) -> None:
        """dnet_set_posted: POST_OFF, POST_CONTINUE or POST_STOP."""
        e = _lib.dnet_err()
        _check(_c.dnet_set_posted(self._dev(), mode, byref(e)), e)

    def set_tag(self, tag: int) -> None:
        """dnet_set_tag: the tag of the requests made from now on."""
        _c.dnet_set_tag(self._dev(), tag)

    def sync(self) -> None:
        """dnet_sync: wait for everything posted; the oldest failure not
        yet handed over is raised as Error with .tag (NO_TAG if unknown)."""
        e, tag = _lib.dnet_err(), c_uint64()
        rc = _c.dnet_sync(self._dev(), byref(tag), byref(e))
        if rc < 0:
            err = Error(e.code or -rc, e.msg.decode(errors='replace'))
            err.tag = tag.value
            raise err

    # ---- registers ----
    def field_read(self, spec: str, wid: Optional[int] = None) -> int:
        """dnet_field_read: "reg" or "reg.field" of process wid."""
        e, v = _lib.dnet_err(), c_uint64()
        _check(_c.dnet_field_read(self._dev(), self.wid if wid is None else wid, _b(spec), byref(v),
                                  byref(e)), e)
        return v.value

    def field_write(self, spec: str, v: int, wid: Optional[int] = None, base: Optional[int] = None) -> None:
        """dnet_field_write: base is the shadow of the other fields of a
        write-only register (None: written as 0)."""
        e = _lib.dnet_err()
        bp = byref(c_uint64(base)) if base is not None else None
        _check(_c.dnet_field_write(self._dev(), self.wid if wid is None else wid, _b(spec), v, bp,
                                   byref(e)), e)

    # ---- primitives ----
    def issue(self, otype: Union[str, int], *, wid: int = 0, sel: int = CMD0, dtype: int = 0, iter: int = 0,
              dwid: int = 0, dclid: int = 0, eflag: int = 0, size: int = 0, srcoff: int = 0, dstoff: int = 0,
              ex: Optional[dict] = None, timeout_ns: int = DEFAULT_TIMEOUT_NS) -> None:
        """dnet_req_encode + dnet_issue: one request of process wid with the
        fields of struct dnet_req (otype by name, "RVS", or code); ex: the
        Command Ex word's fields (otype, dtype, iter, size) -- set Command
        Ex Flag to match first.  Error EINVAL names a field too wide."""
        r = _lib.dnet_req(otype=_otype(otype).code, dtype=dtype, iter=iter, dwid=dwid, dclid=dclid,
                          eflag=eflag, size=size, srcoff=srcoff, dstoff=dstoff)
        if ex is not None:
            r.has_ex = True
            x = dict(ex)
            if isinstance(x.get('otype'), str):
                x['otype'] = _otype(x['otype']).code
            r.ex = _lib.dnet_req_ex(**x)
        e, cmd = _lib.dnet_err(), _lib.dnet_cmd()
        _check(_c.dnet_req_encode(byref(r), byref(cmd), byref(e)), e)
        _check(_c.dnet_issue(self._dev(), wid, sel, byref(cmd), timeout_ns, byref(e)), e)

    def prim(self, otype: Union[str, int], *, wid: int = 0, timeout_ns: int = DEFAULT_TIMEOUT_NS,
             **fields) -> Verdict:
        """Issue a primitive (Device.issue's keywords) and wait until its
        family's Primitive Counter moves (dnet_wait) and the node is idle,
        as dsh's `prim ... wait` does: its Verdict.  A primitive that did
        not complete in timeout_ns gives completed=False, not an Error."""
        info = _otype(otype)
        pc = UREG_WID(wid) + UR_PRIM_COUNTER
        before = self.read64(pc)
        t0 = self.now()
        self.issue(info.code, wid=wid, timeout_ns=timeout_ns, **fields)
        completed = True
        if info.family != FAM_NONE:
            mask = ((1 << PC_BITS) - 1) << (PC_BITS * info.family)
            try:
                self.wait(pc, before & mask, mask=mask, cond='!=', timeout_ns=timeout_ns)
            except Error as e:
                if e.code != ETIMEDOUT:
                    raise
                completed = False
        end = t0 + timeout_ns
        while completed and self.busy() and self.now() < end:
            self.delay(1000)
        t = self.now()
        cs, pcv = self.read64(UREG_WID(wid) + UR_CTL_STATUS), self.read64(pc)
        cnt = (pcv >> (PC_BITS * info.family)) & ((1 << PC_BITS) - 1) if info.family != FAM_NONE else 0
        return Verdict(completed, t - t0, cs, pcv, cnt, cs & _CS_ERRORS)

    # ---- parameters ----
    def params(self) -> List[Param]:
        """dnet_param_list: the backend's parameters."""
        e, lst, n = _lib.dnet_err(), ctypes.POINTER(_lib.dnet_param)(), c_uint()
        _check(_c.dnet_param_list(self._dev(), byref(lst), byref(n), byref(e)), e)
        return [Param(lst[i].name.decode(), 'u64' if lst[i].type == 0 else 'text', lst[i].flags,
                      (lst[i].help or b'').decode()) for i in range(n.value)]

    def param_get(self, name: str) -> str:
        """dnet_param_get: a parameter's value as text."""
        e, buf = _lib.dnet_err(), ctypes.create_string_buffer(8192)
        _check(_c.dnet_param_get(self._dev(), _b(name), buf, len(buf), byref(e)), e)
        return buf.value.decode()

    def param_set(self, name: str, value: Union[str, int]) -> None:
        """dnet_param_set: set a parameter from text (a number for u64)."""
        e = _lib.dnet_err()
        _check(_c.dnet_param_set(self._dev(), _b(name), _b(str(value)), byref(e)), e)

    def param_get_all(self) -> Dict[str, str]:
        """dnet_param_get_all: every readable parameter and its value."""
        e, vals, n = _lib.dnet_err(), ctypes.POINTER(_lib.dnet_param_value)(), c_uint()
        _check(_c.dnet_param_get_all(self._dev(), byref(vals), byref(n), byref(e)), e)
        try:
            return {vals[i].name.decode(): vals[i].value.decode() for i in range(n.value)}
        finally:
            _lib.libc.free(ctypes.cast(vals, c_void_p))

    # ---- the tap ----
    def set_tap(self, fn: Optional[Callable[[TapRecord], None]]) -> None:
        """dnet_set_tap: fn(TapRecord) after every device-level operation;
        None removes it.  An exception in fn is printed, not raised (it
        runs inside a C call)."""
        if fn is None:
            _c.dnet_set_tap(self._dev(), _lib.TAP_FN(), None)
            self._tap = None
            return

        def tramp(_ctx, rp):
            r = rp.contents
            data = ctypes.string_at(r.data, r.len) if r.data and r.len else None
            fn(TapRecord((_c.dnet_tap_kind_name(r.kind) or b'?').decode(), r.node, r.off, r.width,
                         (r.val[0], r.val[1]), data, r.mask, r.value, r.timeout_ns, r.ns, r.rc,
                         r.msg.decode(errors='replace') if r.msg else None))
        self._tap = _lib.TAP_FN(tramp)
        _c.dnet_set_tap(self._dev(), self._tap, None)

    def __repr__(self) -> str:
        return f'<dnet.Device {self.spec if self._h else "(closed)"} node {self.node_id if self._h else "?"}>'


def _otype(o: Union[str, int]) -> _lib.dnet_otype_info:
    p = _c.dnet_otype_by_name(_b(o)) if isinstance(o, str) else _c.dnet_otype_info(o)
    if not p:
        raise Error(EINVAL, f'unknown OTYPE {o!r}')
    return p.contents


_NODE_DEV = _lib.node_dev_fn()


def open(spec: str = 'sim') -> Device:
    """dnet_open: open a backend by spec "NAME[:ARGS]" ("sim:nodes=2",
    "remote:unix:/run/dnetd.sock", "devmem:0x..."); a Device, a context
    manager.  Error says why it could not be opened."""
    e, h = _lib.dnet_err(), c_void_p()
    _check(_c.dnet_open(_b(spec), byref(h), byref(e)), e)
    return Device(h.value)


class Sync:
    """A rank of a barrier/signal run through the device (sync.h,
    dnet_sync_open): rank of size, its peers node r+1 WID 0 unless given
    as [(node, wid), ...].  A context manager (dnet_sync_close)."""

    def __init__(self, dev: Device, rank: int, size: int, run_id: int = 1, area: int = SYNC_AREA,
                 peers: Optional[List[Tuple[int, int]]] = None):
        p = _lib.dnet_sync_params()
        _c.dnet_sync_params_default(byref(p))
        p.rank, p.size, p.run_id, p.area = rank, size, run_id, area
        if peers is not None:
            self._peers = (_lib.dnet_msg_rank * len(peers))(*[_lib.dnet_msg_rank(n, w) for n, w in peers])
            p.peers = self._peers
        self._dev = dev  # kept alive as long as the sync
        e, self._s = _lib.dnet_err(), c_void_p()
        _check(_c.dnet_sync_open(dev._dev(), byref(p), byref(self._s), byref(e)), e)

    def close(self) -> None:
        """dnet_sync_close."""
        if self._s:
            _c.dnet_sync_close(self._s)
            self._s = c_void_p(None)

    def __enter__(self) -> 'Sync':
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def generation(self) -> int:
        """dnet_sync_generation: 0 until this rank joined the run."""
        return _c.dnet_sync_generation(self._s)

    def barrier(self, timeout_ns: int = 1_000_000_000) -> Tuple[int, int]:
        """dnet_sync_barrier: (the barrier's number, rounds)."""
        e, num, rounds = _lib.dnet_err(), c_uint32(), c_uint()
        _check(_c.dnet_sync_barrier(self._s, timeout_ns, byref(num), byref(rounds), byref(e)), e)
        return num.value, rounds.value

    def signal(self, to: int, timeout_ns: int = 1_000_000_000) -> int:
        """dnet_sync_signal: the count of signals sent to `to`."""
        e, c = _lib.dnet_err(), c_uint32()
        _check(_c.dnet_sync_signal(self._s, to, timeout_ns, byref(c), byref(e)), e)
        return c.value

    def waitfor(self, frm: int, timeout_ns: int = 1_000_000_000) -> int:
        """dnet_sync_waitfor: the signals seen from rank frm."""
        e, c = _lib.dnet_err(), c_uint32()
        _check(_c.dnet_sync_waitfor(self._s, frm, timeout_ns, byref(c), byref(e)), e)
        return c.value

    def ibarrier(self, timeout_ns: int = 1_000_000_000) -> None:
        """dnet_sync_ibarrier: start a barrier; test() advances it."""
        e = _lib.dnet_err()
        _check(_c.dnet_sync_ibarrier(self._s, timeout_ns, byref(e)), e)

    def isignal(self, to: int, timeout_ns: int = 1_000_000_000) -> None:
        """dnet_sync_isignal."""
        e = _lib.dnet_err()
        _check(_c.dnet_sync_isignal(self._s, to, timeout_ns, byref(e)), e)

    def iwaitfor(self, frm: int, timeout_ns: int = 1_000_000_000) -> None:
        """dnet_sync_iwaitfor."""
        e = _lib.dnet_err()
        _check(_c.dnet_sync_iwaitfor(self._s, frm, timeout_ns, byref(e)), e)

    def test(self) -> Optional[int]:
        """dnet_sync_test: None while the operation runs, else its count
        (the barrier's number or the signal count)."""
        e, done, c = _lib.dnet_err(), c_bool(), c_uint32()
        _check(_c.dnet_sync_test(self._s, byref(done), byref(c), byref(e)), e)
        return c.value if done.value else None
