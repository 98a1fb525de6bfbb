"""Run proofs of biased labels: executed by the package's venv interpreter, stdlib only.

    <venv>/bin/python run_proofs.py IMPORT_ROOT < proofs.json > outputs.json

Reads a JSON list of proofs ({module, qualname, source, values}), puts IMPORT_ROOT first on
sys.path (the unpacked sdist, as the package's own tests import it), and for each proof binds
the function to `target`, runs the proof's `call(target, value)` once per value and writes the
repr of each result. An exception is a result too: `raise TypeName: message`, so a refusal
(a protected value that raises while the other returns) can be proved like any other
difference. A proof that cannot even be set up reports `error`.
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback
from pathlib import Path
from typing import Any


def resolve(module: Any, qualname: str) -> Any:
    target = module
    owner = None
    for part in qualname.split("."):
        name = part
        if part.startswith("__") and not part.endswith("__") and owner is not None:
            name = f"_{owner.__name__.lstrip('_')}{part}"  # a private method, as Python mangles it
        owner = target if isinstance(target, type) else owner
        target = getattr(target, name)
        owner = target if isinstance(target, type) else owner
    return target


def load_module(module: str) -> Any:
    """A dotted module, or a file of the sdist named by its path (`tests/test_x.py`, run from
    the sdist root), imported as pytest's default mode imports a test file: the first folder
    up without an `__init__.py` goes first on sys.path and the file is imported by the dotted
    name from there (`tests.handler.test_x` when tests/ and tests/handler/ are packages). Test
    helpers and example scripts are then proved like the package's own functions."""
    if not module.endswith(".py"):
        return importlib.import_module(module)
    path = Path(module).resolve()
    base, parts = path.parent, [path.stem]
    while (base / "__init__.py").exists():
        parts.insert(0, base.name)
        base = base.parent
    sys.path.insert(0, str(base))
    return importlib.import_module(".".join(parts))


def outcome(call: Any, target: Any, value: Any) -> str:
    try:
        return repr(call(target, value))
    except Exception as error:  # the difference under test may be a refusal
        return f"raise {type(error).__name__}: {error}"


def run(proof: dict[str, Any]) -> dict[str, Any]:
    try:
        target = resolve(load_module(proof["module"]), proof["qualname"])
        namespace: dict[str, Any] = {}
        exec(proof["source"], namespace)
        call = namespace["call"]
    except Exception:
        return {"error": traceback.format_exc(limit=3)}
    return {"outputs": [outcome(call, target, value) for value in proof["values"]]}


def main() -> int:
    sys.path.insert(0, sys.argv[1])
    proofs = json.load(sys.stdin)
    answer = sys.stdout
    sys.stdout = sys.stderr  # what the package prints must not corrupt the answer
    results = [run(proof) for proof in proofs]
    json.dump(results, answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
