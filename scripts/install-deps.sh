#!/bin/sh
# Install the Debian packages a target needs, if missing; says what it installs.
#
#   install-deps.sh run    the shell's: build dsh and start it (make run)
#   install-deps.sh test   those and every test's (make test, make deps)
#
# Nothing is missing: nothing runs as root, no apt-get, no sudo.
# `test` also caches Debian's packaged kernel for the VM test
# (tests/shell/test_vm.sh): the package linux-image-amd64 depends on, fetched
# with `apt-get download` into $DSH_VM_CACHE (default /var/cache/dsh-vm,
# shared by every checkout and kept across `make clean`) and its vmlinuz
# extracted there, so the test itself needs no network.  That step is best
# effort: when it cannot be done (not root, no network) it warns and the VM
# test skips, saying why; it never fails the target.
set -eu
what=${1:-test}
# The shell: compiler, make, pkg-config and the libraries dsh links.
RUN_PKGS="gcc make pkg-config libreadline-dev libcjson-dev libpci-dev"
# The tests: JSON and XML checkers, pytest (the Python package, test_python.sh), tmux, the launchers (Open MPI, pdsh,
# Slurm and munge), iproute2 and util-linux (namespaces, setpriv), clang
# (.ci/run builds with it too; make fuzz's libFuzzer); the VM
# test: QEMU without its recommends (no GUI), a static busybox for the
# guest's initramfs, lspci/setpci, cpio to pack the initramfs.
TEST_PKGS="clang jq tmux openmpi-bin pdsh slurm-wlm munge python3-jsonschema python3-pytest libxml2-utils iproute2 util-linux"
TEST_PKGS="$TEST_PKGS qemu-system-x86 busybox-static pciutils cpio"
case $what in
run) PKGS=$RUN_PKGS ;;
test) PKGS="$RUN_PKGS $TEST_PKGS" ;;
*) echo "install-deps: unknown set '$what' (known: run, test)" >&2; exit 2 ;;
esac
VM_CACHE=${DSH_VM_CACHE:-/var/cache/dsh-vm}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
# can_root WHY: true if root or sudo is there; else says so and is false.
can_root() {
	[ -z "$SUDO" ] && return 0
	command -v sudo >/dev/null 2>&1 && return 0
	echo "install-deps: need root (or sudo) to $1" >&2
	return 1
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
	can_root "install:$missing" || exit 1
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	updated=1
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing
fi
[ "$what" = test ] || exit 0
# The kernel: the linux-image-X.Y.Z-N-amd64 package the metapackage depends on.
cache_kernel() {
	echo "install-deps: caching Debian's kernel in $VM_CACHE"
	can_root "write $VM_CACHE" || return 1
	# sudo that asks for no password: a best-effort step never waits on one
	[ -z "$SUDO" ] || { SUDO="sudo -n"; $SUDO true 2>/dev/null ||
		{ echo "install-deps: sudo needs a password; not caching the kernel" >&2; return 1; }; }
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
# Best effort: `set -e` does not reach into a function called in a
# condition, so every failing step ends up here.
if [ ! -s "$VM_CACHE/vmlinuz" ] && ! cache_kernel; then
	echo "install-deps: warning: no kernel cached in $VM_CACHE; tests/shell/test_vm.sh will be skipped" >&2
fi
exit 0
