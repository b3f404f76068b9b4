"""Linting one source text, the per-file pipeline.

In the order a file goes through it: ``engine`` (the driver: prefilter, parse once, one batched visit, fixes until
stable) asks ``prefilter`` (the words), ``text_gate`` then ``ast_gate`` (``import_bindings`` is what both gates
record of an import) whether any enabled rule can fire; takes the findings from the ast gate's tree when every
rule left decides from it (``ast_findings``: no libcst at all); otherwise chooses the statements to parse
(``focus``, or ``large_files`` for a very large module, both cutting through ``cuts``); parses with libcst; builds a
``context.FileContext`` (what the rules see: ``names`` resolves qualified names, ``inference`` what a name holds)
and walks the tree once (``context.BatchedVisitor`` over ``walk``, whose field order is ``_cst_fields``); turns the
rules' reports into ``diagnostics`` at ``positions``; filters them by ``noqa``; turns node-level fixes into text
edits (``fixes``). ``engine_codes`` lists the codes the engine reports itself (JAX000...).

Imports go one way (``tests/test_layering.py``), lowest first: ``jaxlint.project.versions`` and ``settings``;
``diagnostics``, ``walk``, ``names``, ``inference``, the stages before libcst (``prefilter``, ``text_gate``,
``ast_gate``: none imports a later one); the rule API (``jaxlint.rules.base``, which sees the file only through
its ``RuleContext`` protocol); the rules and their registry (``jaxlint.rules``); ``context`` and ``fixes``;
``engine``; then ``jaxlint.run``, ``jaxlint.output`` and ``jaxlint.ui``.
"""
