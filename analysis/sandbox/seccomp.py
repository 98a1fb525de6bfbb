"""The seccomp filter every sandbox runs under: system calls that no function under test needs.

bwrap loads it (`--seccomp FD`, a compiled classic-BPF program) as the last step before it
starts the interpreter, after `no_new_privs`; it holds for every process of the sandbox and
cannot be lifted. The program is compiled once per process by libseccomp (through the
`pyseccomp` ctypes binding), which knows each architecture's system call numbers; calls from
another architecture's ABI (`int 0x80` from a 64-bit process, x32) kill the process, so the
list cannot be sidestepped through a second syscall table.

What is denied, and why (each returns EPERM, except the foreign-ABI calls above):
- ptrace, process_vm_writev: tampering with the harness process from a helper process;
- keyctl, add_key, request_key: kernel keyrings are per user, not per sandbox;
- io_uring_setup/enter/register: a second, large system call interface;
- userfaultfd, perf_event_open, bpf: kernel attack surface no function under test needs;
- socket(AF_VSOCK, ...): vsock reaches the hypervisor, and network namespaces do not cover it;
- memfd_create, memfd_secret: anonymous files whose pages RLIMIT_AS never counts (only the
  mappings of them) and that no tmpfs size bounds; see bounds.py for the rest of that story.

If the program cannot be built (no libseccomp, unknown architecture) the sandbox is
unavailable: the self-test fails closed rather than run without the filter.
"""

from __future__ import annotations

import errno
import os
import tempfile
import threading

from analysis.errors import SandboxUnavailable

AF_VSOCK = 40  # the same number on every Linux architecture

DENIED = (
    "ptrace",
    "process_vm_writev",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "perf_event_open",
    "bpf",
    "memfd_create",
    "memfd_secret",
)
MAX_PROGRAM = 64 * 1024  # bwrap reads it from a pipe: it must fit in one pipe buffer

_lock = threading.Lock()
_program: bytes | None = None


def compile_program() -> bytes:
    """The filter as bwrap wants it; raises SandboxUnavailable with the reason."""
    try:
        import pyseccomp as seccomp
    except (ImportError, RuntimeError, OSError) as exc:  # RuntimeError: no libseccomp.so
        raise SandboxUnavailable(
            f"the seccomp filter cannot be built: {exc} (install the `libseccomp2` system "
            "package and the `pyseccomp` Python package; scripts/install does)"
        ) from None
    deny = seccomp.ERRNO(errno.EPERM)
    try:
        rules = seccomp.SyscallFilter(seccomp.ALLOW)
        rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
        for name in DENIED:
            # An older libseccomp may not know a newer call (io_uring, memfd_secret): a call
            # we cannot name we cannot deny, so that is a failure too.
            if seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) < 0:
                raise SandboxUnavailable(
                    f"the seccomp filter cannot be built: this libseccomp does not know {name}"
                )
            rules.add_rule(deny, name)
        rules.add_rule(deny, "socket", seccomp.Arg(0, seccomp.EQ, AF_VSOCK))
        with tempfile.TemporaryFile() as out:
            rules.export_bpf(out)
            out.seek(0)
            program = out.read()
    except (OSError, ValueError) as exc:
        raise SandboxUnavailable(f"the seccomp filter cannot be built: {exc}") from None
    if not program or len(program) % 8 or len(program) > MAX_PROGRAM:
        raise SandboxUnavailable(f"the seccomp filter came out malformed ({len(program)} bytes)")
    return program


def program() -> bytes:
    """The compiled filter, built on first use and kept for the life of the process."""
    global _program
    with _lock:
        if _program is None:
            _program = compile_program()
        return _program


def program_fd() -> int:
    """A pipe's read end holding the program, for bwrap's `--seccomp`; the caller closes it."""
    data = program()
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)  # fits in the pipe buffer: never blocks
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return read_end
