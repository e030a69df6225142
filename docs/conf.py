"""Sphinx configuration of jaxbandit's documentation site (built by `python docs/build.py`).

Sphinx with MyST (Markdown pages) and myst-nb (the notebooks as tutorials), themed with sphinx-book-theme: the
toolchain of jax, optax and chex, so the site reads like theirs and autodoc renders the API from the docstrings.
Built strictly (warnings are errors, every cross-reference checked) and offline: no intersphinx, no notebook
execution (the notebooks are rendered from their committed outputs; tests/test_docs.py checks they are current).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("JAXBANDIT_COMPILATION_CACHE", "0")   # importing for autodoc compiles nothing worth keeping

from jaxbandit.version import __version__  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import apigen  # noqa: E402  (docs/apigen.py: the API pages, generated at each build)

project = "jaxbandit"
author = "the jaxbandit developers"
copyright = "2026, the jaxbandit developers"
release = __version__
version = __version__

extensions = [
    "myst_nb",                      # Markdown pages (MyST) and notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",          # Args:/Returns: sections
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",       # MathJax 3 shipped with the site (_static/mathjax), not from a CDN: math renders
]                                   # offline, where the site is read (docs/build.py checks no script is remote)
# No sphinx.ext.viewcode: its source pages link back to each object under its defining module's name, which is not
# where the reference documents a re-exported object (jaxbandit.Env, not jaxbandit.types.Env): dead anchors.
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "spec/README.md", "**/.ipynb_checkpoints"]  # spec/README.md: included by digests.md
root_doc = "index"

# Notebooks: rendered from the outputs committed with them, never executed here (the slow tier executes them).
nb_execution_mode = "off"
nb_merge_streams = True

myst_enable_extensions = ["dollarmath", "colon_fence", "deflist", "smartquotes"]
myst_heading_anchors = 3            # links to a page's #section resolve, and are checked
suppress_warnings = ["myst.header"]  # the papers' digests skip heading levels as the papers do

# Docstrings are written with `single backquotes` for code: render them as code, not as cross-references.
default_role = "code"
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autosummary_generate = True
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True          # "Attributes:" as a field list: the fields themselves are documented once, by autodoc

# Every cross-reference inside the project must resolve; references into other packages cannot be checked
# offline (no intersphinx) and are ignored by their module prefix.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(jax|jaxlib|numpy|np|jnp|chex|optax|matplotlib|typing|collections|concurrent|os|pathlib|"
               r"enum|dataclasses|functools|types|builtins|abc)(\..*)?"),
    (r"py:class", r"(Array|ArrayLike|PRNGKey|PyTree|Any|Callable|NamedTuple|Path|Figure|Axes|Sequence|Mapping|"
                  r"Iterable|Iterator|Optional|Union|Literal|int|float|str|bool|dict|list|tuple|object|None|"
                  r"callable|optional|array|array-like|ndarray)"),
]

html_theme = "sphinx_book_theme"
html_title = f"jaxbandit {__version__}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "use_download_button": True,
    "show_navbar_depth": 1,
}
html_show_sourcelink = False
html_last_updated_fmt = None


# The docstrings are written to read well in help(): |x| is an absolute value and a lone * a product or a
# wildcard (μ*, (*grid, runs)), which reStructuredText would take for substitutions and emphasis. Escape them,
# outside code spans; **bold** and *emphasised words* stay.
_CODE = re.compile(r"(``.+?``|`[^`]+`)")
_EMPHASIS = re.compile(r"(\*\*[^*]+\*\*|(?<![\w*])\*[A-Za-z][A-Za-z ,'-]*[A-Za-z]\*(?![\w*]))")


def _escape_text(text):
    parts = _EMPHASIS.split(text)
    return "".join(p if i % 2 else p.replace("|", "\\|").replace("*", "\\*") for i, p in enumerate(parts))


def _escape_docstring(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        bullet = re.match(r"\s*\* ", line)   # a list item's marker is markup, not a product
        head, line = (line[:bullet.end()], line[bullet.end():]) if bullet else ("", line)
        parts = _CODE.split(line)
        lines[i] = head + "".join(p if k % 2 else _escape_text(p) for k, p in enumerate(parts))


def _write_api_pages(app):
    apigen.write_pages(os.path.join(app.srcdir, "api"))


# The tutorials in reading order: the quickstart, the papers in their order, the frontier that compares them.
TUTORIALS = ["quickstart", "ldp_mechanisms", "gdp_thompson", "tune_bc", "corrupt_bandits", "dp_ftpl", "heavy_tailed",
             "frontier"]


def _write_tutorials_index(app):
    """docs/tutorials/index.md from the notebooks themselves: each one's title, what it shows (its first
    paragraph), and the setting and time its committed outputs came from (docs/execute_notebooks.py)."""
    import json
    folder = os.path.join(app.srcdir, "tutorials")
    rows, names = [], []
    found = {f for f in os.listdir(folder) if f.endswith(".ipynb")}
    order = [f"{n}.ipynb" for n in TUTORIALS if f"{n}.ipynb" in found] + sorted(found - {f"{n}.ipynb" for n in TUTORIALS})
    for name in order:
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            nb = json.load(f)
        lines = "".join(nb["cells"][0]["source"]).splitlines()
        title = lines[0].lstrip("# ").strip()
        paragraph = []
        for line in lines[1:]:
            if line.strip():
                paragraph.append(line.strip())
            elif paragraph:
                break
        about = " ".join(paragraph).split(". ")[0].rstrip(".:") + "."   # its first sentence
        meta = nb["metadata"].get("jaxbandit", {})
        ran = f"{meta['setting']} setting, {meta['seconds']} s" if meta else "not executed"
        rows.append(f"| {{doc}}`{title} <{name[:-len('.ipynb')]}>` | {about} | {ran} |")
        names.append(name[:-len(".ipynb")])
    text = "\n".join([
        "# Tutorials", "",
        "The notebooks of `notebooks/`, shown with the outputs committed with them: each was run top to bottom by "
        "`python docs/execute_notebooks.py` in the setting the table gives (*full*: the notebook's own sizes; "
        "*quick*: the tests' small ones, JAXBANDIT_QUICK=1), on the 2-core CPU the project is developed on. "
        "Each opens in Colab as it is: its first cell installs jaxbandit where it is missing.", "",
        "| notebook | what it shows | outputs from |", "|---|---|---|", *rows, "",
        "```{toctree}", ":hidden:", "", *names, "```", ""])
    apigen.write_if_changed(os.path.join(folder, "index.md"), text)


def _skip_namedtuple_aliases(app, what, name, obj, skip, options):
    """A NamedTuple's fields are listed with their class (its signature and docstring); the attributes that
    namedtuple generates for them say only "Alias for field number N"."""
    if (getattr(obj, "__doc__", None) or "").startswith("Alias for field number"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_namedtuple_aliases)
    app.connect("builder-inited", _write_tutorials_index)
    app.connect("builder-inited", _write_api_pages)
    app.connect("autodoc-process-docstring", _escape_docstring)
