"""A recorded argument that names a data file: the file's content, kept in the call.

A command, a loader or a report often takes the person as the path of a file its caller
wrote (`compare(profile_json)`, `assess(Path("applicant.yaml"))`); a test writes it to its
temporary folder, which is gone when the call is replayed, and the person inside it is out
of reach of every leaf the search sets. So the recorder keeps such an argument as the file's
parsed content, `{FILE_KEY: format, "as": "str" | "path", "name": basename, "content": ...}`
(JSON, YAML when PyYAML imports, CSV of at most DATA_ROWS rows; a small folder of text files,
the templates a test wrote beside it, by relative path), described as a mapping whose
one key is its content; the replay sets leaves inside that content, then writes it to a file
of the same name in a folder of the session's own and passes that path, in the form the
recorded call passed (text, or a `pathlib.Path`). The folder is the same for every call, so
an output that shows the path does not differ for it.

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only (PyYAML when it imports).
"""

import csv
import json
import os
import pathlib
import tempfile
from typing import Any

if __name__ != "__main__":
    # Imported, as the tests drive the recorder in-process; in the sandbox the parts arrive
    # as one script (analysis.execution.process.HARNESS_SOURCE) and nothing is imported.
    from analysis.execution.harness.datarows import DATA_ROWS, cell

FILE_KEY = "__codebias_file__"
DATA_SUFFIXES = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".csv": "csv"}
MAX_FILE_BYTES = 64 << 10
MAX_PATH_TEXT = 1024
MAX_FOLDER_FILES = 20


def named_file(value: Any) -> dict[str, Any] | None:
    """The data file `value` names, read; None when it names none (or one too large, or
    not readable as its suffix says)."""
    if isinstance(value, str):
        if len(value) > MAX_PATH_TEXT or "\n" in value:
            return None
        path, given_as = value, "str"
    elif isinstance(value, os.PathLike):
        path, given_as = os.fspath(value), "path"
        if not isinstance(path, str):
            return None
    else:
        return None
    if os.path.isdir(path):
        content = read_folder(path)
        if content is None:
            return None
        return {
            FILE_KEY: "folder",
            "as": given_as,
            "name": os.path.basename(path),
            "content": content,
        }
    data_format = DATA_SUFFIXES.get(os.path.splitext(path)[1].lower())
    if data_format is None:
        return None
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_FILE_BYTES:
            return None
        content = read_data_file(path, data_format)
    except Exception:  # noqa: BLE001 - not a file of that format: the path stays a path
        return None
    if content is None:
        return None
    name = os.path.basename(path)
    return {FILE_KEY: data_format, "as": given_as, "name": name, "content": content}


def read_data_file(path: str, data_format: str) -> Any:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        if data_format == "json":
            return json.load(handle)
        if data_format == "yaml":
            import yaml

            return yaml.safe_load(handle)
        rows = list(csv.reader(handle))
    if not rows or len(rows) > DATA_ROWS + 1:
        return None  # a table cut short would not be the file the call read
    header = rows[0]
    return [{n: cell(text) for n, text in zip(header, row, strict=False)} for row in rows[1:]]


def read_folder(path: str) -> dict[str, str] | None:
    """A small folder of text files (templates a test wrote beside its data), by relative
    path; None when it is large, deep, or holds other than text."""
    content: dict[str, str] = {}
    size = 0
    try:
        for root, _, files in os.walk(path):
            for name in files:
                file = os.path.join(root, name)
                size += os.path.getsize(file)
                if len(content) >= MAX_FOLDER_FILES or size > MAX_FILE_BYTES:
                    return None
                with open(file, encoding="utf-8") as handle:
                    content[os.path.relpath(file, path)] = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    return content


def is_named_file(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get(FILE_KEY), str)


class FileFolder:
    """Where a replayed call's files are written: one folder per session, a sub-folder per
    argument, so two files of one name do not meet."""

    def __init__(self) -> None:
        self.folder: str | None = None

    def write(self, value: dict[str, Any], where: Any) -> Any:
        if self.folder is None:
            self.folder = tempfile.mkdtemp(prefix="codebias-files-")
        folder = os.path.join(self.folder, str(where))
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, os.path.basename(str(value.get("name") or "data")))
        write_data_file(path, str(value[FILE_KEY]), value.get("content"))
        return pathlib.Path(path) if value.get("as") == "path" else path


def write_data_file(path: str, data_format: str, content: Any) -> None:
    if data_format == "folder":
        os.makedirs(path, exist_ok=True)
        for relative, text in (content if isinstance(content, dict) else {}).items():
            file = os.path.normpath(os.path.join(path, str(relative)))
            if not file.startswith(os.path.join(path, "")):
                continue  # a relative path that climbs out: not one the recorder kept
            os.makedirs(os.path.dirname(file), exist_ok=True)
            with open(file, "w", encoding="utf-8") as handle:
                handle.write(str(text))
        return
    with open(path, "w", encoding="utf-8", newline="") as handle:
        if data_format == "json":
            json.dump(content, handle, default=str)
        elif data_format == "yaml":
            import yaml

            yaml.safe_dump(content, handle)
        else:
            rows = content if isinstance(content, list) else []
            header = list(rows[0]) if rows else []
            writer = csv.writer(handle)
            writer.writerow(header)
            for row in rows:
                writer.writerow(["" if row.get(n) is None else row.get(n) for n in header])


FILES = FileFolder()
