#!/bin/sh
# Install the Debian packages the build and the tests need, if missing.
# Used by `make run` and `make test`; says what it installs.
# Also caches Debian's packaged kernel for the VM test (tests/shell/test_vm.sh):
# the package linux-image-amd64 depends on, fetched with `apt-get download`
# into $DSH_VM_CACHE (default /var/cache/dsh-vm, shared by every checkout and
# kept across `make clean`) and its vmlinuz extracted there, so the test
# itself needs no network.
set -eu
PKGS="gcc make pkg-config libreadline-dev libcjson-dev libpci-dev jq tmux openmpi-bin pdsh slurm-wlm munge python3-jsonschema libxml2-utils iproute2 util-linux"
# The VM test: QEMU without its recommends (no GUI), a static busybox for the
# guest's initramfs, lspci/setpci, cpio to pack the initramfs.
PKGS="$PKGS qemu-system-x86 busybox-static pciutils cpio"
VM_CACHE=${DSH_VM_CACHE:-/var/cache/dsh-vm}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
need_root() {
	[ -z "$SUDO" ] && return 0
	command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root (or sudo) to $1" >&2; exit 1; }
}
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
updated=0
if [ -n "$missing" ]; then
	echo "install-deps: installing:$missing"
	need_root "install:$missing"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	updated=1
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing
fi
# The kernel: the linux-image-X.Y.Z-N-amd64 package the metapackage depends on.
# Best effort: without it the VM test is skipped, saying so.
cache_kernel() {
	echo "install-deps: caching Debian's kernel in $VM_CACHE"
	need_root "write $VM_CACHE"
	[ "$updated" -eq 1 ] || $SUDO apt-get update -qq || return 1
	kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\).*/\1/p' | head -n 1)
	[ -n "$kpkg" ] || { echo "install-deps: cannot tell which kernel linux-image-amd64 depends on" >&2; return 1; }
	$SUDO mkdir -p "$VM_CACHE" || return 1
	tmp=$(mktemp -d) || return 1
	(cd "$tmp" && apt-get download -q "$kpkg" >/dev/null) &&
		dpkg-deb -x "$tmp"/*.deb "$tmp/x" &&
		# vmlinuz for QEMU; the config says what the kernel has built in
		$SUDO cp "$tmp"/x/boot/vmlinuz-* "$VM_CACHE/vmlinuz.new" &&
		$SUDO cp "$tmp"/x/boot/config-* "$VM_CACHE/config" &&
		echo "$kpkg" | $SUDO tee "$VM_CACHE/package" >/dev/null &&
		$SUDO mv "$VM_CACHE/vmlinuz.new" "$VM_CACHE/vmlinuz"
	rc=$?
	rm -rf "$tmp"
	return $rc
}
if [ ! -s "$VM_CACHE/vmlinuz" ] && ! cache_kernel; then
	echo "install-deps: warning: no kernel cached in $VM_CACHE; tests/shell/test_vm.sh will be skipped" >&2
fi
