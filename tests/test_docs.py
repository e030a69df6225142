"""The documentation site's own checks that need no build: every module on an API page, the link checker able
to fail, every notebook a tutorial whose committed outputs come from its current code. The strict build itself
(docs/build.py: warnings as errors, internal links, every public name in the reference) is a README command, run
in the slow tier by tests/test_readme.py."""
import glob
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
sys.path.insert(0, DOCS)
import apigen  # noqa: E402
import build  # noqa: E402
import execute_notebooks  # noqa: E402

NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))


def test_every_module_is_on_an_api_page_once():
    assert apigen.unassigned_modules() == []
    listed = [m for page in apigen.PAGES for m in page[3]]
    assert len(listed) == len(set(listed))
    assert set(listed) <= set(apigen.all_modules())


def test_public_names_of_a_module_without_all():
    names = apigen.public_names("jaxbandit.results")
    assert "Results" in names and "METRICS" in names
    assert not any(n.startswith("_") for n in names)
    assert "np" not in names                                   # imported modules are not its names


def test_link_checker_finds_a_missing_page_and_a_missing_anchor(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "outside.html").write_text("")   # exists on this machine, but not in the published site
    (site / "a.html").write_text('<a href="b.html#here">ok</a> <a href="b.html#gone">x</a> '
                                 '<a href="c.html">y</a> <a href="https://example.org/">out</a> '
                                 '<a href="mailto:x@example.org">mail</a> <a href="../outside.html">up</a> '
                                 '<img src="img/p.png" srcset="img/p.png 1x, img/p2.png 2x"> '
                                 '<a href="#top" id="top">self</a>')
    (site / "b.html").write_text('<h1 id="here">B</h1>')
    bad = build.check_links(str(site))
    assert sorted((link, why) for _, link, why in bad) == [
        ("../outside.html", "outside the site"), ("b.html#gone", "no such anchor"), ("c.html", "no such file"),
        ("img/p.png", "no such file"), ("img/p.png", "no such file"), ("img/p2.png", "no such file")]
    (site / "img").mkdir()
    for name in ("p.png", "p2.png"):
        (site / "img" / name).write_bytes(b"")
    (site / "c.html").write_text("")
    assert sorted(link for _, link, _ in build.check_links(str(site))) == ["../outside.html", "b.html#gone"]


def test_link_checker_refuses_what_a_page_loads_from_the_network(tmp_path):
    """Math rendered by MathJax from a CDN shows raw LaTeX offline: the site ships its MathJax instead."""
    site = tmp_path / "site"
    (site / "_static" / "mathjax").mkdir(parents=True)
    (site / "_static" / "mathjax" / "tex-chtml.js").write_text("")
    cdn = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"
    (site / "a.html").write_text(f'<script defer src="{cdn}"></script> <script src="_static/mathjax/tex-chtml.js">'
                                 '</script> <link rel="stylesheet" href="//fonts.example.org/a.css"> '
                                 '<a href="https://example.org/">a link, not loaded</a>')
    assert sorted(link for _, link, _ in build.check_links(str(site))) == ["//fonts.example.org/a.css", cdn]
    assert all("loaded from the network" in why for _, _, why in build.check_links(str(site)))


def test_user_facing_pages_cite_no_internal_issue_and_explain_the_frontiers_marks():
    """The site's pages and the findings it includes: no "issue 35" (a tracker the reader cannot see); the frontier
    page explains every mark of `Frontier.table` (``*``, ``+``, ``≈``, ``!``)."""
    import re
    pages = [p for p in glob.glob(os.path.join(DOCS, "**", "*.md"), recursive=True)
             if not any(part in p for part in ("/_build/", "/api/", "/spec/"))]
    pages += glob.glob(os.path.join(ROOT, "experiments", "*_findings.md")) + [os.path.join(ROOT, "README.md")]
    cited = []
    for path in pages:
        with open(path, encoding="utf-8") as f:
            cited += [(os.path.relpath(path, ROOT), m) for m in re.findall(r"\b(?:issue \d+|the issue\b)", f.read())]
    assert cited == []
    with open(os.path.join(DOCS, "frontier.md"), encoding="utf-8") as f:
        text = f.read()
    assert all(f"- `{mark}` " in text for mark in "*+≈!")


def test_math_is_rendered_by_the_mathjax_shipped_with_the_site():
    """conf.py read, not imported (importing it would set the process's environment)."""
    import ast
    with open(os.path.join(DOCS, "conf.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    extensions = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                      and getattr(node.targets[0], "id", None) == "extensions")
    assert "sphinx-mathjax-offline" in extensions   # copies MathJax 3 into _static/mathjax at each build


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_is_a_tutorial(path):
    name = os.path.basename(path)
    link = os.path.join(DOCS, "tutorials", name)
    assert os.path.islink(link) and os.path.samefile(link, path), f"docs/tutorials/{name} -> ../../{name}"
    # docs/tutorials/index.md, which lists them, is written at each build from the notebooks found there


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_outputs_come_from_its_current_code(path):
    """The site renders the committed outputs: they must be those of the code as it is (re-run
    `python docs/execute_notebooks.py NAME.ipynb` after changing a cell)."""
    import nbformat
    nb = nbformat.read(path, as_version=4)
    meta = nb.metadata.get("jaxbandit")
    assert meta, "not executed by docs/execute_notebooks.py"
    assert meta["code_hash"] == execute_notebooks.code_hash(nb), "a cell changed since the outputs were made"
    assert meta["setting"] in ("full", "quick")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].outputs == [], "the install cell's output (a local path) is not kept"
    assert all(c.execution_count for c in code[1:]), "every cell after the install cell ran"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert errors == []
    assert any(o.get("data", {}).get("image/png") for c in code for o in c.outputs), "a figure was drawn"


def test_code_hash_ignores_the_install_cell_and_sees_any_other_change():
    import nbformat
    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    before = execute_notebooks.code_hash(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    code[0].source += "\n# another version"
    assert execute_notebooks.code_hash(nb) == before
    code[-1].source += " "
    assert execute_notebooks.code_hash(nb) != before


def test_notebook_json_is_as_nbformat_writes_it():
    """Executed notebooks are written by nbformat (indent 1): a diff of a re-execution shows only outputs."""
    import nbformat
    for path in NOTEBOOKS:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        assert text.rstrip("\n") == nbformat.writes(nbformat.reads(text, as_version=4)).rstrip("\n"), \
            os.path.basename(path)


def test_build_refuses_an_output_folder_it_did_not_write(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit) as e:
        build.main(["--out", str(tmp_path)])
    assert e.value.code == 2 and (tmp_path / "notes.txt").exists()


def test_missing_names_finds_a_public_name_the_reference_lacks(tmp_path, monkeypatch):
    import zlib
    monkeypatch.setattr(apigen, "PAGES", [("utilities", "Utilities", "", ["jaxbandit.checks"])])
    names = apigen.public_names("jaxbandit.checks")
    assert len(names) > 3

    def inventory(documented):
        lines = "".join(f"jaxbandit.checks.{n} py:function 1 api/utilities.html#$ -\n" for n in documented)
        path = tmp_path / "objects.inv"
        path.write_bytes(b"# Sphinx inventory version 2\n# Project: x\n# Version: 1\n"
                         b"# The remainder of this file is compressed using zlib.\n" + zlib.compress(lines.encode()))
        return str(path)

    assert apigen.missing_names(inventory(names)) == []
    assert apigen.missing_names(inventory(names[1:])) == [f"jaxbandit.checks.{names[0]}"]
    # listed, but with nothing to say: a function without a docstring, a NamedTuple with namedtuple's own
    import collections
    import jaxbandit.checks as checks
    monkeypatch.setattr(checks, "undocumented", lambda x: x, raising=False)
    monkeypatch.setattr(checks, "Pair", collections.namedtuple("Pair", "a b"), raising=False)
    monkeypatch.setattr(apigen, "public_names", lambda module: names + ["undocumented", "Pair"])
    assert apigen.missing_names(inventory(names + ["undocumented", "Pair"])) == [
        "jaxbandit.checks.undocumented (no docstring)", "jaxbandit.checks.Pair (no docstring)"]


# ------------------------------------------------------------------------- tables derived from the registries
def _read(page):
    with open(os.path.join(ROOT, "docs", page), encoding="utf-8") as f:
        return f.read()


def _table_column(text, header, column=0):
    """The cells of one column of the Markdown table whose header row starts with ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(line.strip("|").split("|")[column].strip().strip("`"))
    return rows


def test_the_docs_tables_are_the_registries():
    """docs/bounds.md's table of bounds and docs/privacy.md's table of private components are generated from the
    registries (a component or bound added or renamed makes this fail until the page is regenerated); the
    hand-written "checked" table names every bound once; the audit table lists every audit once."""
    from jaxbandit import theory
    from jaxbandit.audit import components
    bounds, privacy = _read("bounds.md"), _read("privacy.md")
    assert theory.markdown_table() in bounds
    assert components.markdown_table() in privacy
    checked = [name for cell in _table_column(bounds, "| bound | function | checked |") for name in cell.split("`, `")]
    assert sorted(checked) == theory.REGISTRY.names()
    assert sorted(_table_column(privacy, "| audit | tests the claim of |")) == components.names()
    linked = dict(zip(_table_column(privacy, "| audit | tests the claim of |"),
                      _table_column(privacy, "| audit | tests the claim of |", 1)))
    assert all(linked[n] == ", ".join(components.audited_components(n)) for n in components.names())
