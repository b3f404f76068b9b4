"""What the rules share: facts about code that more than one rule (or one rule's fix safety) needs.

Matching calls and their arguments (``calls``, ``list_arguments``: the ``jnp`` functions that reject a list),
where a name is an assignment target (``targets``), where an ``import`` goes and which imports a fix leaves unused
(``added_imports``, ``unused_imports``), whether a file imports JAX (``jax_imports``), what flax values are
(``flax_values``), whether a buffer is ever read (``unread_buffers``), whether a block reaches a ``pjit`` with
``PartitionSpec`` shardings or a risky project module (``pjit_specs``, ``project_reach``). None of them is a rule:
the rules are ``jaxlint.rules.jaxNNN_*``; what the rules know about JAX's (and flax's, optax's) API changes is in
``jaxlint.catalogue``. These modules may use the rule API (``jaxlint.rules.base``), never a rule module.
"""
