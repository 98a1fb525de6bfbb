"""`BwrapExecutor`: every function under test runs in a fresh bubblewrap sandbox.

What one sandbox is:
- fresh user, pid, network, uts and cgroup namespaces: no network at all (a loopback of its
  own), no view of host processes, no nested user namespaces; and a fresh IPC namespace made
  by our launcher with small limits (bounds.py), which bwrap keeps (no `--unshare-ipc`);
- a seccomp filter (seccomp.py) and, where the host delegates a cgroup, a cgroup per slot
  (cgroups.py) bounding the sandbox's memory and processes as a whole;
- a read-only root holding only the interpreter and the shared libraries it loads (see
  layout.py); private /proc with /proc/sys read-only, minimal /dev, size-limited tmpfs on
  /tmp and /dev/shm;
- an unprivileged uid of its own (a slot, see slots.py): when the worker is root, the whole
  bwrap process tree runs under that host uid, with no capabilities and no_new_privs;
- an empty environment (`--clearenv`), then only PATH, LANG, HOME, TMPDIR, PYTHONHASHSEED
  and the numeric libraries' thread counts (one: process.py SINGLE_THREADED);
- rlimits set by our own first lines of Python inside, before any untrusted byte is read:
  address space, CPU seconds, processes (counted per sandbox: its user namespace is new),
  file size, open files, no core dumps;
- a wall clock from the parent (Session's deadlines); closing kills the sandbox's pid 1, which
  makes the kernel kill every process in its pid namespace, setsid daemons included, and we
  wait until they are gone before the slot's uid is handed out again.
"""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from analysis.errors import SandboxUnavailable, SessionDied
from analysis.execution.interpreter import Interpreter
from analysis.execution.process import (
    HARNESS_SCRIPT,
    SINGLE_THREADED,
    Executor,
    Limits,
    Session,
    SharedProject,
    Target,
)
from analysis.sandbox import cgroups, seccomp, staging
from analysis.sandbox.bounds import ipc_limits, launcher
from analysis.sandbox.layout import Layout, host_layout
from analysis.sandbox.slots import Slot, SlotPool
from analysis.sandbox.snapshot import copy_base, snapshot

SANDBOX_HOME = "/tmp"
REPO_VIEW = "/repo"  # where a target's project appears, read-only (a snapshot, see snapshot.py)
EVIDENCE_VIEW = "/evidence"  # evidence: recorded calls, read-only (analysis/evidence/)
PRELUDE_MARKER = "# codebias sandbox prelude"  # first line of every sandboxed command
MB = 1 << 20


def prelude(limits: Limits, site_paths: tuple[str, ...]) -> str:
    """Python run inside before the harness: the limits, and the site-packages we show."""
    rlimits = [
        (resource.RLIMIT_AS, limits.memory_mb * MB, limits.memory_mb * MB),
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1),
        (resource.RLIMIT_NPROC, limits.processes, limits.processes),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * MB, limits.file_size_mb * MB),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    # Only the protocol pipes (0, 1) and /dev/null (2) may cross into the sandbox: descriptors
    # that nsenter and bwrap needed (the staging namespace) are closed before any request.
    return (
        f"{PRELUDE_MARKER}\n"
        "import os as _o, resource as _r, sys as _s\n"
        "_o.closerange(3, 65536)\n"
        f"for _k, _soft, _hard in {rlimits!r}:\n"
        "    _r.setrlimit(_k, (_soft, _hard))\n"
        f"_s.path.extend({list(site_paths)!r})\n"
        "del _o, _r, _s, _k, _soft, _hard\n"
    )


class BwrapExecutor(Executor):
    """Runs each Session inside bubblewrap; see the module docstring for what it isolates."""

    name = "bwrap"

    def __init__(
        self,
        bwrap: str | None = None,
        *,
        uid_base: int = 60000,
        slots: int = 64,
        tmp_mb: int = 16,
        shm_mb: int = 16,
        slot_dir: str | None = None,
        interpreter: Interpreter | None = None,
    ) -> None:
        super().__init__(interpreter)
        self.bwrap = bwrap or shutil.which("bwrap") or "/usr/bin/bwrap"
        # As root we can give each sandbox a host uid of its own; otherwise the sandbox's
        # uid exists only inside its user namespace.
        self.privileged = os.geteuid() == 0
        self.pool = SlotPool(uid_base, slots, slot_dir)
        self.tmp_mb = tmp_mb
        self.shm_mb = shm_mb
        self.layout: Layout | None = None
        self.namespace: staging.Namespace | None = None  # staging.py's helper
        self.scratch_problem = ""  # why projects are read-only in the sandbox here, if they are
        self.nsenter = shutil.which("nsenter") or "/usr/bin/nsenter"
        self.unshare = shutil.which("unshare") or "/usr/bin/unshare"
        self.cgroups: cgroups.SlotCgroups | None = None
        self.memory_bound = ""  # in words, once prepared: which bound holds a whole sandbox
        self.ready = threading.Lock()

    def prepare(self) -> Layout:
        """Everything done once per executor; raises SandboxUnavailable with the reason."""
        with self.ready:
            if self.layout is not None:
                return self.layout
            if not (os.path.isfile(self.bwrap) and os.access(self.bwrap, os.X_OK)):
                raise SandboxUnavailable(
                    f"bubblewrap is not installed ({self.bwrap} not found): "
                    "install the `bubblewrap` package (scripts/install does)"
                )
            if self.privileged and not os.access(self.nsenter, os.X_OK):
                raise SandboxUnavailable(
                    "nsenter (util-linux) is missing; it is needed to start sandboxes "
                    "under a slot uid when the worker runs as root"
                )
            if not os.access(self.unshare, os.X_OK):
                raise SandboxUnavailable(
                    "unshare (util-linux) is missing; it makes each sandbox's IPC namespace"
                )
            seccomp.program()  # raises SandboxUnavailable when the filter cannot be built
            layout = host_layout(self.interpreter)
            self.pool.prepare()
            self.cgroups, self.memory_bound = cgroups.detect()
            self.start_namespace([src for src, _ in layout.sources])
            self.layout = layout
            return layout

    def start_namespace(self, sources: list[str]) -> None:
        """The helper's namespace: required as root (the interpreter is staged there), a
        convenience otherwise (without it, projects are read-only in the sandbox)."""
        scratch_root = tempfile.mkdtemp(prefix="codebias-scratch-", dir=copy_base(self.privileged))
        os.chmod(scratch_root, 0o755)
        weakref.finalize(self, remove_empty_folder, scratch_root)
        try:
            self.namespace = staging.Namespace(
                self.privileged, sources if self.privileged else [], scratch_root
            )
        except SandboxUnavailable as exc:
            if self.privileged:
                raise
            self.scratch_problem = str(exc)
            return
        weakref.finalize(self, self.namespace.close)
        lower = tempfile.mkdtemp(prefix="codebias-probe-", dir=copy_base(self.privileged))
        try:
            self.namespace.release(self.namespace.scratch(lower, MB))
        except SessionDied as exc:
            self.scratch_problem = str(exc)
        finally:
            os.rmdir(lower)

    @property
    def writable_projects(self) -> bool:
        """Whether each session gets a writable scratch view of its project (staging.py)."""
        return self.namespace is not None and not self.scratch_problem

    def repo_view(self, target: Target) -> str | None:
        return REPO_VIEW if target.repo is not None else None

    def evidence_view(self, target: Target) -> str | None:
        return EVIDENCE_VIEW if target.evidence is not None else None

    @property
    def private_writes(self) -> bool:
        return self.writable_projects

    @contextmanager
    def share(self, folder: str) -> Iterator[SharedProject]:
        with snapshot(Path(folder), self.privileged, self.writable_projects) as (copy, made):
            yield SharedProject(copy, made.note())

    def command(
        self,
        limits: Limits,
        slot: Slot,
        info_fd: int,
        seccomp_fd: int,
        repo: str | None = None,
        cgroup_procs: str = "",
        writable: bool = False,
        evidence: str | None = None,  # evidence: the folder of recorded calls
    ) -> list[str]:
        """`repo`: the folder shown at /repo, read-only, or (`writable`) a scratch view."""
        layout = self.prepare()
        entered = None
        if writable and not self.privileged:
            assert self.namespace is not None and self.namespace.user_ns is not None
            fds = (self.namespace.user_ns, self.namespace.mount_ns)
            entered = (f"/proc/self/fd/{fds[0]}", f"/proc/self/fd/{fds[1]}")
        argv = launcher(self.privileged, cgroup_procs, ipc_limits(self.shm_mb), entered)
        if self.privileged:
            assert self.namespace is not None
            argv += [
                self.nsenter,
                f"--mount=/proc/self/fd/{self.namespace.mount_ns}",
                f"--setuid={slot.uid}",
                f"--setgid={slot.uid}",  # nsenter also drops supplementary groups
                "--",
            ]
        argv += [
            self.bwrap,
            # --unshare-all without --unshare-ipc: the IPC namespace is the launcher's.
            "--unshare-user",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--disable-userns",
            # bwrap clears the bounding set by itself only when it starts as non-root; as an
            # unprivileged worker it starts as root of the launcher's user namespace.
            "--cap-drop",
            "ALL",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
            "--hostname",
            "sandbox",
        ]
        if not self.privileged:
            argv += ["--uid", str(slot.uid), "--gid", str(slot.uid)]
        python_bin = os.path.dirname(layout.python)
        env = {
            "PATH": python_bin,
            "LANG": "C.UTF-8",
            "HOME": SANDBOX_HOME,
            "TMPDIR": "/tmp",
            "PYTHONHASHSEED": "0",
            **SINGLE_THREADED,
        }
        if layout.library_path:
            env["LD_LIBRARY_PATH"] = layout.library_path
        for key, value in env.items():
            argv += ["--setenv", key, value]
        for src, dest in layout.system:
            argv += ["--ro-bind", src, dest]
        for target, link in layout.symlinks:
            argv += ["--symlink", target, link]
        for i, (src, dest) in enumerate(layout.sources):
            argv += ["--ro-bind", staging.staged_path(i) if self.privileged else src, dest]
        for mask in layout.masks:
            argv += ["--size", "4096", "--tmpfs", mask, "--remount-ro", mask]
        if repo is not None:
            argv += ["--bind" if writable else "--ro-bind", repo, REPO_VIEW]
        if evidence is not None:
            argv += ["--ro-bind", evidence, EVIDENCE_VIEW]  # evidence: recorded calls
        argv += [
            "--proc", "/proc",
            # sysctls are looked up in the caller's namespaces, so this shows the sandbox's
            # own values; read-only, because the sandbox's uid may own its IPC namespace.
            "--ro-bind", "/proc/sys", "/proc/sys",
            "--dev", "/dev",
            "--size", str(self.tmp_mb * MB), "--perms", "1777", "--tmpfs", "/tmp",
            "--size", str(self.shm_mb * MB), "--perms", "1777", "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev",
            "--remount-ro", "/",
            "--info-fd", str(info_fd),
            "--seccomp", str(seccomp_fd),
            "--chdir", SANDBOX_HOME,
            # -S: the host's .pth hooks never run inside (site paths come from the prelude);
            # no -E, so that our PYTHONHASHSEED holds: the environment is ours entirely.
            layout.python, "-B", "-S", "-s", "-P",
            "-c", prelude(limits, layout.site_paths) + HARNESS_SCRIPT,
        ]  # fmt: skip
        return argv

    def open(self, target: Target, limits: Limits) -> Session:
        return self.open_session(target, limits, diagnose=False)

    def open_session(self, target: Target, limits: Limits, *, diagnose: bool) -> BwrapSession:
        """`diagnose` keeps bwrap's stderr (for the self-test); untrusted runs discard it."""
        self.prepare()
        slot = self.pool.acquire(timeout=limits.session_timeout)
        scratch = None
        try:
            cgroup_procs = self.slot_cgroup(slot, limits)
            if target.repo is not None and self.writable_projects:
                assert self.namespace is not None
                scratch = self.namespace.scratch(target.repo, self.tmp_mb * MB)
            seccomp_fd = seccomp.program_fd()
        except BaseException:
            self.release_scratch(scratch)
            slot.release()
            raise
        info_read, info_write = os.pipe()
        keep = [info_write, seccomp_fd]
        if self.namespace is not None:
            keep += self.namespace.fds()
        repo = scratch if scratch is not None else target.repo
        try:
            proc = subprocess.Popen(
                self.command(
                    limits, slot, info_write, seccomp_fd, repo, cgroup_procs, scratch is not None,
                    target.evidence,
                ),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if diagnose else subprocess.DEVNULL,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                cwd="/",
                start_new_session=True,
                pass_fds=keep,
            )
        except BaseException:
            os.close(info_read)
            self.release_scratch(scratch)
            slot.release()
            raise
        finally:
            os.close(info_write)
            os.close(seccomp_fd)
        return BwrapSession(
            proc,
            target,
            limits,
            self.repo_view(target),
            slot=slot,
            info_fd=info_read,
            scratch=None if scratch is None else lambda: self.release_scratch(scratch),
            evidence_view=self.evidence_view(target),
        )

    def release_scratch(self, scratch: str | None) -> None:
        if scratch is not None and self.namespace is not None:
            self.namespace.release(scratch)

    def slot_cgroup(self, slot: Slot, limits: Limits) -> str:
        """The cgroup.procs file of the slot's cgroup, limits set for this session; or ""."""
        if self.cgroups is None:
            return ""
        # Its tmpfs mounts count where it writes them: /tmp, /dev/shm, its project's scratch.
        memory = (limits.memory_mb + 2 * self.tmp_mb + self.shm_mb) * MB
        try:
            return self.cgroups.prepare(slot.index, memory, limits.processes)
        except OSError as exc:
            raise SessionDied(f"the sandbox's cgroup could not be set up: {exc}") from None


class BwrapSession(Session):
    """A Session whose close() also ends the sandbox's pid namespace and frees its slot."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        target: Target,
        limits: Limits,
        repo_view: str | None,
        *,
        slot: Slot,
        info_fd: int,
        scratch: Callable[[], None] | None = None,
        evidence_view: str | None = None,
    ) -> None:
        self.slot = slot
        self.scratch = scratch  # drops the project's scratch view, once the sandbox is gone
        self.info_fd: int | None = info_fd
        self.pidfd: int | None = None
        self.pid: int | None = None  # the sandbox's pid 1, as the host sees it
        self.said = ""
        os.set_blocking(info_fd, False)
        try:
            super().__init__(proc, target, limits, repo_view, evidence_view)
        except SessionDied as exc:
            said = self.diagnostics()  # when bwrap itself failed, it said why on stderr
            self.close()
            if said:
                raise type(exc)(f"{exc} (bwrap: {said[-500:]})") from None
            raise
        except BaseException:
            self.close()
            raise
        self.attach()

    def attach(self, wait: float = 0.0) -> None:
        """Hold a pidfd on the sandbox's pid 1, once bwrap has told us its pid."""
        if self.pidfd is not None or self.info_fd is None:
            return
        if wait > 0:
            # bwrap writes the pid right after it starts the sandbox, or exits (EOF).
            select.select([self.info_fd], [], [], wait)
        try:
            data = os.read(self.info_fd, 4096)
        except BlockingIOError:
            return  # not written yet: bwrap is still setting up
        os.close(self.info_fd)
        self.info_fd = None
        try:
            pid = int(json.loads(data)["child-pid"])
        except (ValueError, KeyError, TypeError):
            return
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            return  # already gone
        # The pid could have been reused if pid 1 died already; only bwrap's own child counts.
        # Our bwrap is not reaped yet, so its pid cannot have been reused.
        if parent_pid(pid) == self.proc.pid:
            self.pidfd, self.pid = pidfd, pid
        else:
            os.close(pidfd)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.attach(wait=2.0)
        if self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass
            # pid 1 of a pid namespace becomes ready only after every process in it is gone.
            with select.epoll() as poller:
                poller.register(self.pidfd, select.EPOLLIN)
                poller.poll(5.0)
            # bwrap now reaps it and exits. Killing bwrap first would orphan the sandbox's
            # pid 1 to the host's pid 1, which is this worker in a container: a zombie for
            # every sandbox.
            try:
                self.proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                pass
        super().close()
        if self.pidfd is not None:
            reap_if_ours(self.pidfd)  # orphaned to us after all (bwrap did not wait)
            os.close(self.pidfd)
            self.pidfd = None
        if self.info_fd is not None:
            os.close(self.info_fd)
            self.info_fd = None
        if self.proc.stderr is not None and not self.proc.stderr.closed:
            self.said = self.diagnostics()  # keep what bwrap said past the closing
            self.proc.stderr.close()
        if self.scratch is not None:
            self.scratch()
            self.scratch = None
        self.slot.release()

    def diagnostics(self) -> str:
        """What bwrap itself said on stderr (only when opened with diagnose=True)."""
        stream: IO[bytes] | None = self.proc.stderr
        if stream is None or stream.closed:
            return self.said
        os.set_blocking(stream.fileno(), False)
        try:
            data = stream.read(4000) or b""
        except OSError:
            data = b""
        return data.decode(errors="replace").strip()

    def death_reason(self) -> str:
        code = self.proc.poll()
        # bwrap reports a child killed by signal N as exit status 128 + N.
        if code is not None and code > 128 and (code - 128) in signal.Signals._value2member_map_:
            sig = signal.Signals(code - 128)
            if sig in (signal.SIGXCPU, signal.SIGKILL):
                return f"the function was killed ({sig.name}): it exceeded a CPU or memory limit"
            return f"the function crashed the interpreter ({sig.name})"
        return super().death_reason()


def remove_empty_folder(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass  # not empty, or gone: never removed with what is in it


def reap_if_ours(pidfd: int) -> None:
    """Collect the exit status of an orphan reparented to this process (as pid 1, or a
    subreaper); nothing when it is somebody else's child or still running."""
    try:
        os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOHANG)
    except ChildProcessError:
        pass


def parent_pid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may itself contain spaces or parentheses.
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


__all__ = ["PRELUDE_MARKER", "BwrapExecutor", "BwrapSession", "prelude"]
