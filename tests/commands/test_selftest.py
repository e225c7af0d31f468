"""`companion --self-test`: every step runs, failures are reported per step, user data is untouched."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from companion import cli
from companion.commands import selftest
from companion.paths import Home


@pytest.mark.model
def test_self_test_passes_and_leaves_the_home_alone(
    home: Home, capsys: pytest.CaptureFixture[str], tiny_model_path: Path
) -> None:
    before = {p: p.read_bytes() for p in home.root.rglob("*") if p.is_file()}

    assert cli.main(["--self-test"]) == 0

    out = capsys.readouterr().out
    for step in ("cpu", "resources", "memory", "model", "qt"):
        assert any(line.startswith(f"ok   {step}") for line in out.splitlines()), out
    assert "Self-test passed" in out
    assert "tokens" in out
    after = {p: p.read_bytes() for p in home.root.rglob("*") if p.is_file()}
    assert after == before


@pytest.mark.model
def test_temporary_home_is_removed(tiny_model_path: Path) -> None:
    out = io.StringIO()
    results = selftest.run_steps(out=out)
    assert [r.name for r in results] == ["cpu", "resources", "memory", "model", "qt"]
    assert all(r.ok for r in results), out.getvalue()
    memory = next(r for r in results if r.name == "memory")
    tmp_home = Path(memory.detail.rsplit(" in ", 1)[1])
    assert tmp_home.name == "home"
    assert not tmp_home.parent.exists()


def test_missing_embedded_model_fails_with_advice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], home: Home
) -> None:
    monkeypatch.setattr("companion.llm.loader.default_model_path", lambda: None)

    assert cli.main(["--self-test"]) == 1

    out = capsys.readouterr().out
    model_line = next(line for line in out.splitlines() if " model " in line)
    assert model_line.startswith("FAIL")
    assert "Reinstall Companion" in model_line
    # the other steps still ran and passed
    assert any(line.startswith("ok   memory") for line in out.splitlines())
    assert any(line.startswith("ok   qt") for line in out.splitlines())
    assert "Self-test FAILED: model" in out


def test_corrupt_model_file_is_a_failed_step(tmp_path: Path) -> None:
    bogus = tmp_path / "broken.gguf"
    bogus.write_bytes(b"not a model at all" * 10)
    out = io.StringIO()

    results = selftest.run_steps(model=str(bogus), out=out)

    model = next(r for r in results if r.name == "model")
    assert not model.ok
    assert "GGUF" in model.detail


def test_unwritable_memory_is_a_failed_step(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("companion.memory.setup.atomic_write", refuse)
    monkeypatch.setattr("companion.llm.loader.default_model_path", lambda: None)  # keep this test fast
    out = io.StringIO()

    results = selftest.run_steps(out=out)

    memory = next(r for r in results if r.name == "memory")
    assert not memory.ok
    assert "No space left" in memory.detail
    assert "FAIL memory" in out.getvalue()


def test_processor_without_avx2_is_reported_and_the_model_not_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(selftest.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(selftest, "cpu_flags", lambda: {"sse2", "sse4_2", "avx"})
    loaded: list[object] = []
    monkeypatch.setattr(selftest, "load_backend", lambda *a, **k: loaded.append(a))
    out = io.StringIO()

    results = {r.name: r for r in selftest.run_steps(out=out)}

    assert not results["cpu"].ok and "AVX2, FMA, F16C" in results["cpu"].detail
    assert not results["model"].ok and "cpu" in results["model"].detail
    assert loaded == []
    assert results["memory"].ok and results["qt"].ok


def test_cpu_flags_on_this_machine() -> None:
    flags = selftest.cpu_flags()
    if flags is None:
        pytest.skip("no /proc/cpuinfo here")
    assert "fpu" in flags or "fp" in flags  # every x86 and ARM Linux lists its floating point unit
