# SPDX-License-Identifier: MIT
"""The Python API (libdnet/python/dnet) against the expectations of the C
unit tests, a sample of each area.  Every expected value is computed here
from the thesis's layouts (map.h, Tab. 4.4, Tab. A.1), not read from the
library.  Run by tests/shell/test_python.sh: pytest -p dnet.pytest, in
process (sim:nodes=2) and through dnetd (--dnet-backend remote:unix:SOCK)."""
import struct

import pytest

import dnet

LLCM, WW, UREG = 0x20000, 0x00000, 0x40000
CTL_STATUS, PRIM_COUNTER, STATUS_INIT = 0x200, 0x300, 0x900

needs_node_handles = pytest.mark.skipif(dnet._NODE_DEV is None,
                                        reason='libdnet without dnet_node_dev (node handles)')


def test_version_and_library():
    assert dnet.version().count('.') == 2
    assert dnet.library_path.endswith('.so') or '.so.' in dnet.library_path


def test_llcm_every_width(dnet_dev):
    d = dnet_dev
    d.write64(LLCM + 0x100, 0x1122334455667788)
    assert d.read64(LLCM + 0x100) == 0x1122334455667788
    # little-endian bytes of the word, by hand
    assert d.read8(LLCM + 0x100) == 0x88
    assert d.read8(LLCM + 0x107) == 0x11
    assert d.read16(LLCM + 0x102) == 0x5566
    assert d.read32(LLCM + 0x104) == 0x11223344
    d.write32(LLCM + 0x104, 0xdeadbeef)
    assert d.read64(LLCM + 0x100) == 0xdeadbeef55667788
    d.write16(LLCM + 0x100, 0xabcd)
    d.write8(LLCM + 0x102, 0x01)
    assert d.read64(LLCM + 0x100) == 0xdeadbeef5501abcd
    d.write128(LLCM + 0x110, 0x0123456789abcdef_fedcba9876543210)
    assert d.read64(LLCM + 0x110) == 0xfedcba9876543210  # {low 64, high 64}
    assert d.read64(LLCM + 0x118) == 0x0123456789abcdef
    assert d.read128(LLCM + 0x110) == 0x0123456789abcdef_fedcba9876543210
    for w in (1, 2, 4, 8, 16):
        d.write(LLCM + 0x200, (1 << (8 * w)) - 2, w)
        assert d.read(LLCM + 0x200, w) == (1 << (8 * w)) - 2


def test_blocks(dnet_dev):
    d = dnet_dev
    data = b''.join(struct.pack('<Q', 0xaaaa0000 + i) for i in range(16))
    d.write_block(LLCM + 0x400, data)
    assert d.read_block(LLCM + 0x400, 128) == data
    assert d.read64(LLCM + 0x400 + 8 * 5) == 0xaaaa0005
    buf = bytearray(64)
    d.read_block_into(LLCM + 0x440, memoryview(buf))
    assert bytes(buf) == data[64:]
    d.write_block(LLCM + 0x500, memoryview(bytearray(b'\x5a' * 16)))
    assert d.read64(LLCM + 0x508) == 0x5a5a5a5a5a5a5a5a


def test_register_fields_by_hand(dnet_dev):
    d = dnet_dev
    raw = d.read64(UREG + CTL_STATUS)
    cs = d.reg['ctl_status']
    assert cs.value == raw
    assert cs.sdimm_init_done == (raw >> 1) & 1 == 1  # Tab. A.1 bit 1: the emulator initialised it
    assert cs.rc_state == (raw >> 18) & 3
    assert cs.status_empty == (raw >> 4) & 1
    assert cs.fields['rc_state'] == (18, 2)
    assert cs.addr == UREG + CTL_STATUS


def test_field_write_and_tap(dnet_dev):
    d, recs = dnet_dev, []
    d.set_tap(recs.append)
    d.reg['status_initial_addr'].value = 0x40
    d.reg(1)['status_initial_addr'].value = 0x80
    d.write64(LLCM, 7)
    d.read64(LLCM)
    d.set_tap(None)
    d.read64(LLCM)  # not seen
    got = [(r.kind, r.off, r.val[0]) for r in recs]
    assert got == [('write', UREG + STATUS_INIT, 0x40), ('write', UREG + 0x1000 + STATUS_INIT, 0x80),
                   ('write', LLCM, 7), ('read', LLCM, 7)]
    with pytest.raises(dnet.Error) as ei:
        d.reg['status_initial_addr'].value = 1 << 20  # valid mask 0x7fff
    assert ei.value.code in (dnet.EINVAL, dnet.ERANGE)


def test_errors(dnet_dev):
    with pytest.raises(dnet.Error) as ei:
        dnet_dev.read64(LLCM + 4)
    assert (ei.value.code, ei.value.name) == (11, 'EALIGN')
    assert '0x20004' in ei.value.message
    with pytest.raises(dnet.Error) as ei:
        dnet_dev.read64(0x51000)
    assert (ei.value.code, ei.value.name) == (5, 'ERANGE')
    with pytest.raises(dnet.Error) as ei:
        dnet.open('nosuchbackend')
    assert ei.value.code == 2 and 'nosuchbackend' in ei.value.message
    with pytest.raises(dnet.Error) as ei:
        dnet_dev.reg['no_such_reg']
    assert ei.value.code == 2


def test_wait_timeout(dnet_dev):
    d = dnet_dev
    d.write64(LLCM + 0x600, 5)
    assert d.wait(LLCM + 0x600, 5) == 5
    assert d.wait(LLCM + 0x600, 4, cond='>') == 5
    with pytest.raises(dnet.Error) as ei:
        d.wait(LLCM + 0x600, 6, timeout_ns=100_000)
    assert ei.value.code == 6 and ei.value.name == 'ETIMEDOUT'


def test_request_fields_checked(dnet_dev):
    with pytest.raises(dnet.Error) as ei:
        dnet_dev.issue('RVS', dclid=1 << 12)  # 12 bits [29:18]
    assert ei.value.code == dnet.EINVAL and 'dclid' in ei.value.message.lower()


def test_vs_verdict(dnet_dev):
    d = dnet_dev
    data = b''.join(struct.pack('<I', 0x11110000 + i) for i in range(64))
    d.write_block(WW, data)
    v = d.prim('VS', size=0x100, srcoff=0, dstoff=0x1000)
    assert v.completed and v.ok and v.count == 1
    assert (v.prim_counter >> 20) & 0x3ff == 1  # Tab. A.2: VS is counter 2, bits [29:20]
    assert (v.ctl_status >> 1) & 1 == 1


@needs_node_handles
def test_rvs_between_nodes(dnet_dev):
    d = dnet_dev
    data = b''.join(struct.pack('<I', 0x22220000 + i) for i in range(64))
    d.write_block(WW, data)
    assert d.prim('VS', size=0x100, srcoff=0, dstoff=0x1000).ok
    v = d.prim('RVS', dclid=2, eflag=1, size=0x100, srcoff=0x1000, dstoff=0x3000)
    assert v.ok and v.count == 1 and (v.prim_counter >> 40) & 0x3ff == 1  # RVS: bits [49:40]
    two = d.node(2)
    assert two.node_id == 2 and d.node(0) is d and d.node_id == 1
    if 'backdoor' in d.caps:
        assert two.sodimm_read(0x3000, 0x100) == data
    with pytest.raises(dnet.Error) as ei:
        d.node(d.node_count + 1)
    assert ei.value.code == dnet.ERANGE


def test_barrier_two_ranks(dnet_dev):
    d = dnet_dev
    a, b = dnet.Sync(d, 0, 2, run_id=7), dnet.Sync(d, 1, 2, run_id=7)
    a.ibarrier()
    b.ibarrier()
    done = [None, None]
    for _ in range(10000):
        for i, s in enumerate((a, b)):
            if done[i] is None:
                done[i] = s.test()
        if None not in done:
            break
        d.delay(1000)
    assert done == [1, 1]  # the first barrier of the run
    assert a.generation != 0 and a.generation == b.generation
    a.close()
    b.close()


def test_posting(dnet_dev):
    d = dnet_dev
    d.set_posted(dnet.POST_CONTINUE)
    d.set_tag(42)
    for i in range(4):
        d.write64(LLCM + 0x700 + 8 * i, i * 3)
    d.set_posted(dnet.POST_OFF)
    d.sync()
    assert [d.read64(LLCM + 0x700 + 8 * i) for i in range(4)] == [0, 3, 6, 9]


def test_params_faults(dnet_dev):
    d = dnet_dev
    names = [p.name for p in d.params()]
    assert 'fault.rules' in names
    try:
        d.param_set('fault.rules', 'drop 0.5')
    except dnet.Error as e:
        if e.code == dnet.EPERM:
            pytest.skip('through dnetd: not a privileged client')
        raise
    assert 'drop' in d.param_get('fault.rules')
    assert 'drop' in d.param_get_all()['fault.rules']
    d.param_set('fault.rules', '')
    assert d.param_get('fault.rules') == ''
    with pytest.raises(dnet.Error) as ei:
        d.param_get('no.such.param')
    assert ei.value.code == dnet.ENOENT


@needs_node_handles
def test_barrier_across_node_handles(dnet_dev):
    """Rank r on node r + 1's own handle, as two processes would hold them."""
    d = dnet_dev
    ranks = [dnet.Sync(d.node(1), 0, 2, run_id=9), dnet.Sync(d.node(2), 1, 2, run_id=9)]
    for s in ranks:
        s.ibarrier()
    done = [None, None]
    for _ in range(10000):
        done = [done[i] if done[i] is not None else s.test() for i, s in enumerate(ranks)]
        if None not in done:
            break
        d.delay(1000)
    assert done == [1, 1]
    # each rank's barrier flag landed in its own node's LLCM flag area (sync.h: 0x7000,
    # round 0 at +0): the generation in [63:32], the count 1 in [31:0]
    g = ranks[0].generation
    for k in (1, 2):
        assert d.node(k).read64(LLCM + 0x7000) == g << 32 | 1
    for s in ranks:
        s.close()


def test_posted_failure_through_dnetd(dnet_dev):
    """A user client of WID 0 may not write WID 1's LLCM; only the daemon
    knows, so a posted write fails after its call returned: dnet_sync hands
    the failure over with the tag it was made under, and (POST_CONTINUE)
    the writes after it were done."""
    if 'remote' not in dnet_dev.caps:
        pytest.skip("N/A: in process every request is done when its call returns (posting is dnetd's)")
    with dnet.open(dnet_dev.spec + ',user') as d:
        d.write64(LLCM + 0x800, 0)
        d.set_posted(dnet.POST_CONTINUE)
        d.set_tag(7)
        d.write64(LLCM + 0x8000, 1)  # WID 1's LLCM: refused by the daemon
        d.set_tag(8)
        d.write64(LLCM + 0x800, 2)
        with pytest.raises(dnet.Error) as ei:
            d.sync()
        assert ei.value.tag == 7 and ei.value.code == dnet.EPERM
        d.sync()  # nothing more to hand over
        d.set_posted(dnet.POST_OFF)
        assert d.read64(LLCM + 0x800) == 2
