#!/usr/bin/env bash
# npm run test:image: builds docker/Dockerfile into an image and runs docker/compose.yml with it
# (scripts/image-test.js), on a machine that reaches Debian's mirror and the npm registry but no
# container registry: a Debian base made with mmdebstrap, a Node 20 base from this machine's own
# node and npm (the Dockerfile's NODE_IMAGE build argument), and stand-ins for postgres:15 and
# redis:7 from Debian's packages (docker/image-test/). podman builds (with runc and the host's
# ulimits: crun and podman's default limits fail on these kernels; the docker format keeps
# HEALTHCHECK); Debian's dockerd and docker-compose run the stack. Needs root or sudo.
# Base images are kept between runs (IMAGE_TEST_DIR holds the work files).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${IMAGE_TEST_DIR:-${TMPDIR:-/tmp}/mailer-image-test}
mkdir -p "$work"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo --preserve-env=PATH,CONTAINERS_CONF,BUILDAH_FORMAT)

need=()
for package in podman runc mmdebstrap uidmap docker.io docker-compose; do
  dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
done
if [ ${#need[@]} -gt 0 ]; then
  "${as_root[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends "${need[@]}"
fi

nproc_limit=$(ulimit -Hu)
{ [ "$nproc_limit" = unlimited ] || [ "$nproc_limit" -gt 32768 ]; } && nproc_limit=32768
printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]\n[engine]\nruntime = "runc"\n' \
  "$(ulimit -Hn)" "$(ulimit -Hn)" "$nproc_limit" "$nproc_limit" > "$work/containers.conf"
export CONTAINERS_CONF=$work/containers.conf BUILDAH_FORMAT=docker
podman_bin=$(command -v podman)
podman() { "${as_root[@]}" "$podman_bin" "$@"; }

if ! podman image exists localhost/debian:bookworm; then
  echo "[image-test] Debian base (mmdebstrap)"
  "${as_root[@]}" mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm "$work/rootfs.tar"
  podman import -q "$work/rootfs.tar" localhost/debian:bookworm >/dev/null
  "${as_root[@]}" rm -f "$work/rootfs.tar"
fi
if ! podman image exists localhost/mailer-node:20; then
  echo "[image-test] Node 20 base from $(command -v node)"
  context=$work/node
  rm -rf "$context" && mkdir -p "$context/ca"
  cp docker/image-test/node/Containerfile "$context/"
  cp "$(readlink -f "$(command -v node)")" "$context/node"
  cp -a "$(npm root -g)" "$context/node_modules"
  cp /usr/local/share/ca-certificates/*.crt "$context/ca/" 2>/dev/null || true
  podman build -q -t localhost/mailer-node:20 "$context" >/dev/null
fi
for stand_in in postgres:15 redis:7; do
  name=${stand_in%%:*}
  podman image exists "localhost/mailer-$stand_in" ||
    podman build -q -t "localhost/mailer-$stand_in" "docker/image-test/$name" >/dev/null
done

echo "[image-test] podman build docker/Dockerfile"
podman build --pull=never --build-arg NODE_IMAGE=localhost/mailer-node:20 -f docker/Dockerfile -t localhost/mailer:test "$repo"

started_dockerd=
if ! "${as_root[@]}" docker info >/dev/null 2>&1; then
  "${as_root[@]}" sh -c "nohup dockerd >'$work/dockerd.log' 2>&1 & echo \$! > '$work/dockerd.pid'"
  started_dockerd=1
  for _ in $(seq 60); do "${as_root[@]}" docker info >/dev/null 2>&1 && break; sleep 1; done
fi
stop_dockerd() { [ -z "$started_dockerd" ] || "${as_root[@]}" sh -c "kill \$(cat '$work/dockerd.pid')"; }
trap stop_dockerd EXIT
podman save -m --format docker-archive localhost/mailer:test localhost/mailer-postgres:15 localhost/mailer-redis:7 |
  "${as_root[@]}" docker load -q

"${as_root[@]}" node scripts/image-test.js
