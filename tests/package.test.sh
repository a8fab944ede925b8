#!/usr/bin/env bash
# Checks the desktop app's .deb (and .rpm) as built by scripts/package.sh: the control fields
# (dpkg -I) and the files it installs, unpacked into a scratch root with dpkg -x.
#
#   tests/package.test.sh [PACKAGE.deb [PACKAGE.rpm]]
#
# Without arguments it builds them first with `scripts/package.sh --debug` (the dev profile: a
# release build takes too long for the test command; the bundling is the same).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FAILURES=0
fail() {
    echo "FAIL: $*" >&2
    FAILURES=$((FAILURES + 1))
}
pass() { echo "ok: $*" >&2; }
check() {
    local what="$1"
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}

if [[ $# -ge 1 ]]; then
    DEB="$1"
    RPM="${2:-}"
else
    mapfile -t built < <("$ROOT/scripts/package.sh" --debug --bundles deb,rpm)
    DEB="${built[0]}"
    RPM="${built[1]}"
fi
[[ -f "$DEB" ]] || { echo "no .deb at '$DEB'" >&2; exit 1; }

SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT

# --- Control fields ------------------------------------------------------------------------------
field() { dpkg-deb -f "$DEB" "$1"; }
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -n 1)"
check "Package: switchboard" [ "$(field Package)" = switchboard ]
check "Version: $version (the workspace's)" [ "$(field Version)" = "$version" ]
check "Architecture: $(dpkg --print-architecture)" [ "$(field Architecture)" = "$(dpkg --print-architecture)" ]
check "a Description" [ -n "$(field Description)" ]
depends="$(field Depends)"
echo "Depends: $depends" >&2
IFS=, read -r -a deps <<<"$depends"
names=()
for d in "${deps[@]}"; do
    d="${d# }"
    names+=("${d%% *}")
done
has_dep() {
    local want="$1" n
    for n in "${names[@]}"; do [[ "$n" == "$want" ]] && return 0; done
    return 1
}
check "Depends: WebKitGTK (libwebkit2gtk-4.1-0)" has_dep libwebkit2gtk-4.1-0
check "Depends: GTK 3 (libgtk-3-0)" has_dep libgtk-3-0
check "Depends: the tray's appindicator (libayatana-appindicator3-1)" has_dep libayatana-appindicator3-1
check "Depends lists each package once" [ "$(printf '%s\n' "${names[@]}" | sort | uniq -d)" = "" ]
# Every dependency is a real Debian package name this system knows.
for n in "${names[@]}"; do
    check "Depends: $n is a known package" bash -c "apt-cache show '$n' >/dev/null 2>&1"
done

# --- Files -------------------------------------------------------------------------------------
dpkg -x "$DEB" "$SCRATCH/root"
R="$SCRATCH/root"
check "every file is owned by root" [ "$(dpkg-deb -c "$DEB" | awk '$2 != "0/0"' | wc -l)" -eq 0 ]
check "every file is under /usr" [ "$(dpkg-deb -c "$DEB" | awk '{print $6}' | grep -cv '^\(\./\)\{0,1\}usr\(/\|$\)\|^\./$' || true)" -eq 0 ]
BIN="$R/usr/bin/switchboard-app"
check "the app binary /usr/bin/switchboard-app is executable" [ -x "$BIN" ]
check "the binary is an ELF executable" [ "$(head -c 4 "$BIN" | od -An -c | tr -d ' ')" = '177ELF' ]
missing="$(ldd "$BIN" 2>&1 | grep 'not found' || true)"
check "every shared library the binary needs is found here${missing:+ (missing: $missing)}" [ -z "$missing" ]
# Every library the binary links (ELF NEEDED) comes from a package that installing the .deb's
# Depends brings in (their dependency closure), so a machine with just those can run it.
apt-cache depends --recurse --important "${names[@]}" 2>/dev/null | grep -v '^ ' | sed 's/:.*//' |
    sort -u >"$SCRATCH/closure"
while read -r lib; do
    path="$(ldconfig -p | awk -v lib="$lib" '$1 == lib && !found { found = 1; print $NF }')"
    owner="$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null ||
        dpkg -S "${path#/usr}" 2>/dev/null || true)"
    owner="${owner%%:*}"
    check "$lib (from ${owner:-no package}) is brought in by Depends" grep -qx -- "${owner:-none}" "$SCRATCH/closure"
done < <(readelf -d "$BIN" | sed -n 's/.*Shared library: \[\(.*\)\]$/\1/p')

DESKTOP="$R/usr/share/applications/Switchboard.desktop"
check "the .desktop entry /usr/share/applications/Switchboard.desktop" [ -f "$DESKTOP" ]
if [[ -f "$DESKTOP" ]]; then
    cat "$DESKTOP" >&2
    entry() { sed -n "s/^$1=//p" "$DESKTOP" | head -n 1; }
    check "desktop-file-validate accepts it" desktop-file-validate "$DESKTOP"
    check "Type=Application" [ "$(entry Type)" = Application ]
    check "Name=Switchboard" [ "$(entry Name)" = Switchboard ]
    exec_bin="$(entry Exec)"
    exec_bin="${exec_bin%% *}"
    check "Exec runs the packaged binary ($exec_bin in /usr/bin)" [ -x "$R/usr/bin/$exec_bin" ]
    check "Categories has Development" grep -q '^Categories=.*Development;' "$DESKTOP"
    check "Terminal=false" [ "$(entry Terminal)" = false ]
    icon="$(entry Icon)"
    check "Icon names an icon (${icon:-none})" [ -n "$icon" ]
    # The named icon in the hicolor theme, each size where its directory says.
    sizes=0
    for png in "$R"/usr/share/icons/hicolor/*/apps/"$icon".png; do
        [[ -f "$png" ]] || continue
        dir="$(basename "$(dirname "$(dirname "$png")")")"
        want="${dir%@*}"
        got="$(/usr/bin/identify -format '%wx%h' "$png")"
        # "256x256@2" holds a 2x icon for 128x128, drawn at 256x256.
        check "icon $dir/apps/$icon.png is a ${want} PNG (got $got)" [ "$got" = "$want" ]
        sizes=$((sizes + 1))
    done
    check "the icon comes in at least 3 sizes (found $sizes)" [ "$sizes" -ge 3 ]
    for s in 32x32 128x128; do
        check "a $s icon" [ -f "$R/usr/share/icons/hicolor/$s/apps/$icon.png" ]
    done
fi

# --- The .rpm: made by the same bundler from the same files --------------------------------------
if [[ -n "$RPM" ]]; then
    check "the .rpm exists" [ -f "$RPM" ]
    check "the .rpm starts with the RPM lead" [ "$(head -c 4 "$RPM" | od -An -tx1 | tr -d ' ')" = edabeedb ]
fi

if [[ $FAILURES -gt 0 ]]; then
    echo "package test: $FAILURES check(s) failed" >&2
    exit 1
fi
echo "package test: all checks passed ($DEB)" >&2
