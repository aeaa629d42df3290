#!/usr/bin/env bash
# Installs the Debian packages tests and `make run` need, if missing (CI runs as root).
set -euo pipefail
# ffmpeg: Home Assistant's TTS converts every voice reply with it (`make run`).
# chromium: the browser test drives it with playwright-core (tests/browser/).
packages=(espeak-ng sox ffmpeg chromium)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
