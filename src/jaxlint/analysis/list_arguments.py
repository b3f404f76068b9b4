"""``jnp`` functions that reject a Python list or tuple where an array is expected (JAX103's list-argument check).

JAX's ``check_arraylike`` turned lists into errors function by function (#7737): most of ``jax.numpy`` in 0.2.21
("Many more jax.numpy functions now require array-like inputs, and will error if passed a list"), ``take`` in 0.2.24,
``broadcast_to`` in 0.3.2, ``jax.numpy.linalg``/``jax.numpy.fft`` uniformly in 0.3.24. ``jnp.sum([1, 2])`` raises
``TypeError: sum requires ndarray or scalar arguments, got <class 'list'> at position 0.``

The table below holds only the functions that were shown, by execution, to reject both a list and a tuple as their
first argument on JAX 0.4.13, 0.10.2 and 0.12.0.1 (every release this tool can fix for): called with the list alone,
or with a scalar second argument. Functions that accept sequences (``jnp.array``, ``jnp.asarray``, ``jnp.stack``,
``jnp.concatenate``, ``jnp.block``, ``jnp.einsum``) are not listed, nor those that started rejecting lists only after
0.4.13 (``atleast_1d``, ``broadcast_arrays``, ``inner``, ``logaddexp``, ``trim_zeros``, ...: their release is not
pinned down here).
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint import code_map
from jaxlint.lint.code_map import STRING_MARK, bracket_depth, continued, is_word_char, masked_code, starts_statement
from jaxlint.lint.names import NameResolver
from jaxlint.lint.walk import iter_children

NUMPY = "jax.numpy"
REJECTING = frozenset(f"{NUMPY}.{name}" for name in """
    abs absolute add all allclose amax amin angle any append arccos arccosh arcsin arcsinh arctan arctan2 arctanh
    argmax argmin argpartition argsort argwhere around array_split bincount bitwise_and bitwise_not bitwise_or
    bitwise_xor broadcast_to cbrt ceil clip compress conj conjugate convolve copy copysign corrcoef correlate cos
    cosh count_nonzero cov cross cumprod cumsum deg2rad degrees delete diag diag_indices_from diagflat diagonal diff
    digitize divide divmod dot dsplit ediff1d empty_like equal exp exp2 expand_dims expm1 extract fabs fft.fft
    fft.fft2 fft.fftn fft.fftshift fft.hfft fft.ifft fft.ifft2 fft.ifftn fft.ifftshift fft.irfft fft.irfft2
    fft.irfftn fft.rfft fft.rfft2 fft.rfftn flatnonzero flip fliplr flipud float_power floor floor_divide fmax fmin
    fmod frexp full_like gcd greater greater_equal heaviside histogram histogram2d histogram_bin_edges histogramdd
    hsplit hypot i0 imag intersect1d invert isclose iscomplex isfinite isin isinf isnan isreal ix_ lcm ldexp
    left_shift less less_equal linalg.cholesky linalg.cond linalg.det linalg.eig linalg.eigh linalg.eigvals
    linalg.eigvalsh linalg.inv linalg.lstsq linalg.matrix_power linalg.matrix_rank linalg.norm linalg.pinv linalg.qr
    linalg.slogdet linalg.solve linalg.svd linalg.tensorinv linalg.tensorsolve linspace log log10 log1p log2 matmul
    matrix_transpose max maximum mean median meshgrid min minimum mod modf multiply nan_to_num nanargmax nanargmin
    nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar
    negative nextafter nonzero not_equal ones_like packbits pad partition percentile poly polyadd polyder polydiv
    polyint polymul polysub polyval positive power prod ptp quantile rad2deg radians ravel real reciprocal remainder
    repeat reshape resize right_shift rint roll rollaxis roots rot90 round searchsorted setdiff1d setxor1d sign
    signbit sin sinc sinh sort sort_complex split sqrt square squeeze std subtract sum take tan tanh tensordot tile
    trace transpose tril triu true_divide trunc union1d unique unpackbits unravel_index unwrap vander var vdot
    vsplit where zeros_like
""".split())


_LASTS = frozenset(name.rpartition(".")[2] for name in REJECTING)
# An opening parenthesis whose first argument opens a bracket (blanks and comments between); the callee's last word
# is read backwards from the parenthesis only for those (a regex that starts with the callee's word tries every
# position of the file: ~30x slower).
_OPEN_LITERAL = re.compile(r"\((?:\s|#[^\n]*)*[\[(]")
# A ``(``, blanks (one at least) and a word; a ``(`` with a comment after it, its blanks and comments, and the word
# after.
# A name's characters: ``\w`` and, outside strings, anything beyond ASCII (a combining mark continues a name: ``dL̄``).
_NAME = r"(?:\w|[^\x00-\x7f])"
_OPEN_SPACED_WORD = re.compile(rf"\(\s+({_NAME}+)")
_OPEN_COMMENT = re.compile(rf"\(\s*(#[^\n]*(?:\s|#[^\n]*)*)({_NAME}*)")
# The first argument's start after a call's ``(`` (blanks and comments between); the characters that matter inside a
# bracket group; blanks (an argument may be followed by newlines inside the call's parentheses).
_OPEN_ARGUMENT = re.compile(r"\((?:\s|#[^\n]*)*")
_GROUP_CHARACTER = re.compile(r"[()\[\]{},'\"#\\]")
_BLANKS = re.compile(r"\s*")
# ``name = [`` / ``name: T = [``: a name that may be bound to a list literal (found from the ``= [``).
_EQUALS_LIST = re.compile(r"=[ \t]*\[")
_ANNOTATED = re.compile(r"[ \t]*([^\W\d]\w*)[ \t]*:")


def may_pass_sequence_text(source: str, bare: frozenset[str] | None = None,
                           owners: frozenset[str] | None = None, *, whole_file: bool = True,
                           strings: Callable[[], code_map.CodeMap | None] | None = None) -> bool:
    """Whether ``source`` may call a listed function with a list or tuple literal, or a name some assignment binds
    to a list, as first argument (the text gate's over-estimate of ``literal_sequence``). A callee not written after
    a ``.`` counts only when it is in ``bare`` (what the imports bind to a listed function; None: any), so that the
    builtins ``sum([...])``, ``max((a, b))``, ``any([...])`` do not keep a file; one written after a ``.`` only when
    the word before the dot is in ``owners`` (``jnp``, ``numpy``, ``linalg``...; None: any), so that
    ``data.append((...))`` and numpy's ``np.sum([...])`` do not.

    A list-bound name whose every ``= [`` lies in a string or comment, or that a plain assignment also binds to
    something else, plainly (``assigned_otherwise_text``), is followed no further, as the ast gate does (its
    ``sequence_names - other_assigned`` are read from code), when ``source`` is the whole file (``whole_file``: a
    large file is linted in pieces, each of which may lack that assignment). ``strings``: gives the file's
    ``code_map`` (the text gate's, scanned once per file), when the caller has one."""
    if any(_passes(source, match.start(), bare, owners) for match in _OPEN_LITERAL.finditer(source)):
        return True
    bindings = _list_bindings(source)
    if not bindings:
        return False
    bound = set(bindings)
    passed = {_first_word(source, start) for start in _openings_before(source, bound)  # ``jnp.mean(weights)``
              if _passes(source, start, bare, owners)}
    passed &= bound
    if passed and whole_file:
        readable = strings() if strings is not None else code_map.scan(source)
        if readable is not None:
            passed &= bound_in_code(bindings, readable)
        passed -= assigned_otherwise_text(source, passed, readable) if passed else set()
    return bool(passed)


def _passes(source: str, start: int, bare: frozenset[str] | None, owners: frozenset[str] | None) -> bool:
    """Whether the ``(`` at ``start`` opens a call of a listed function (``bare``, ``owners``: as in
    ``may_pass_sequence_text``) whose first argument may be a sequence as a whole."""
    callee, callee_start = _word_before(source, start)
    if callee not in _LASTS:
        return False
    dot = _dot_before(source, callee_start)
    if dot < 0:
        return (bare is None or callee in bare) and _may_be_whole_sequence(source, start)
    return (owners is None or _word_before(source, dot)[0] in owners) and _may_be_whole_sequence(source, start)


def _first_word(source: str, opening: int) -> str:
    """The name that starts the first argument after the ``(`` at ``opening`` (blanks and comments between)."""
    start = _OPEN_ARGUMENT.match(source, opening).end()
    return source[start:_name_end(source, start)]


def _may_be_whole_sequence(source: str, opening: int) -> bool:
    """Whether the first argument after the call's ``(`` at ``opening`` may be a list or tuple literal or a name
    as a whole: not ``jnp.sum((x - y) ** 2)`` (a parenthesized expression, then more), ``jnp.sum((x - y))`` (no
    comma: no tuple) or ``jnp.mean(x ** 2)``. Anything unclear (a string, comment or line continuation where it
    matters, an unclosed bracket) answers yes."""
    start = _OPEN_ARGUMENT.match(source, opening).end()
    if start == len(source):
        return True
    first = source[start]
    if first not in "([":
        return _ends_argument(source, _name_end(source, start))
    group = _group(source, start)
    if group is None:
        return True
    end, top_level_comma = group
    return _ends_argument(source, end) and (first == "[" or _may_be_tuple(source, start, end, top_level_comma))


def _may_be_tuple(source: str, start: int, end: int, top_level_comma: bool) -> bool:
    """Whether the ``(...)`` group from ``start`` to ``end`` (no quote, comment or backslash in it) may be a tuple,
    or a name that may be bound to a list: a comma at its own level, ``()``, a name alone (``(w)``), or a group
    that only wraps another one that may be (``((a, b))``, ``([a])``)."""
    if top_level_comma:
        return True
    inner = _BLANKS.match(source, start + 1).end()
    if inner == end - 1:
        return True  # ``()``
    if source[inner] not in "([":
        word_end = _name_end(source, inner)
        return word_end > inner and _BLANKS.match(source, word_end).end() == end - 1  # ``((w))``: a name
    inner_end, inner_comma = _group(source, inner)
    if _BLANKS.match(source, inner_end).end() != end - 1:
        return False  # ``((x - y) ** 2)``: more than the inner group
    return source[inner] == "[" or _may_be_tuple(source, inner, inner_end, inner_comma)


def _group(source: str, start: int) -> tuple[int, bool] | None:
    """(the offset after the bracket group opening at ``start``, whether a comma stands at its own level); None when
    a quote, comment or backslash inside may hide a bracket, or the group is not closed."""
    depth = 0
    comma = False
    for match in _GROUP_CHARACTER.finditer(source, start):
        character = match.group()
        if character in "([{":
            depth += 1
        elif character in ")]}":
            depth -= 1
            if depth == 0:
                return match.end(), comma
        elif character == ",":
            comma = comma or depth == 1
        else:
            return None
    return None


def _name_end(source: str, start: int) -> int:
    """Where the name that starts at ``start`` ends: outside strings, a character beyond ASCII can only belong to a
    name (``dL̄``: a combining mark is no ``\\w``)."""
    end = start
    while end < len(source) and (is_word_char(source[end]) or not source[end].isascii()):
        end += 1
    return end


def _ends_argument(source: str, end: int) -> bool:
    """Whether the argument may end at ``end``: a ``,`` or ``)`` follows (blanks between), or a comment or line
    continuation makes it unclear."""
    follows = _BLANKS.match(source, end).end()
    return follows == len(source) or source[follows] in ",)#\\"


def _openings_before(source: str, bound: set[str]) -> list[int]:
    r"""Where ``(`` stands before one of the ``bound`` names, with blanks and comments between: the matches of
    ``\((?:\s|#[^\n]*)*(?:name|...)\b``. That pattern differs per file, and compiling it cost more than the rest of
    this check: it is compiled only for a file where a comment follows a ``(`` and a name may stand in or after it
    (a comment makes the pattern's matches overlap, and some ``(`` then go unreported). Elsewhere the blanks hold no
    comment, and a ``(`` is an opening exactly when the whole word after its blanks is a bound name."""
    for run, word in _OPEN_COMMENT.findall(source):
        if word in bound or any(name in run for name in bound):
            names = "|".join(re.escape(name) for name in sorted(bound))
            return [match.start() for match in re.finditer(rf"\((?:\s|#[^\n]*)*(?:{names})(?!{_NAME})", source)]
    openings = []
    for name in bound:  # ``(name``: found with ``str.find`` (in C; listing every word after a ``(`` cost more)
        opening = "(" + name
        start = source.find(opening)
        while start >= 0:
            end = start + len(opening)
            if _name_end(source, end) == end:
                openings.append(start)
            start = source.find(opening, end)
    spaced = bound.intersection(_OPEN_SPACED_WORD.findall(source))  # ``(`` then blanks then the name
    if spaced:
        openings += [match.start() for match in _OPEN_SPACED_WORD.finditer(source) if match.group(1) in spaced]
    return openings


def _word_before(source: str, end: int) -> tuple[str, int]:
    """The word that ends at ``end`` (blanks between), and where it starts; "" if none."""
    i = _blank_before(source, end)
    stop = i + 1
    while i >= 0 and (source[i].isalnum() or source[i] == "_" or not source[i].isascii()):  # ``_name_end``
        i -= 1
    return source[i + 1:stop], i + 1


def _dot_before(source: str, start: int) -> int:
    """The offset of the ``.`` the word at ``start`` follows (blanks and line continuations between), or -1."""
    i = start - 1
    while i >= 0 and source[i] in " \t\\\r\n":
        i -= 1
    return i if i >= 0 and source[i] == "." else -1


def bound_in_code(bindings: dict[str, list[int]], strings: code_map.CodeMap) -> set[str]:
    """The names of ``bindings`` (``_list_bindings``) read from an ``=`` in code (``strings``: the file's
    ``code_map``): a ``w = [`` in a docstring or comment binds nothing."""
    return {name for name, offsets in bindings.items() if any(strings.at(offset) is None for offset in offsets)}


def _list_bound_names(source: str) -> set[str]:
    """The names of ``_list_bindings``."""
    return set(_list_bindings(source))


def _list_bindings(source: str) -> dict[str, list[int]]:
    """Every name that an assignment's only target may bind to a list literal (``ast``'s ``sequence_names``): found
    from each ``= [``, the word before it (``w = [``, also ``(w) = [``) and an annotated name at the line's start
    (``w: list = [``). Not the word after a dot or a comma on its line: an attribute (``self.w = [``), an element of
    a tuple target, a keyword argument or a parameter's default (``a, w = [``, ``f(a, w=[``) is no such target.
    Each name with the offsets of the ``=`` it was read from."""
    found: dict[str, list[int]] = {}
    for match in _EQUALS_LIST.finditer(source):
        start = match.start()
        if start and source[start - 1] in "=!<>":
            continue  # ``==`` and friends
        line = code_map.line_start(source, start)
        annotated = _ANNOTATED.match(source, line, start)
        if annotated is not None:  # ``name: T = [`` (``T`` may end in a word: ``w: list = [``)
            found.setdefault(annotated.group(1), []).append(start)
        word, word_start = _word_before(source, start)
        if not word:
            word, word_start = _parenthesized_word_before(source, start)
        before = _blank_before(source, word_start)
        if word and (before < 0 or source[before] not in ".,"):
            found.setdefault(word, []).append(start)
    return found


def assigned_otherwise_text(source: str, names: set[str], strings: code_map.CodeMap | None) -> set[str]:
    r"""Those of ``names`` that a plain assignment certainly binds to something that ``ast``'s gate counts in
    ``other_assigned``: a statement ``name = value`` at a line's start (bracket depth 0, no line continuation before
    it: ``f(\n    name=1)`` is a keyword) with one target (no other ``=`` at the value's own level: ``a = b = [1]``
    has two) and a value that is neither a list literal or comprehension nor a name or attribute (``ast`` counts
    ``w = v``, ``w = self.v`` as aliases): one that does not open with ``[`` or ``(`` (a list may be parenthesized)
    and ends in a closing bracket or a string (a name or attribute ends in a word), or is ``None``, ``True``,
    ``False`` or a decimal number. ``w: T = ...`` and ``w += ...`` are left alone; so is every name when the
    strings and comments cannot be read with certainty (``strings``: the file's ``code_map``, None then), or a line
    ends in a lone ``\r`` (``^`` misses that line)."""
    if strings is None or _LONE_CARRIAGE_RETURN.search(source):
        return set()
    code = masked_code(source, strings)
    found = set()
    assignment = re.compile(r"^[ \t]*(" + "|".join(re.escape(name) for name in sorted(names)) + r")[ \t]*=(?!=)",
                            re.MULTILINE)
    for match in assignment.finditer(code):  # ``^``: after a line break in code (not in a string)
        if match.group(1) in found or not starts_statement(code, match.start()):
            continue
        if _plainly_other_value(code[match.end():_statement_end(code, match.end())]):
            found.add(match.group(1))
    return found


_LONE_CARRIAGE_RETURN = re.compile(r"\r(?!\n)")
_VALUE_STRUCTURE = re.compile(r"[()\[\]{};]|[=!<>]?=")
_PLAIN_CONSTANT = re.compile(r"None|True|False|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9_]+)?[jJ]?")
def _statement_end(code: str, start: int) -> int:
    """Where the statement that goes on at ``start`` (at bracket depth 0) ends: its first line break in code outside
    brackets and not continued."""
    line_break = code.find("\n", start)
    while line_break >= 0 and (bracket_depth(code, start, line_break) > 0 or continued(code, line_break)):
        line_break = code.find("\n", line_break + 1)
    return line_break if line_break >= 0 else len(code)


def _plainly_other_value(value: str) -> bool:
    """Whether the code text ``value`` (after an assignment's ``=``, ``masked_code``) is certainly one expression
    that is neither a list (comprehension), nor a name or attribute, nor the start of another target."""
    value = value.strip()
    if not value or value[0] in "[(\\":
        return False
    depth = 0
    for match in _VALUE_STRUCTURE.finditer(value):
        token = match.group()
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
        elif depth == 0 and token in ("=", ";"):
            return False  # ``a = b = [1]`` (two targets), ``a = f(); b``; ``lambda x=1: ...`` too (not read)
    return value[-1] in ")]}" + STRING_MARK or _PLAIN_CONSTANT.fullmatch(value) is not None


def _blank_before(source: str, start: int) -> int:
    """The offset of the last character before ``start`` that is no blank (-1: only blanks before it)."""
    i = start - 1
    while i >= 0 and source[i] in " \t":
        i -= 1
    return i


def _parenthesized_word_before(source: str, end: int) -> tuple[str, int]:
    """``_word_before`` for a word in parentheses (``(w) = [``, ``((w)) = [``); "" if the text before is no such word."""
    i = _blank_before(source, end)
    if i < 0 or source[i] != ")":
        return "", end
    while i >= 0 and source[i] in ") \t":
        i -= 1
    word, word_start = _word_before(source, i + 1)
    before = _blank_before(source, word_start)
    return (word, word_start) if word and before >= 0 and source[before] == "(" else ("", end)


def literal_sequence(value: cst.BaseExpression, resolver: NameResolver, module: cst.Module) -> str | None:
    """"list"/"tuple" when ``value`` is a list or tuple literal (a list comprehension counts), or "list" for a name
    every binding of which assigns a list, and that no plain assignment anywhere in the module binds to anything
    else (``labels = []`` ... ``labels = jnp.concatenate(labels)`` in another function: left alone, as the ast
    gate does); a name bound to a tuple is often a shape: left alone. None otherwise (it may be an array)."""
    kind = _literal_kind(value)
    if kind is not None or not isinstance(value, cst.Name):
        return kind
    bindings = resolver.bindings(value)
    kinds = set()
    for binding in bindings:
        bound = binding.node
        if isinstance(bound, cst.Assign) and len(bound.targets) == 1 and bound.targets[0].target is not value \
                and isinstance(bound.targets[0].target, cst.Name):
            kinds.add(_literal_kind(bound.value))
        elif isinstance(bound, cst.AnnAssign) and bound.value is not None and isinstance(bound.target, cst.Name):
            kinds.add(_literal_kind(bound.value))
        else:
            return None
    if kinds != {"list"} or _assigned_otherwise(module, value.value):
        return None
    return "list"


def _assigned_otherwise(module: cst.Module, name: str) -> bool:
    """Whether a plain assignment anywhere in ``module`` binds ``name`` to something other than a list literal."""
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, cst.Name) and target.value == name and _literal_kind(node.value) != "list":
                return True
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.target.value == name \
                and (node.value is None or _literal_kind(node.value) != "list"):
            return True
        stack.extend(iter_children(node))
    return False


def _literal_kind(value: cst.BaseExpression) -> str | None:
    if isinstance(value, (cst.List, cst.ListComp)):
        return "list"
    if isinstance(value, cst.Tuple):
        return "tuple"
    return None


def numpy_spelling(func: cst.BaseExpression, resolver: NameResolver) -> cst.BaseExpression | None:
    """The part of the callee ``func`` that names ``jax.numpy`` (``jnp`` in ``jnp.linalg.norm``), or None."""
    node = func
    while isinstance(node, cst.Attribute):
        node = node.value
        if resolver.qualified_name(node) == NUMPY:
            return node
    return None
