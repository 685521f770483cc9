"""The README and docs/ stand alone: links resolve inside the repository, and the shell
examples they show work when pasted against a served engine."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from pixops.engine.admin import PREFIX, ROUTES
from pixops.server import PixopsServer, ServeOptions, build_engine, seed_demo_merchant
from tests.conftest import SPEC_ENDPOINTS

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_no_link_leaves_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        resolved = (page.parent / target.split("#", 1)[0]).resolve()
        assert resolved.is_relative_to(ROOT), f"{page.name}: {target} leaves the repository"
        assert resolved.exists(), f"{page.name}: {target} does not exist"


def bash_blocks(page: Path, marker: str) -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    return [block for block in blocks if marker in block]


@pytest.mark.parametrize("page", [ROOT / "README.md", ROOT / "docs" / "api.md"], ids=str)
def test_the_signed_post_example_works_when_pasted(page: Path) -> None:
    (example,) = bash_blocks(page, "openssl dgst")
    options = ServeOptions(port=0)
    engine = build_engine(options)
    credentials = seed_demo_merchant(engine)
    assert credentials is not None
    with PixopsServer(engine, options) as server:
        env = {
            **os.environ,
            "PIXOPS_BASE_URL": server.base_url,
            "PIXOPS_CLIENT_ID": credentials.client_id,
            "PIXOPS_CLIENT_SECRET": credentials.client_secret,
        }
        result = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", example],
            capture_output=True,
            text=True,
            timeout=30,
            env=env,
        )
    assert result.returncode == 0, result.stderr
    charge = json.loads(result.stdout)
    assert charge["worked"] is True
    assert charge["data"]["amount"] == 2_500 * 100


def test_the_api_reference_lists_every_endpoint_and_test_helper() -> None:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for method, path, permission in SPEC_ENDPOINTS:
        assert f"| {method} | `{path}` | `{permission}` |" in text
    for route in ROUTES:
        assert f"| {route.method} | `{PREFIX}{route.pattern}` |" in text
