"""Small dense linear algebra for the linear policies' steps, written elementwise.

A policy's step is written for one run and `jax.vmap`-ed over runs (the runs axis last, DESIGN.md). A LAPACK
factorization under vmap is one custom call per run per step on the CPU (1000 calls a step for 1000 runs), which
also hung the XLA CPU runtime in a long JDP-LinUCB run (every thread idle, the result never signalled); written here
as loops over the d rows and columns, every operation is one vector operation over all runs at once. Up to
`UNROLLED_MAX` dimensions the loops are unrolled at trace time (d(d + 1)/2 traced operations: the fastest for small
d); above it they are loops of `jax.lax.fori_loop` over the columns or rows, each iteration a masked vector
operation, so that the program's size does not grow with d² (unrolled, d = 50 took XLA's compiler past 24 GiB).
Both are O(d³) arithmetic.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["UNROLLED_MAX", "matvec", "cholesky", "solve_lower", "solve_upper_transposed", "cholesky_or_identity"]

#: The largest d whose loops are unrolled at trace time (the private linear reproductions' d = 5 among them); a
#: larger d runs them in `jax.lax.fori_loop` (the same algorithm; other rounding, sums in another order).
UNROLLED_MAX = 8


def matvec(features, theta):
    """``features @ theta`` for features (n, d): up to `UNROLLED_MAX` dimensions, Σ_j x_j θ_j left to right, one
    vector operation over the n rows and all runs per term (XLA:CPU runs a vmapped small matrix–vector product as a
    batched dot of its own, about twice the time of the step's other per-arm work at K = 100, d = 5); above it the
    dot."""
    d = theta.shape[-1]
    if d > UNROLLED_MAX:
        return features @ theta
    out = features[:, 0] * theta[0]
    for j in range(1, d):
        out = out + features[:, j] * theta[j]
    return out


def cholesky(a):
    """The lower Cholesky factor L (L Lᵀ = a) of a symmetric d×d matrix, column by column (the Cholesky–Banachiewicz
    order of LAPACK's unblocked potrf); NaN or ±inf entries where a is not positive definite."""
    d = a.shape[-1]
    index = jnp.arange(d)
    if d > UNROLLED_MAX:
        def column(j, chol):
            before = jnp.where(index < j, jax.lax.dynamic_index_in_dim(chol, j, 0, keepdims=False), 0)  # L[j, :j]
            s = jax.lax.dynamic_index_in_dim(a, j, 1, keepdims=False) - jnp.sum(chol * before, axis=1)
            diag = jnp.sqrt(jax.lax.dynamic_index_in_dim(s, j, 0, keepdims=False))
            col = jnp.where(index > j, s / diag, jnp.where(index == j, diag, jnp.zeros((), a.dtype)))
            return jax.lax.dynamic_update_index_in_dim(chol, col, j, 1)
        return jax.lax.fori_loop(0, d, column, jnp.zeros_like(a))
    cols = []
    for j in range(d):
        s = a[:, j]
        for k in range(j):
            s = s - cols[k] * cols[k][j]
        diag = jnp.sqrt(s[j])
        cols.append(jnp.where(index > j, s / diag, jnp.where(index == j, diag, jnp.zeros((), a.dtype))))
    return jnp.stack(cols, axis=-1)


def solve_lower(chol, b):
    """x with L x = b, L lower triangular (d×d), b of shape (d,) or (d, n): forward substitution."""
    if chol.shape[-1] > UNROLLED_MAX:
        return _substitute(chol, b, transposed=False)
    rows = []
    for i in range(chol.shape[-1]):
        acc = b[i]
        for k in range(i):
            acc = acc - chol[i, k] * rows[k]
        rows.append(acc / chol[i, i])
    return jnp.stack(rows)


def solve_upper_transposed(chol, y):
    """x with Lᵀ x = y, L lower triangular (d×d), y of shape (d,) or (d, n): back substitution."""
    d = chol.shape[-1]
    if d > UNROLLED_MAX:
        return _substitute(chol, y, transposed=True)
    rows = [None] * d
    for i in reversed(range(d)):
        acc = y[i]
        for k in range(i + 1, d):
            acc = acc - chol[k, i] * rows[k]
        rows[i] = acc / chol[i, i]
    return jnp.stack(rows)


def _substitute(chol, b, transposed: bool):
    """Forward substitution with L (``transposed=False``) or back substitution with Lᵀ, as a loop over the rows:
    row i of the solution is (b_i − Σ_k M[i, k] x_k)/M[i, i] over the rows k already solved (M = L or Lᵀ)."""
    d = chol.shape[-1]
    matrix = chol.T if transposed else chol
    index = jnp.arange(d)
    shape = (d,) + (1,) * (b.ndim - 1)

    def row(step, x):
        i = d - 1 - step if transposed else step
        coeffs = jax.lax.dynamic_index_in_dim(matrix, i, 0, keepdims=False)
        solved = (index > i) if transposed else (index < i)
        acc = jax.lax.dynamic_index_in_dim(b, i, 0, keepdims=False) - jnp.sum(
            jnp.where(solved, coeffs, 0).reshape(shape) * x, axis=0)
        value = acc / jax.lax.dynamic_index_in_dim(coeffs, i, 0, keepdims=False)
        return jax.lax.dynamic_update_index_in_dim(x, value, i, 0)

    return jax.lax.fori_loop(0, d, row, jnp.zeros_like(b))


def cholesky_or_identity(matrix):
    """(L, ok): the Cholesky factor of a symmetric matrix, or I and False where it is not positive definite."""
    chol = cholesky(matrix)
    ok = jnp.all(jnp.isfinite(chol)) & jnp.all(jnp.diagonal(chol) > 0)
    return jnp.where(ok, chol, jnp.eye(matrix.shape[-1], dtype=chol.dtype)), ok
