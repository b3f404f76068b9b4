"""A disk that is full or a folder that cannot be written, while ``jaxlint verify`` writes its scratch files (the
copies of the project, the instrumented trees, the runs' output and records, the comparison's request): one line
that says where and what to do, and exit 2, not a traceback."""
from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile

DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})
# shutil.copytree gathers its failures as text ("[Errno 28] No space left on device: '/tmp/...'"), errno lost.
_ERRNO_TEXT = re.compile(r"\[Errno (\d+)\] ([^:]+)(?:: '(.*)')?")


def disk_error(error: OSError) -> OSError | None:
    """The failure with a full disk, a quota or a read-only or forbidden folder in ``error``, if it is one."""
    if isinstance(error, shutil.Error) and error.args and isinstance(error.args[0], list):
        for item in error.args[0]:
            match = _ERRNO_TEXT.search(str(item[-1])) if isinstance(item, tuple) and item else None
            if match and int(match.group(1)) in DISK_ERRNOS:
                return OSError(int(match.group(1)), match.group(2), match.group(3) or str(item[1]))
        return None
    return error if error.errno in DISK_ERRNOS else None


def describe(error: OSError) -> str:
    """One line: what failed, on which path, and, in the temporary folder, how to give verify another one."""
    where = f": {error.filename}" if error.filename else ""
    text = f"{error.strerror or os.strerror(error.errno)}{where}"
    scratch = os.path.realpath(tempfile.gettempdir())
    if not error.filename or os.path.realpath(str(error.filename)).startswith(scratch + os.sep):
        text += (f" (verify writes its copies of the project and the runs' records in {scratch}: free space there, "
                 "or set TMPDIR to a folder with room that you can write)")
    return text
