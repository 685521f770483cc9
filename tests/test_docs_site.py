"""The documentation site (mkdocs.yml): `mkdocs build --strict` passes (no broken link, no
missing reference, no page left out of the navigation), publishes the notebooks with
their outputs and the API reference, and asks nothing of the network; the hooks that
publish files from outside docs/ rewrite links as the repository means them."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests._cache import kept_build

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(path.stem for path in (ROOT / "notebooks").glob("*.ipynb"))


def load_hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pixops_docs_hooks", ROOT / ".ci/docs_hooks.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: Folders no page of the site is built from: a change there keeps the cached site.
_NOT_IN_SITE = ("tests/", "benchmarks/")


def site_fingerprint() -> str | None:
    """A hash of everything a build reads: each file git lists in the checkout (tracked
    or new, not ignored; tests and benchmarks aside), its contents, and the version of
    every installed distribution (mkdocs, its theme and plugins among them). None
    outside a git checkout."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        return None
    digest = hashlib.sha256(sys.version.encode())
    for name in sorted(set(listed.stdout.decode().split("\0")) - {""}):
        path = ROOT / name
        if name.startswith(_NOT_IN_SITE) or not path.is_file():
            continue  # a file deleted but not yet staged is listed and absent
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    installed = sorted(
        f"{dist.metadata['Name']}=={dist.version}" for dist in importlib.metadata.distributions()
    )
    digest.update("\n".join(installed).encode())
    return digest.hexdigest()[:16]


def _build(out: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
        timeout=280,
    )
    assert built.returncode == 0, built.stderr[-4000:]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site `mkdocs build --strict` makes of this checkout. A build that passed is kept
    under the fingerprint of what it read (`site_fingerprint`): the same sources and the
    same packages build the same site, so it is built again only when one changed (the
    build was ~12 s of CPU of every run)."""
    fingerprint = site_fingerprint()
    if fingerprint is None:
        out = tmp_path_factory.mktemp("site")
        _build(out)
        return out
    return kept_build("docs-site", fingerprint, _build)


@pytest.mark.timeout(300)
def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    for page in (
        "index.html",
        "getting-started/analyst/index.html",
        "getting-started/finance/index.html",
        "getting-started/support/index.html",
        "getting-started/install/index.html",
        "notebooks/index.html",
        "sample-data/index.html",
        "decisions/index.html",
        "reliability/index.html",
        "sandbox-test-keys/index.html",
        "changelog/index.html",
    ):
        assert (site / page).is_file(), page
    assert len(NOTEBOOKS) == 6
    for name in NOTEBOOKS:
        assert (site / "notebooks" / name / "index.html").is_file(), name


@pytest.mark.timeout(300)
def test_the_notebooks_are_published_with_their_outputs(site: Path) -> None:
    statement = (site / "notebooks/02_statement_analysis/index.html").read_text("utf-8")
    assert statement.count('class="plotly-graph-div"') >= 4
    assert "../../assets/plotly.min.js" in statement
    assert (site / "assets/plotly.min.js").stat().st_size > 1_000_000
    daily = (site / "notebooks/03_daily_reconciliation/index.html").read_text("utf-8")
    # The matched total of the planted day, as the notebook stores it, reaches the page.
    stored = (ROOT / "notebooks/03_daily_reconciliation.ipynb").read_text("utf-8")
    matched = re.search(r"<b>Matched</b>.*?(R\$ [\d.]+,\d{2,4})", stored)
    assert matched is not None, "notebook 03 stores no summary table"
    assert matched[1] in daily
    assert "Interactive panel" in daily


@pytest.mark.timeout(300)
def test_the_api_reference_comes_from_the_docstrings(site: Path) -> None:
    recon = (site / "reference/recon/index.html").read_text("utf-8")
    assert "LedgerMapping" in recon
    assert "Which ledger column holds what" in recon  # LedgerMapping's docstring
    client = (site / "reference/client/index.html").read_text("utf-8")
    assert "wait_until_final" in client


@pytest.mark.timeout(300)
def test_the_site_asks_nothing_of_the_network(site: Path) -> None:
    for page in site.rglob("*.html"):
        text = page.read_text("utf-8")
        for host in ("unpkg.com", "fonts.googleapis.com", "cdn.jsdelivr.net", "cdn.plot.ly"):
            assert f"//{host}" not in text, f"{page.relative_to(site)} loads from {host}"


def test_a_link_to_a_published_file_points_at_its_page() -> None:
    hooks = load_hooks()
    text = "[the guide](../notebooks/README.md) and [a day](../notebooks/01_quickstart.ipynb#x)"
    assert hooks.rewrite_links(text, "docs/index.md", "index.md") == (
        "[the guide](notebooks/index.md) and [a day](notebooks/01_quickstart.ipynb#x)"
    )
    deeper = hooks.rewrite_links(
        "[keys](../sandbox-test-keys.md)", "docs/getting-started/x.md", "getting-started/x.md"
    )
    assert deeper == "[keys](../sandbox-test-keys.md)"
    from_outside = hooks.rewrite_links("[api](../docs/api.md)", "data/README.md", "sample-data.md")
    assert from_outside == "[api](api.md)"


def test_a_link_to_a_file_the_site_does_not_publish_names_it() -> None:
    hooks = load_hooks()
    text = "[tests/stress/_harness.py](../tests/stress/_harness.py), [setup](../setup.py)"
    assert hooks.rewrite_links(text, "docs/reliability.md", "reliability.md") == (
        "`tests/stress/_harness.py`, setup (`setup.py`)"
    )


def test_a_broken_link_code_and_addresses_stay_as_written() -> None:
    hooks = load_hooks()
    text = (
        "[gone](../nowhere.md) [web](https://example.com/a.md) [here](#top)\n"
        "```text\n[in code](../setup.py)\n```\n"
    )
    assert hooks.rewrite_links(text, "docs/x.md", "x.md") == text


def test_a_published_notebook_shows_figures_and_names_its_panels(tmp_path: Path) -> None:
    hooks = load_hooks()
    figure = {"data": [{"type": "bar", "x": [1], "y": [2]}], "layout": {}}
    widget = {"model_id": "abc", "version_major": 2, "version_minor": 0}
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "source": "",
                "metadata": {},
                "outputs": [
                    {"output_type": "display_data", "metadata": {}, "data": {key: value}}
                    for key, value in (
                        ("application/vnd.plotly.v1+json", figure),
                        ("application/vnd.plotly.v1+json", figure),
                        ("application/vnd.jupyter.widget-view+json", widget),
                    )
                ],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "in.ipynb").write_text(json.dumps(notebook))
    hooks.static_notebook(tmp_path / "in.ipynb", tmp_path / "out.ipynb")
    outputs = json.loads((tmp_path / "out.ipynb").read_text())["cells"][0]["outputs"]
    first, second, panel = (output["data"] for output in outputs)
    assert list(first) == list(second) == ["text/html"]
    assert first["text/html"].count("plotly.min.js") == 1  # loaded once, by the first
    assert "plotly.min.js" not in second["text/html"]
    assert list(panel) == ["text/html"]
    assert "pixops lab" in panel["text/html"]
