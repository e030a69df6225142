"""The layers of docs/DESIGN.md, checked on the code: every module of jaxbandit imports only from the layers below
its own (lazy imports inside functions included), or from its own package; no module below the policies imports a
policy or a registry; and there is no import cycle."""
import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "jaxbandit")

# bottom to top; a name is a top-level module or package of jaxbandit
LAYERS = [
    {"checks", "version", "compilation_cache"},
    {"types", "registry", "random"},
    {"accounting"},
    {"mechanisms"},     # a counter's release states its node's profile through the calculus
    {"envs", "privatizers", "policies"},
    {"engine"},
    {"epochs"},
    {"spec"},
    {"sharding", "results"},
    {"simulation"},
    {"gradients", "theory"},
    {"tuning"},
    {"audit"},
    {"frontiers"},
    {"comparison"},  # the former name of frontiers, re-exporting it
    {"plotting"},
    {"experiments", "__init__"},
    {"cli"},
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def _modules():
    out = {}
    for folder, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                out["jaxbandit." + rel.removesuffix(".__init__") if rel != "__init__" else "jaxbandit"] = path
    return out


def _imports(path):
    """Every jaxbandit module a file imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("jaxbandit")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxbandit"):
            # `from package import module` imports the module; `from module import name`, the module
            found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES
                      else node.module for a in node.names}
    return found


MODULES = _modules()


def _top(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _top(m) != "__init__"))
def test_imports_only_from_lower_layers(module):
    own = _top(module)
    assert own in LAYER, f"{module}: add its package to LAYERS (tests/test_layers.py) and docs/DESIGN.md"
    for imported in _imports(MODULES[module]):
        other = _top(imported)
        if other == own:
            continue
        assert other in LAYER, f"{module} imports {imported}, in no layer"
        assert LAYER[other] < LAYER[own], (f"{module} (layer {LAYER[own]}) imports {imported} (layer "
                                          f"{LAYER[other]}): only lower layers may be imported")


def test_no_import_cycles():
    graph = {m: {i for i in _imports(p) if i in MODULES and i != m} for m, p in MODULES.items()}
    graph = {m: {i for i in deps if i != "jaxbandit"} for m, deps in graph.items()}  # the root re-exports
    seen, stack = set(), []

    def visit(m):
        if m in stack:
            raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(m):] + [m]))
        if m in seen:
            return
        stack.append(m)
        for d in graph.get(m, ()):
            visit(d)
        stack.pop()
        seen.add(m)

    for m in sorted(graph):
        visit(m)
