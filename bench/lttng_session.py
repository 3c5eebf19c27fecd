"""bench/lttng_session.py: the LTTng session the `tf-*-lttng` configurations of
bench/run trace into (docs/design.md .lttng).

A private lttng-sessiond (LTTNG_HOME in WORK/lttng-home) with one snapshot-mode
session enabling tf:*: events go into LTTng's in-memory ring buffers, the
flight recorder, so a figure is the cost of making and writing events, not of
a disk. Run as root, the daemon and the traced programs run as nobody: a root
session daemon would use the system's /var/run/lttng.

The daemon and the programs get a fresh, empty /dev/shm of their own (a
private mount namespace for this process and its children): what liblttng-ust
does as a program starts depends on files earlier runs left there, and the
machine's history must not decide what is measured (it once hid a deadlock).
"""
import ctypes
import os
import shutil
import subprocess
import time

NOBODY = 65534


class Unavailable(Exception):
    """LTTng or libtf-lttng.so is missing: the configurations are skipped."""


CLONE_NEWNS = 0x00020000
MS_REC, MS_PRIVATE = 0x4000, 1 << 18


def fresh_shm():
    """Gives this process and its children an empty /dev/shm of their own."""
    if os.getuid() != 0:
        raise Unavailable("a fresh /dev/shm needs root (a private mount namespace); run as root, as CI does")
    libc = ctypes.CDLL(None, use_errno=True)
    if (libc.unshare(CLONE_NEWNS) != 0
            or libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0
            or libc.mount(b"tf-fresh-shm", b"/dev/shm", b"tmpfs", 0, b"mode=1777,size=256m") != 0):
        raise Unavailable("cannot make a fresh /dev/shm: %s" % os.strerror(ctypes.get_errno()))


class Session:
    def __init__(self, work, tf_build):
        for tool in ("lttng", "lttng-sessiond"):
            if not shutil.which(tool):
                raise Unavailable("%s not installed (Debian: lttng-tools)" % tool)
        if not os.path.exists(os.path.join(tf_build, "libtf-lttng.so")):
            raise Unavailable("libtf-lttng.so not built (Debian: liblttng-ust-dev)")
        fresh_shm()
        self.home = os.path.join(work, "lttng-home")
        shutil.rmtree(self.home, ignore_errors=True)
        os.makedirs(self.home)
        self.wrap = []
        if os.getuid() == 0:
            os.chown(self.home, NOBODY, NOBODY)
            self.wrap = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                         "--clear-groups", "--"]
        self.env = {"LTTNG_HOME": self.home, "HOME": self.home}
        self.pid = None
        self._run(["lttng-sessiond", "--daemonize", "--no-kernel"])
        with open(os.path.join(self.home, ".lttng", "lttng-sessiond.pid")) as f:
            self.pid = int(f.read())
        try:
            self._run(["lttng", "create", "bench", "--snapshot"])
            self._run(["lttng", "enable-event", "-u", "tf:*"])
            self._run(["lttng", "start"])
        except Unavailable:
            self.close()
            raise

    def _run(self, argv):
        env = dict(os.environ, **self.env)
        p = subprocess.run(self.wrap + argv, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace")
        if p.returncode != 0:
            raise Unavailable("%s: exit %d: %s" % (" ".join(argv), p.returncode, p.stdout.strip()))
        return p.stdout

    def events_seen(self, needle):
        """Whether a snapshot of the session now holds an event containing needle."""
        out = os.path.join(self.home, "snapshot")
        shutil.rmtree(out, ignore_errors=True)
        self._run(["lttng", "snapshot", "record", "--session=bench", out])
        if not shutil.which("babeltrace2"):
            return True  # recorded without error; nothing here can read it
        p = subprocess.run(["babeltrace2", out], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, errors="replace")
        return needle in p.stdout

    def close(self):
        try:
            self._run(["lttng", "destroy", "--all"])
        except Unavailable:
            pass
        if self.pid:
            os.kill(self.pid, 15)
            for _ in range(50):
                try:
                    os.kill(self.pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                os.kill(self.pid, 9)
        shutil.rmtree(self.home, ignore_errors=True)
