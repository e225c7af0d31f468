"""Model downloads against a stand-in Hub on loopback: resume, cancel, checksum, disk space, bad names."""

from __future__ import annotations

import hashlib
import shutil
from collections import namedtuple

import pytest

from companion.errors import DownloadCancelled, DownloadError
from companion.llm.download import Downloader, follow_redirect, resolve
from companion.llm.gguf import read_gguf

REPO = "someone/Tiny-GGUF"


@pytest.fixture
def model_bytes(gguf_bytes) -> bytes:
    # 1.5 MB of tensor data so the transfer spans several chunks.
    return gguf_bytes({"general.architecture": "llama", "general.name": "Tiny"}, [("w", [384, 1024], 0)],
                      data=bytes(range(256)) * 6144)


def test_download_lands_in_models_with_matching_checksum(tmp_path, hub, model_bytes):
    digest = hub.add(REPO, "tiny-q4.gguf", model_bytes)
    seen: list[tuple[int, int]] = []
    path = Downloader(tmp_path / "models").download(REPO, "tiny-q4.gguf", progress=lambda d, t: seen.append((d, t)))
    assert path == tmp_path / "models" / "tiny-q4.gguf"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert seen[-1] == (len(model_bytes), len(model_bytes))
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    assert read_gguf(path).name == "Tiny"
    assert [p.name for p in (tmp_path / "models").iterdir()] == ["tiny-q4.gguf"]  # no partial or sidecar left


def test_dropped_connection_resumes_with_a_range_request(tmp_path, hub, model_bytes):
    digest = hub.add(REPO, "m.gguf", model_bytes)
    hub.break_after = 300_000
    path = Downloader(tmp_path / "models").download(REPO, "m.gguf")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    ranges = [r for method, _, r in hub.requests if method == "GET"]
    assert ranges == ["", "bytes=300000-"]


def test_cancel_keeps_the_part_and_the_next_start_resumes(tmp_path, hub, model_bytes):
    hub.add(REPO, "m.gguf", model_bytes)
    downloader = Downloader(tmp_path / "models")

    def stop_midway(done: int, total: int) -> None:
        if done >= total // 3:
            downloader.cancel()

    with pytest.raises(DownloadCancelled):
        downloader.download(REPO, "m.gguf", progress=stop_midway)
    partial = downloader.partial_path("m.gguf")
    kept = partial.stat().st_size
    assert 0 < kept < len(model_bytes)
    assert not (tmp_path / "models" / "m.gguf").exists()
    path = downloader.download(REPO, "m.gguf")
    assert path.read_bytes() == model_bytes
    assert [r for m, _, r in hub.requests if m == "GET"][-1] == f"bytes={kept}-"


def test_checksum_mismatch_deletes_the_file(tmp_path, hub, model_bytes):
    hub.add(REPO, "m.gguf", model_bytes)
    hub.wrong_etag = True
    with pytest.raises(DownloadError, match="checksum"):
        Downloader(tmp_path / "models").download(REPO, "m.gguf")
    assert list((tmp_path / "models").glob("*.gguf")) == []
    assert not Downloader(tmp_path / "models").partial_path("m.gguf").exists()


def test_a_partial_from_another_version_is_not_reused(tmp_path, hub, model_bytes):
    hub.add(REPO, "m.gguf", model_bytes)
    downloader = Downloader(tmp_path / "models")
    (tmp_path / "models").mkdir()
    downloader.partial_path("m.gguf").write_bytes(b"GGUF stale bytes from an older upload")
    path = downloader.download(REPO, "m.gguf")
    assert path.read_bytes() == model_bytes
    assert [r for m, _, r in hub.requests if m == "GET"] == [""]


def test_not_enough_disk_space_is_refused_before_downloading(tmp_path, hub, model_bytes, monkeypatch):
    hub.add(REPO, "m.gguf", model_bytes)
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 1000, 1000))
    with pytest.raises(DownloadError, match="disk space"):
        Downloader(tmp_path / "models").download(REPO, "m.gguf")
    assert not any(m == "GET" for m, _, _ in hub.requests)


def test_missing_file_and_non_gguf_names_have_clear_errors(tmp_path, hub):
    with pytest.raises(DownloadError, match="no file 'nope.gguf'"):
        Downloader(tmp_path / "models").download(REPO, "nope.gguf")
    with pytest.raises(DownloadError, match="not a .gguf file"):
        Downloader(tmp_path / "models").download(REPO, "model.safetensors")


def test_an_html_page_served_as_gguf_is_rejected(tmp_path, hub):
    hub.add(REPO, "m.gguf", b"<html>rate limited</html>")
    with pytest.raises(DownloadError, match="not a usable GGUF"):
        Downloader(tmp_path / "models").download(REPO, "m.gguf")
    assert list((tmp_path / "models").glob("*.gguf")) == []


def test_resolve_reads_size_and_sha256(hub, model_bytes):
    digest = hub.add(REPO, "m.gguf", model_bytes)
    remote = resolve(REPO, "m.gguf")
    assert (remote.size, remote.sha256) == (len(model_bytes), digest)
    assert remote.url.startswith(hub.url)


def test_the_token_goes_to_the_hub_origin_only(tmp_path, hub, other_host, model_bytes):
    hub.add(REPO, "m.gguf", model_bytes)
    other_host.add(REPO, "m.gguf", model_bytes)
    hub.redirect = other_host.url  # the Hub sends the bytes from elsewhere (a CDN, or someone else)
    path = Downloader(tmp_path / "models", token="hf_secret_token").download(REPO, "m.gguf")
    assert path.read_bytes() == model_bytes
    assert hub.auth and all(a == "Bearer hf_secret_token" for a in hub.auth)
    assert other_host.auth and all(a == "" for a in other_host.auth)


def test_redirects_never_drop_from_https_to_http():
    assert follow_redirect("https://huggingface.co/a", "/b") == "https://huggingface.co/b"
    assert follow_redirect("http://127.0.0.1:1/a", "http://127.0.0.1:2/b") == "http://127.0.0.1:2/b"
    for location in ("http://cdn.example/x.gguf", "file:///etc/passwd", "ftp://cdn.example/x"):
        with pytest.raises(DownloadError):
            follow_redirect("https://huggingface.co/a", location)


def test_checksum_verified_is_said_only_when_it_was(tmp_path, hub, model_bytes):
    hub.add(REPO, "m.gguf", model_bytes)
    downloader = Downloader(tmp_path / "models")
    downloader.download(REPO, "m.gguf")
    assert downloader.verified
    hub.no_etag = True
    downloader = Downloader(tmp_path / "other")
    downloader.download(REPO, "m.gguf")
    assert not downloader.verified


def test_an_existing_file_is_checked_before_it_is_reused(tmp_path, hub, model_bytes):
    hub.add(REPO, "m.gguf", model_bytes)
    (tmp_path / "models").mkdir()
    tampered = tmp_path / "models" / "m.gguf"
    tampered.write_bytes(b"\0" * len(model_bytes))  # same size, other bytes
    path = Downloader(tmp_path / "models").download(REPO, "m.gguf")
    assert path.read_bytes() == model_bytes
    gets = [r for r in hub.requests if r[0] == "GET"]
    downloader = Downloader(tmp_path / "models")
    downloader.download(REPO, "m.gguf")  # now it is the right file: reused without a transfer
    assert [r for r in hub.requests if r[0] == "GET"] == gets and downloader.verified


def test_names_that_would_change_the_request_path_are_refused(tmp_path, hub, model_bytes):
    hub.add(REPO, "m.gguf", model_bytes)
    for repo, name in ((REPO, "../../other/repo/resolve/main/m.gguf"), (REPO, "sub/./m.gguf"), (REPO, "m.gguf?x=.gguf"),
                       ("someone/../evil", "m.gguf"), (REPO, "a%2F..%2Fm.gguf"), (REPO, "m\x00.gguf")):
        with pytest.raises(DownloadError):
            Downloader(tmp_path / "models").download(repo, name)
    assert hub.requests == []


@pytest.mark.parametrize("no_length", [False, True])
def test_finding_a_download_stops_at_the_announced_size(tmp_path, hub, model_bytes, no_length):
    hub.add(REPO, "big.gguf", model_bytes)  # 1.5 MB sent for a file announced at 1,000 bytes
    hub.announce, hub.no_length, hub.no_etag = 1000, no_length, True
    with pytest.raises(DownloadError, match="announced"):
        Downloader(tmp_path / "models").download(REPO, "big.gguf")
    left = list((tmp_path / "models").glob("*.gguf*"))
    assert sum(p.stat().st_size for p in left) <= 1000, left


def test_free_space_is_watched_while_a_download_runs(tmp_path, hub, model_bytes, monkeypatch):
    import companion.llm.download as download

    hub.add(REPO, "m.gguf", model_bytes)
    monkeypatch.setattr(download, "DISK_CHECK_BYTES", 256 * 1024)
    usage = namedtuple("usage", "total used free")
    calls = []

    def shrinking(path):
        calls.append(path)
        return usage(10**12, 0, 10**12 if len(calls) == 1 else 1000)  # the disk fills up after the first check

    monkeypatch.setattr(shutil, "disk_usage", shrinking)
    with pytest.raises(DownloadError, match="disk space"):
        Downloader(tmp_path / "models").download(REPO, "m.gguf")
    assert len(calls) >= 2
