#!/bin/sh
# Install the Debian packages the build and the tests need, if missing.
# Used by `make run` and `make test`; says what it installs.
set -eu
PKGS="gcc make pkg-config libreadline-dev libcjson-dev libpci-dev jq tmux openmpi-bin pdsh slurm-wlm munge python3-jsonschema libxml2-utils iproute2 util-linux"
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root (or sudo) to install:$missing" >&2; exit 1; }
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
