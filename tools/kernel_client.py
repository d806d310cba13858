"""One way for the tools to execute a notebook: nbclient on a kernel that talks over local IPC sockets.

A kernel started with jupyter_client's default TCP transport picks five free ports by binding and releasing
them; two kernels started at once (xdist workers, a build beside a test run) can take the same port, and then
a client waits for a reply that went to the other kernel (seen here: a kernel idle and its client idle for ten
minutes). IPC sockets in a private temporary folder cannot collide, and need no network at all.
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from jupyter_client.manager import KernelManager
from nbclient import NotebookClient


@contextmanager
def notebook_client(notebook, folder: Path | str, timeout: int, **options) -> Iterator[NotebookClient]:
    """An nbclient ``NotebookClient`` for ``notebook``, run in ``folder``, on a python3 kernel over IPC sockets
    in a temporary folder (removed afterwards)."""
    with tempfile.TemporaryDirectory(prefix="dl4nlp-kernel-") as sockets:
        manager = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(sockets) / "kernel"))
        yield NotebookClient(
            notebook, km=manager, timeout=timeout, kernel_name="python3",
            resources={"metadata": {"path": str(folder)}}, **options,
        )  # fmt: skip
