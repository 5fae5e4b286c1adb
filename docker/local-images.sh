#!/usr/bin/env bash
# The two images compose.yaml pulls, built here from Debian's packages, for a Docker host that cannot reach Docker
# Hub (or should not): a Debian 12 root file system made with debootstrap, with Python 3.11 and its headers, and a
# mosquitto broker on top of it.
#
#   bash docker/local-images.sh             (as root: debootstrap needs it; 4-5 minutes the first time)
#   PYTHON_IMAGE=local/python:3.11-bookworm BROKER_IMAGE=local/mosquitto:2 \
#       docker compose -f docker/compose.yaml up --build
#
# Prints the two variables to use. Images already there are kept (--force builds them again). The root file system
# is cached as a tarball (in $SQUEEZE_DOCKER_CACHE, by default ~/.cache/squeeze/docker) for the next Docker host.
# DEBIAN_MIRROR names another mirror.
set -euo pipefail

python_image=${LOCAL_PYTHON_IMAGE:-local/python:3.11-bookworm}
broker_image=${LOCAL_BROKER_IMAGE:-local/mosquitto:2}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${SQUEEZE_DOCKER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/squeeze/docker}
here=$(cd "$(dirname "$0")" && pwd)
force=no
[ "${1:-}" = --force ] && force=yes
say() { echo "local-images: $*" >&2; }
have_image() { [ "$force" = no ] && docker image inspect "$1" >/dev/null 2>&1; }

# python3-dev: the wheel's build stage compiles the solver against Python.h (python:*-slim ships the headers).
packages=python3,python3-venv,python3-dev,ca-certificates
key=$(echo "bookworm $packages $mirror" | sha256sum | cut -c1-12)
tarball="$cache/python-bookworm-$key.tar"

if have_image "$python_image"; then
    say "$python_image is there"
else
    if [ ! -s "$tarball" ]; then
        command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] \
            || { say "debootstrap is missing (apt-get install debootstrap)"; exit 1; }
        mkdir -p "$cache"
        rootfs=$(mktemp -d "$cache/rootfs.XXXXXX")
        trap 'rm -rf "$rootfs"' EXIT
        say "debootstrap of Debian 12 with $packages (a few minutes)"
        nice /usr/sbin/debootstrap --variant=minbase --include="$packages" bookworm "$rootfs" "$mirror" \
            >"$cache/debootstrap.log" 2>&1 || { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
        # Updates and security fixes for the images' own apt-get, as Debian's images have them.
        cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main
EOF
        rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/tmp/*
        tar -C "$rootfs" -cf "$tarball.part" .
        mv "$tarball.part" "$tarball"
        rm -rf "$rootfs"
        trap - EXIT
    else
        say "root file system from the cache: $tarball"
    fi
    docker import \
        -c 'ENV LANG=C.UTF-8' \
        -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        -c 'CMD ["python3"]' \
        "$tarball" "$python_image" >/dev/null
    say "built $python_image"
fi

if have_image "$broker_image"; then
    say "$broker_image is there"
else
    mkdir -p "$cache"
    nice docker build -f "$here/mosquitto.Dockerfile" --build-arg "BASE_IMAGE=$python_image" \
        -t "$broker_image" "$here" >"$cache/broker-build.log" 2>&1 || { tail -20 "$cache/broker-build.log" >&2; exit 1; }
    say "built $broker_image"
fi

echo "PYTHON_IMAGE=$python_image"
echo "BROKER_IMAGE=$broker_image"
