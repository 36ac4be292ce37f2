#!/usr/bin/env bash
# Runs CI (.ci/run) as a new machine would: a bare Debian 12 (minbase) chroot holding only what a
# new machine of ours has (Node.js with npm, git, python3, make, g++), a clean clone of HEAD, and
# port 5173 already taken. Chromium, PostgreSQL, PHP, MariaDB and WordPress are not there: the
# suites must install them themselves, which is what this checks. Needs root and debootstrap.
# Usage: scripts/fresh-machine.sh [folder]   (default: a new folder under /var/tmp, kept afterwards)
#   RELEASE=trixie   another Debian release (default bookworm): e.g. the plugin on a newer WordPress
#   RUN='npm ci && npm run test:wordpress'   another command than the whole CI (default bash .ci/run)
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
if [ "$(id -u)" != 0 ] || ! command -v debootstrap >/dev/null; then
  echo "fresh-machine: run as root, with Debian's debootstrap installed (apt-get install debootstrap)" >&2
  exit 2
fi
release=${RELEASE:-bookworm}
run=${RUN:-bash .ci/run}
root=${1:-$(mktemp -d /var/tmp/agent-chat-fresh.XXXXXX)}
# mktemp's folder is the chroot's /: as 0700 no user but root could reach anything in it, and
# PostgreSQL's initdb runs as postgres.
chmod 755 "$root"
[ -e "$root/etc/debian_version" ] || debootstrap --variant=minbase "$release" "$root" http://deb.debian.org/debian

mounts=(proc sys dev dev/pts dev/shm)
cleanup() { for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "$root/${mounts[i]}" 2>/dev/null || true; done; }
trap cleanup EXIT
for m in "${mounts[@]}"; do mount --bind "/$m" "$root/$m"; done

# Packages installed in there start no services (the suites start their own on free ports).
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d" && chmod +x "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/"
chroot "$root" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git ca-certificates python3 make g++ >/dev/null'
# This machine's Node.js and npm, and its CA bundle and npm settings: a proxy that inspects TLS
# must be trusted in there as it is here.
cp "$(command -v node)" "$root/usr/bin/node"
npm_home=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
mkdir -p "$root/usr/lib/node_modules" && rm -rf "$root/usr/lib/node_modules/npm"
cp -a "$npm_home" "$root/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
if [ -f "$HOME/.npmrc" ]; then cp "$HOME/.npmrc" "$root/root/.npmrc"; fi

rm -rf "$root/repo" && git clone -q "$repo" "$root/repo"
echo "fresh-machine: $run on Debian $release in $root on $(git -C "$root/repo" log --oneline -1)"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 CI=true NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
  RUN="$run" bash -c 'cd /repo; node -e "require(\"net\").createServer().listen(5173, \"127.0.0.1\")" & taken=$!
    bash -c "$RUN"; status=$?; kill $taken; exit $status'
