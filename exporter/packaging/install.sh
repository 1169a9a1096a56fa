#!/usr/bin/env bash
# Installs the probekit exporter as a systemd service on this machine, the single-machine form, amd64 or arm64.
#
#   probekit host render --spec monitoring.yaml --out host/
#   sudo exporter/packaging/install.sh --exporter blackbox --files host/ [--agent-service NAME]
#
# It installs the exporter bundle, the files `probekit host render` wrote (exporter config, agent config,
# unit), creates the service user, then restarts the exporter and the agent and shows both statuses.
# --root DIR stages everything under DIR instead (no user, no systemctl): for packaging and tests.
set -euo pipefail

usage() {
  echo "usage: install.sh --exporter blackbox --files DIR [--bundle FILE] [--arch amd64|arm64] [--agent-service NAME] [--root DIR] [--no-start]" >&2
  exit 2
}
fail() { echo "install.sh: $*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
exporter="" files="" root="" arch="" agent_service="" start=1
bundle="$here/../dist/probekit-exporter.js"
while [ $# -gt 0 ]; do
  case "$1" in
    --exporter) exporter=${2:-}; shift 2 ;;
    --files) files=${2:-}; shift 2 ;;
    --bundle) bundle=${2:-}; shift 2 ;;
    --arch) arch=${2:-}; shift 2 ;;
    --agent-service) agent_service=${2:-}; shift 2 ;;
    --root) root=${2:-}; shift 2 ;;
    --no-start) start=0; shift ;;
    *) usage ;;
  esac
done

[ "$exporter" = blackbox ] || fail "--exporter: only blackbox is available (got '${exporter}')"
if [ -z "$files" ] || [ ! -d "$files/etc" ]; then
  fail "--files: give the folder 'probekit host render --out DIR' wrote (it holds etc/)"
fi
[ -f "$bundle" ] || fail "--bundle: $bundle does not exist; run 'npm run build' first"

case "$(uname -m)" in
  x86_64 | amd64) machine=amd64 ;;
  aarch64 | arm64) machine=arm64 ;;
  *) fail "this machine is $(uname -m); the exporter is installed on amd64 and arm64 only" ;;
esac
arch=${arch:-$machine}
case "$arch" in amd64 | arm64) ;; *) fail "--arch: use amd64 or arm64 (got '$arch')" ;; esac
# A staged tree may be for another machine; a live install must match this one (the ICMP addon is native).
[ -n "$root" ] || [ "$arch" = "$machine" ] || fail "--arch $arch does not match this $machine machine"

node_bin=/usr/bin/node
if [ -z "$root" ]; then
  [ "$(id -u)" -eq 0 ] || fail "run as root (it writes /etc and /opt and manages services)"
  [ -x "$node_bin" ] || fail "$node_bin is missing; install Node.js 20 or newer"
  major=$("$node_bin" -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || fail "Node.js $major is too old; the exporter needs 20 or newer"
fi

install_dir="$root/opt/probekit/exporter"
mkdir -p "$install_dir"
install -m 0644 "$bundle" "$install_dir/probekit-exporter.js"
# The ICMP prober's native addon, when the build made one, sits beside the bundle.
bundle_dir=$(dirname "$bundle")
for addon in "$bundle_dir"/*.node; do
  [ -e "$addon" ] && install -m 0644 "$addon" "$install_dir/"
done

mkdir -p "$root/etc"
cp -R "$files/etc/." "$root/etc/"

user=probekit-exporter
secrets=$(find "$root/etc" -type d -path '*/exporters/blackbox/secrets' | head -n 1)
if [ -z "$root" ]; then
  id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
  [ -n "$secrets" ] && chown -R "$user:$user" "$secrets" && chmod 0700 "$secrets"
fi

if [ -z "$root" ] && [ "$start" -eq 1 ]; then
  systemctl daemon-reload
  systemctl enable probekit-exporter.service
  # After the files change, restart the exporter and the agent, then check the status of both, as documented.
  systemctl restart probekit-exporter.service
  [ -n "$agent_service" ] && systemctl restart "$agent_service"
  systemctl --no-pager status probekit-exporter.service
  [ -n "$agent_service" ] && systemctl --no-pager status "$agent_service"
fi
echo "installed the probekit exporter ($arch) under ${root:-/}"
