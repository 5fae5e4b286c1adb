#!/usr/bin/env bash
# Docker Compose v2 as a CLI plugin (`docker compose`), from Debian's own package, on a Debian 12 host.
#
# Debian 12 packages only compose v1 (`docker-compose` 1.29), which rejects compose.yaml (its top-level `name:`).
# Debian 13 (trixie) packages compose v2 as `docker-compose`: a Go program built by Debian that needs only glibc
# 2.34+ (Debian 12 has 2.36). This script downloads that package with apt-get from a source list of its own (apt
# checks its signature against Debian's archive keyring; the host's apt sources are not touched) and copies the
# plugin out of it into /usr/local/lib/docker/cli-plugins/, where every docker CLI looks. On Debian 13 and later,
# `apt-get install docker-compose` does the same; on other systems, see Docker's "Install the Compose plugin".
#
#   bash docker/install-compose.sh          (as root; does nothing when `docker compose version` already works)
#   DEBIAN_MIRROR=http://mirror.example/debian bash docker/install-compose.sh
set -euo pipefail

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=${COMPOSE_SUITE:-trixie}
plugin_dir=${DOCKER_CLI_PLUGINS:-/usr/local/lib/docker/cli-plugins}
say() { echo "install-compose: $*" >&2; }

if docker compose version >/dev/null 2>&1; then
    say "$(docker compose version) is already installed"
    exit 0
fi
command -v apt-get >/dev/null 2>&1 || { say "apt-get is missing: install the Compose plugin as Docker's documentation says"; exit 1; }
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] || { say "Debian's archive keyring is missing (debian-archive-keyring)"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1
          -o APT::Sandbox::User=root -qq)
say "fetching $suite's docker-compose package (apt-get, signature checked)"
apt-get "${apt_opts[@]}" update
version=$(apt-cache "${apt_opts[@]}" show docker-compose | sed -n 's/^Version: //p' | head -1)
case $version in
    2.*) ;;
    *) say "$suite's docker-compose is '$version', not compose v2"; exit 1 ;;
esac
(cd "$work" && apt-get "${apt_opts[@]}" download "docker-compose=$version")
dpkg-deb -x "$work"/docker-compose_*.deb "$work/pkg"
mkdir -p "$plugin_dir"
install -m 0755 "$work/pkg/usr/libexec/docker/cli-plugins/docker-compose" "$plugin_dir/docker-compose"
say "installed $plugin_dir/docker-compose: $(docker compose version)"
