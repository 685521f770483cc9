"""MkDocs hooks (mkdocs.yml `hooks:`): publish the files that live outside docs/, and
keep the links between repository files working on the site.

- The six notebooks, `notebooks/README.md`, `data/README.md` and `CHANGELOG.md` stay
  where the repository keeps them; they are added to the site as `notebooks/*.ipynb`,
  `notebooks/index.md`, `sample-data.md` and `changelog.md`. Each notebook is published
  as stored (nbval keeps its outputs current) with two changes for a static page: a
  plotly figure becomes its HTML (plotly.js is served once, from the site itself) and
  an interactive panel becomes a sentence saying where it runs.
- A relative link in Markdown is written for the repository (GitHub renders it): one to
  a published file is pointed at its page, one to a file the site does not publish (a
  test, a source module) becomes that path in code, and a link to nothing stays as it is
  so that `mkdocs build --strict` fails on it.
"""

from __future__ import annotations

import json
import posixpath
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
#: Repository path -> where the site publishes it (relative to docs/).
PUBLISHED_OUTSIDE_DOCS = {
    "notebooks/README.md": "notebooks/index.md",
    "data/README.md": "sample-data.md",
    "CHANGELOG.md": "changelog.md",
}
PLOTLY_JS = "assets/plotly.min.js"
LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)
PANEL_NOTE = (
    '<div class="admonition note"><p class="admonition-title">Interactive panel</p>'
    "<p>This cell shows a live panel (ipywidgets): open the notebook in JupyterLab with"
    " <code>pixops lab</code> to use it.</p></div>"
)

WIDGET_LOADER = re.compile(
    r"<script>\s*\(function\(\) \{\s*function addWidgetsRenderer\(\).*?</script>", re.DOTALL
)

_scratch: Path | None = None


def site_paths() -> dict[str, str]:
    """Every repository file published from outside docs/, by its site path."""
    paths = dict(PUBLISHED_OUTSIDE_DOCS)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        paths[f"notebooks/{notebook.name}"] = f"notebooks/{notebook.name}"
    return paths


def rewrite_links(markdown: str, repo_path: str, site_path: str) -> str:
    """`markdown`, written at `repo_path` in the repository and published at `site_path`,
    with its relative links pointing where the site has them (see the module's doc)."""
    published = site_paths()

    def replace(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return match.group(0)
        path, hash_, fragment = target.partition("#")
        in_repo = posixpath.normpath(posixpath.join(posixpath.dirname(repo_path), path))
        if in_repo.startswith("../"):
            return match.group(0)
        site = published.get(in_repo)
        if site is None and in_repo.startswith("docs/"):
            site = in_repo.removeprefix("docs/")
        if site is not None:
            relative = posixpath.relpath(site, posixpath.dirname(site_path) or ".")
            return f"[{text}]({relative}{hash_}{fragment})"
        if (ROOT / in_repo).exists():  # in the repository, not on the site: name it
            return f"`{in_repo}`" if text.strip("`") == in_repo else f"{text} (`{in_repo}`)"
        return match.group(0)

    parts = FENCE.split(markdown)
    # Outside fences only: split() keeps the fence markers, code sits between a pair.
    out: list[str] = []
    inside = False
    for part in parts:
        if FENCE.fullmatch(part):
            inside = not inside
            out.append(part)
        else:
            out.append(part if inside else LINK.sub(replace, part))
    return "".join(out)


def static_notebook(source: Path, target: Path) -> None:
    """`source` as a static page can show it: plotly figures as HTML, panels as a note."""
    import plotly.io

    notebook: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    # The page is at notebooks/<name>/: the first figure loads plotly.js from the site.
    plotly_js: str | bool = f"../../{PLOTLY_JS}"
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data")
            if not data:
                continue
            figure = data.pop("application/vnd.plotly.v1+json", None)
            if figure is not None:
                data["text/html"] = plotly.io.to_html(
                    figure, include_plotlyjs=plotly_js, full_html=False, validate=False
                )
                plotly_js = False
                data.pop("text/plain", None)
            if data.pop("application/vnd.jupyter.widget-view+json", None) is not None:
                data.clear()
                data["text/html"] = PANEL_NOTE
    target.write_text(json.dumps(notebook), encoding="utf-8")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _scratch
    _scratch = Path(tempfile.mkdtemp(prefix="pixops-docs-"))
    return config


@event_priority(100)  # before mkdocs-jupyter looks for notebooks among the files
def on_files(files: Files, config: MkDocsConfig) -> Files:
    import plotly

    assert _scratch is not None
    for repo, site in site_paths().items():
        if not site.endswith(".ipynb"):
            files.append(File.generated(config, site, abs_src_path=str(ROOT / repo)))
            continue
        # A real file under a source folder of its own: mkdocs-jupyter's wrapper finds
        # its path from `src_dir` (a generated file's path would be lost).
        target = _scratch / site
        target.parent.mkdir(parents=True, exist_ok=True)
        static_notebook(ROOT / repo, target)
        files.append(
            File(
                site,
                src_dir=str(_scratch),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    plotly_js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    files.append(File.generated(config, PLOTLY_JS, abs_src_path=str(plotly_js)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    site = page.file.src_uri
    repo = {value: key for key, value in site_paths().items()}.get(site, f"docs/{site}")
    return rewrite_links(markdown, repo, site)


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Without the nbconvert template's loader of the widget renderer from unpkg.com: the
    published notebooks hold no live widget, and the site asks nothing of the network."""
    return WIDGET_LOADER.sub("", output)


def on_shutdown() -> None:
    if _scratch is not None:
        shutil.rmtree(_scratch, ignore_errors=True)
