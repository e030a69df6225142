"""The host drivers' first-hour behaviours: chunks sized by time (one compilation whatever their length), honest
memory limits, checkpoint and results files with a format version and clear errors, short printed summaries."""
import json

import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import simulation
from jaxbandit.engine import _ADVANCE_CACHE

KW = dict(env="bernoulli", env_params={"means": [0.2, 0.5, 0.8]}, policy="ucb1", runs=3, seed=1, progress=False)


def test_chunks_are_sized_by_time_and_share_one_compilation(monkeypatch):
    monkeypatch.setattr(simulation, "CHUNK_SECONDS", 1e-3)  # a fast machine's 2 s: many chunks
    seen = []
    before = len(_ADVANCE_CACHE)
    res = jb.simulate(horizon=5_000, callback=lambda r: seen.append(int(r.t[-1])), **KW)
    assert len(seen) >= 4, seen  # progress, callbacks and checkpoints act during the run, not only at its end
    assert len(_ADVANCE_CACHE) - before <= 1  # chunks of different lengths: one compiled advance
    np.testing.assert_array_equal(res.pseudo_regret, jb.simulate(horizon=5_000, chunk_steps=5_000, **KW).pseudo_regret)


def test_time_estimate_is_printed_with_or_without_the_bar(capsys):
    """One line from the first chunks when over a minute is left, also with progress=False (a piped CLI run);
    none for a short run."""
    for progress in (False, None):
        report = simulation._Progress(progress, horizon=10 ** 8, num=1000, initial=0, resumable=True)
        report.estimate(seconds_per_block=0.5, blocks_left=10 ** 6)
        report.estimate(seconds_per_block=0.5, blocks_left=10 ** 6)  # once only
        report.close()
        err = capsys.readouterr().err
        assert err.count("estimated time left: 5.8 days at 1e+05 agent-steps/s") == 1, err
        assert "running the same command again resumes" in err
    short = simulation._Progress(False, horizon=10 ** 4, num=10, initial=0, resumable=False)
    short.estimate(seconds_per_block=0.01, blocks_left=200)
    assert capsys.readouterr().err == ""


def test_chunk_plan_grows_from_one_block_towards_the_target():
    chunks = simulation._Chunks(None)
    sizes = []
    for compiled in (True, False, False, False, False, False):
        n = chunks.next()
        sizes.append(n)
        chunks.observe(n, seconds=n * 1e-3, overhead=0.0, compiled=compiled)
    assert sizes == [1, 1, 4, 16, 64, 256]  # then capped at CHUNK_SECONDS / (1 ms per block) = 2000
    chunks.observe(2000, seconds=2.0, overhead=1.0, compiled=False)  # a slow checkpoint: chunks lengthen to 2%
    chunks.last = 10 ** 6
    assert chunks.next() == int(1.0 / simulation.CHUNK_OVERHEAD / 1e-3)
    assert simulation._Chunks(120).next() == 2  # chunk_steps rounds down to whole blocks


def test_memory_is_estimated_and_refused_before_allocation(capsys):
    env, pol, priv, params = jb.resolve("bernoulli", "gaussian-thompson", env_params={"means": [0.1, 0.9] * 5})
    per_run = simulation.check_memory(env, pol, priv, params, 1, 100, 2, available=10 ** 12)
    assert simulation.check_memory(env, pol, priv, params, 1000, 100, 2, available=10 ** 12) == 1000 * per_run
    assert capsys.readouterr().err == ""  # small batches run without a word
    big = simulation.MEMORY_NOTE // per_run + 1
    simulation.check_memory(env, pol, priv, params, big, 100, 2, available=10 ** 12)
    assert capsys.readouterr().err.startswith(f"memory: about 1 GiB for {big:,} runs (")  # stated before it runs
    # records (2 x 102 floats) and one block of K = 10 normals dominate: a few KiB per run
    assert 2_000 < per_run < 20_000
    with pytest.raises(ValueError, match=r"runs x grid points = 1,000,000 would need about .* GiB .* at most "
                                         r"[\d,]+ runs fit"):
        simulation.check_memory(env, pol, priv, params, 10 ** 6, 100, 2, available=2 ** 30)
    with pytest.raises(ValueError, match="at most"):  # through sweep, before anything is stacked or compiled
        jb.simulate("bernoulli", "gaussian-thompson", env_params={"means": [0.1, 0.9]}, horizon=10, runs=10 ** 12)


def test_compiled_memory_is_stated_and_refused_before_the_run(capsys):
    """After compiling and before running, the drivers read the program's own memory (arguments, outputs and
    temporaries, less the donated state): a contextual step's d × K working arrays, which the shape estimate
    cannot see, are counted."""
    from types import SimpleNamespace
    stats = SimpleNamespace(temp_size_in_bytes=3 * 2 ** 30, argument_size_in_bytes=2 ** 30,
                            output_size_in_bytes=2 ** 30, alias_size_in_bytes=2 ** 30)
    assert simulation.check_program_memory(stats, 1000, available=2 ** 40) == 4 * 2 ** 30
    assert capsys.readouterr().err.startswith("memory: 4 GiB for 1,000 runs as compiled (4.1 MiB per run")
    with pytest.raises(ValueError, match=r"runs x grid points = 1,000 need 4 GiB for the compiled simulation "
                                         r"\(4.1 MiB per run.* at most 225 runs fit"):
        simulation.check_program_memory(stats, 1000, available=2 ** 30)


@pytest.mark.slow  # compiles a linear program at K = 1000 (about 10 s)
def test_the_drivers_state_the_compiled_programs_memory(capsys, monkeypatch):
    """Through simulate: the shape estimate before compiling, then the program's own figure, which counts what the
    estimate cannot see (each run's features, drawn in the program, and the step's d × K arrays)."""
    monkeypatch.setattr(simulation, "MEMORY_NOTE", 1)
    monkeypatch.setattr(simulation, "MEASURED_FROM", 1)
    jb.simulate("linear", "linucb", env_params={"num_arms": 1000, "dim": 5, "instance": "chowdhury-zhou"},
                horizon=50, runs=16, progress=False)
    err = capsys.readouterr().err.splitlines()
    per_run = lambda line: float(line.split("(")[1].split(" MiB per run")[0])
    estimate = [per_run(line) for line in err if line.startswith("memory: about")]
    compiled = [per_run(line) for line in err if "as compiled" in line]
    assert len(estimate) == 1 and len(compiled) == 1  # one program: T = 50 is one whole block
    assert compiled[0] > 1.5 * estimate[0]
    monkeypatch.setattr(simulation, "MEASURED_FROM", 2 ** 40)  # a small batch is not measured: no second trace
    jb.simulate("linear", "linucb", env_params={"num_arms": 1000, "dim": 5, "instance": "chowdhury-zhou"},
                horizon=50, runs=16, progress=False)
    assert "as compiled" not in capsys.readouterr().err


def test_checkpoint_files_give_one_clear_error(tmp_path):
    ckpt = tmp_path / "c.npz"
    kw = dict(horizon=200, checkpoint=str(ckpt), **KW)
    cases = {
        "not a readable .npz file": lambda: ckpt.write_bytes(b"\x00garbage"),
        "no readable metadata": lambda: np.savez(ckpt, x=np.zeros(3)),
        "not a jaxbandit checkpoint .format 'other'": lambda: np.savez(ckpt, meta=np.array(json.dumps(
            {"format": "other"}))),
        "format version 99, written by a newer jaxbandit": lambda: np.savez(ckpt, meta=np.array(json.dumps(
            {"format": "jaxbandit-checkpoint", "version": 99, "jaxbandit_version": "9.0"}))),
        "load it unsafely|damaged": lambda: np.savez(ckpt, np.array([object()], dtype=object), meta=np.array(
            json.dumps({"format": "jaxbandit-checkpoint", "version": 2, "fingerprint": fingerprint(),
                        "elapsed": 0.0, "block": 0}))),
    }

    def fingerprint():
        jb.simulate(**{**kw, "keep_checkpoint": True, "checkpoint": str(tmp_path / "real.npz")})
        with np.load(tmp_path / "real.npz") as data:
            return json.loads(str(data["meta"]))["fingerprint"]
    for message, write in cases.items():
        write()
        with pytest.raises(ValueError, match=f"checkpoint {ckpt}") as err:
            jb.simulate(**kw)
        if "|" in message:  # a pickled array: never loaded, one error naming the file
            assert "allow_pickle" not in str(err.value) and "damaged" in str(err.value)
        else:
            assert message.replace(".", "(") in str(err.value) or message in str(err.value), str(err.value)


def test_results_files_have_a_format_version(tmp_path):
    res = jb.simulate(horizon=100, **KW)
    base = tmp_path / "r"
    res.save(str(base))
    meta = json.loads((tmp_path / "r.json").read_text())
    assert meta["format"] == "jaxbandit-results" and meta["format_version"] == 1
    np.testing.assert_array_equal(jb.Results.load(str(base)).pseudo_regret, res.pseudo_regret)
    legacy = {k: v for k, v in meta.items() if not k.startswith("format")}  # jaxbandit 0.2 wrote no format
    (tmp_path / "r.json").write_text(json.dumps(legacy))
    assert jb.Results.load(str(base)).runs == 3
    for change, message in [({"format_version": 2}, "format version 2 .written by jaxbandit"),
                            ({"format": "other"}, "is not a jaxbandit results file"),
                            ({"grid": {"policy.c": [1, 2]}}, "inconsistent shapes")]:
        (tmp_path / "r.json").write_text(json.dumps({**meta, **change}))
        with pytest.raises(ValueError, match=f"results file {base}.(json|npz) .*{message}"):
            jb.Results.load(str(base))
    (tmp_path / "r.json").write_text(json.dumps(meta))
    (tmp_path / "r.npz").write_bytes(b"PK\x03\x04broken")
    with pytest.raises(ValueError, match=f"results file {base}.npz cannot be read"):
        jb.Results.load(str(base))
    (tmp_path / "r.npz").write_bytes(b"\x00garbage, not an archive")  # numpy would call it a pickle
    with pytest.raises(ValueError, match=f"results file {base}.npz cannot be read .it is not an .npz archive"):
        jb.Results.load(str(base))
    (tmp_path / "r.json").write_text("{not json")
    with pytest.raises(ValueError, match=f"results file {base}.json cannot be read"):
        jb.Results.load(str(base))
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_public_objects_print_short_summaries():
    from jaxbandit.accounting import thompson as ts_privacy
    res = jb.simulate(horizon=100, **KW)
    grid = jb.sweep(grid={"env.means": [[0.2, 0.5, 0.8], [0.1, 0.2, 0.3]]}, horizon=100, **KW)
    env, pol, priv, params = jb.resolve("bernoulli", "modified-thompson", env_params={"means": [0.1] * 12},
                                        policy_params={"b": 5, "c": 2.0})
    run = jb.rollout(env, pol, priv, horizon=100)
    texts = {
        "results": repr(res), "grid": repr(grid), "env": repr(env), "policy": repr(pol), "privatizer": repr(priv),
        "params": repr(params), "trace": repr(run(jb.random.key(0), params)),
        "guarantee": repr(ts_privacy.guarantee(9, 3.0, 10_000, delta=1e-6)),
        "claim": repr(jb.policies.get("dp-ftpl-new", 3).accountant.guarantee(
            jb.policies.get("dp-ftpl-new", 3).default_params, 1000, 3, "dp-ftpl-new")),
        "tuning grid": repr(jb.tuning.Grid(np.arange(50.0), [{}] * 50, np.ones((50, 8)), 400)),
    }
    for name, text in texts.items():
        assert len(text) < 300 and "Array(" not in text and "array(" not in text and "<function" not in text, text
    assert texts["results"].startswith("Results(ucb1 on bernoulli (3 arms)") and "3 runs" in texts["results"]
    assert "final pseudo-regret" in texts["results"] and "grid: env.means: 2 values" in texts["grid"]
    assert texts["guarantee"] == "Guarantee(eta=18.2574, epsilon=252.564, delta=1e-06)"
    assert texts["params"] == ("SimParams(env=BernoulliParams(means=float32[12]), "
                               "policy=ModifiedParams(b=5, c=2), privatizer=EmptyParams())")
    assert texts["trace"].startswith("Trace(pseudo_regret=float32[")
    assert texts["claim"].startswith("Guarantee(dp-ftpl-new: (ε, δ)-DP with ε = 1, δ = 0.01, over each round")
    assert texts["tuning grid"] == "Grid(50 values 0..49, 8 runs each; best 0: regret 1 ± 0; 400 agent-steps)"


def test_prepull_budget_is_treated_alike_by_simulate_and_privacy():
    from jaxbandit.accounting import thompson as ts_privacy
    kw = dict(env="bernoulli", env_params={"means": [0.2, 0.8]}, policy="modified-thompson",
              policy_params={"b": 10, "c": 1.0}, horizon=20, runs=2, progress=False)
    message = r"b\*N=20 >= horizon T=20 rounds: every round is a pre-pull"
    with pytest.warns(UserWarning, match=message):
        res = jb.simulate(**kw)
    np.testing.assert_array_equal(res.counts, [[10, 10], [10, 10]])  # all pre-pulls, as the warning says
    with pytest.warns(UserWarning, match=message):
        g = ts_privacy.guarantee(10, 1.0, 20, num_arms=2, tight=True)
    assert float(g.eta) == 0.0 and float(g.epsilon) == 0.0
    with pytest.warns(UserWarning, match=message):
        jb.rollout(*jb.resolve(kw["env"], kw["policy"], env_params=kw["env_params"])[:3], horizon=20)(
            jb.random.key(0), jb.resolve(kw["env"], kw["policy"], env_params=kw["env_params"],
                                       policy_params=kw["policy_params"])[3])
