"""Running the pipeline over files (reading and writing them, notebooks, what each file produced).

``runner`` lints or fixes a list of files (``sources`` reads and writes them byte-for-byte, atomically);
``notebooks`` lints the code cells of Jupyter notebooks as one module (``notebook_json`` finds and rewrites a cell
in the JSON text, ``ipython_masking`` masks magics so the rest parses); ``results`` is what one file produced;
``noqa_add`` is suppression hygiene after the engine (``--add-noqa``, JAX001 unused-noqa); ``progress`` draws
the runner's progress bar on stderr.
"""
