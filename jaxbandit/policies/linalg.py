"""Small dense linear algebra for the linear policies' steps, written elementwise.

A policy's step is written for one run and `jax.vmap`-ed over runs (the runs axis last, DESIGN.md). A LAPACK
factorization under vmap is one custom call per run per step on the CPU (1000 calls a step for 1000 runs), which
also hung the XLA CPU runtime in a long JDP-LinUCB run (every thread idle, the result never signalled); written here
as loops over the d rows and columns, unrolled at trace time, every operation is one vector operation over all runs
at once. The loops are O(d³) arithmetic, d(d + 1)/2 traced operations: meant for the small d of bandits (d ≤ 64).
"""
from __future__ import annotations

import jax.numpy as jnp

__all__ = ["cholesky", "solve_lower", "solve_upper_transposed", "cholesky_or_identity"]


def cholesky(a):
    """The lower Cholesky factor L (L Lᵀ = a) of a symmetric d×d matrix, column by column (the Cholesky–Banachiewicz
    order of LAPACK's unblocked potrf); NaN or ±inf entries where a is not positive definite."""
    d = a.shape[-1]
    index = jnp.arange(d)
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
    rows = [None] * d
    for i in reversed(range(d)):
        acc = y[i]
        for k in range(i + 1, d):
            acc = acc - chol[k, i] * rows[k]
        rows[i] = acc / chol[i, i]
    return jnp.stack(rows)


def cholesky_or_identity(matrix):
    """(L, ok): the Cholesky factor of a symmetric matrix, or I and False where it is not positive definite."""
    chol = cholesky(matrix)
    ok = jnp.all(jnp.isfinite(chol)) & jnp.all(jnp.diagonal(chol) > 0)
    return jnp.where(ok, chol, jnp.eye(matrix.shape[-1], dtype=chol.dtype)), ok
