"""`companion models ...` end to end: real files, real settings.toml."""

from __future__ import annotations

import pytest

import shutil
import struct
from importlib import metadata

from companion.cli import main
from companion.settings import load_settings


def _gguf(path, arch="qwen2"):
    key, value = b"general.architecture", arch.encode()
    data = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
    data += struct.pack("<I", 8) + struct.pack("<Q", len(value)) + value
    path.write_bytes(data)
    return path


@pytest.mark.slow
def test_add_use_list_remove(tmp_path, capsys, tiny_model_path):
    home = tmp_path / "home"
    source = _gguf(tmp_path / "qwen-tiny.gguf")
    assert main(["--home", str(home), "models", "add", str(source)]) == 0
    assert (home / "models" / "qwen-tiny.gguf").exists()
    assert main(["--home", str(home), "models", "use", "qwen-tiny"]) == 1  # header only: llama.cpp cannot run it
    assert "cannot run qwen-tiny.gguf (architecture 'qwen2')" in capsys.readouterr().err
    copy = tmp_path / "smol-copy.gguf"
    shutil.copyfile(tiny_model_path, copy)
    assert main(["--home", str(home), "models", "add", str(copy), "--reference", "--use"]) == 0
    settings = load_settings(home / "settings.toml")
    assert settings.model.path == str(copy) and settings.model.library == [str(copy)]
    capsys.readouterr()
    assert main(["--home", str(home), "models", "list"]) == 0
    out = capsys.readouterr().out
    assert "(embedded)" in out and "* 3." in out and "qwen2" in out and "No chat template" in out
    assert main(["--home", str(home), "models", "use", "embedded", "--gpu-layers", "0", "--ctx", "2048"]) == 0
    settings = load_settings(home / "settings.toml")
    assert (settings.model.path, settings.model.n_gpu_layers, settings.model.n_ctx) == ("", 0, 2048)
    assert main(["--home", str(home), "models", "remove", "qwen-tiny.gguf"]) == 1  # needs --delete
    assert "Confirm" in capsys.readouterr().err
    assert main(["--home", str(home), "models", "remove", "qwen-tiny.gguf", "--delete"]) == 0
    assert not (home / "models" / "qwen-tiny.gguf").exists()


def test_bad_file_is_refused_with_the_reason(tmp_path, capsys):
    bad = tmp_path / "page.gguf"
    bad.write_text("<html>Not Found</html>")
    assert main(["--home", str(tmp_path / "home"), "models", "add", str(bad)]) == 1
    assert "not a GGUF" in capsys.readouterr().err


def test_info_shows_machine_and_estimate(tmp_path, capsys):
    assert main(["--home", str(tmp_path / "home"), "models", "info"]) == 0
    out = capsys.readouterr().out
    assert "physical cores" in out and "GPU:" in out and "RAM" in out and "It fits" in out
    engine = f"Engine: llama-cpp-python {metadata.version('llama-cpp-python')} (llama.cpp "
    assert engine in out and "Model: SmolLM2 135M (built-in)" in out


def test_download_list_and_missing_file_name(tmp_path, capsys):
    assert main(["--home", str(tmp_path / "home"), "models", "download", "--list"]) == 0
    out = capsys.readouterr().out
    assert "companion models download" in out and out.count("the best fit for this computer") <= 1
    assert main(["--home", str(tmp_path / "home"), "models", "download", "someone/repo"]) == 1
    assert "file name" in capsys.readouterr().err


@pytest.mark.slow
def test_download_use_against_a_local_hub(tmp_path, capsys, monkeypatch, tiny_model_path):
    import hashlib
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    content = tiny_model_path.read_bytes()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _headers(self):
            found = self.path == "/me/Smol-GGUF/resolve/main/smol.gguf"
            self.send_response(200 if found else 404)
            self.send_header("ETag", f'"{hashlib.sha256(content).hexdigest()}"')
            self.send_header("Content-Length", str(len(content)) if found else "0")
            self.end_headers()
            return found

        def do_HEAD(self):
            self._headers()

        def do_GET(self):
            if self._headers():
                self.wfile.write(content)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    try:
        home = tmp_path / "home"
        assert main(["--home", str(home), "models", "download", "me/Smol-GGUF", "smol.gguf", "--use"]) == 0
        captured = capsys.readouterr()
        assert "checksum verified" in captured.out and "100.0%" in captured.err
        assert load_settings(home / "settings.toml").model.path == str(home / "models" / "smol.gguf")
        assert main(["--home", str(home), "models", "download", "me/Smol-GGUF", "other.gguf"]) == 1
        error = capsys.readouterr().err
        assert "no file 'other.gguf' in 'me/Smol-GGUF'" in error and "mozilla" not in error
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
