# SPDX-License-Identifier: MIT
"""`pytest -p dnet.pytest scripts/tests`: the bring-up suite's scripts are
written for ranks ($rank, $next, signal/waitfor), so each runs under
dsh-run with 2 ranks (dnet.pytest's dnet_ranks marker) unless --dnet-ranks
says otherwise."""
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.suffix == '.dsh' and not item.get_closest_marker('dnet_ranks'):
            item.add_marker(pytest.mark.dnet_ranks(2))
