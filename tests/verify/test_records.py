"""The verifier's records are pickles, loaded by `_jaxlint_compare`: safe only because their folder is private to
this run (docs/verify.md, "State on disk that could run code"). This test holds that reasoning to the code."""
from __future__ import annotations

import os
import stat

import pytest

from jaxlint.verify import verifier
from jaxlint.verify.plan import Plan


class _Stop(Exception):
    pass


def test_records_live_in_a_folder_only_the_user_can_open_and_made_for_this_run(monkeypatch, tmp_path):
    seen = []

    def prepare_trees(plan, workdir, probes):
        info = workdir.stat()
        seen.append((workdir, stat.S_IMODE(info.st_mode), info.st_uid, list(workdir.iterdir())))
        raise _Stop

    monkeypatch.setattr(verifier, "interpreter_info", lambda python, platform: {"jax_version": "0.12.0.1",
                                                                               "python": "3.12.1"})
    monkeypatch.setattr(verifier, "prepare_trees", prepare_trees)
    for _ in range(2):
        with pytest.raises(_Stop):
            verifier.verify(Plan(tmp_path), ["python", "run.py"], baseline_python="old", target_python="new",
                            platform=None, rtol=0, atol=0, max_calls=1)
    (first, mode, owner, contents), (second, *_) = seen
    assert mode == 0o700 and owner == os.getuid() and contents == []  # private, and empty: nothing planted before
    assert first != second and not first.exists()  # a new folder each run, removed after it
