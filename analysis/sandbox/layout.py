"""What the sandbox sees: the interpreter, the shared libraries under it, nothing else.

Computed once per executor from the interpreter the code under test runs with (codebias's
own, or the project's: analysis/execution/interpreter.py), as that interpreter described itself. Its
base prefix (and its venv, if any) appear read-only at neutral paths (/opt/python, /opt/venv),
so no host path under /root, /home or the app's directory shows through, and the app's own
packages are hidden if they sit in a site-packages we show. Nothing of the environment
codebias runs from is shown unless it is that interpreter's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from analysis.errors import SandboxUnavailable
from analysis.execution.interpreter import Interpreter

PYTHON_ROOT = "/opt/python"
VENV_ROOT = "/opt/venv"
OWN_PACKAGES = ("analysis", "config", "bot")


@dataclass(frozen=True)
class Layout:
    interpreter: Interpreter  # the one the sandbox runs, as it described itself on the host
    python: str  # the interpreter, as a path inside the sandbox
    sources: tuple[tuple[str, str], ...]  # (host directory, sandbox path), shown read-only
    system: tuple[tuple[str, str], ...]  # system library directories, same path both sides
    symlinks: tuple[tuple[str, str], ...]  # (target, link) as on the host: /lib -> usr/lib
    site_paths: tuple[str, ...]  # appended to sys.path inside (we start python with -S)
    library_path: str  # LD_LIBRARY_PATH for a shared libpython
    masks: tuple[str, ...]  # sandbox directories covered by an empty read-only tmpfs


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def host_layout(interpreter: Interpreter) -> Layout:
    # Whole: each mount (interpreter, libraries, links) depends on those before it.
    base = interpreter.base_prefix
    prefix = interpreter.prefix
    exe = interpreter.real_executable
    sources: list[tuple[str, str]] = [(base, PYTHON_ROOT)]
    if base == "/usr":
        # A distribution's Python: show its binaries and its own library directories, not
        # all of /usr (whose /usr/local may hold anything the machine's admins put there).
        wanted = [os.path.dirname(exe), interpreter.stdlib, *interpreter.site_packages]
        sources = [
            (d, PYTHON_ROOT + d[len(base) :]) for d in dict.fromkeys(wanted) if within(d, base)
        ]
    if prefix != base:
        sources.append((prefix, VENV_ROOT))

    def inside(host_path: str) -> str | None:
        real = os.path.realpath(host_path)
        for src, dest in sources:
            if within(real, src):
                return dest + real[len(src) :]
        return None

    python = inside(exe) if within(exe, base) else None
    if python is None:
        raise SandboxUnavailable(
            f"the interpreter {exe} does not live under its base prefix {base}"
        )
    site_paths = tuple(p for p in (inside(s) for s in interpreter.site_packages) if p)
    libdir = interpreter.libdir
    library_path = (inside(libdir) if libdir and os.path.isdir(libdir) else None) or ""

    system: list[tuple[str, str]] = []
    symlinks: list[tuple[str, str]] = []
    multiarch = interpreter.multiarch
    for top in ("/usr/lib", "/lib", "/usr/lib64", "/lib64", "/usr/lib32", "/lib32"):
        if os.path.islink(top):
            symlinks.append((os.readlink(top), top))
        elif os.path.isdir(top):
            narrow = os.path.join(top, multiarch) if multiarch else ""
            # The multiarch directory holds every shared library the interpreter and its
            # extension modules load; the rest of /usr/lib (other toolchains, SDKs) stays out.
            if top.endswith("/lib") and narrow and os.path.isdir(narrow):
                system.append((narrow, narrow))
            else:
                system.append((top, top))
    if os.path.isdir("/usr/share/zoneinfo"):
        system.append(("/usr/share/zoneinfo", "/usr/share/zoneinfo"))

    masks: list[str] = []
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # .../analysis
    for name in OWN_PACKAGES:
        mapped = inside(os.path.join(os.path.dirname(here), name))
        if mapped is not None and os.path.isdir(os.path.join(os.path.dirname(here), name)):
            masks.append(mapped)
    return Layout(
        interpreter=interpreter,
        python=python,
        sources=tuple(sources),
        system=tuple(system),
        symlinks=tuple(symlinks),
        site_paths=site_paths,
        library_path=library_path,
        masks=tuple(masks),
    )
