"""``jaxlint verify``: prove each rewrite by running the old code on the old JAX and the fixed code on the new JAX.

Pipeline (one small module each): ``plan`` (the fixes ``fix_source`` would make, as probe sites) → ``instrument``
(two copies of the project, BEFORE and AFTER, with every site wrapped in a probe, line numbers unchanged) →
``envs`` (the two interpreters; ``--baseline-jax`` builds and caches one) → ``run`` (the command in each copy) →
``compare`` (values site by site, call by call, in the target interpreter with ``_jaxlint_compare.py``) →
``report`` (text / JSON). ``_jaxlint_probe.py`` and ``_jaxlint_compare.py`` are standalone: they are copied into the
runs and must never import jaxlint.
"""
