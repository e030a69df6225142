"""The API reference's pages, generated at each build from the package itself (conf.py calls `write_pages`).

Every module of jaxbandit but the command line (`jaxbandit.cli`, documented on its own page) belongs to one page
below; tests/test_docs.py fails on a module that belongs to none, and on a public name that the built reference
lacks. An object is documented once, at the first public path a reader meets it by (``jaxbandit.simulate``, not
``jaxbandit.simulation.simulate``); later modules that re-export or define it skip it.
"""
import functools
import importlib
import inspect
import os
import pkgutil
import re

PAGES = [
    ("top-level", "jaxbandit", "What `import jaxbandit as jb` gives: the drivers, the pure core, the component "
     "interfaces and the subpackages.", ["jaxbandit"]),
    ("running", "Resolving and running", "One validated configuration (`resolve`), the pure engine, the host "
     "drivers, the epoch simulator, results and devices.",
     ["jaxbandit.spec", "jaxbandit.engine", "jaxbandit.simulation", "jaxbandit.epochs", "jaxbandit.results",
      "jaxbandit.sharding"]),
    ("components", "Component interfaces", "The shapes every policy, environment and privatizer has, and the one "
     "registry shape.", ["jaxbandit.types", "jaxbandit.registry"]),
    ("policies", "Policies", "One module per algorithm family; `make(name, num_arms, **params)` builds one.",
     ["jaxbandit.policies", "jaxbandit.policies.common", "jaxbandit.policies.thompson", "jaxbandit.policies.ucb",
      "jaxbandit.policies.greedy", "jaxbandit.policies.elimination", "jaxbandit.policies.corrupt",
      "jaxbandit.policies.dp_ucb", "jaxbandit.policies.adap", "jaxbandit.policies.ftpl", "jaxbandit.policies.robust",
      "jaxbandit.policies.linear", "jaxbandit.policies.linalg", "jaxbandit.policies.private_linear",
      "jaxbandit.policies.shuffle_linear",
      "jaxbandit.policies.phased"]),
    ("envs", "Environments", "Reward families by inverse CDF of one shared uniform, mixtures, heavy tails, "
              "the linear (contextual) bandit.",
     ["jaxbandit.envs", "jaxbandit.envs.distributions", "jaxbandit.envs.tails", "jaxbandit.envs.linear"]),
    ("privatizers", "Privatizers", "Local channels between the reward and the learner.",
     ["jaxbandit.privatizers", "jaxbandit.privatizers.bernoulli", "jaxbandit.privatizers.randomized_response"]),
    ("mechanisms", "Mechanisms", "The run-time privacy mechanisms the policies and privatizers are built from.",
     ["jaxbandit.mechanisms", "jaxbandit.mechanisms.laplace", "jaxbandit.mechanisms.normal",
      "jaxbandit.mechanisms.releases", "jaxbandit.mechanisms.counters", "jaxbandit.mechanisms.gram", "jaxbandit.mechanisms.truncated_mean", "jaxbandit.mechanisms.perturbations",
      "jaxbandit.mechanisms.bernoulli", "jaxbandit.mechanisms.randomized_response",
      "jaxbandit.mechanisms.noisy_max"]),
    ("accounting", "Accounting", "Every privacy claim: the accountant interface, privacy profiles and their "
     "composition, the GDP calculus.",
     ["jaxbandit.accounting", "jaxbandit.accounting.accountants", "jaxbandit.accounting.profiles",
      "jaxbandit.accounting.gdp",
      "jaxbandit.accounting.composition", "jaxbandit.accounting.thompson", "jaxbandit.accounting.noisy_max",
      "jaxbandit.accounting.shuffle"]),
    ("audit", "Audits", "Monte-Carlo lower bounds on every private component's level, with planted bugs.",
     ["jaxbandit.audit", "jaxbandit.audit.montecarlo", "jaxbandit.audit.components", "jaxbandit.audit.mechanisms",
      "jaxbandit.audit.policies"]),
    ("theory", "Bounds", "Every regret and pull bound of the five papers as a function (see the bounds page).",
     ["jaxbandit.theory", "jaxbandit.theory.base", "jaxbandit.theory.ldp_thompson",
      "jaxbandit.theory.private_thompson", "jaxbandit.theory.corrupt", "jaxbandit.theory.ftpl",
      "jaxbandit.theory.heavy_tailed", "jaxbandit.theory.linear", "jaxbandit.theory.private_linear",
      "jaxbandit.theory.adap"]),
    ("tuning", "Gradients, tuning and the frontier", "Gradient estimators of the expected regret, the tuner (any "
     "policy's free parameter under its accountant's budget: modified Thompson sampling's (b, c), ...), and which "
     "private algorithm at which ε.",
     ["jaxbandit.gradients", "jaxbandit.tuning", "jaxbandit.tuning.space", "jaxbandit.tuning.descent",
      "jaxbandit.tuning.grids", "jaxbandit.tuning.search", "jaxbandit.tuning.tuned", "jaxbandit.tuning.diagnostics", "jaxbandit.frontiers",
       "jaxbandit.frontiers.catalogue", "jaxbandit.frontiers.algorithm", "jaxbandit.frontiers.result",
       "jaxbandit.frontiers.driver", "jaxbandit.comparison"]),
    ("random", "Random numbers", "The key implementation and the exact Beta and Gamma samplers.",
     ["jaxbandit.random", "jaxbandit.random.threefry", "jaxbandit.random.samplers"]),
    ("plotting", "Plotting", "Figures from results, and the papers' bounds drawn on them.", ["jaxbandit.plotting"]),
    ("utilities", "Utilities", "Input checks, the persistent compilation cache, the version.",
     ["jaxbandit.checks", "jaxbandit.compilation_cache", "jaxbandit.version"]),
]
NOT_IN_REFERENCE = {"jaxbandit.cli"}   # the command line has its own page
_MODULES = {m for page in PAGES for m in page[3]}


def all_modules() -> list:
    import jaxbandit
    return ["jaxbandit"] + [m.name for m in pkgutil.walk_packages(jaxbandit.__path__, "jaxbandit.")
                            if not m.name.startswith("jaxbandit.experiments")]


@functools.lru_cache(maxsize=None)
def _source(module_name: str) -> list:
    """A module's source lines (read once per build)."""
    return inspect.getsource(importlib.import_module(module_name)).splitlines()


def _defines(n: str):
    """A line that assigns n at module level: ``N = ...``, ``N: type = ...`` or ``A, N = ...``."""
    return re.compile(rf"^(\w+, )*{n}(, \w+)*\s*(=|: )", re.M)


def write_if_changed(path: str, text: str) -> None:
    """Write a generated page only when its text changed: Sphinx then rebuilds only what changed."""
    if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def public_names(module_name: str) -> list:
    """A module's public names: its `__all__` (less submodules), else what it defines without a leading _."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__all__"):
        return [n for n in module.__all__ if not inspect.ismodule(getattr(module, n)) and n != "__version__"]
    source = "\n".join(_source(module_name))
    return [n for n, obj in vars(module).items() if not n.startswith("_") and not inspect.ismodule(obj)
            and (getattr(obj, "__module__", None) == module_name or
                 (n.isupper() and not callable(obj) and _defines(n).search(source)))]


def _page(title, intro, modules, seen) -> str:
    lines = [f"# {title}", "", intro, ""]
    for name in modules:
        module = importlib.import_module(name)
        # documented already, or a function named like its own module (`policies.thompson` is both): that one is
        # documented in its module, whose page would otherwise hold two objects of the same name
        skip = [n for n in public_names(name) if (id(getattr(module, n)) in seen and not _is_value(getattr(module, n)))
                or f"{name}.{n}" in _MODULES]
        for n in public_names(name):
            if not _is_value(getattr(module, n)) and n not in skip:
                seen.setdefault(id(getattr(module, n)), f"{name}.{n}")
        if len(modules) > 1:   # a heading per module, so the page's contents list its modules
            lines += [f"## `{name}`", ""]
        lines += ["```{eval-rst}", f".. automodule:: {name}", "   :members:", "   :undoc-members:"]
        if skip:
            lines.append(f"   :exclude-members: {', '.join(skip)}")
        lines.append("")
        lines += _data_without_doc_comment(name, module, skip)
        lines += ["```", ""]
    return "\n".join(lines)


def _data_without_doc_comment(name, module, skip) -> list:
    """autodoc documents a module's constants only when they carry a ``#:`` doc comment; the others get an
    explicit entry here, documented by the comment above their definition (or by the module that defines them)."""
    from sphinx.pycode import ModuleAnalyzer
    documented = {attr for (_, attr) in ModuleAnalyzer.for_module(name).find_attr_docs()}
    source = _source(name)
    lines = []
    for n in public_names(name):
        obj = getattr(module, n)
        if n in skip or n in documented or inspect.isclass(obj) or inspect.isroutine(obj) or \
                hasattr(obj, "cache_info"):   # functools.lru_cache: autodoc documents it as a function
            continue
        comment = _comment_above(source, n)
        if not comment and callable(obj) and getattr(obj, "__wrapped__", None) is not None:   # jax.custom_vmap
            comment = inspect.getdoc(obj.__wrapped__).splitlines()
        if not comment:
            origin = _defined_in(n, obj, name)   # re-exported: the defining module's comment
            comment = _comment_above(_source(origin), n) if origin else []
        # py:data, not autodata: autodata would show the docstring of the value's type (dict's, tuple's)
        lines += [f".. py:data:: {n}"]   # automodule has set the current module
        if isinstance(obj, (int, float, str)) or (isinstance(obj, tuple) and len(repr(obj)) <= 80 and
                                                   all(isinstance(x, (int, float, str)) for x in obj)):
            lines.append(f"   :value: {obj!r}")
        lines += [""] + [f"   {c}" for c in comment] + [""]
    return lines


def _comment_above(source, n) -> list:
    defines = _defines(n)
    for i, line in enumerate(source):
        if defines.match(line):
            j = i
            while j > 0 and source[j - 1].startswith("#"):
                j -= 1
            trailing = line.partition("  # ")[2].strip()   # or the comment on its line
            return [c.lstrip("#").lstrip(":").strip() for c in source[j:i]] + ([trailing] if trailing else [])
    return []


def _defined_in(n, obj, name):
    for _, _, _, modules in PAGES:
        for other in modules:
            if other != name and getattr(importlib.import_module(other), n, None) is obj and \
                    _comment_above(_source(other), n):
                return other
    return None


def _is_value(obj) -> bool:
    """Numbers and strings are documented where they are defined, even when they are equal elsewhere."""
    return isinstance(obj, (int, float, str, bool, tuple)) and not hasattr(obj, "_fields")


def write_pages(folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    seen = {}
    for slug, title, intro, modules in PAGES:
        write_if_changed(os.path.join(folder, f"{slug}.md"), _page(title, intro, modules, seen))
    index = ["# API reference", "",
             "Generated from the docstrings at each build. `import jaxbandit as jb` gives the names of the first "
             "page; the others are its subpackages and modules.", "",
             "```{toctree}", ":maxdepth: 1", ""] + [slug for slug, *_ in PAGES] + ["```", ""]
    write_if_changed(os.path.join(folder, "index.md"), "\n".join(index))


def _resolve(path: str):
    """The object a dotted inventory name denotes, or None."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attr in parts[split:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def missing_names(inventory: str) -> list:
    """The public names (module.name) that the built reference (its objects.inv) documents nowhere, and the public
    functions and classes that have no docstring of their own (" (no docstring)" appended): a name that renders with
    nothing to say about it is not documented."""
    from sphinx.util.inventory import InventoryFile
    with open(inventory, "rb") as f:
        inv = InventoryFile.load(f, "", os.path.join)
    # not py:module: a function named like a module (policies.thompson) is not documented by the module's entry
    documented = {name for kind, items in inv.items() if kind.startswith("py:") and kind != "py:module"
                  for name in items}
    objects = {id(obj) for obj in map(_resolve, documented) if obj is not None and not _is_value(obj)}
    missing = []
    for _, _, _, modules in PAGES:
        for name in modules:
            module = importlib.import_module(name)
            for n in public_names(name):
                obj = getattr(module, n)
                if f"{name}.{n}" not in documented and (_is_value(obj) or id(obj) not in objects):
                    missing.append(f"{name}.{n}")
                elif (inspect.isclass(obj) or inspect.isroutine(obj)) and not _own_docstring(obj):
                    missing.append(f"{name}.{n} (no docstring)")
    return missing


def _own_docstring(obj) -> bool:
    """A docstring written for it: not none, and not the one namedtuple writes ("Name(field, ...)")."""
    doc = (obj.__doc__ or "").strip()
    return bool(doc) and not (hasattr(obj, "_fields") and doc.startswith(f"{obj.__name__}("))


def unassigned_modules() -> list:
    """Modules of the package that no page documents (and that are not documented elsewhere on purpose)."""
    return [m for m in all_modules() if m not in _MODULES and m not in NOT_IN_REFERENCE]
