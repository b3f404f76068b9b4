"""The project index's quicker searches (per-folder answers to ``resolve``, dotted names built per folder, the
common prefix by halving) against the way it searched before, kept here as the reference: the same dotted names,
the same answers to ``resolve``, the same risks and chains and the same digest, on random projects (packages and
namespace folders, names shared by many modules, relative imports, folders whose names are no identifiers)."""
from __future__ import annotations

import os
import random

from jaxlint.project.index import ProjectIndex, _shared_length


class ReferenceIndex(ProjectIndex):
    """The searches as they were: every import resolved for every module, every dotted name built path by path."""

    def _absolute(self, importer, parts):
        name = ".".join(parts)
        matches = self._suffixes().get(name)
        if not matches:
            return None
        if len(matches) == 1:
            return matches[0]
        key = (os.path.dirname(importer), name)
        if key not in self._nearest:
            self._nearest[key] = max(matches, key=lambda path: (len(os.path.commonprefix([path, importer])), path))
        return self._nearest[key]

    def _suffixes(self):
        if self._by_suffix is None:
            suffixes = {}
            for path in self.paths:
                folder, file_name = os.path.split(path)
                stem = file_name.rsplit(".", 1)[0]
                if stem == "__init__":
                    folder, stem = os.path.split(folder)
                name = stem
                while name and stem.isidentifier():
                    if os.path.join(folder, "__init__.py") not in self.paths:
                        suffixes.setdefault(name, []).append(path)
                    folder, stem = os.path.split(folder)
                    if not stem:
                        break
                    name = f"{stem}.{name}"
            self._by_suffix = suffixes
        return self._by_suffix

    def _imported_modules(self, path):
        targets = self._targets.get(path)
        if targets is None:
            facts = self.facts_of(path)
            targets = self._targets[path] = []
            for level, module, names in (facts["imports"] if facts else ()):
                for name in names or [None]:
                    found = self.resolve(path, level, module, name)
                    if found is not None:
                        targets.append(found)
        return targets


FOLDERS = ["a", "b", "pkg", "pkg/sub", "pkg/sub/deep", "src", "src/pkg", "src/pkg/util", "tests", "my-tools",
           "my-tools/x", "1st", "ns", "ns/inner", "", "pkg/util", "other/pkg"]
STEMS = ["__init__", "util", "model", "main", "pkg", "sub", "x", "api", "not-a-name", "ns"]
MODULES = ["pkg", "pkg.util", "pkg.sub.model", "util", "model", "src.pkg", "sub", "ns.inner.x", "numpy", "jax",
           "api", "pkg.sub", "x", "tests.util", "", "a.b", "..pkg", "1st.util", "ns"]


def _random_project(rng: random.Random, root: str) -> dict[str, dict]:
    paths = set()
    for _ in range(rng.randint(3, 40)):
        folder = rng.choice(FOLDERS)
        paths.add(os.path.normpath(os.path.join(root, folder, rng.choice(STEMS) + rng.choice([".py", ".py", ".pyi"]))))
    facts = {}
    for path in sorted(paths):
        imports = []
        for _ in range(rng.randint(0, 6)):
            level = rng.choice([0, 0, 0, 1, 2])
            names = rng.sample(["model", "util", "x", "sub", "f", "*", "api"], rng.randint(0, 2))
            imports.append([level, rng.choice(MODULES), names])
        risky = rng.random()
        facts[path] = {"imports": imports, "thread_resources": risky < 0.08, "pjit_specs": 0.08 <= risky < 0.15,
                       "hlo_classes": ["C"] if risky > 0.95 else []}
    return facts


def test_the_index_answers_as_before_on_random_projects(tmp_path):
    rng = random.Random(38)
    risky_chains = 0
    for round_ in range(120):
        facts = _random_project(rng, str(tmp_path / f"p{round_ % 3}"))
        new = ProjectIndex(frozenset(facts), dict(facts))
        old = ReferenceIndex(frozenset(facts), dict(facts))
        assert {name: sorted(paths) for name, paths in new._suffixes().items()} \
            == {name: sorted(paths) for name, paths in old._suffixes().items()}
        order = sorted(facts)
        rng.shuffle(order)  # the same questions, in another order each round
        for path in order:
            assert new._imported_modules(path) == old._imported_modules(path), path
        for path in order:
            assert new.risk_of(path, str(tmp_path)) == old.risk_of(path, str(tmp_path))
            risky_chains += "imports" in (new.risk_of(path) or "")
        assert new.digest() == old.digest()
        # A fresh index, as ``complete_index`` makes one (``_nearest`` keeps the first answer per folder: the digest
        # of an index asked in another order first may differ, before as now).
        assert ProjectIndex(frozenset(facts), dict(facts)).digest() \
            == ReferenceIndex(frozenset(facts), dict(facts)).digest()
        for path in order[:3]:
            for module in MODULES:
                for level in (0, 1, 2):
                    for name in (None, "model", "util"):
                        assert new.resolve(path, level, module, name) == old.resolve(path, level, module, name)
    assert risky_chains > 20


def test_shared_length_is_the_common_prefix_length():
    rng = random.Random(38)
    words = ["", "/", "/a", "/a/b", "/a/bc", "/ab/c", "x", "/a/b/c.py", "/a/b/d.py", "é/ü"]
    for _ in range(5000):
        one = "".join(rng.choice(words) for _ in range(rng.randint(0, 4)))
        other = one[:rng.randint(0, len(one))] + "".join(rng.choice(words) for _ in range(rng.randint(0, 3)))
        assert _shared_length(one, other) == len(os.path.commonprefix([one, other]))
        assert _shared_length(other, one) == len(os.path.commonprefix([other, one]))
