"""Where the agent's media goes when deepagents offloads binary ``read_file`` content (``offload_binary_content``):
an in-memory blob store under ``/blobs/`` beside the state backend, as a sandbox or store backend would hold it.

deepagents writes each binary ``read_file`` result to ``/blobs/<sha256>``, keeps a reference in state and rehydrates
every model request from the store; a blob it cannot load becomes a "no longer available, re-read the file" text.
`ForgetfulBlobStore` is the seeded fault ``blob-deleted``: each blob is deleted once it has been loaded, so the next
agent turn (whose payload cache starts empty) finds it gone.
"""

from __future__ import annotations

from typing import Any

from deepagents.backends.protocol import BackendProtocol, FileDownloadResponse, FileUploadResponse

BLOB_ROUTE = "/blobs/"


class BlobStore(BackendProtocol):
    """An in-memory backend for content-addressed blobs: upload and download only (the agent never browses it)."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.deleted: list[str] = []

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Store each ``(path, bytes)``."""
        for path, content in files:
            self.blobs[path] = bytes(content)
        return [FileUploadResponse(path=path, error=None) for path, _ in files]

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Each path's bytes, or ``file_not_found``."""
        out = []
        for path in paths:
            content = self.blobs.get(path)
            out.append(FileDownloadResponse(path=path, content=content, error=None if content is not None else "file_not_found"))
        return out

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        return self.upload_files(files)

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        return self.download_files(paths)


class ForgetfulBlobStore(BlobStore):
    """A blob store that deletes each blob after its first successful download (seeded fault ``blob-deleted``)."""

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        out = super().download_files(paths)
        for response in out:
            if response.content is not None:
                self.blobs.pop(response.path, None)
                self.deleted.append(response.path)
        return out


def media_backend(store: BlobStore | None = None) -> Any:
    """deepagents' state backend with ``/blobs/`` routed to ``store`` (a new `BlobStore` by default): the backend a
    config with ``offload_binary`` runs on."""
    from deepagents.backends import CompositeBackend, StateBackend

    return CompositeBackend(default=StateBackend(), routes={BLOB_ROUTE: store if store is not None else BlobStore()})


def blob_store(backend: Any) -> BlobStore | None:
    """The blob store ``backend`` routes ``/blobs/`` to, if any."""
    routes = getattr(backend, "routes", None) or {}
    store = routes.get(BLOB_ROUTE)
    return store if isinstance(store, BlobStore) else None


def blob_listing(backend: Any) -> dict[str, Any] | None:
    """What the blob store holds at the end of a run (paths and sizes) and what it deleted; None without one."""
    store = blob_store(backend)
    if store is None:
        return None
    return {"present": {p: len(b) for p, b in sorted(store.blobs.items())}, "deleted": list(store.deleted)}
