"""The Python the code under test runs with: codebias's own, or the project's (`--python`).

As mypy's `--python-executable` and pyright's `venv` do, codebias can run from an environment
of its own while the code it tests runs with the project's interpreter and site-packages, so
nothing installed for the project (a top-level `config` or `analysis` distribution) meets
codebias's own packages. The sandbox shows that interpreter (sandbox/layout.py) and project
discovery looks modules up in its import path (project.py).

What an interpreter is made of is asked once, in a subprocess with a timeout, under `-I -S`:
only its standard library runs, never a `.pth` line or a `sitecustomize` of its environment
(they are the environment's code, which runs nowhere but in the sandbox). The site-packages
are then worked out as `site` would set them up, a virtual environment's `pyvenv.cfg`
included. The answer is untrusted text: it is checked before anything relies on it.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    SourceFileLoader,
    SourcelessFileLoader,
)
from typing import Any
from zipimport import ZipImportError, zipimporter

from analysis.errors import InterpreterError

# The harness (harness/runner.py) runs inside the interpreter: the oldest Python it is written for.
MIN_VERSION = (3, 11)
PROBE_TIMEOUT = 20.0
MAX_ANSWER = 1 << 20

# Run by the interpreter asked. Its first lines parse and run on any Python, 2.7 included,
# so that an old one says its version instead of failing on newer syntax.
PROBE = r"""
import json, sys
answer = {"version": list(sys.version_info[:3])}
if sys.version_info >= (3, 11):
    import importlib.machinery, os, site, sysconfig
    executable = os.path.abspath(sys.executable)
    # site.venv() without its addsitepackages(), which would run the .pth files.
    bin_dir = os.path.dirname(executable)
    system_site = True
    for conf in (os.path.join(bin_dir, "pyvenv.cfg"),
                 os.path.join(os.path.dirname(bin_dir), "pyvenv.cfg")):
        if os.path.isfile(conf):
            with open(conf, encoding="utf-8") as lines:
                for line in lines:
                    key, _, value = line.partition("=")
                    if key.strip().lower() == "include-system-site-packages":
                        system_site = value.strip().lower() == "true"
            sys.prefix = sys.exec_prefix = os.path.dirname(bin_dir)
            break
    prefixes = [sys.prefix] + ([sys.base_prefix] if system_site else [])
    answer.update(
        executable=executable,
        prefix=sys.prefix,
        base_prefix=sys.base_prefix,
        stdlib=sysconfig.get_paths()["stdlib"],
        site_packages=site.getsitepackages(prefixes),
        path=sys.path,
        libdir=sysconfig.get_config_var("LIBDIR") or "",
        multiarch=sysconfig.get_config_var("MULTIARCH") or "",
        builtin_modules=list(sys.builtin_module_names),
        extension_suffixes=importlib.machinery.EXTENSION_SUFFIXES,
    )
print(json.dumps(answer))
"""


@dataclass(frozen=True)
class Interpreter:
    """A Python, as it described itself; every path real and absolute on this machine."""

    # As it names itself: a venv's bin/python (resolving that link would lose the venv), the
    # real binary behind a launcher script such as pyenv's shims.
    executable: str
    version: tuple[int, int, int]
    prefix: str  # the venv, or the same as base_prefix
    base_prefix: str
    stdlib: str
    site_packages: tuple[str, ...]  # existing ones, in the order `site` adds them
    path: tuple[str, ...]  # sys.path without site: the standard library's folders
    libdir: str  # where a shared libpython lives ("" when unknown)
    multiarch: str  # x86_64-linux-gnu: the system's library folder for it
    builtin_modules: frozenset[str]
    extension_suffixes: tuple[str, ...]

    @property
    def real_executable(self) -> str:
        return os.path.realpath(self.executable)

    @property
    def shown_version(self) -> str:
        return ".".join(map(str, self.version))

    @classmethod
    def probe(cls, executable: str, timeout: float = PROBE_TIMEOUT) -> Interpreter:
        """Ask `executable` what it is made of; InterpreterError says why it cannot serve."""
        path = os.path.abspath(executable)
        if os.path.isdir(path):
            raise InterpreterError(
                executable, f"is a folder, not an interpreter (a virtual environment's is "
                f"{os.path.join(executable, 'bin', 'python')})"
            )
        try:
            done = subprocess.run(
                [path, "-I", "-S", "-c", PROBE],
                capture_output=True,
                timeout=timeout,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                cwd="/",
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise InterpreterError(executable, f"did not answer within {timeout:.0f} s") from None
        except OSError as exc:
            raise InterpreterError(executable, launch_problem(exc)) from None
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip().splitlines()
            last = f": {said[-1][:200]}" if said else ""
            raise InterpreterError(executable, f"did not run: exit {done.returncode}{last}")
        try:
            answer = json.loads(done.stdout[:MAX_ANSWER])
            return cls.from_answer(executable, answer)
        except (ValueError, TypeError, KeyError) as exc:
            raise InterpreterError(
                executable, f"did not describe itself as a Python interpreter ({exc})"
            ) from None

    @classmethod
    def from_answer(cls, executable: str, answer: Any) -> Interpreter:
        """The interpreter an answer describes, every field checked (ValueError otherwise)."""
        if not isinstance(answer, dict):
            raise ValueError("not a JSON object")
        version = answer["version"]
        if not (
            isinstance(version, list)
            and len(version) == 3
            and all(isinstance(v, int) for v in version)
        ):
            raise ValueError(f"version {version!r}")
        found = (version[0], version[1], version[2])
        if found[:2] < MIN_VERSION:
            wanted = ".".join(map(str, MIN_VERSION))
            raise InterpreterError(
                executable,
                f"is Python {'.'.join(map(str, found))}; the code under test runs there "
                f"through codebias's harness, which needs Python {wanted} or newer",
            )
        return cls(
            executable=program(answer["executable"]),
            version=found,
            prefix=folder(answer["prefix"]),
            base_prefix=folder(answer["base_prefix"]),
            stdlib=folder(answer["stdlib"]),
            site_packages=tuple(
                dict.fromkeys(
                    os.path.realpath(p) for p in paths(answer["site_packages"]) if os.path.isdir(p)
                )
            ),
            path=paths(answer["path"]),
            libdir=optional_path(answer["libdir"]),
            multiarch=name(answer["multiarch"]),
            builtin_modules=frozenset(names(answer["builtin_modules"])),
            extension_suffixes=tuple(
                s for s in names(answer["extension_suffixes"]) if s.startswith(".")
            ),
        )

    def finds(self, module: str, before: Sequence[str] = ()) -> bool:
        """Whether the top-level module `module` imports here, looked up (never imported) in
        `before` (a project's import roots), then this interpreter's standard library and
        site-packages, with its own extension suffixes."""
        top = module.split(".")[0]
        if top in self.builtin_modules:
            return True
        for entry in (*before, *self.path, *self.site_packages):
            if os.path.isdir(entry):
                if self.finder(entry).find_spec(top) is not None:
                    return True
            elif os.path.isfile(entry):  # a zip archive of modules
                try:
                    if zipimporter(entry).find_spec(top) is not None:
                        return True
                except ZipImportError:
                    continue
        return False

    def finder(self, directory: str) -> FileFinder:
        return FileFinder(
            directory,
            (ExtensionFileLoader, list(self.extension_suffixes)),
            (SourceFileLoader, SOURCE_SUFFIXES),
            (SourcelessFileLoader, BYTECODE_SUFFIXES),
        )


@functools.cache
def current_interpreter() -> Interpreter:
    """The Python codebias runs on: where the code under test runs unless told otherwise."""
    return Interpreter.probe(sys.executable)


def launch_problem(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "no such file"
    if exc.errno == errno.EACCES:
        return "cannot be run (permission denied: not an executable file)"
    return f"cannot be run: {exc.strerror or exc}"


def folder(value: Any) -> str:
    """An absolute path to an existing folder, resolved."""
    if not isinstance(value, str) or not os.path.isabs(value) or "\0" in value:
        raise ValueError(f"not an absolute path: {value!r}")
    if not os.path.isdir(value):
        raise ValueError(f"not a folder: {value!r}")
    return os.path.realpath(value)


def program(value: Any) -> str:
    """An absolute path to an existing file (not resolved)."""
    path = optional_path(value)
    if not os.path.isfile(path):
        raise ValueError(f"not a file: {value!r}")
    return path


def optional_path(value: Any) -> str:
    if value == "":
        return ""
    if not isinstance(value, str) or not os.path.isabs(value) or "\0" in value:
        raise ValueError(f"not an absolute path: {value!r}")
    return value


def paths(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > 1000:
        raise ValueError(f"not a list of paths: {value!r:.100}")
    return tuple(optional_path(v) for v in value if v != "")


def name(value: Any) -> str:
    if not isinstance(value, str) or len(value) > 200 or "/" in value or "\0" in value:
        raise ValueError(f"not a name: {value!r:.100}")
    return value


def names(value: Any) -> list[str]:
    if not isinstance(value, list) or len(value) > 10000:
        raise ValueError(f"not a list of names: {value!r:.100}")
    return [name(v) for v in value]
