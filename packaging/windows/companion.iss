; Inno Setup script: a per-user Companion installer (no admin rights), Start-menu entry, uninstaller.
; Built by build.ps1: iscc /DAppVersion=<version> /DSourceDir=<frozen app> /DOutputDir=<dist> companion.iss

#ifndef AppVersion
  #error Pass /DAppVersion=<version from pyproject.toml>
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\companion"
#endif
#ifndef OutputDir
  #define OutputDir "..\..\dist"
#endif

[Setup]
AppId={{6F0C2B8E-3D4A-4F7E-9B1C-5A2E8D7C4B10}
AppName=Companion
AppVersion={#AppVersion}
AppVerName=Companion {#AppVersion}
AppPublisher=Companion
DefaultDirName={autopf}\Companion
DefaultGroupName=Companion
DisableProgramGroupPage=yes
; Per-user by default ({autopf} is then %LOCALAPPDATA%\Programs); the user may still choose all users.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir={#OutputDir}
OutputBaseFilename=Companion-{#AppVersion}-windows-x64-setup
SetupIconFile=..\..\resources\icons\companion.ico
UninstallDisplayIcon={app}\Companion.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ShowLanguageDialog=auto

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; The whole PyInstaller one-folder app: Companion.exe (window), companion-cli.exe (console), _internal\.
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\Companion"; Filename: "{app}\Companion.exe"
Name: "{autodesktop}\Companion"; Filename: "{app}\Companion.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\Companion.exe"; Description: "{cm:LaunchProgram,Companion}"; Flags: nowait postinstall skipifsilent

; The user's memory lives in %LOCALAPPDATA%\companion and is not part of the installation:
; uninstalling removes only {app}.
