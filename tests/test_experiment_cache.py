"""The experiment registry and its result cache: configurations are simulated once per content, whatever the
figure or label that asks for them; a changed configuration is simulated again; an interrupted one resumes."""
import json
import os

import numpy as np
import pytest

from jaxbandit import experiments, sweep
from jaxbandit.experiments import gdp_ts, runner

TINY = dict(env="bernoulli", env_params={"means": [0.2, 0.8]}, policy="ucb1", horizon=200, runs=3, seed=0)


def _entry(exp_id, kwargs, label="ucb1", seen=None):
    """A registry entry with one configuration; its figure function records what it was given."""
    def figures(results, out_dir):
        if seen is not None:
            seen[exp_id] = results
    return runner.Experiment(exp_id, exp_id, "test entry", lambda quick: [runner.Config(label, dict(kwargs))], figures)


@pytest.fixture
def sweeps(monkeypatch):
    """The keyword arguments of every sweep the runner starts."""
    calls = []

    def counted(**kwargs):
        calls.append(kwargs)
        return sweep(**kwargs)
    monkeypatch.setattr(runner, "sweep", counted)
    return calls


def test_registry_entries_have_one_shape():
    from jaxbandit.experiments import adap, baselines, corrupt, dp_ftpl, gdp_ts, heavy_tailed, ldp_ts, private_linear
    entries = [e for m in (baselines, ldp_ts, gdp_ts, corrupt, dp_ftpl, heavy_tailed, private_linear, adap)
               for e in m.EXPERIMENTS]
    assert len(experiments.REGISTRY) == len(entries) == 33  # every module's entries, no id registered twice
    assert {f"dp-ftpl-fig{i}" for i in range(1, 8)} | {f"heavy-fig{i}" for i in range(1, 5)} <= set(
        experiments.REGISTRY)
    for exp_id, exp in experiments.REGISTRY.items():
        assert isinstance(exp, runner.Experiment) and exp.id == exp_id and exp.description and exp.title
        assert callable(exp.configs) and callable(exp.figures)
        labels = [c.label for c in exp.configs(True)]
        assert len(labels) == len(set(labels)), exp_id
    with pytest.raises(ValueError, match="valid names"):
        experiments.load("gdp-ts-fig9")


def test_equal_configs_share_one_run_and_changed_ones_do_not(tmp_path, sweeps):
    cache = str(tmp_path / "results")
    seen = {}
    logs = []
    runner.run(_entry("a", TINY, seen=seen), str(tmp_path / "a"), progress=False, log=logs.append, cache=cache)
    # Another entry, another label, the same kwargs (in another order): loaded, not simulated.
    reordered = dict(reversed(list(TINY.items())))
    runner.run(_entry("b", reordered, label="same thing", seen=seen), str(tmp_path / "b"), progress=False,
               log=logs.append, cache=cache)
    assert len(sweeps) == 1 and "already done" in logs[-1]
    np.testing.assert_array_equal(seen["a"]["ucb1"].pseudo_regret, seen["b"]["same thing"].pseudo_regret)
    assert (tmp_path / "a" / "summary.csv").exists() and (tmp_path / "b" / "summary.csv").exists()
    # Any changed keyword is another configuration: simulated, and the first result stays as it was.
    runner.run(_entry("c", {**TINY, "seed": 1}, seen=seen), str(tmp_path / "c"), progress=False, log=logs.append,
               cache=cache)
    assert len(sweeps) == 2 and sweeps[1]["seed"] == 1
    assert not np.array_equal(seen["c"]["ucb1"].pseudo_regret, seen["a"]["ucb1"].pseudo_regret)
    assert len([f for f in os.listdir(cache) if f.endswith(".request.json")]) == 2
    # The stored request is the canonical JSON of the kwargs, under the key derived from it.
    key = runner.cache_key(TINY)
    assert json.loads((tmp_path / "results" / f"{key}.request.json").read_text())["seed"] == 0
    assert runner.cache_key(reordered) == key != runner.cache_key({**TINY, "seed": 1})
    assert runner.cache_key({**TINY, "grid": None}) == runner.cache_key({**TINY, "grid": {}}) == key


def test_fig3_and_fig8_reuse_the_runs_of_fig2():
    """Fig. 8's evaluation sweeps at η = 1 and 5 are Fig. 2's configurations: same kwargs, same cache key."""
    for quick in (True, False):
        fig2 = {c.label: runner.cache_key(c.kwargs) for c in experiments.load("gdp-ts-fig2").configs(quick)}
        fig3 = {c.label: runner.cache_key(c.kwargs) for c in experiments.load("gdp-ts-fig3").configs(quick)}
        fig8 = {c.label: runner.cache_key(c.kwargs) for c in experiments.load("gdp-ts-fig8").configs(quick)}
        assert fig3 == fig2
        for eta in (1, 5):
            assert fig8[f"modified-thompson eta={eta}"] == fig2[f"bernoulli eta={eta}"]
        assert len(set(fig8.values()) & set(fig2.values())) == 2  # η = 10 and the tuning runs are Fig. 8's own


def test_interrupted_configuration_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    kwargs = {**TINY, "horizon": 400, "chunk_steps": 100}  # four chunks, a checkpoint after each
    cache = str(tmp_path / "results")

    class Stop(Exception):
        pass

    def interrupted(**kw):
        def stop(partial):
            raise Stop
        return sweep(**kw, callback=stop)
    monkeypatch.setattr(runner, "sweep", interrupted)
    with pytest.raises(Stop):
        runner.cached_sweep(kwargs, cache, progress=False)
    ckpt = os.path.join(cache, runner.cache_key(kwargs) + ".ckpt.npz")
    assert os.path.exists(ckpt) and not os.path.exists(ckpt.replace(".ckpt.npz", ".request.json"))
    monkeypatch.setattr(runner, "sweep", sweep)
    res, base, loaded = runner.cached_sweep(kwargs, cache, progress=False)
    assert not loaded and not os.path.exists(ckpt)
    np.testing.assert_array_equal(res.pseudo_regret, sweep(**{"grid": None, **kwargs}).pseudo_regret)
    assert runner.cached_sweep(kwargs, cache, progress=False)[2]  # now complete: loaded


def test_results_named_by_label_are_adopted(tmp_path, sweeps):
    """Output folders of the runner before the cache was keyed by content keep their simulations."""
    cache = tmp_path / "results"
    cache.mkdir()
    old = sweep(**{"grid": None, **TINY})
    old.save(str(cache / "ucb1_old_label"))
    (cache / "ucb1_old_label.request.json").write_text(runner.request(TINY))
    res, base, loaded = runner.cached_sweep(TINY, str(cache), progress=False)
    assert loaded and not sweeps and os.path.basename(base) == runner.cache_key(TINY)
    assert not (cache / "ucb1_old_label.npz").exists()
    np.testing.assert_array_equal(res.pseudo_regret, old.pseudo_regret)


def test_output_dirs_share_one_cache_per_root():
    assert runner.output_dirs(["gdp-ts-fig2"], "x") == ({"gdp-ts-fig2": "x"}, os.path.join("x", "results"))
    dirs, cache = runner.output_dirs(["gdp-ts-fig2", "gdp-ts-fig3"], None, quick=True)
    assert dirs == {i: os.path.join("out", f"{i}-quick") for i in ("gdp-ts-fig2", "gdp-ts-fig3")}
    assert cache == os.path.join("out", "results") == runner.output_dirs(["gdp-ts-fig8"])[1]


def test_experiments_live_under_jaxbandit():
    """The repository's experiments/ folder is jaxbandit.experiments; site-packages gets no `experiments`."""
    assert experiments.__name__ == "jaxbandit.experiments" and gdp_ts.__name__ == "jaxbandit.experiments.gdp_ts"
    for module in (experiments, runner, gdp_ts):
        assert module.__all__


def test_summary_is_deterministic_and_timings_are_apart(tmp_path):
    """Two identical reproductions (each simulating, separate caches) write byte-identical summary.csv; the
    timings go to timings.csv; a quick reproduction stamps its figures' titles."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from jaxbandit import plotting
    titles = []

    def figures(results, out_dir):
        fig, ax = plt.subplots()
        fig.suptitle("Test figure")
        plotting.save(fig, os.path.join(out_dir, "f.png"))
        titles.append(fig._suptitle.get_text())
    exp = runner.Experiment("t", "t", "test entry",
                            lambda quick: [runner.Config("ucb1", {**TINY, "runs": 3 if quick else 4})], figures)
    analytic = runner.Experiment("a", "a", "no simulation", lambda quick: [], figures)
    for name in ("one", "two"):
        runner.run(exp, str(tmp_path / name), quick=True, progress=False, log=lambda *a: None)
    one, two = ((tmp_path / n / "summary.csv").read_bytes() for n in ("one", "two"))
    assert one == two and b"seconds" not in one
    header, row = (tmp_path / "one" / "timings.csv").read_text().splitlines()
    assert header == "label,seconds,compile_seconds,agent_steps_per_second,simulation_agent_steps_per_second"
    label, seconds, compiling = row.split(",")[:3]
    assert label == "ucb1" and 0 <= float(compiling) <= float(seconds) and float(seconds) > 0
    assert titles == [f"{runner.QUICK_STAMP}: Test figure"] * 2
    runner.run(exp, str(tmp_path / "full"), quick=False, progress=False, log=lambda *a: None)
    assert titles[-1] == "Test figure"
    runner.run(analytic, str(tmp_path / "analytic"), quick=True, progress=False, log=lambda *a: None)
    assert titles[-1] == "Test figure"  # the same figure in both settings: not stamped
