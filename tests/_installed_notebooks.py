"""Run by `tests/test_wheel.py` with the interpreter of the fresh environment the wheel was
installed into, in the user's folder: prints one JSON object saying what it found.

- `requirements`: every requirement of ``pixops[notebooks]`` (the wheel's own metadata)
  that this environment does not satisfy (so: none, when the wheel declares its needs).
- `pixops`, `kernel_pixops`: the file `import pixops` loads here, and in a kernel (a
  cell added to the first notebook asks).
- `notebooks`: each notebook of ``./notebooks`` executed headless with nbclient, one
  after the other in one kernel whose namespace is emptied (``%reset -f``) before each:
  its error outputs and the text of its outputs. Notebooks named on the command line are
  left out (the test runs the daily one as `pixops report daily`).

One kernel rather than one per notebook: starting a kernel and importing pixops, pandas,
DuckDB and plotly again cost ~2.5 s of CPU per notebook, while what this run proves (the
wheel's notebooks run on the wheel's pixops) needs no fresh process; the emptied namespace
still fails a notebook that uses a name it never defined or imported, and nbval runs each
notebook in a kernel of its own from the checkout.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from packaging.requirements import Requirement
from packaging.version import Version


def unmet_requirements(extra: str) -> list[str]:
    """Requirements of ``pixops[extra]`` (following ``pixops[other]``) not met here."""
    unmet: list[str] = []
    seen: set[str] = set()
    extras = [extra]
    while extras:
        current = extras.pop()
        if current in seen:
            continue
        seen.add(current)
        for text in importlib.metadata.requires("pixops") or []:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is not None and not marker.evaluate({"extra": current}):
                continue
            if requirement.name == "pixops":
                extras.extend(requirement.extras)
                continue
            try:
                found = importlib.metadata.version(requirement.name)
            except importlib.metadata.PackageNotFoundError:
                unmet.append(f"{text} (missing)")
                continue
            if not requirement.specifier.contains(Version(found), prereleases=True):
                unmet.append(f"{text} (found {found})")
    return unmet


def outputs_text(notebook: Any) -> tuple[list[str], str]:
    """The error outputs (``ename: evalue``) and all text output of an executed notebook."""
    errors: list[str] = []
    texts: list[str] = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "error":
                errors.append(f"{output['ename']}: {output['evalue']}")
            elif output["output_type"] == "stream":
                texts.append(output["text"])
            else:
                data = output.get("data", {})
                texts.append(str(data.get("text/plain", "")) + str(data.get("text/html", "")))
    return errors, "\n".join(texts)


#: Run first in every notebook after the first: the kernel's user namespace emptied (and
#: checked: an error output here fails the run), so a notebook sees none of the names an
#: earlier one defined or imported.
RESET = (
    "%reset -f\n"
    "left = set(dir()) - {'In', 'Out', 'exit', 'get_ipython', 'open', 'quit'}\n"
    "assert not [name for name in left if name[0] != '_'], sorted(left)\n"
    "del left"
)


async def execute(notebook: Any, manager: AsyncKernelManager, *, reset: bool) -> Any:
    """`notebook` executed in the running kernel of `manager` (left running)."""
    if reset:
        notebook.cells.insert(0, nbformat.v4.new_code_cell(RESET))
    client = NotebookClient(notebook, km=manager, timeout=240, allow_errors=True)
    try:
        await client.async_execute()
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
    if reset:
        cleared = notebook.cells.pop(0)
        assert cleared.outputs == [], cleared.outputs
    return notebook


async def main(skipped: list[str]) -> dict[str, Any]:
    folder = Path("notebooks")
    paths = sorted(path for path in folder.glob("*.ipynb") if path.name not in skipped)
    notebooks = [nbformat.read(path, as_version=4) for path in paths]
    # One cell more in the first notebook's kernel: which pixops the kernels import.
    notebooks[0].cells.append(nbformat.v4.new_code_cell("import pixops\npixops.__file__"))
    manager = AsyncKernelManager(kernel_name="python3")
    await manager.start_kernel(cwd=str(folder))
    try:
        ran = [
            await execute(notebook, manager, reset=index > 0)
            for index, notebook in enumerate(notebooks)
        ]
    finally:
        await manager.shutdown_kernel(now=True)
    probe = ran[0].cells.pop()
    import pixops

    found: dict[str, Any] = {
        "requirements": unmet_requirements("notebooks"),
        "pixops": pixops.__file__,
        "kernel_pixops": probe.outputs[0]["data"]["text/plain"].strip("'"),
        "notebooks": {},
    }
    for path, notebook in zip(paths, ran, strict=True):
        errors, text = outputs_text(notebook)
        found["notebooks"][path.name] = {"errors": errors, "text": text}
    return found


if __name__ == "__main__":
    json.dump(asyncio.run(main(sys.argv[1:])), sys.stdout)
