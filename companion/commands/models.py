"""`companion models list|add|remove|use|download|info`: the model library from the terminal."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from companion.errors import CompanionError, DownloadCancelled
from companion.llm import hardware, speed
from companion.llm.catalog import CURATED, EMBEDDERS, recommend
from companion.llm.download import Downloader
from companion.llm.gguf import read_gguf
from companion.llm.library import ModelLibrary, format_bytes
from companion.llm.llama import engine_version, machine
from companion.llm.loader import parse_gpu_layers
from companion.runtime import Runtime, open_home
from companion.settings import save_settings


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("models", help="list, add, download and choose models")
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    listing = actions.add_parser("list", help="the models you can choose (* = active)")
    listing.set_defaults(handler=run_list)
    add = actions.add_parser("add", help="add a GGUF file (copied into models/ unless --link or --reference)")
    add.add_argument("file", type=Path)
    how = add.add_mutually_exclusive_group()
    how.add_argument("--link", dest="mode", action="store_const", const="link", help="link instead of copying")
    how.add_argument("--reference", dest="mode", action="store_const", const="reference", help="use it where it is")
    add.add_argument("--use", action="store_true", help="also make it the active model")
    add.set_defaults(handler=run_add, mode="copy")
    remove = actions.add_parser("remove", help="forget a model (deletes files stored in models/ with --delete)")
    remove.add_argument("model", help="number from `models list`, file name, or path")
    remove.add_argument("--delete", action="store_true", help="delete the file from models/")
    remove.set_defaults(handler=run_remove)
    use = actions.add_parser("use", help="make a model the active one")
    use.add_argument("model", help="number from `models list`, file name, path, or 'embedded'")
    use.add_argument("--gpu-layers", metavar="N", help="auto, all, or a number (0: CPU only)")
    use.add_argument("--threads", type=int, metavar="N", help="CPU threads (0: physical cores)")
    use.add_argument("--ctx", type=int, metavar="TOKENS", help="context size")
    use.set_defaults(handler=run_use)
    download = actions.add_parser("download", help="download a GGUF from Hugging Face into models/")
    download.add_argument("repo", nargs="?", help="repository id, e.g. Qwen/Qwen2.5-1.5B-Instruct-GGUF, or a number from --list")
    download.add_argument("file", nargs="?", help="file name in the repository, e.g. qwen2.5-1.5b-instruct-q4_k_m.gguf")
    download.add_argument("--list", action="store_true", help="show recommended small chat models")
    download.add_argument("--revision", default="main")
    download.add_argument("--use", action="store_true", help="make it the active model when done")
    download.add_argument("--embedder", action="store_true",
                          help="download the stronger multilingual embedder recall uses to find memories by meaning")
    download.set_defaults(handler=run_download)
    info = actions.add_parser("info", help="model details, this machine (CPU/GPU/RAM) and the memory a model needs")
    info.add_argument("model", nargs="?", help="default: the active model")
    info.set_defaults(handler=run_info)
    parser.set_defaults(handler=run_list)


def _library(runtime: Runtime) -> ModelLibrary:
    return ModelLibrary(runtime.home, runtime.settings.model)


def _save(runtime: Runtime) -> None:
    save_settings(runtime.home.settings_file, runtime.settings)


def run_list(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    with open_home(args.home, exclusive=False) as runtime:
        settings = runtime.settings.model
        if settings.backend == "openai":
            from companion.llm.remote import without_login  # httpx2 only when a server is in use

            print(f"Using the model server {without_login(settings.base_url)} ({settings.model_name or 'its first model'}); "
                  "the local models below are used after `companion models use`.", file=out)
        for number, entry in enumerate(_library(runtime).entries(), 1):
            row = entry.summary()
            mark = "*" if entry.active and settings.backend != "openai" else " "
            if entry.usable:
                detail = (f"{row['architecture']}, {row['parameters']} params, {row['quantization']}, {row['size']}, "
                          f"ctx {row['context'] or '?'}, template: {row['template']}")
            else:
                detail = "unusable"
            print(f"{mark}{number:>2}. {row['name']} [{row['file']}] ({entry.source}) {detail}", file=out)
            if entry.error or entry.warning:
                print(f"      {entry.error or entry.warning}", file=out)
    return 0


def run_add(args: argparse.Namespace) -> int:
    with open_home(args.home) as runtime:
        library = _library(runtime)
        entry = library.add(args.file, args.mode, progress=_progress_printer("Copying"))
        if args.use:
            library.set_active(entry.path, probe=True)
        _save(runtime)
    print(f"Added {entry.file_name} ({entry.source}).{' It is now the active model.' if args.use else ''}")
    if entry.warning:
        print(f"Note: {entry.warning}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    with open_home(args.home) as runtime:
        library = _library(runtime)
        entry = library.find(args.model)
        library.remove(entry.path, delete_file=args.delete)
        _save(runtime)
    print(f"Removed {entry.file_name}.")
    return 0


def run_use(args: argparse.Namespace) -> int:
    with open_home(args.home) as runtime:
        library = _library(runtime)
        entry = library.set_active(library.find(args.model).path, probe=True)
        model = runtime.settings.model
        model.backend = "llama"
        if args.gpu_layers is not None:
            model.n_gpu_layers = parse_gpu_layers(args.gpu_layers)
        if args.threads is not None:
            model.n_threads = max(0, args.threads)
        if args.ctx:
            model.n_ctx = args.ctx
        _save(runtime)
    print(f"Active model: {entry.name} [{entry.file_name}].")
    if entry.warning:
        print(f"Note: {entry.warning}")
    return 0


def run_download(args: argparse.Namespace) -> int:
    if args.embedder:
        return _download_embedder(args)
    if args.list or not args.repo:
        caps = machine()
        with open_home(args.home, exclusive=False) as runtime:
            bench = speed.known(runtime.home.state, caps)
        best = recommend(caps, bench=bench)
        for number, model in enumerate(CURATED, 1):
            mark = "  <- the best fit for this computer" if model == best else ""
            rate = speed.words_per_s(speed.tokens_per_s(model.size_bytes, bench, caps))
            print(f"{number:>2}. {model.describe()} About {rate:.0f} words a second here.{mark}\n"
                  f"    companion models download {model.repo_id} {model.filename}"
                  f"  (also {', '.join(v.quant + ': ' + v.filename for v in model.variants() if v != model)})")
        for model in EMBEDDERS:
            print(f" -  {model.describe()}\n    companion models download --embedder")
        return 0
    repo, filename = args.repo, args.file
    if repo.isdigit() and not filename:
        index = int(repo) - 1
        if not 0 <= index < len(CURATED):
            raise CompanionError(f"There is no recommended model number {repo}; see `companion models download --list`.")
        repo, filename = CURATED[index].repo_id, CURATED[index].filename
    if not filename:
        raise CompanionError("Give the file name too, e.g. `companion models download Qwen/Qwen2.5-1.5B-Instruct-GGUF qwen2.5-1.5b-instruct-q4_k_m.gguf`.")
    with open_home(args.home, exclusive=args.use) as runtime:
        downloader = Downloader(runtime.home.models)
        try:
            path = downloader.download(repo, filename, args.revision, progress=_progress_printer("Downloading"))
        except (KeyboardInterrupt, DownloadCancelled):
            print("\nDownload stopped. Run the same command again to resume.", file=sys.stderr)
            return 130
        check = "checksum verified" if downloader.verified else "the Hub sent no checksum; size and GGUF header checked"
        print(f"Saved {path} ({check}).")
        if args.use:
            _library(runtime).set_active(path, probe=True)
            _save(runtime)
            print("It is now the active model.")
        else:
            print(f"Use it with: companion models use {path.name}")
    return 0


def _download_embedder(args: argparse.Namespace) -> int:
    """The stronger embedder into models/; the app's recall picks it up and re-embeds in the background."""
    with open_home(args.home, exclusive=False) as runtime:
        library = _library(runtime)
        model, present = library.embedders()[0]
        if present is not None:
            print(f"{model.label} is already in {present}.")
            return 0
        downloader = Downloader(runtime.home.models)
        try:
            path = library.download_embedder(model, downloader, progress=_progress_printer("Downloading"))
        except (KeyboardInterrupt, DownloadCancelled):
            print("\nDownload stopped. Run the same command again to resume.", file=sys.stderr)
            return 130
        print(f"Saved {path}. Recall now reads your memory with {model.label} in the background "
              "and switches to it when done; it keeps working meanwhile.")
    return 0


def run_info(args: argparse.Namespace) -> int:
    with open_home(args.home, exclusive=False) as runtime:
        library = _library(runtime)
        entry = library.find(args.model) if args.model else next(e for e in library.entries() if e.active)
        settings = runtime.settings.model
        caps = machine()
        print(f"Engine: {engine_version()}")
        print(f"Machine: {caps.physical_cores} physical cores, "
              f"{_gb(caps.ram_available)} of {_gb(caps.ram_total)} RAM available")
        print(f"GPU: {caps.describe_gpu()}")
        print(f"Model: {entry.name} [{entry.path}]")
        if not entry.usable:
            print(f"  Problem: {entry.error}")
            return 1
        for key, value in entry.summary().items():
            if key not in ("name", "file"):
                print(f"  {key}: {value}")
        meta = read_gguf(entry.path)
        n_ctx = min(settings.n_ctx, meta.context_length or settings.n_ctx)
        layers = hardware.resolve_gpu_layers(settings.n_gpu_layers, meta, n_ctx, caps)
        need = hardware.estimate(meta, n_ctx, layers)
        where = "CPU only" if need.gpu_layers == 0 else f"{need.gpu_layers}/{need.total_layers} layers on the GPU"
        print(f"With a {n_ctx}-token context, {where}: {need.describe()} "
              f"(weights {format_bytes(need.weights)}, context cache {format_bytes(need.kv_cache)})")
        share = need.gpu_layers / need.total_layers if need.total_layers else 0.0
        rate = speed.words_per_s(speed.tokens_per_s(meta.file_size, speed.known(runtime.home.state, caps), caps, share))
        print(f"Expected speed here: about {rate:.0f} words a second.")
        try:
            hardware.check_fits(meta, n_ctx, layers, caps)
            print("It fits on this machine.")
        except CompanionError as exc:
            print(f"It does not fit: {exc}")
    return 0


def _gb(value: int | None) -> str:
    return f"{value / 2**30:.1f} GB" if value is not None else "unknown"


def _progress_printer(verb: str):
    last = [0.0]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < 0.2 and done != total:
            return
        last[0] = now
        share = f"{100 * done / total:5.1f}% of {format_bytes(total)}" if total else format_bytes(done)
        print(f"\r{verb}: {share}", end="", file=sys.stderr, flush=True)
        if total and done >= total:
            print(file=sys.stderr)

    return show


