"""Inputs from evidence: the calls the repository's own tests and demos make.

    entrypoints   which tests and programs to run (found, or the policy's `evidence.run`)
    openfisca     an OpenFisca country package's YAML tests, run by its framework's runner
    datafiles     the project's data files, whose rows the functions reading them are called with
    scope         which functions to record
    recording     the recording run, host side (the child side: execution/harness/recorder.py)
    calls         recorded calls as the host keeps them; `Evidence`, one project's recording
    described     what a recorded argument holds, read from the child's bounded description
    bases         a recorded call as an InputModel: the call as recorded, protected leaves
    pool          the values tried for a leaf found in a recorded call
    replay        the search run on recorded calls first (harness_recorded.py replays them)

The host never unpickles a recorded value: pickles go from the recording sandbox into a
folder the later sandboxes of the scan read; the host reads only the descriptions.
"""

from analysis.evidence.calls import Evidence, FunctionKey, RecordedCall
from analysis.evidence.entrypoints import EntryPoint, entry_points
from analysis.evidence.recording import Recording, RecordingTarget
from analysis.evidence.replay import Replayed, replay
from analysis.evidence.scope import recording_target, wanted

__all__ = [
    "EntryPoint",
    "Evidence",
    "FunctionKey",
    "RecordedCall",
    "Recording",
    "RecordingTarget",
    "Replayed",
    "entry_points",
    "recording_target",
    "replay",
    "wanted",
]
