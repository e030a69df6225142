"""Every notebook runs top to bottom in its quick setting."""
import glob
import os

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # slow tier: executes every notebook (minutes)

NOTEBOOKS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "notebooks", "*.ipynb")))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_executes(path, monkeypatch):
    monkeypatch.setenv("JAXBANDIT_QUICK", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": os.path.dirname(path)}}).execute()


def test_there_is_a_quickstart_notebook():
    assert any(p.endswith("quickstart.ipynb") for p in NOTEBOOKS)
