#!/usr/bin/env bash
# A Docker host for the docker tests, from Debian's packages, and put back as it was afterwards.
#
#   docker-host.sh start STATE_DIR   installs docker.io, containerd, runc, iptables and debootstrap when missing
#                                    (apt-get), compose v2 when `docker compose` is missing (docker/install-compose.sh),
#                                    and starts dockerd when no daemon answers; what it changed goes in STATE_DIR
#   docker-host.sh stop STATE_DIR    stops the daemon it started, and restores what dockerd changed on the host:
#                                    the iptables rules (FORWARD policy, DOCKER chains, NAT), net.ipv4.ip_forward
#                                    and the docker0 bridge
#
# A daemon that was already running is used and left alone (nothing is restored then: it is not ours). The images
# stay in /var/lib/docker between runs (the base image built with debootstrap is the slow part of a first run).
set -euo pipefail

cmd=${1:?usage: docker-host.sh start|stop STATE_DIR}
state=${2:?usage: docker-host.sh start|stop STATE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$state"
say() { echo "docker-host: $*" >&2; }

as_root=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        as_root="sudo -n"
    else
        say "not root (and no password-less sudo): cannot install or start Docker"
        exit 1
    fi
fi

daemon_answers() { timeout 20 docker info >/dev/null 2>&1; }

start() {
    local missing=()
    command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
    command -v containerd >/dev/null 2>&1 || missing+=(containerd)
    command -v runc >/dev/null 2>&1 || missing+=(runc)
    command -v iptables >/dev/null 2>&1 || [ -x /usr/sbin/iptables ] || missing+=(iptables)
    command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || missing+=(debootstrap)
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]} (apt-get)"
        $as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" \
            >"$state/apt.log" 2>&1 || { cat "$state/apt.log" >&2; exit 1; }
    fi
    if ! docker compose version >/dev/null 2>&1; then
        bash "$root/docker/install-compose.sh"
    fi
    if daemon_answers; then
        say "using the Docker daemon already running (it is left running)"
        rm -f "$state/dockerd.pid"
        return 0
    fi
    # What dockerd changes on the host, to put back at stop.
    PATH=$PATH:/usr/sbin:/sbin
    sysctl -n net.ipv4.ip_forward >"$state/ip_forward"
    if ip link show docker0 >/dev/null 2>&1; then echo yes; else echo no; fi >"$state/docker0_existed"
    $as_root iptables-save >"$state/iptables.rules"
    say "starting dockerd (log: $state/dockerd.log)"
    # setsid: the daemon outlives this script (and the test's process group) until stop; nice: its builds and
    # containers inherit it, and leave the CPU to anything else on the machine first
    $as_root setsid nice -n 10 dockerd >"$state/dockerd.log" 2>&1 </dev/null &
    echo $! >"$state/dockerd.pid"
    for _ in $(seq 120); do
        daemon_answers && { say "dockerd is up"; return 0; }
        if ! kill -0 "$(cat "$state/dockerd.pid")" 2>/dev/null; then
            say "dockerd exited:"; tail -20 "$state/dockerd.log" >&2; exit 1
        fi
        sleep 1
    done
    say "dockerd did not answer within 120 s:"; tail -20 "$state/dockerd.log" >&2
    exit 1
}

stop() {
    [ -f "$state/dockerd.pid" ] || { say "the daemon was not started here: left as it is"; return 0; }
    local pid
    pid=$(cat "$state/dockerd.pid")
    if kill -0 "$pid" 2>/dev/null; then
        $as_root kill -TERM "$pid"
        for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
        if kill -0 "$pid" 2>/dev/null; then
            say "dockerd did not stop within 60 s: killing it"
            $as_root kill -KILL "$pid" || true
        fi
    fi
    PATH=$PATH:/usr/sbin:/sbin
    if [ -f "$state/iptables.rules" ]; then
        # iptables-restore replaces each table it is given, user chains included; a table that held nothing before
        # (its dump is empty on a host that never used iptables) is given empty, with ACCEPT policies
        {
            cat "$state/iptables.rules"
            grep -q '^\*filter' "$state/iptables.rules" \
                || printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n'
            grep -q '^\*nat' "$state/iptables.rules" \
                || printf '*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\nCOMMIT\n'
        } | $as_root iptables-restore
    fi
    if [ -f "$state/ip_forward" ]; then
        $as_root sysctl -q -w "net.ipv4.ip_forward=$(cat "$state/ip_forward")"
    fi
    if [ "$(cat "$state/docker0_existed" 2>/dev/null)" = no ] && ip link show docker0 >/dev/null 2>&1; then
        $as_root ip link delete docker0
    fi
    rm -f "$state/dockerd.pid"
    say "dockerd stopped; iptables, ip_forward and docker0 restored"
}

case $cmd in
    start) start ;;
    stop) stop ;;
    *) say "unknown command $cmd (start or stop)"; exit 2 ;;
esac
