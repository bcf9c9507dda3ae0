"""Where the harness's data lives, stated once: the repository's datasets/ in a checkout, the copy packaged in the wheel
(harness/_data/datasets) in an installed harness."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
_CHECKOUT = REPO_ROOT / "datasets"
DATASETS_DIR = (
    _CHECKOUT if (REPO_ROOT / "pyproject.toml").is_file() and _CHECKOUT.is_dir() else PACKAGE_DIR / "_data" / "datasets"
)
