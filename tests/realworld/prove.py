"""Re-run the proofs of biased labels in each package's venv, and record what they return.

    python tests/realworld/prove.py [NAME ...]            # run, report differences
    python tests/realworld/prove.py NAME --record          # write observed outputs into the file

A proof runs in a subprocess of the package's venv (its dependencies installed by pip), with
the unpacked sdist first on sys.path. --record rewrites only the `outputs:` lines of the
proofs file, in order, so comments and layout stay as written.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import PROOFS, Package, Proof, cache_dir, load_manifest, load_proofs  # noqa: E402

RUNNER = Path(__file__).resolve().parent / "run_proofs.py"


@dataclass(frozen=True)
class Observed:
    proof: Proof
    outputs: tuple[str, str] | None  # None when the proof could not be set up
    error: str

    @property
    def differs(self) -> bool:
        return self.outputs is not None and self.outputs[0] != self.outputs[1]

    @property
    def as_recorded(self) -> bool:
        return self.outputs == self.proof.outputs


def observe(
    package: Package, python: Path, cache: Path | None = None, *, recorded: bool = True
) -> list[Observed]:
    proofs = load_proofs(package.name, recorded=recorded)
    if not proofs:
        return []
    payload = [
        {"module": p.module, "qualname": p.qualname, "source": p.source, "values": list(p.values)}
        for p in proofs
    ]
    root = package.source_root(cache) / package.import_root
    done = subprocess.run(
        [str(python), str(RUNNER), str(root)],
        input=json.dumps(payload), capture_output=True, text=True, timeout=600,
        cwd=str(package.source_root(cache)), check=False,
    )
    if done.returncode != 0:
        reason = f"runner exited {done.returncode}: {done.stderr.strip()[-800:]}"
        return [Observed(p, None, reason) for p in proofs]
    results = json.loads(done.stdout)
    out = []
    for proof, result in zip(proofs, results, strict=True):
        outputs = result.get("outputs")
        pair = (outputs[0], outputs[1]) if outputs else None
        out.append(Observed(proof, pair, result.get("error", "")))
    return out


def record(package: Package, observed: list[Observed]) -> None:
    """Write each observed pair over the matching `outputs:` line of the proofs file."""
    path = PROOFS / f"{package.name}.yml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    pending = iter(observed)
    for i, line in enumerate(lines):
        if line.lstrip().startswith("outputs:"):
            seen = next(pending)
            if seen.outputs is None:
                continue
            indent = line[: len(line) - len(line.lstrip())]
            lines[i] = f"{indent}outputs: {json.dumps(list(seen.outputs), ensure_ascii=False)}\n"
    path.write_text("".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args(argv)
    cache = cache_dir()
    failed = 0
    for package in load_manifest():
        if args.names and package.name not in args.names:
            continue
        python = package.venv(cache) / "bin" / "python"
        if not python.exists():
            print(f"{package.key}: no venv at {python.parent.parent} (run measure.py)")
            continue
        observed = observe(package, python, cache, recorded=not args.record)
        for seen in observed:
            state = "ok" if seen.differs and seen.as_recorded else "DIFFERS-FROM-RECORD"
            if not seen.differs:
                state = "NO-DIFFERENCE"
                failed += 1
            print(f"{state:20} {seen.proof.function} [{seen.proof.attribute}] "
                  f"{seen.outputs or seen.error}")
        if args.record:
            record(package, observed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
