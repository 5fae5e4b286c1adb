#!/usr/bin/env bash
# The programs the live-event tests drive, from Debian's packages when missing: mosquitto (a real MQTT broker),
# chromium (the watch page, headless) and tmux (the terminal view). Called by `make test` (and so by CI).
# Without apt-get, or without root, it says what is missing and goes on: those tests then fail in CI (CI=true),
# so a missing tool never passes for a green run, and are skipped elsewhere, naming the program.
set -u
missing=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
for program in mosquitto chromium tmux; do
    have "$program" || missing+=("$program")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "test tools: apt-get is not available to install ${missing[*]}; their tests fail in CI, skip elsewhere" >&2
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    else
        echo "test tools: not root (and no password-less sudo) to install ${missing[*]}; their tests fail in CI," \
             "skip elsewhere" >&2
        exit 0
    fi
fi
echo "test tools: installing ${missing[*]} (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
    echo "test tools: apt-get could not install ${missing[*]}; their tests fail in CI, skip elsewhere" >&2
fi
exit 0
