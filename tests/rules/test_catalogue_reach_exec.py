"""JAX101 reports a removed module reached through attributes (``jax.experimental.maps.xmap`` after ``import
jax``). That is right only if the attribute is really gone: checked in the newest JAX for every such module entry
(an entry whose attribute lives on is marked ``attribute_survives``, as ``jax.config`` and ``jax.memory``)."""
from __future__ import annotations

import json

import pytest

from jaxlint.catalogue import load
from support.jaxenv import run_on_jax

pytestmark = pytest.mark.jax

CAT = load()

PROBE = """
import json, warnings
warnings.simplefilter("ignore")
import jax
reachable = []
for name in json.loads(NAMES):
    obj = jax
    try:
        for part in name.split(".")[1:]:
            obj = getattr(obj, part)
    except AttributeError:
        continue
    reachable.append(name)
print(json.dumps(reachable))
"""


def test_every_module_reported_through_attributes_is_gone_as_an_attribute():
    names = sorted(e.name for e in CAT.of_kind("module")
                   if e.removed_at(CAT.newest_version) and not e.attribute_survives and e.name.startswith("jax."))
    assert names
    out = run_on_jax(CAT.newest_version, f"NAMES = {json.dumps(json.dumps(names))}\n" + PROBE)
    assert json.loads(out.strip().splitlines()[-1]) == []
