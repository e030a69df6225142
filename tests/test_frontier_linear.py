"""The frontier on a linear instance: the private LinUCBs under their own trust models (joint, shuffle, local), each
in its own panel, beside the K-armed central algorithms; uniform play simulated where the means change by run."""
import pytest

import jaxbandit as jb
from jaxbandit import plotting
from jaxbandit.frontiers import TRUST_MODELS, algorithms


def test_each_private_linucb_is_under_its_own_trust_model():
    found, _ = algorithms("linear", {"num_arms": 6, "dim": 3, "instance": "chowdhury-zhou"})
    trust = {a.name: a.trust for a in found}
    assert trust["linucb-jdp"] == "joint" and trust["linucb-ldp"] == "local"
    assert trust["linucb-sdp-amp"] == trust["linucb-sdp-vec"] == "shuffle" and trust["dp-se"] == "central"
    assert set(TRUST_MODELS) == {"central", "joint", "shuffle", "local"}


@pytest.mark.slow  # four compilations and the shuffle calibrations: about a minute
def test_linear_frontier_ranks_trust_models_in_their_own_panels(tmp_path):
    front = jb.frontier("linear", [2.0], env_params={"num_arms": 6, "dim": 3, "instance": "chowdhury-zhou"},
                        delta=0.1, horizon=300, runs=8, tuning_runs=4, notion="shuffle",
                        include=["joint", "shuffle", "linucb-ldp"], progress=False)
    rows = {r["algorithm"]: r for r in front.rows}
    assert {r["family"] for r in front.rows} == {"joint", "shuffle", "local"}
    assert all(r["meets"] for r in front.rows)  # each calibrated onto the level under its own scope
    assert rows["linucb-jdp"]["scope"] == "joint" and rows["linucb-sdp-vec"]["scope"] == "shuffle"
    recommended = [r for r in front.rows if r["recommended"]]
    assert len(recommended) == 1 and recommended[0]["family"] == "shuffle"  # only the notion asked is recommended
    assert front.uniform_regret() > 0  # simulated: the instance changes with the run
    fig = plotting.frontier_figure(front)
    # one level: a ranked dot plot per trust model, titled by its notion and the level
    assert [ax.get_title().split(" ")[0] for ax in fig.axes] == ["joint", "shuffle", "local"]
    assert all(ax.get_title().split("\n")[0].endswith("ε = 2") for ax in fig.axes)
    plotting.save(fig, str(tmp_path / "f.png"))
