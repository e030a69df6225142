"""The notebooks' install cell, in one place: the first code cell of every notebook is TEMPLATE rendered with
jaxbandit's version (jaxbandit/version.py), the git URL of its repository (pyproject.toml's [project.urls] Source)
and the oldest jax it needs (pyproject.toml's dependency ``jax>=X``), each read from the one place it is set. The
paragraph of the notebooks' first markdown cell that says how to run them (``**Run it:** ...``) is rendered here too.

    python notebooks/install_cell.py            # check: lists the notebooks out of sync, exits 1 if any
    python notebooks/install_cell.py --write    # rewrite those cells (after changing the template, the version,
                                                # the repository's URL or the jax requirement)

Only those two pieces change: other cells, outputs and metadata are kept, and the file is written as nbformat
writes it (JSON, indent 1, keys sorted, non-ASCII kept). tests/test_colab_install.py checks the notebooks are in
sync and runs the cell, with pip recorded and, in the slow tier, for real in a fresh virtual environment.
"""
import ast
import glob
import json
import os
import re
import sys
import tomllib

NOTEBOOKS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(NOTEBOOKS)

# The cell's text exactly as it reads here (a raw string); @VALUES@ becomes VERSION, GIT_URL and JAX_MIN's values
# (see values()), nothing else is substituted.
TEMPLATE = r'''
# @title Install jaxbandit where it is missing { display-mode: "form" }
# (Colab shows this cell as its title; the code below runs all the same.)
# Installs jaxbandit where it is missing, e.g. in a fresh Colab runtime; where it is installed, it does nothing.
# No editing needed: it tries the package index (jaxbandit==VERSION, the release these notebooks are written for),
# then the project's git repository (GIT_URL: its tag vVERSION, else its default branch), then the newest wheel
# jaxbandit-*.whl uploaded to the working folder or /content. It never replaces the runtime's jax (in Colab an
# accelerator build): pip keeps jax, jaxlib and their plugins as they are, or fails. To install from elsewhere, set JAXBANDIT_SOURCE (or the environment variable of
# that name, which wins) to a git URL "git+https://github.com/OWNER/REPO.git@TAG", a wheel (.whl), an archive (.zip,
# .tar.gz) or a checkout folder (holding pyproject.toml).
JAXBANDIT_SOURCE = ""
# written by notebooks/install_cell.py from jaxbandit/version.py and pyproject.toml (where each is set)
VERSION, GIT_URL, JAX_MIN = @VALUES@

import glob, importlib, importlib.metadata, importlib.util, os, re, subprocess, sys, tempfile


def pip_install(target, pins):
    """pip install target, keeping the distributions pinned in the constraints file pins; (ok, pip's output)."""
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-c", pins, target], capture_output=True,
                         text=True, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})  # git fails, never prompts
    return out.returncode == 0, [line.strip() for line in (out.stdout + out.stderr).splitlines() if line.strip()]


def release(version):  # "0.10.2" -> (0, 10, 2, 1); a pre-release ("0.8.0rc1", "0.8.0.dev0") sorts below its release
    numbers, rest = re.match(r"(\d+(?:\.\d+)*)(.*)", version).groups()
    padded = [int(n) for n in numbers.split(".")] + [0, 0, 0]
    return tuple(padded[:3]) + (0 if re.match(r"\.?(a|b|c|rc|alpha|beta|dev|pre)", rest) else 1,)


spec = importlib.util.find_spec("jaxbandit")
# a cloned checkout named jaxbandit in the working folder is a namespace package (no origin), not an install
if spec is not None and spec.origin not in (None, "namespace"):
    print("jaxbandit is installed:", os.path.dirname(spec.origin))
else:
    source = (os.environ.get("JAXBANDIT_SOURCE") or JAXBANDIT_SOURCE).strip()
    if source:  # an explicit source: check it here, where the message can be clearer than pip's
        archive = source.endswith((".whl", ".zip", ".tar.gz"))
        if "OWNER/REPO" in source:
            raise ValueError(f"JAXBANDIT_SOURCE={source!r} still holds the placeholder OWNER/REPO: "
                             "put the repository's owner and name there")
        if source.startswith(("http://", "https://")) and not archive:
            raise ValueError(f"JAXBANDIT_SOURCE={source!r} is a web address: pip installs a repository from "
                             f"'git+{source.removesuffix('/')}' (note the git+), or a .whl/.zip/.tar.gz URL")
        if not source.startswith(("git+", "http://", "https://")):
            if not os.path.exists(source):
                raise FileNotFoundError(f"JAXBANDIT_SOURCE={source!r} does not exist here "
                                        "(upload it first, or give a git URL)")
            if os.path.isdir(source) and not any(
                    os.path.exists(os.path.join(source, f)) for f in ("pyproject.toml", "setup.py")):
                raise ValueError(f"JAXBANDIT_SOURCE={source!r} is a folder without pyproject.toml: "
                                 "give the checkout's root folder")
            if os.path.isfile(source) and not archive:
                raise ValueError(f"JAXBANDIT_SOURCE={source!r} is a file but not a wheel (.whl) or archive "
                                 "(.zip, .tar.gz)")
        # a local path as an absolute one: pip takes a bare "jaxbandit" (a clone in /content) for a package's name
        local = not source.startswith(("git+", "http://", "https://"))
        attempts = [("JAXBANDIT_SOURCE", os.path.abspath(source) if local else source)]
    else:
        wheels = {os.path.abspath(w) for w in glob.glob("jaxbandit-*.whl") + glob.glob("/content/jaxbandit-*.whl")}
        attempts = [("the package index", f"jaxbandit=={VERSION}"),
                    ("the git repository's tag", f"{GIT_URL}@v{VERSION}"),   # the release these notebooks are for
                    ("the git repository's default branch", GIT_URL),        # where no tag was made
                    ("an uploaded wheel", max(wheels, key=os.path.getmtime) if wheels else None)]
    # The runtime's jax, jaxlib and plugins (jax-cuda12-plugin, jax-cuda12-pjrt, libtpu, ...) are pinned at their
    # installed versions, so pip keeps them or fails; an older jax than jaxbandit needs is refused here, before pip.
    runtime_jax = {}
    for dist in importlib.metadata.distributions():
        name = re.sub(r"[-_.]+", "-", dist.metadata["Name"] or "").lower()
        if re.fullmatch(r"jax|jaxlib|jax-(cuda|rocm)\d+-\w+|libtpu(-\w+)?", name):
            runtime_jax.setdefault(name, dist.version)  # the first found is the one imported
    if "jax" in runtime_jax and release(runtime_jax["jax"]) < release(JAX_MIN):
        raise RuntimeError(f"this runtime's jax {runtime_jax['jax']} is older than jaxbandit needs (jax>={JAX_MIN}), "
                           "and this cell does not replace it: upgrade it for the runtime's accelerator first (!pip "
                           'install -U "jax[cuda12]" on a GPU, "jax[tpu]" on a TPU, jax on a CPU), restart the '
                           "session and run this cell again")
    pins = os.path.join(tempfile.mkdtemp(), "runtime-jax.txt")
    with open(pins, "w") as f:
        f.writelines(f"{name}=={version}\n" for name, version in sorted(runtime_jax.items()))
    tried = []
    for what, target in attempts:
        if target is None:
            tried.append(f"{what}: no jaxbandit-*.whl in {os.getcwd()} or /content")
            continue
        ok, log = pip_install(target, pins)
        if ok:
            importlib.invalidate_caches()   # so the next cell imports it without a restart
            print(f"installed jaxbandit from {what}: {target} (in Colab, restart the session if an import fails)")
            break
        # the expected failures (not on the index, no git access) in one line: git's reason, else pip's first error
        reason = next((l for l in log if l.startswith(("fatal:", "ERROR:"))), log[-1] if log else "pip failed")
        print(f"not installed from {what} ({target}): {reason}")
        if target == attempts[-1][1]:  # an explicit source or the uploaded wheel: a real failure, in pip's words
            reason = "\n      ".join(["pip said:"] + log[-12:])
        tried.append(f"{what} ({target}): {reason}")
    else:
        raise RuntimeError("jaxbandit could not be installed. Tried:\n  - " + "\n  - ".join(tried) + "\nTo fix: " + (
            "check JAXBANDIT_SOURCE" if source else "upload a wheel built in a checkout of jaxbandit with `pip wheel "
            "--no-deps .` to /content and run this cell again, or set JAXBANDIT_SOURCE at the top of this cell"))
'''.strip("\n")

# The paragraph of each notebook's first markdown cell that starts with RUN_IT_START (NAME: the notebook's file).
RUN_IT_START = "**Run it:**"
RUN_IT = '''\
**Run it:** locally, after `pip install -e .` in the repository, the first code cell does nothing. In Colab, open
@COLAB@
(or use *File → Open notebook*, tab *GitHub* or *Upload*) and run the cells in order: the first one installs
jaxbandit without editing (from the package index, else from the project's git repository, else from a wheel
uploaded to `/content`: build one in a checkout with `pip wheel --no-deps .`) and keeps the runtime's own jax.
Set `JAXBANDIT_SOURCE` at its top only to install from elsewhere: a git URL, a wheel, an archive or a checkout.'''


def values(repo: str = REPO) -> dict:
    """VERSION, GIT_URL and JAX_MIN, read from where each is set (one place each)."""
    with open(os.path.join(repo, "jaxbandit", "version.py"), encoding="utf-8") as f:
        version = next(node.value.value for node in ast.parse(f.read()).body if isinstance(node, ast.Assign)
                       and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__version__"])
    with open(os.path.join(repo, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    jax_min = [m.group(1) for d in project["dependencies"] if (m := re.fullmatch(r"jax\s*>=\s*([\d.]+)", d))]
    if len(jax_min) != 1:
        raise SystemExit("pyproject.toml's dependencies need one `jax>=X` (the install cell compares the runtime's "
                         f"jax with X): {project['dependencies']}")
    return {"VERSION": version, "GIT_URL": "git+" + project["urls"]["Source"], "JAX_MIN": jax_min[0]}


def render(vals: dict | None = None) -> str:
    """The install cell's source with ``vals`` (default: the current values())."""
    vals = values() if vals is None else vals
    return TEMPLATE.replace("@VALUES@", ", ".join(json.dumps(vals[k]) for k in ("VERSION", "GIT_URL", "JAX_MIN")))


def run_it(name: str, vals: dict | None = None) -> str:
    """The "Run it" paragraph of notebook ``name``: its Colab address from the repository's URL (``vals``' GIT_URL,
    default: the current values()), when on GitHub."""
    vals = values() if vals is None else vals
    source = vals["GIT_URL"].removeprefix("git+").removesuffix("/").removesuffix(".git")
    owner_repo = source.removeprefix("https://github.com/") if source.startswith("https://github.com/") else None
    if owner_repo is None:  # a repository elsewhere: say how Colab's address is formed
        return RUN_IT.replace("@COLAB@", "`https://colab.research.google.com/github/OWNER/REPO/blob/main/notebooks/"
                                         f"{name}`")
    return RUN_IT.replace("@COLAB@", f"[this notebook](https://colab.research.google.com/github/{owner_repo}/blob/"
                                     f"main/notebooks/{name})")


CELL_METADATA = {"cellView": "form", "tags": ["hide-input"]}


def _source(text: str) -> list:
    return text.splitlines(keepends=True)  # a cell's source as nbformat stores it: a list of lines


def sync(paths=None, write: bool = False) -> list:
    """The notebooks (paths; default all) whose install cell or "Run it" paragraph differs from the rendered ones;
    with ``write``, rewrites them."""
    vals = values()
    cell = render(vals)
    changed = []
    for path in paths or sorted(glob.glob(os.path.join(NOTEBOOKS, "*.ipynb"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        nb = json.loads(text)
        code = next(c for c in nb["cells"] if c["cell_type"] == "code")
        intro = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
        md = "".join(intro["source"])
        start = md.find(RUN_IT_START)
        if start < 0:
            raise SystemExit(f"{path}: its first markdown cell has no paragraph starting with {RUN_IT_START}")
        end = md.find("\n\n", start)
        md = md[:start] + run_it(os.path.basename(path), vals) + ("" if end < 0 else md[end:])
        # Colab shows the cell as its title (a form); the documentation shows it folded (myst-nb's hide-input)
        metadata = {**code.get("metadata", {}), **CELL_METADATA}
        if "".join(code["source"]) == cell and "".join(intro["source"]) == md and code.get("metadata") == metadata:
            continue
        changed.append(path)
        if write:
            code["source"], intro["source"], code["metadata"] = _source(cell), _source(md), metadata
            out = json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False, separators=(",", ": "))
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(out + ("\n" if text.endswith("\n") else ""))
    return changed


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the notebooks that are out of sync")
    parser.add_argument("notebooks", nargs="*", help="notebook files (default: every notebook in notebooks/)")
    args = parser.parse_args(argv)
    changed = sync(args.notebooks, write=args.write)
    for path in changed:
        print(("rewrote " if args.write else "out of sync: ") + os.path.relpath(path))
    if changed and not args.write:
        print("run `python notebooks/install_cell.py --write`", file=sys.stderr)
    return 1 if changed and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
