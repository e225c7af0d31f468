"""Benchmark and check: the Vulkan build of llama.cpp against the CPU build, on the built-in model.

Each build runs in its own process (a process holds one llama.cpp). Checks:
- the app finds the Vulkan device and loads the built-in model with all layers on it (info.device);
- the first greedy tokens equal the CPU build's (GREEDY_SAME), and teacher-forced top-1 agreement
  over a fixed text is at least --threshold (whole greedy strings drift apart after a few tokens
  from floating-point differences alone, so they are not compared);
- "CPU only" in the Vulkan build (the app's own model, Vulkan device present) computes on the CPU:
  its greedy tokens after the fixed text are the CPU build's and its first one comes in about the CPU
  build's time (llama.cpp would otherwise hand a prompt's batch to the GPU even with no layers there);
- with the Vulkan loader absent (in a private mount namespace, each folder holding libvulkan.so.1 is
  replaced by an overlay without it: needs root, `unshare` and overlayfs), the app reports why in one
  line and runs on the CPU.
Also prints tokens/s and time to first token for both builds, on one thread each (lavapipe is a
CPU-side Vulkan driver: it checks correctness, not speed; one thread keeps the figures steady on a
busy machine).

    python bench/bench_gpu.py --vulkan-site build/vulkan-site      # after packaging/vulkan/build.sh --target ...
    GGML_VK_VISIBLE_DEVICES=0 is set unless given: ggml skips CPU-type devices such as lavapipe otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GREEDY_SAME = 4  # the first greedy tokens must be identical
GREEDY_TOKENS = 24
LONG_GREEDY = 8  # after FIXED_TEXT: a prompt long enough (32+ tokens) that llama.cpp would offload its batch
THRESHOLD = 0.9  # teacher-forced top-1 agreement over FIXED_TEXT
PROMPT = "The three primary colours are"
FIXED_TEXT = (
    "Companion keeps its memory in plain files that the user can read and edit. Every night it reads the day's "
    "conversation again and writes down what is worth keeping: who the user is, what they prefer, and what they "
    "plan to do. The files live on the user's own computer, and nothing is sent anywhere unless the user asks. "
    "A small model runs offline on the processor, and a larger one runs faster on a graphics card when there is "
    "one. In the morning the companion remembers yesterday, and in a year it still remembers the first day."
)


def child(mode: str, out: Path) -> int:
    """Runs in the process of one build: the app's own view, then raw greedy tokens and per-position top-1."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from companion.llm import loader
    from companion.llm.llama import machine
    from companion.llm.default_model import default_model_path
    from companion.llm.hardware import GPU_LAYERS_ALL
    from companion.settings import ModelSettings

    report: dict[str, Any] = {"mode": mode}
    caps = machine()
    report["devices"] = [g.describe() for g in caps.gpus]
    report["gpu_note"] = caps.gpu_note
    report["gpu_offload"] = caps.gpu_offload
    # Auto leaves a CPU-type device such as lavapipe alone (it is no faster than the CPU); "All on the
    # GPU" is the user's own choice and still puts every layer on it, which is what is checked here.
    layers = 0 if mode in ("cpu", "cpu-only") else GPU_LAYERS_ALL
    threads = 1 if mode == "cpu-only" else 2  # cpu-only: one thread, like the raw CPU run it is compared with
    backend = loader.load_backend(ModelSettings(n_ctx=512, n_threads=threads, n_gpu_layers=layers), caps=caps)
    report["app_device"] = backend.info.device
    report["app_layers"] = backend.info.n_gpu_layers
    report["app_warnings"] = backend.info.warnings
    if mode == "cpu-only":  # "CPU only" in the GPU build: greedy tokens from the app's own llama.cpp model
        report.update(greedy_run(backend._llm))
        long = greedy_run(backend._llm, FIXED_TEXT, LONG_GREEDY)
        report["long_greedy"], report["long_ttft_s"] = long["greedy"], long["ttft_s"]
        backend.close()
        out.write_text(json.dumps(report, indent=2), encoding="utf-8")
        return 0
    backend.close()
    if mode == "fallback":  # asked for the GPU outright: the one-line reason comes with the model
        backend = loader.load_backend(ModelSettings(n_ctx=512, n_threads=2, n_gpu_layers=GPU_LAYERS_ALL), caps=caps)
        report["forced_device"] = backend.info.device
        report["forced_warnings"] = backend.info.warnings
        backend.close()
        out.write_text(json.dumps(report, indent=2), encoding="utf-8")
        return 0

    import llama_cpp

    path = default_model_path()
    started = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=512, n_threads=1, n_threads_batch=1, logits_all=True,
                          n_gpu_layers=0 if mode == "cpu" else -1, verbose=False, seed=1)
    report["load_s"] = time.perf_counter() - started
    report.update(greedy_run(llm))
    if mode == "cpu":
        long = greedy_run(llm, FIXED_TEXT, LONG_GREEDY)
        report["long_greedy"], report["long_ttft_s"] = long["greedy"], long["ttft_s"]
    text = llm.tokenize(FIXED_TEXT.encode("utf-8"))
    llm.reset()
    llm.eval(text)
    scores = np.asarray(llm.scores[: len(text)])
    report["top1"] = [int(i) for i in scores.argmax(axis=1)]
    report["text_tokens"] = [int(t) for t in text]
    llm.close()
    out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


# sh -c script, $1 a scratch folder, then the command: every folder that holds the Vulkan loader is covered by
# an overlay of itself with the loader deleted, so this process and its children see a system without one.
HIDE_VULKAN_LOADER = r"""set -e
scratch=$1; shift
n=0
for dir in $(ldconfig -p | sed -n 's/.*libvulkan\.so\.1 .*=> //p' | xargs -r -n1 readlink -f | xargs -r -n1 dirname | sort -u); do
    n=$((n + 1)); layer="$scratch/no-vulkan-$n"
    mkdir -p "$layer/upper" "$layer/work" "$layer/merged"
    mount -t overlay overlay -o "lowerdir=$dir,upperdir=$layer/upper,workdir=$layer/work" "$layer/merged"
    rm -f "$layer/merged"/libvulkan.so*
    mount --bind "$layer/merged" "$dir"
done
exec "$@"
"""


def greedy_run(llm: Any, text: str = PROMPT, count: int = GREEDY_TOKENS) -> dict[str, Any]:
    """`count` greedy tokens after `text`, with the time to the first and the rate after it."""
    prompt = llm.tokenize(text.encode("utf-8"))
    greedy: list[int] = []
    first_at = None
    started = time.perf_counter()
    for token in llm.generate(prompt, temp=0.0, top_k=1, reset=True):
        now = time.perf_counter()
        first_at = first_at or now
        greedy.append(int(token))
        if len(greedy) >= count:
            break
    ended = time.perf_counter()
    return {
        "greedy": greedy,
        "greedy_text": llm.detokenize(greedy).decode("utf-8", "replace"),
        "ttft_s": (first_at or ended) - started,
        "tokens_per_s": (len(greedy) - 1) / (ended - first_at) if first_at and ended > first_at else 0.0,
    }


def run_child(mode: str, site: Path | None, workdir: Path, hide_loader: bool = False) -> dict[str, Any]:
    out = workdir / f"{mode}.json"
    env = dict(os.environ)
    env.setdefault("GGML_VK_VISIBLE_DEVICES", "0")
    env.setdefault("LP_NUM_THREADS", "1")  # lavapipe's own threads: one core each, like the CPU build's one thread
    paths = [str(site)] if site else []
    env["PYTHONPATH"] = os.pathsep.join(paths + [str(ROOT)])
    command = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--child-out", str(out)]
    if hide_loader:
        command = ["unshare", "-m", "sh", "-c", HIDE_VULKAN_LOADER, "hide-vulkan", str(workdir), *command]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise SystemExit(f"The {mode} run failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def compare(cpu: dict[str, Any], gpu: dict[str, Any], threshold: float = THRESHOLD) -> dict[str, Any]:
    """Greedy tokens in common from the start, and the share of positions whose top-1 token agrees."""
    same = 0
    for a, b in zip(cpu["greedy"], gpu["greedy"]):
        if a != b:
            break
        same += 1
    agree = sum(a == b for a, b in zip(cpu["top1"], gpu["top1"])) / max(1, min(len(cpu["top1"]), len(gpu["top1"])))
    return {"greedy_same_prefix": same, "greedy_ok": same >= min(GREEDY_SAME, len(cpu["greedy"])),
            "top1_agreement": agree, "top1_ok": agree >= threshold, "positions": len(cpu["top1"])}


def xz_size(files: list[Path]) -> int:
    """Bytes of these files compressed together with xz -9 (what an installer's compression would make of them)."""
    if not files or shutil.which("tar") is None:
        return 0
    result = subprocess.run(["tar", "-cf", "-", "-C", str(files[0].parent), *[f.name for f in files]],
                            capture_output=True, check=True)
    packed = subprocess.run(["xz", "-9", "-T1", "-c"], input=result.stdout, capture_output=True, check=True)
    return len(packed.stdout)


def sizes(site: Path) -> dict[str, Any]:
    """Library sizes, each library once (a wheel holds libX.so, libX.so.0 and libX.so.0.x.y as three copies)."""
    lib = site / "llama_cpp" / "lib"
    files = sorted(p for p in lib.iterdir() if p.is_file() and p.suffix in (".so", ".dll", ".dylib"))
    vulkan = [p for p in files if "vulkan" in p.name]
    rest = [p for p in files if "vulkan" not in p.name]
    return {
        "libraries": {p.name: p.stat().st_size for p in files},
        "vulkan_bytes": sum(p.stat().st_size for p in vulkan),
        "vulkan_xz_bytes": xz_size(vulkan),
        "cpu_only_bytes": sum(p.stat().st_size for p in rest),
        "cpu_only_xz_bytes": xz_size(rest),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vulkan-site", type=Path, help="folder holding the Vulkan build's llama_cpp package")
    parser.add_argument("--threshold", type=float, default=THRESHOLD)
    parser.add_argument("--out", type=Path, help="write the full report here (JSON)")
    parser.add_argument("--no-fallback", action="store_true", help="skip the run without the Vulkan loader")
    parser.add_argument("--child", choices=("cpu", "vulkan", "cpu-only", "fallback"), help=argparse.SUPPRESS)
    parser.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.child_out)
    site = args.vulkan_site or Path(os.environ.get("COMPANION_VULKAN_SITE", ROOT / "build" / "vulkan-site"))
    if not (site / "llama_cpp").is_dir():
        raise SystemExit(f"No Vulkan build in {site}: run packaging/vulkan/build.sh --target {site} first.")
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-gpu-") as folder:
        work = Path(folder)
        cpu = run_child("cpu", None, work)
        gpu = run_child("vulkan", site, work)
        cpu_only = run_child("cpu-only", site, work)
        fallback = None
        if not args.no_fallback and shutil.which("unshare") and os.geteuid() == 0:
            fallback = run_child("fallback", site, work, hide_loader=True)
    result = compare(cpu, gpu, args.threshold)
    checks = {
        "vulkan device found": bool(gpu["devices"]),
        "all layers on the device": gpu["app_layers"] > 0 and gpu["app_device"] != "CPU",
        f"first {GREEDY_SAME} greedy tokens equal": result["greedy_ok"],
        f"top-1 agreement >= {args.threshold:.0%}": result["top1_ok"],
        "CPU only in the Vulkan build: on the CPU, the CPU build's tokens": cpu_only["app_device"] == "CPU"
        and cpu_only["long_greedy"] == cpu["long_greedy"]
        and cpu_only["long_ttft_s"] < max(5 * cpu["long_ttft_s"], cpu["long_ttft_s"] + 2.0),
    }
    if fallback is not None:
        checks["without the Vulkan loader: CPU"] = fallback["app_device"] == "CPU" and fallback["forced_device"] == "CPU"
        checks["without the Vulkan loader: one-line reason"] = any(
            "could not be loaded" in w and "\n" not in w for w in fallback["forced_warnings"])
    report = {"cpu": cpu, "vulkan": gpu, "cpu_only": cpu_only, "fallback": fallback, "comparison": result, "sizes": sizes(site), "checks": checks}
    if args.out:
        args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(f"Vulkan devices: {gpu['devices'] or 'none'}; the app reports: {gpu['app_device']}")
    print(f"CPU build:    {cpu['tokens_per_s']:.1f} tokens/s, first token {cpu['ttft_s'] * 1000:.0f} ms, load {cpu['load_s']:.2f} s")
    print(f"Vulkan build: {gpu['tokens_per_s']:.1f} tokens/s, first token {gpu['ttft_s'] * 1000:.0f} ms, load {gpu['load_s']:.2f} s")
    print(f"CPU only in the Vulkan build (the app's model, one thread): {cpu_only['tokens_per_s']:.1f} tokens/s, "
          f"first token {cpu_only['ttft_s'] * 1000:.0f} ms, after the fixed text {cpu_only['long_ttft_s'] * 1000:.0f} ms "
          f"(CPU build {cpu['long_ttft_s'] * 1000:.0f} ms), on {cpu_only['app_device']}")
    print(f"Greedy: {result['greedy_same_prefix']}/{len(cpu['greedy'])} tokens equal from the start "
          f"(CPU {cpu['greedy_text']!r} / Vulkan {gpu['greedy_text']!r})")
    print(f"Teacher-forced top-1 agreement: {result['top1_agreement']:.1%} over {result['positions']} positions")
    if fallback is not None:
        print(f"Without the Vulkan loader: {fallback['app_device']}; {fallback['forced_warnings']}")
    size = report["sizes"]
    print(f"Vulkan backend: {size['vulkan_bytes'] / 1e6:.1f} MB ({size['vulkan_xz_bytes'] / 1e6:.1f} MB xz); "
          f"the rest of llama.cpp: {size['cpu_only_bytes'] / 1e6:.1f} MB ({size['cpu_only_xz_bytes'] / 1e6:.1f} MB xz)")
    for name, ok in checks.items():
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
