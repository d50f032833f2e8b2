#!/usr/bin/env python3
"""A disk that fails on demand, for the gateway's storage-fault tests: a FUSE file system (fusepy
from PyPI, over Debian's libfuse2) that passes every call through to a backing folder until told
otherwise, as a disk that fills, breaks or freezes under a running database.

The mode is read from the control file at each call; write one word to it:

    ok      every call passes through
    full    a write, a file made or grown, or an fsync fails with ENOSPC (the disk is full)
    eio     every read, write and fsync fails with EIO (the disk's errors)
    freeze  every write, fsync and change to a file waits until the mode changes (a frozen disk,
            as `fsfreeze` makes one); reads pass

    python faulty_fs.py --backing DIR --mount DIR --control FILE [--ready FILE]

It mounts in the foreground, writes the ready file once the mount answers, and unmounts when
standard input closes (the test that started it has gone) or on SIGTERM.
"""

from __future__ import annotations

import argparse
import errno
import os
import signal
import subprocess
import sys
import threading
import time

from fuse import FUSE, FuseOSError, Operations

# The calls each mode refuses (or holds, for freeze).
WRITES = {"write", "create", "truncate", "fsync", "unlink", "rename", "mkdir", "rmdir", "chmod", "utimens", "flush"}
GROWS = {"write", "create", "truncate", "fsync", "mkdir"}


class Faulty(Operations):
    def __init__(self, backing: str, control: str) -> None:
        self.backing = backing
        self.control = control
        self.frozen = threading.Condition()

    def mode(self) -> str:
        try:
            with open(self.control) as handle:
                return handle.read().strip() or "ok"
        except OSError:
            return "ok"

    def gate(self, call: str) -> None:
        """Fails or holds `call` as the mode says."""
        while True:
            mode = self.mode()
            if mode == "freeze" and call in WRITES:
                time.sleep(0.05)
                continue
            if mode == "full" and call in GROWS:
                raise FuseOSError(errno.ENOSPC)
            if mode == "eio" and call in WRITES | {"read"}:
                raise FuseOSError(errno.EIO)
            return

    def path(self, path: str) -> str:
        return os.path.join(self.backing, path.lstrip("/"))

    # Metadata.
    def access(self, path, mode):
        if not os.access(self.path(path), mode):
            raise FuseOSError(errno.EACCES)

    def getattr(self, path, fh=None):
        status = os.lstat(self.path(path))
        return {key: getattr(status, key) for key in (
            "st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime", "st_nlink", "st_size", "st_uid")}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self.path(path))

    def statfs(self, path):
        status = os.statvfs(self.path(path))
        return {key: getattr(status, key) for key in (
            "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag", "f_frsize",
            "f_namemax")}

    def chmod(self, path, mode):
        self.gate("chmod")
        return os.chmod(self.path(path), mode)

    def chown(self, path, uid, gid):
        return os.chown(self.path(path), uid, gid)

    def utimens(self, path, times=None):
        self.gate("utimens")
        return os.utime(self.path(path), times)

    def mkdir(self, path, mode):
        self.gate("mkdir")
        return os.mkdir(self.path(path), mode)

    def rmdir(self, path):
        self.gate("rmdir")
        return os.rmdir(self.path(path))

    def unlink(self, path):
        self.gate("unlink")
        return os.unlink(self.path(path))

    def rename(self, old, new):
        self.gate("rename")
        return os.rename(self.path(old), self.path(new))

    # Files.
    def open(self, path, flags):
        return os.open(self.path(path), flags)

    def create(self, path, mode, fi=None):
        self.gate("create")
        return os.open(self.path(path), os.O_RDWR | os.O_CREAT, mode)

    def read(self, path, length, offset, fh):
        self.gate("read")
        return os.pread(fh, length, offset)

    def write(self, path, data, offset, fh):
        self.gate("write")
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        self.gate("truncate")
        with open(self.path(path), "r+b") as handle:
            handle.truncate(length)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        self.gate("fsync")
        return os.fdatasync(fh) if datasync else os.fsync(fh)

    def release(self, path, fh):
        return os.close(fh)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backing", required=True)
    parser.add_argument("--mount", required=True)
    parser.add_argument("--control", required=True)
    parser.add_argument("--ready")
    arguments = parser.parse_args()
    os.makedirs(arguments.backing, exist_ok=True)
    os.makedirs(arguments.mount, exist_ok=True)
    with open(arguments.control, "w") as handle:
        handle.write("ok\n")

    def unmount(*_) -> None:
        subprocess.run(["fusermount", "-u", "-z", arguments.mount], check=False)

    signal.signal(signal.SIGTERM, lambda *_: unmount())

    def watch_stdin() -> None:
        while os.read(0, 65536):
            pass
        unmount()

    def announce() -> None:
        while not os.path.ismount(arguments.mount):
            time.sleep(0.02)
        if arguments.ready:
            with open(arguments.ready + ".tmp", "w") as handle:
                handle.write(arguments.mount)
            os.replace(arguments.ready + ".tmp", arguments.ready)

    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Thread(target=announce, daemon=True).start()
    # allow_other is not needed: the gateway runs as the same user as the test.
    FUSE(
        Faulty(arguments.backing, arguments.control), arguments.mount, foreground=True, nothreads=False,
        attr_timeout=0.0, entry_timeout=0.0, negative_timeout=0.0)
    sys.exit(0)


if __name__ == "__main__":
    main()
