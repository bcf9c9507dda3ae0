"""Where the harness's data lives, stated once: the repository's datasets/ in a checkout, the copy packaged in the wheel
(harness/_data/datasets) in an installed harness."""

from __future__ import annotations

import re
from pathlib import Path

from harness.errors import ConfigError

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
_CHECKOUT = REPO_ROOT / "datasets"
IN_CHECKOUT = (REPO_ROOT / "pyproject.toml").is_file() and _CHECKOUT.is_dir()
DATASETS_DIR = _CHECKOUT if IN_CHECKOUT else PACKAGE_DIR / "_data" / "datasets"


def not_a_file(path: Path) -> str | None:
    """Why ``path`` cannot be read as a file, in words that name what it is (a symlink loop, a broken link, a FIFO, a
    directory, a device...), or None for a regular file or a link to one. Every file a user names (a dataset, a spec,
    a variant) is checked with it, so none of these reads as "no such file" and no FIFO blocks a read."""
    import errno
    import os
    import stat

    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symlink loop (following its links leads back to itself), not a file"
        if exc.errno == errno.ENOENT and path.is_symlink():
            return f"is a broken symlink (to {os.readlink(path)}, which does not exist)"
        if exc.errno == errno.ENOENT:
            return "no such file"
        return f"cannot be read ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return "is a FIFO (a named pipe), not a file: give the file it would be fed from"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a file"
    return "is not a regular file"


def check_dir_name(name: str, what: str) -> None:
    """``name`` becomes one directory inside an output directory (a run id, an experiment name): one plain path
    component, so it cannot climb out (``../x``), go elsewhere (``/tmp/x``) or hide (``.x``). Raises ConfigError."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+\-]{0,199}", name):
        raise ConfigError(
            f"{what} {name!r}: a directory name, not a path: letters, digits and . _ + - (starting with a letter or "
            "digit, at most 200 characters)"
        )
