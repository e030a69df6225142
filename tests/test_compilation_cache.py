"""JAX's persistent compilation cache, on by default (`jaxbandit.compilation_cache`): where it lives, that a second
process loads its programs and gets the same numbers bit for bit, that the user's settings win, its size bound,
and a run's compile time reported apart from its simulation."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import compilation_cache

# One small run in a fresh process; prints what the test checks as JSON.
RUN = """
import json, jax, jax.monitoring
hits = []
jax.monitoring.register_event_listener(lambda event, **kw: hits.append(event) if event.endswith("cache_hits") else None)
import jaxbandit as jb
res = jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=150, runs=4, seed=3, progress=False,
                  devices=1)
print(json.dumps({"dir": jax.config.jax_compilation_cache_dir, "hits": len(hits),
                  "min_seconds": jax.config.jax_persistent_cache_min_compile_time_secs,
                  "regret": res.pseudo_regret.tolist(), "compile": res.compile_seconds, "seconds": res.seconds}))
"""


def _python(code, tmp_path, **env):
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("JAX_COMPILATION_CACHE", "JAX_PERSISTENT_CACHE", "JAXBANDIT_"))}
    environ.update(JAXBANDIT_CACHE=str(tmp_path / "cache"), **env)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environ, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


@pytest.mark.slow  # three fresh processes that compile (about 12 s): the default suite keeps the cheaper checks
def test_second_process_loads_the_programs_and_gets_the_same_numbers(tmp_path):
    first = json.loads(_python(RUN, tmp_path).stdout.splitlines()[-1])
    folder = tmp_path / "cache" / "xla"
    assert first["dir"] == str(folder) and first["hits"] == 0 and len(os.listdir(folder)) > 0
    assert first["min_seconds"] == 0  # every program kept, the set-up's small ones too
    assert 0 < first["compile"] <= first["seconds"]
    second = json.loads(_python(RUN, tmp_path).stdout.splitlines()[-1])
    assert second["hits"] > 0 and second["regret"] == first["regret"]
    # a process that computed with JAX before importing jaxbandit still gets the cache
    before = _python("import jax.numpy as jnp\nprint(float(jnp.arange(3.0).sum()))\n" + RUN, tmp_path)
    assert json.loads(before.stdout.splitlines()[-1])["hits"] > 0


def test_off_switch_and_the_users_own_cache_win(tmp_path):
    check = ("import jax, jaxbandit\nfrom jaxbandit import compilation_cache as cc\n"
             "print(jax.config.jax_compilation_cache_dir, cc.enable(str(tmp)))\n")
    off = _python(check.replace("str(tmp)", "'/proc/no-such-folder'"), tmp_path, JAXBANDIT_COMPILATION_CACHE="0")
    assert off.stdout.split() == ["None", "None"]  # off; and a folder that cannot be made: a warning, no cache
    assert "cannot use the compilation cache folder /proc/no-such-folder" in off.stderr
    assert not (tmp_path / "cache").exists()
    unwritable = _python(check.replace("str(tmp)", "None"), tmp_path, JAXBANDIT_COMPILATION_CACHE="/proc")
    assert unwritable.stdout.split() == ["None", "None"]  # exists, but no file can be written there
    assert "cannot use the compilation cache folder /proc" in unwritable.stderr
    on = _python(check.replace("str(tmp)", "None"), tmp_path, JAXBANDIT_COMPILATION_CACHE="on")
    assert on.stdout.split() == [str(tmp_path / "cache" / "xla")] * 2
    mine = str(tmp_path / "mine")
    user = _python(check.replace("str(tmp)", repr(str(tmp_path / "other"))), tmp_path, JAX_COMPILATION_CACHE_DIR=mine)
    assert user.stdout.split() == [mine, mine]
    named = _python(check.replace("str(tmp)", "None"), tmp_path, JAXBANDIT_COMPILATION_CACHE=str(tmp_path / "named"))
    assert named.stdout.split() == [str(tmp_path / "named")] * 2


def test_prune_deletes_the_oldest_entries_down_to_half_the_bound(tmp_path):
    for i in range(10):  # 10 entries of 100 bytes with their access-time files, entry 0 the oldest
        path = tmp_path / f"key{i}-cache"
        path.write_bytes(b"x" * 100)
        os.utime(path, (1000 + i, 1000 + i))
        (tmp_path / f"key{i}-atime").write_bytes(b"t")
    (tmp_path / "notes.txt").write_bytes(b"y" * 5000)  # not an entry: never counted nor deleted
    (tmp_path / ".lockfile").write_bytes(b"")
    assert compilation_cache.prune(str(tmp_path), max_bytes=1000) == 0  # at the bound: kept
    assert compilation_cache.prune(str(tmp_path), max_bytes=900) == 600  # above: down to 450 bytes
    kept = [f"key{i}-{kind}" for i in range(6, 10) for kind in ("atime", "cache")]
    assert sorted(os.listdir(tmp_path)) == sorted(kept + ["notes.txt", ".lockfile"])
    assert compilation_cache.prune(str(tmp_path / "missing"), max_bytes=1) == 0


def test_results_report_compile_time_apart_and_keep_it(tmp_path):
    res = jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=100, runs=2, progress=False)
    assert 0 <= res.compile_seconds <= res.seconds
    s = res.summary()
    simulating = res.seconds - res.compile_seconds
    assert s["compile_seconds"] == res.compile_seconds
    assert s["simulation_agent_steps_per_second"] == (200 / simulating if simulating > 0 else None)
    res.save(str(tmp_path / "r"))
    again = jb.Results.load(str(tmp_path / "r"))
    assert again.compile_seconds == res.compile_seconds and again.seconds == res.seconds
    np.testing.assert_array_equal(again.pseudo_regret, res.pseudo_regret)
    meta = json.loads((tmp_path / "r.json").read_text())  # saved before compile time was recorded: unknown
    del meta["compile_seconds"]
    (tmp_path / "r.json").write_text(json.dumps(meta))
    old = jb.Results.load(str(tmp_path / "r"))
    assert old.compile_seconds is None and old.summary()["simulation_agent_steps_per_second"] is None
