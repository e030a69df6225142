"""jaxbandit.random.threefry: the unrolled Threefry implementation equals jax.random's Threefry bit for bit."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbandit.random import threefry
from tests.helpers import default_subset


def test_hash_known_answers():
    """Threefry-2x32-20 known-answer vectors of Random123 (Salmon et al. 2011, kat_vectors)."""
    u = lambda *x: [jnp.uint32(v) for v in x]
    cases = [((0, 0, 0, 0), (0x6B200159, 0x99BA4EFE)),
             ((0xFFFFFFFF,) * 4, (0x1CB996FC, 0xBB002BE7)),
             ((0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]
    for (k1, k2, x1, x2), want in cases:
        got = threefry.hash_2x32(*u(k1, k2, x1, x2))
        assert [int(g) for g in got] == list(want)


DRAWS = {
    "key_data": lambda k: jax.random.key_data(k),
    "split": lambda k: jax.random.key_data(jax.random.split(k, 5)),
    "split_2d": lambda k: jax.random.key_data(jax.random.split(k, (2, 3))),
    "fold_in": lambda k: jax.random.key_data(jax.random.fold_in(k, 123456789)),
    "bits8": lambda k: jax.random.bits(k, (11,), jnp.uint8),
    "bits16": lambda k: jax.random.bits(k, (5, 3), jnp.uint16),
    "bits32": lambda k: jax.random.bits(k, (7,), jnp.uint32),
    "uniform": lambda k: jax.random.uniform(k, (9, 2)),
    "normal_odd": lambda k: jax.random.normal(k, (3, 5)),
    "randint": lambda k: jax.random.randint(k, (13,), -5, 1000),
    "bernoulli": lambda k: jax.random.bernoulli(k, 0.3, (17,)),
    "gamma": lambda k: jax.random.gamma(k, 2.5, (6,)),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_same_bits_as_jax_threefry(name):
    draw = DRAWS[name]
    for seed in (0, 7, 2**31 - 1, -5):  # one test per draw: the seeds reuse its compiled ops
        with jax.threefry_partitionable(False):
            want = draw(jax.random.key(seed))
        got = draw(threefry.key(seed))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=f"seed {seed}")


def test_same_bits_under_jit_and_vmap_and_in_either_partitionable_mode():
    def draws(root):
        keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(root, jnp.arange(4))
        return jax.vmap(lambda k: jax.random.normal(jax.random.fold_in(k, 3), (50, 10)), out_axes=-1)(keys)

    with jax.threefry_partitionable(False):
        want = jax.jit(draws)(jax.random.key(5))
    for mode in (False, True):  # the unrolled implementation does not depend on the flag
        with jax.threefry_partitionable(mode):
            got = jax.jit(draws)(threefry.key(5))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(draws(threefry.wrap(jax.random.key(5)))), np.asarray(want))


def test_64_bit_draws_match():
    with jax.enable_x64(True):
        for seed in (3, 2**40 + 17):
            with jax.threefry_partitionable(False):
                want = (jax.random.bits(jax.random.key(seed), (5, 2), jnp.uint64),
                        jax.random.normal(jax.random.key(seed), (3, 4), jnp.float64))
            got = (jax.random.bits(threefry.key(seed), (5, 2), jnp.uint64),
                   jax.random.normal(threefry.key(seed), (3, 4), jnp.float64))
            for g, w in zip(got, want):
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("shape", default_subset([(50, 10), (7, 3), (1, 1), (5, 2, 3)], [(7, 3), (5, 2, 3)]))
def test_bits_at_are_the_whole_draws_words(shape):
    """`random_bits_at` gives any element of ``jax.random.bits`` alone, even and odd counts (the pad), 32 and 64
    bits, with a batched key."""
    keys = jax.vmap(lambda s: jax.random.fold_in(threefry.key(11), s))(jnp.arange(3))
    size = int(np.prod(shape))
    idx = jnp.asarray([[0, size - 1, size // 2, (size - 1) // 2]] * 3, jnp.uint32)
    data = jax.random.key_data(keys)[:, None, :]
    want = jax.vmap(lambda k: jax.random.bits(k, shape, jnp.uint32).ravel())(keys)
    np.testing.assert_array_equal(np.asarray(threefry.random_bits_at(data, 32, shape, idx)),
                                  np.take_along_axis(np.asarray(want), np.asarray(idx, np.int64), 1))
    with jax.enable_x64(True):
        want = jax.vmap(lambda k: jax.random.bits(k, shape, jnp.uint64).ravel())(keys)
        got = threefry.random_bits_at(data, 64, shape, idx)
        assert got.dtype == jnp.uint64
        np.testing.assert_array_equal(np.asarray(got),
                                      np.take_along_axis(np.asarray(want), np.asarray(idx, np.int64), 1))


def test_bits_at_checks_its_arguments():
    data = jax.random.key_data(threefry.key(0))
    with pytest.raises(ValueError, match="count must be in"):
        threefry.bits_at(data, 0, jnp.zeros(1, jnp.uint32))
    with pytest.raises(ValueError, match="bit_width must be 32 or 64, got 16"):
        threefry.random_bits_at(data, 16, (4,), jnp.zeros(1, jnp.uint32))


@pytest.mark.slow
def test_a_broken_hash_is_caught(monkeypatch):
    """The equality tests can fail: one changed rotation constant changes every draw."""
    monkeypatch.setattr(threefry, "_ROTATIONS", ((13, 15, 26, 6), (17, 29, 16, 25)))
    shape = (8, 3, 1)  # a shape no other test draws: jax.random caches compiled draws by shape
    try:
        with jax.threefry_partitionable(False):
            want = jax.random.normal(jax.random.key(1), shape)
        got = jax.random.normal(threefry.key(1), shape)
        assert not np.any(np.asarray(got) == np.asarray(want))
    finally:
        jax.clear_caches()  # drop every trace made with the broken hash
