#!/usr/bin/env bash
# Installs what voicehost needs on a Debian or Ubuntu machine, into ./.venv.
#   ./setup.sh          the program (espeak-ng for the voice, PortAudio for sound cards)
#   ./setup.sh --test   the program, the test tools and the test data packages
# System packages are installed with apt-get (through sudo when not root) only
# when something is missing, so running it again is quick.
set -euo pipefail
cd "$(dirname "$0")"

want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

packages=(espeak-ng libportaudio2 libsndfile1)
if ((want_test)); then
    packages+=(pocketsphinx-testdata sox pulseaudio libasound2-plugins chromium)
fi
python3 -c 'import venv, ensurepip' 2>/dev/null || packages+=(python3-venv)
if ((want_test)); then
    # aubio (the benchmark's online reference) builds from source.
    command -v gcc >/dev/null || packages+=(gcc)
    python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(
        sysconfig.get_paths()["include"], "Python.h")))' || packages+=(python3-dev)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing system packages: ${missing[*]}"
    sudo_cmd=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || { echo "setup: run as root or install sudo to get: ${missing[*]}" >&2; exit 2; }
        sudo_cmd=(sudo)
    fi
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[[ -x .venv/bin/python ]] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
target=.
((want_test)) && target='.[test]'
log=$(mktemp)
if ! .venv/bin/python -m pip install -q -e "$target" >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: installing the Python packages failed (see above)." >&2
    exit 2
fi
rm -f "$log"
