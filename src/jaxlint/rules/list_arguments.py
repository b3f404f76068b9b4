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

import libcst as cst

from jaxlint.lint.names import NameResolver

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


def literal_sequence(value: cst.BaseExpression, resolver: NameResolver) -> str | None:
    """"list"/"tuple" when ``value`` is a list or tuple literal (a list comprehension counts), or a name every
    binding of which assigns one; None otherwise (anything else may be an array)."""
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
    return kinds.pop() if len(kinds) == 1 else None


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
