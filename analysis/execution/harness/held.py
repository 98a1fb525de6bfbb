"""What the harness holds before code under test runs: the JSON reader and writer and the
MAC signer, taken from the standard library's C parts; and the watch on the environment.

Part of the child script (see runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only.
"""

import os
from json.decoder import JSONDecoder
from json.encoder import c_make_encoder, encode_basestring_ascii
from json.scanner import c_make_scanner

if __name__ != "__main__":
    # Imported, as the tests drive the harness in-process; in the sandbox these names come
    # from the parts joined before this one.
    from analysis.execution.harness.output import sha256, stands_alone


def json_reader():
    """json.loads as the standard library has it now, in C, out of reach of assignments."""
    constants = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
    scan = c_make_scanner(JSONDecoder(parse_constant=constants.__getitem__))

    def read(line):
        value, _ = scan(line.strip(), 0)
        return value

    return read


def json_writer():
    """json.dumps(obj, default=str) as the standard library has it now, in C."""
    encode = c_make_encoder(
        None, str, encode_basestring_ascii, None, ": ", ", ", False, False, True
    )

    def write(obj):
        return "".join(encode(obj, 0))

    return write


def signer(key):
    """HMAC-SHA256 under `key` (at most 64 bytes), from hash states taken now."""
    padded = key.ljust(64, b"\0")
    inner = sha256(bytes(b ^ 0x36 for b in padded))
    outer = sha256(bytes(b ^ 0x5C for b in padded))

    def sign(data):
        digest = inner.copy()
        digest.update(data)
        mac = outer.copy()
        mac.update(digest.digest())
        return mac.hexdigest()

    return sign


class Environment:
    """The variables code under test asked for and did not find: the sandbox's environment
    is empty, and a module that requires one (`os.environ["API_KEY"]`, or `os.getenv` and a
    raise of its own) is reported as needing it, by name."""

    def __init__(self):
        self.absent = []

    def watch(self):
        cls = type(os.environ)
        original = cls.__getitem__
        absent = self.absent

        def __getitem__(environ, key):
            try:
                return original(environ, key)
            except KeyError:
                if isinstance(key, str) and key not in absent:
                    absent.append(key)
                raise

        cls.__getitem__ = __getitem__

    def needed_by(self, exc):
        """The absent variable an error is about: a KeyError of its name, or an error whose
        message names it as a word."""
        text = str(exc)
        for name in self.absent:
            if isinstance(exc, KeyError) and exc.args[:1] == (name,):
                return name
            found = text.find(name)
            if found >= 0 and stands_alone(text, found, found + len(name), False):
                return name
        return None


ENVIRONMENT = Environment()
