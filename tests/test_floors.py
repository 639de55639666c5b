"""The import floors hold: no kerasish module imports one on a higher floor, and
no kerasish module is imported inside a function to dodge a cycle.

Every module's imports are read with `ast` (module level, class bodies and
function bodies alike), so an import that would only run later still counts.
The floor table is the one in docs/design.md ("Floors"); a test below checks
the two agree.
"""
import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kerasish"

# Lowest first. A module may import modules of its own package and of lower
# floors only; packages sharing a floor do not import each other.
FLOORS = [
    ("utils",),                          # pure-Python helpers, the Registry
    ("backend",),                        # devices, dtypes, switches, kernels (numpy/cupy)
    # helpers that read the backend's switches (logging, traceback filtering)
    ("utils.io_utils", "utils.progbar", "utils.summary_utils", "utils.traceback_utils"),
    ("autodiff",),                       # Tensor, Variable, GradientTape
    ("ops",),                            # differentiable ops
    ("dtype_policies", "data", "summary", "tree"),
    # keras.utils data helpers built on Dataset and ops.image; keras.preprocessing aliases
    ("utils.image_utils", "utils.dataset_utils", "utils.image_dataset_utils",
     "utils.text_dataset_utils", "utils.timeseries_dataset_utils", "utils.audio_dataset_utils",
     "utils.bounding_boxes"),
    ("config", "random", "testing", "datasets", "preprocessing", "visualization"),
    ("initializers", "activations", "regularizers", "constraints"),
    ("losses",),
    ("metrics",),
    ("distribute",),
    ("optimizers", "distribution"),
    ("layers", "mixed_precision"),
    ("saving",),
    ("callbacks",),
    ("trainers",),
    ("models",),
    ("applications", "wrappers", "distillation", "testing.layer_test"),  # on layers and models
    ("",),                               # kerasish/__init__.py: may import everything
]
# Single modules on another floor than their package (most specific entry wins).
MODULE_FLOORS = {}
OPTIONAL_MARK = "# optional dependency"

# The Op contract has landed: no exception to the floors is allowed any more.
ALLOWED_WHILE_OPS_ARE_REWRITTEN = set()


def _floor_index():
    index = {}
    for level, packages in enumerate(FLOORS):
        for package in packages:
            index[package] = level
    for module, like in MODULE_FLOORS.items():
        index[module] = index[like]
    return index


FLOOR = _floor_index()


def floor_of(module):
    """The floor of `kerasish.<module>` (dotted path below kerasish; "" is the top package).

    A package's `__init__` runs whenever one of its modules is imported, so
    it sits on the lowest floor of any module inside it.
    """
    parts = module.split(".") if module else []
    for depth in range(len(parts), 0, -1):
        prefix = ".".join(parts[:depth])
        if prefix in FLOOR:
            level = FLOOR[prefix]
            inner = [FLOOR[m] for m in FLOOR if m.startswith(module + ".")]
            return min([level] + inner)
    if module == "":
        return FLOOR[""]
    raise AssertionError(f"kerasish.{module} is on no floor: add its package to FLOORS "
                         "(here and in docs/design.md).")


def _module_name(path):
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts), path.name == "__init__.py"


def _is_module(dotted):
    base = PACKAGE.joinpath(*dotted.split(".")) if dotted else PACKAGE
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _targets(node, module, is_package):
    """The kerasish modules an import statement loads (paths below `kerasish`)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".") if module else []
            if not is_package:
                base = base[:-1]
            base = base[:len(base) - (node.level - 1)]
            source = ".".join(["kerasish"] + base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        names = []
        if source != "kerasish" and not source.startswith("kerasish."):
            return []
        for alias in node.names:
            candidate = f"{source}.{alias.name}"
            names.append(candidate if _is_module(candidate[len("kerasish."):]) else source)
    found = []
    for name in names:
        if name == "kerasish" or name.startswith("kerasish."):
            found.append(name[len("kerasish."):] if name != "kerasish" else "")
    return found


def _dynamic_target(node):
    """`importlib.import_module("kerasish....")` / `__import__` with a literal name."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in ("import_module", "__import__"):
        return None
    arg = node.args[0]
    text = None
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        text = arg.value
    elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        text = str(arg.values[0].value)
    if text and (text == "kerasish" or text.startswith("kerasish.")):
        return text[len("kerasish."):].rstrip(".") if text != "kerasish" else ""
    return None


def collect_imports():
    """Yields (importer, imported, in_function, file, line, source line) for every module."""
    for path in sorted(PACKAGE.rglob("*.py")):
        module, is_package = _module_name(path)
        text = path.read_text()
        lines = text.splitlines()
        tree = ast.parse(text, filename=str(path))

        def walk(node, in_function):
            for child in ast.iter_child_nodes(node):
                targets = []
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    targets = _targets(child, module, is_package)
                else:
                    dynamic = _dynamic_target(child)
                    targets = [dynamic] if dynamic is not None else []
                for target in targets:
                    yield (module, target, in_function, path.relative_to(ROOT), child.lineno,
                           lines[child.lineno - 1])
                inner = in_function or isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                yield from walk(child, inner)

        yield from walk(tree, False)


IMPORTS = list(collect_imports())


def _dotted(module):
    return "kerasish" + (f".{module}" if module else "")


def _key(importer, target):
    return f"{_dotted(importer)} -> {_dotted(target)}"


def _same_package(importer, target):
    return importer.split(".")[0] == target.split(".")[0] and importer != "" and target != ""


def climbing_imports():
    found = []
    for importer, target, _, path, line, _src in IMPORTS:
        if _same_package(importer, target):
            continue
        if floor_of(target) >= floor_of(importer):
            found.append((_key(importer, target), f"{path}:{line}"))
    return found


def test_every_package_is_on_a_floor():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    packages |= {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    missing = sorted(packages - set(FLOOR))
    assert not missing, f"packages on no floor (add them to FLOORS and docs/design.md): {missing}"


def test_module_floor_entries_name_existing_modules():
    stale = sorted(m for m in MODULE_FLOORS if not _is_module(m))
    assert not stale, f"MODULE_FLOORS entries for modules that no longer exist: {stale}"


def test_no_import_climbs_a_floor():
    violations = [(key, where) for key, where in climbing_imports()
                  if key not in ALLOWED_WHILE_OPS_ARE_REWRITTEN]
    assert not violations, "imports that climb a floor:\n" + "\n".join(
        f"  {key}  ({where})" for key, where in violations)


def test_no_function_level_import_of_kerasish_without_reason():
    violations = [f"  {path}:{line}: {src.strip()}"
                  for importer, target, in_function, path, line, src in IMPORTS
                  if in_function and OPTIONAL_MARK not in src
                  and _key(importer, target) not in ALLOWED_WHILE_OPS_ARE_REWRITTEN]
    assert not violations, (
        "kerasish modules imported inside a function (move the import to the top of the "
        f"module, or mark a lazy import of an optional dependency with '{OPTIONAL_MARK}'):\n"
        + "\n".join(violations))


def test_allow_list_names_only_autodiff_and_ops_and_only_live_violations():
    for key in ALLOWED_WHILE_OPS_ARE_REWRITTEN:
        importer = key.split(" -> ")[0]
        assert importer.startswith(("kerasish.autodiff", "kerasish.ops")), key
    live = {key for key, _ in climbing_imports()}
    live |= {_key(i, t) for i, t, in_function, _, _, src in IMPORTS
             if in_function and OPTIONAL_MARK not in src}
    stale = sorted(set(ALLOWED_WHILE_OPS_ARE_REWRITTEN) - live)
    assert not stale, f"allow-list entries that no longer happen (remove them): {stale}"


def test_the_top_package_may_import_everything():
    top = [t for i, t, *_ in IMPORTS if i == ""]
    assert top and all(floor_of(t) < floor_of("") for t in top)


@pytest.mark.parametrize("importer,target,climbs", [
    ("ops.core", "layers.layer", True),          # upward
    ("layers.layer", "ops.core", False),         # downward
    ("initializers", "activations", True),       # sideways on one floor
    ("layers.layer", "", True),                  # `import kerasish` from below the top
    ("distribute.input_lib", "data.data_adapters", False),      # a lower package
])
def test_the_floor_rule_itself(importer, target, climbs):
    assert (floor_of(target) >= floor_of(importer)) is climbs


def test_the_parser_sees_function_level_and_dynamic_imports(tmp_path):
    source = ("import importlib\nfrom kerasish.ops import core\n"
              "def f():\n    from kerasish import layers\n"
              "    return importlib.import_module('kerasish.models')\n")
    tree = ast.parse(source)
    seen = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            seen += _targets(node, "losses.loss", False)
        elif _dynamic_target(node) is not None:
            seen.append(_dynamic_target(node))
    assert sorted(seen) == ["layers", "models", "ops.core"]


def test_design_doc_has_the_same_floor_table():
    text = (ROOT / "docs" / "design.md").read_text()
    rows = re.findall(r"^\| *(\d+) *\| *([^|]+)\|", text, re.M)
    table = {int(level): tuple(sorted(name.strip().strip("`").replace("kerasish/__init__.py", "")
                                      for name in names.split(",")))
             for level, names in rows}
    expected = {level: tuple(sorted(packages)) for level, packages in enumerate(FLOORS)}
    assert table == expected, "docs/design.md's floor table differs from tests/test_floors.py"
