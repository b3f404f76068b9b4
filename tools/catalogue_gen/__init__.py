"""The catalogue generators, one module a job; ``tools/generate_catalogue.py`` runs the JAX one (``cli.main``).

In pipeline order: ``releases`` (which releases, their wheels downloaded and cached), ``wheel`` (one release read
statically), ``snapshot`` (a release as cached JSON, and the questions asked of it), ``name_diff`` (symbols, modules
and flags deprecated or gone, with their replacements), ``parameter_diff`` (keywords rejected), ``venvs`` and
``runtime_check`` ('same object' confirmed in a JAX venv), ``toml_writer`` (``rules/generated.toml``). ``resolve`` is
how a dotted name is reached at run time, shared by the generator, the execution test and the recall oracle.
"""
