"""Host-side input checks. Each raises ``ValueError`` naming the parameter, its value and the valid range,
before anything is traced or compiled."""
from __future__ import annotations

import math

import numpy as np


def as_array(name: str, value, *, ndim: int | None = None, allow_inf: bool = False) -> np.ndarray:
    """``value`` as a float64 numpy array, rejecting missing entries (``None``, which NumPy would make NaN), NaN,
    wrong ranks and (unless ``allow_inf``) ±inf."""
    missing = _missing_entry(value)
    if missing is not None:
        raise ValueError(f"{name}={value!r}: entry {missing} is missing (None); give a number there")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}={value!r} is not numeric") from err
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name}={value!r} must have {ndim} dimension(s), got shape {arr.shape}")
    if np.any(np.isnan(arr)) or not allow_inf and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}={_fmt(value)} must be {'a number (no NaN)' if allow_inf else 'finite (no NaN or inf)'}")
    return arr


def _missing_entry(value):
    """The index (``2`` or ``(1, 0)``) of the first ``None`` in a (nested) list or tuple, else ``None``."""
    if not isinstance(value, (list, tuple)):
        return None
    for i, entry in enumerate(value):
        if entry is None:
            return i
        inner = _missing_entry(entry)
        if inner is not None:
            return (i, *inner) if isinstance(inner, tuple) else (i, inner)
    return None


def distinct(name: str, values) -> None:
    """Refuse repeated entries in ``values`` (a list of levels or grid values), naming the first repeat."""
    flat = [float(v) for v in np.asarray(values, np.float64).ravel()]
    for i, v in enumerate(flat):
        if v in flat[:i]:
            shown = ", ".join(f"{x:g}" for x in flat)
            raise ValueError(f"{name}=[{shown}] lists {v:g} twice; give each value once")


def as_written(value):
    """``value`` (a number, an array, a params field) as plain Python numbers the way a user writes them, for
    printing and JSON: a float32 entry is the shortest decimal that rounds to it (``0.1``, not the float64
    ``0.10000000149011612`` of the same bits), other numbers and arrays as `numpy.ndarray.tolist` gives them."""
    arr = np.asarray(value)
    if arr.dtype == np.float32:
        out = np.array([float(str(x)) for x in arr.ravel()], np.float64).reshape(arr.shape)
        return out.tolist()
    return arr.tolist()


def read_json(what: str, path: str):
    """The parsed content of the JSON file ``path``, or one ValueError naming ``what``, the file and the problem (a
    missing or unreadable file, a truncated or non-JSON one), never a bare `json.JSONDecodeError`."""
    import json
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as err:
        raise ValueError(f"{what} {path} cannot be read ({err.strerror or err})") from err
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{what} {path} is not valid JSON ({err}): truncated, or not a {what}") from err


def in_range(name: str, value, low: float = -math.inf, high: float = math.inf, *,
             low_open: bool = False, high_open: bool = False) -> np.ndarray:
    """Check that every entry of ``value`` lies in the interval. NaN is always rejected; ±inf only passes a closed
    infinite bound (``high=inf`` with ``high_open=False``)."""
    arr = np.asarray(value, dtype=np.float64)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name}={_fmt(value)} must not be NaN; valid range {_interval(low, high, low_open, high_open)}")
    lo_ok = arr > low if low_open else arr >= low
    hi_ok = arr < high if high_open else arr <= high
    bad = ~(lo_ok & hi_ok)
    if np.any(bad):
        where = np.flatnonzero(bad)
        first = arr.reshape(-1)[where[0]]
        at = f" (entry {where[0]}: {first:g})" if arr.ndim else ""
        raise ValueError(f"{name}={_fmt(value)}{at} is outside the valid range "
                         f"{_interval(low, high, low_open, high_open)}")
    return arr


def in_set(name: str, value, allowed) -> np.ndarray:
    """Check that every entry of ``value`` is one of ``allowed`` (e.g. a 0/1 switch)."""
    arr = np.asarray(value, dtype=np.float64)
    bad = ~np.isin(arr, np.asarray(allowed, np.float64))
    if np.any(bad):
        raise ValueError(f"{name}={_fmt(value)} must be one of {', '.join(f'{a:g}' for a in allowed)}")
    return arr


def integral(name: str, value) -> np.ndarray:
    """Check that every entry of ``value`` is a whole number (a count passed as a float parameter)."""
    arr = np.asarray(value, dtype=np.float64)
    if np.any(arr != np.round(arr)):
        raise ValueError(f"{name}={_fmt(value)} must be a whole number")
    return arr


def concrete_in_range(name: str, value, low: float = -math.inf, high: float = math.inf, **kw) -> None:
    """``in_range`` for values that are known now; traced values (inside jit, vmap or grad) are skipped, since
    they can only be checked by the caller that made them concrete."""
    import jax
    if not isinstance(value, jax.core.Tracer):
        in_range(name, np.asarray(value, dtype=np.float64), low, high, **kw)


def same_length(**arrays) -> int:
    """Check that every named per-arm array has the same length; returns it."""
    lengths = {k: np.shape(v)[0] if np.ndim(v) else None for k, v in arrays.items()}
    sized = {k: n for k, n in lengths.items() if n is not None}
    if len(set(sized.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in sized.items())
        raise ValueError(f"per-arm parameters have mismatched lengths: {desc}")
    return next(iter(sized.values())) if sized else 1


def positive_int(name: str, value, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` as an int in [minimum, maximum]; floats that are exact integers (``1e4``) are accepted."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) and not (
            isinstance(value, (float, np.floating)) and float(value).is_integer()):
        raise ValueError(f"{name}={value!r} must be an integer >= {minimum}")
    if value < minimum or maximum is not None and value > maximum:
        raise ValueError(f"{name}={value!r} is outside the valid range [{minimum}, {maximum or 'inf'}]"
                         .replace(", inf]", ", inf)"))
    return int(value)


def writable_file(name: str, path: str) -> str:
    """Create the folder of an output file and check, before any work, that the file can be written there: by
    opening it for appending (an existing file is left as it was; a new one is removed again), which is the only
    check that holds for every file system and user (``os.access`` says yes to root for paths such as /proc/x)."""
    import os
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ValueError(f"{name} {path}: cannot create its folder ({err.strerror or err})") from err
    if os.path.isdir(path):
        raise ValueError(f"{name} {path}: a folder, not a file path")
    existed = os.path.exists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as err:
        raise ValueError(f"{name} {path}: cannot write there ({err.strerror or err})") from err
    if not existed:
        try:
            os.remove(path)
        except OSError:
            pass
    return path


def written(name: str, path: str, write) -> None:
    """``write(tmp)`` to a temporary file beside ``path``, then renamed onto it (never half a file); an OSError
    becomes one ValueError naming the output, the path and the reason."""
    import os
    tmp = f"{path}.tmp"
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as err:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise ValueError(f"cannot write {name} {path}: {err.strerror or err}") from err


def write_json(name: str, path: str, obj) -> None:
    """``obj`` as indented JSON, atomically (`written`: a temporary file renamed onto ``path``, never half a file); an
    OSError becomes one ValueError naming the output ``name`` and the path. The one JSON writer of the package."""
    import json

    def dump(tmp):
        with open(tmp, "w") as f:
            json.dump(obj, f, indent=1)
    written(name, path, dump)


def with_params(component, **params):
    """``component.default_params`` (a policy's or privatizer's) with fields replaced, checked by the component's
    ``validate`` and cast to the defaults' dtypes. Infinite values pass through to ``validate``, which decides
    (a privatizer's ε = ∞ means no privacy)."""
    import jax.numpy as jnp
    default = component.default_params
    fields = getattr(default, "_fields", ())
    unknown = set(params) - set(fields)
    if unknown:
        valid = ", ".join(fields) if fields else "none"
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} for {component.name}; valid: {valid}")
    values = {}
    for f, v in params.items():
        if v is None and getattr(default, f) is None:  # left to the run (the T known to a policy, β = 1/T)
            continue
        arr = as_array(f"{component.name} parameter {f}", v, allow_inf=True)
        old = getattr(default, f)
        dtype = jnp.zeros(()).dtype if old is None else jnp.asarray(old).dtype  # None: a run-decided float
        if jnp.issubdtype(dtype, jnp.integer) and not np.all(np.isfinite(arr)):
            raise ValueError(f"{component.name} parameter {f}={v!r} must be a finite integer")
        if jnp.issubdtype(dtype, jnp.integer) and not np.all(arr == np.round(arr)):
            raise ValueError(f"{component.name} parameter {f}={v!r} must be an integer")
        values[f] = jnp.asarray(arr, dtype=dtype)
    p = default._replace(**values) if values else default
    p = strong_dtypes(p)
    component.validate(p)
    return p


def strong_dtypes(tree):
    """``tree`` with every leaf a strongly typed array of its own dtype: a weakly typed leaf (``jnp.asarray(1.0)``
    in a default) would make jit retrace when a strongly typed value of the same dtype comes next. ``None`` leaves
    (parameters a run decides) stay ``None``."""
    import jax
    import jax.numpy as jnp
    return jax.tree.map(lambda x: jnp.asarray(x, dtype=jnp.asarray(x).dtype), tree)


def known_name(kind: str, name: str, valid) -> None:
    """Raise for a name not in ``valid``, listing the valid names and the nearest one."""
    if name not in valid:
        import difflib
        near = difflib.get_close_matches(str(name), list(valid), n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise ValueError(f"unknown {kind} {name!r}{hint}; valid names: {', '.join(sorted(valid))}")


def _interval(low, high, low_open, high_open) -> str:
    return f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def _fmt(value) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        return f"{float(arr):g}" if arr.dtype.kind in "fiu" else repr(value)
    return np.array2string(arr, precision=4, separator=",", threshold=12)
