#!/usr/bin/env bash
# Installs the probekit exporter as a systemd service: the single-machine form. Run it from the release bundle for
# the machine's architecture (probekit-exporter-<version>-linux-<amd64|arm64>.tar.gz, unpacked):
#
#   sudo ./install.sh --exporter blackbox --vendor NAME --spec FILE [--arch amd64|arm64] [--root DIR] [--no-start] [--agent-service NAME]
#   sudo ./install.sh --exporter blackbox --files DIR ...        (DIR: what `probekit host render --out DIR` wrote)
#   sudo ./install.sh --exporter blackbox --uninstall [--root DIR] [--no-start]
#
# It renders the host files from the spec (with the probekit command in the bundle: the renderers of the cluster
# form), installs the exporter, its ICMP addon, the unit, the exporter's config and the agent's jobs, creates the
# service user, then restarts the exporter and the agent and shows the status of both. With --root, or where
# systemd is not running, it stages the files and prints the commands that remain. The options are a contract:
# scripts and configuration-management tools call it.
#
# What it installed is listed, with a checksum per file, in /var/lib/probekit-exporter/installed (readable by root
# alone; a secret file's checksum is keyed with /var/lib/probekit-exporter/key, so that it confirms no guess): a second run
# replaces only what changed and removes what the spec no longer has (a module's secret file), --uninstall removes
# exactly that list (the jobs it added to the agent file, not the file), and a file about to be replaced or removed
# that differs from what was installed (the agent file before its first edit, a file edited by hand) is kept
# beside it as FILE.probekit-backup-<time>.
set -euo pipefail

readonly MANIFEST=/var/lib/probekit-exporter/installed
readonly SUM_KEY=/var/lib/probekit-exporter/key

usage() {
  cat <<'EOF'
usage: install.sh --exporter blackbox --spec FILE [--vendor NAME] [--arch amd64|arm64] [--root DIR] [--no-start] [--agent-service NAME]
       install.sh --exporter blackbox --files DIR [--arch amd64|arm64] [--root DIR] [--no-start] [--agent-service NAME]
       install.sh --exporter blackbox --uninstall [--root DIR] [--no-start] [--agent-service NAME]
       install.sh --help

Installs the probekit exporter as a systemd service, with the agent's jobs for the spec, from this release bundle.
The exporter listens where the spec's host.listenAddress says: 127.0.0.1:9115 unless it says otherwise, so that
only the agent on this machine reaches it.

  --exporter blackbox   the exporter to install; blackbox is the one there is (required)
  --spec FILE           the spec to render the exporter's config, the agent's jobs and the unit from (required,
                        unless --files or --uninstall is given)
  --files DIR           install what `probekit host render --out DIR` rendered elsewhere, instead of --spec
  --vendor NAME         the agent's folder under /etc: /etc/NAME/agent-config.yaml (default: probekit)
  --arch amd64|arm64    the architecture of a staged tree (default: this machine's)
  --root DIR            stage everything under DIR and print the commands to run on the machine (default: /, a
                        live install)
  --no-start            install without restarting or enabling anything (default: enable and restart the
                        exporter, restart the agent)
  --agent-service NAME  the agent's systemd unit to restart (default: NAME-agent.service, NAME from --vendor)
  --uninstall           remove what the installer added: unit, exporter, config, its jobs, the service user
  -h, --help            this help

exit codes: 0 installed (or uninstalled); 1 failed (this machine, the bundle or the rendered files refused);
2 a mistake in the command line
EOF
}
# A mistake in the command line: one line saying what to change, exit 2, as the probekit command does.
mistake() {
  echo "error: $*" >&2
  exit 2
}
fail() {
  echo "install.sh: $*" >&2
  exit 1
}

if [ $# -eq 0 ]; then
  usage >&2
  exit 2
fi
exporter="" vendor="" spec="" files="" arch="" root="" agent_service="" start=1 uninstall=0 staged=0
while [ $# -gt 0 ]; do
  flag=$1
  case "$flag" in
    --exporter | --vendor | --spec | --files | --arch | --root | --agent-service)
      if [ $# -lt 2 ] || [ -z "$2" ] || [ "${2#--}" != "$2" ]; then
        mistake "$flag needs a value ($flag VALUE; install.sh --help lists them)"
      fi
      case "$flag" in
        --exporter) exporter=$2 ;;
        --vendor) vendor=$2 ;;
        --spec) spec=$2 ;;
        --files) files=$2 ;;
        --arch) arch=$2 ;;
        --root) root=$2 staged=1 ;;
        --agent-service) agent_service=$2 ;;
      esac
      shift 2
      ;;
    --no-start) start=0 && shift ;;
    --uninstall) uninstall=1 && shift ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) mistake "unknown argument '$flag'; install.sh --help lists the flags" ;;
  esac
done

# Every value is checked against what it may be before it is used, written to a file or printed: a newline in a
# value would add a line to the install record, a ; or a space would change the commands printed for root to run.
# The grammars are probekit's (--vendor: `probekit host render`'s) and systemd's (unit names).
readonly VENDOR_RULE='^[a-z0-9][a-z0-9._-]{0,62}$'
readonly UNIT_RULE='^[A-Za-z0-9][A-Za-z0-9:_.@-]{0,240}$'
readonly USER_RULE='^[a-z_][a-z0-9_-]{0,31}$'
# An absolute path of ordinary names: no control characters, spaces, quotes, no . or .. component.
readonly PATH_RULE='^(/[A-Za-z0-9_@:+,=-][A-Za-z0-9._@:+,=-]*)+$'
matches() { [[ $1 =~ $2 ]] && [[ $1 != *$'\n'* ]]; }
[[ "$spec$files$root" != *[[:cntrl:]]* ]] || mistake "--spec, --files and --root take paths without control characters (a newline, a tab)"
[ -z "$vendor" ] || matches "$vendor" "$VENDOR_RULE" || mistake "--vendor: use 1 to 63 lower-case letters, digits, . _ -, starting with a letter or digit (it names a folder under /etc)"
[ -z "$agent_service" ] || matches "$agent_service" "$UNIT_RULE" || mistake "--agent-service: use a systemd unit name: letters, digits, : _ . @ -, for example acme-agent.service"
[ -n "$exporter" ] || mistake "--exporter is required: give --exporter blackbox"
[ "$exporter" = blackbox ] || mistake "--exporter: only blackbox is available (got '${exporter}'); give --exporter blackbox"
if [ "$uninstall" -eq 1 ]; then
  [ -z "$spec$files$vendor$arch" ] || mistake "--uninstall takes no --spec, --files, --vendor or --arch: it removes what the last install recorded"
elif [ -n "$spec" ] && [ -n "$files" ]; then
  mistake "give --spec FILE or --files DIR, not both"
elif [ -z "$spec$files" ]; then
  mistake "--spec is required: the spec to install from (or --files DIR, a tree from 'probekit host render')"
fi
[ -z "$files" ] || [ -z "$vendor" ] || mistake "--vendor applies to --spec; the tree given with --files was rendered for its vendor already"
vendor=${vendor:-probekit}
case "$arch" in "" | amd64 | arm64) ;; *) mistake "--arch: use amd64 or arm64 (got '$arch')" ;; esac

# Relative paths are the caller's.
[ -z "$spec" ] || spec=$(realpath -e -- "$spec" 2>/dev/null) || mistake "--spec: no such file; check the path (a relative one is read from $PWD)"
[ -z "$files" ] || files=$(realpath -e -- "$files" 2>/dev/null) || mistake "--files: no such folder; check the path (a relative one is read from $PWD)"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# What of the bundle runs or is installed, each checked against the bundle's SHA256SUMS before any of it runs: a file
# changed since the release (on disk, in transit, by another user of this machine) is refused. SHA256SUMS itself is
# checked against the release's (docs/host.md, "Check the bundle").
readonly BUNDLE_PARTS=(probekit-exporter.js icmp_socket.node probekit.js install.sh)
for part in "${BUNDLE_PARTS[@]}" SHA256SUMS; do
  [ -f "$here/$part" ] || fail "$here has no $part: run the install.sh of a release bundle (in the repository: npm run package in exporter/, then unpack probekit-exporter-<version>-linux-<arch>.tar.gz)"
done
for part in "${BUNDLE_PARTS[@]}"; do
  expected=$(awk -v file="$part" '$2 == file { print $1 }' "$here/SHA256SUMS")
  [ "$(sha256sum <"$here/$part" | cut -d' ' -f1)" = "$expected" ] ||
    fail "$here/$part is not the file the bundle's SHA256SUMS lists: it changed since the release; unpack the release again (docs/host.md, \"Check the bundle\")"
done

# The staging folder is made before any relative path is resolved elsewhere.
if [ "$staged" -eq 1 ]; then
  mkdir -p -- "$root"
  root=$(realpath -- "$root")
  [ "$root" != / ] || root=""
fi

# Under a staged root, no component of a path the installer reads or writes may be a symbolic link: a link
# (etc -> /etc) would carry what it writes, secrets included, out of the root. The root itself was resolved above.
inside_root() {
  [ -n "$root" ] || return 0
  local rest=$1 part at=$root
  while [ -n "$rest" ]; do
    rest=${rest#/}
    part=${rest%%/*}
    rest=${rest#"$part"}
    at=$at/$part
    [ ! -L "$at" ] || fail "$at is a symbolic link: a staged install follows none (it could lead out of $root); replace it with the folder or file itself"
    [ -e "$at" ] || return 0
  done
}

case "$(uname -m)" in
  x86_64 | amd64) machine=amd64 ;;
  aarch64 | arm64) machine=arm64 ;;
  *) fail "this machine is $(uname -m); the exporter is installed on amd64 and arm64 only" ;;
esac
arch=${arch:-$machine}
[ "$staged" -eq 1 ] || [ "$arch" = "$machine" ] || mistake "--arch $arch: this machine is $machine; a live install is for this machine (stage another with --root DIR)"

# The bundle's architecture is its ICMP addon's: the ELF header's machine field (62 x86-64, 183 AArch64).
case "$(od -An -tu2 -j18 -N2 "$here/icmp_socket.node" | tr -d ' ')" in
  62) bundle_arch=amd64 ;;
  183) bundle_arch=arm64 ;;
  *) fail "$here/icmp_socket.node is not an amd64 or arm64 addon; the bundle is damaged" ;;
esac
if [ "$uninstall" -eq 0 ] && [ "$bundle_arch" != "$arch" ]; then
  if [ "$staged" -eq 1 ]; then
    fail "this bundle is for $bundle_arch, but --arch is $arch: use the linux-$arch bundle, or --arch $bundle_arch"
  fi
  fail "this bundle is for $bundle_arch, but this machine is $machine: use the linux-$machine bundle"
fi

if [ "$staged" -eq 0 ]; then
  [ "$(id -u)" -eq 0 ] || fail "run as root (it writes /etc, /opt and /var/lib and manages services), or stage with --root DIR"
fi
# The probekit command runs on this machine's Node, whatever the staged tree's architecture.
node_here=$(command -v node || true)
[ -n "$node_here" ] || fail "node is not on the PATH; install Node.js 20 or newer (the distribution's nodejs package)"
node_version() { "$1" -p 'process.versions.node.split(".")[0]'; }
[ "$(node_version "$node_here")" -ge 20 ] || fail "$node_here is Node.js $(node_version "$node_here"); the exporter needs 20 or newer"

systemd_running=0
[ "$staged" -eq 1 ] || [ ! -d /run/systemd/system ] || systemd_running=1

staging=$(mktemp -d)
trap 'rm -rf -- "$staging"' EXIT
probekit() { "$node_here" "$here/probekit.js" "$@" >/dev/null; }

# What the last install recorded: "file SHA256 PATH", "dir PATH" (folders it made), "user NAME", and the vendor,
# unit and agent service it installed for.
# A secret file's line is "secret SUM PATH", its SUM keyed (SHA-256 of the key file, then the file).
inside_root "$MANIFEST"
inside_root "$SUM_KEY"
manifest() { if [ -f "$root$MANIFEST" ]; then cat -- "$root$MANIFEST"; fi; }
manifest_value() { manifest | sed -n "s/^$1 //p" | head -n 1; }
manifest_files() { manifest | awk '$1 == "file" || $1 == "secret" { print $3 }'; }
# The record is checked once, here, each value against its grammar: a record edited by hand is refused, not obeyed
# (later reads run in subshells, where a failure would not stop the installer).
record_mistake() { fail "${root}$MANIFEST: $1 is not what install.sh writes; restore the file or remove the line"; }
for field in vendor:"$VENDOR_RULE" unit:"$UNIT_RULE" agent-service:"$UNIT_RULE" user:"$USER_RULE"; do
  value=$(manifest_value "${field%%:*}")
  [ -z "$value" ] || matches "$value" "${field#*:}" || record_mistake "its ${field%%:*} line"
done
while read -r path; do
  matches "$path" "$PATH_RULE" || record_mistake "'$path'"
done < <(manifest_files; manifest | sed -n 's/^dir //p')
manifest_entry() { manifest | awk -v path="$1" '($1 == "file" || $1 == "secret") && $3 == path { print $1, $2; exit }'; }
sum_of() {
  if [ "$2" = secret ]; then
    { cat -- "$root$SUM_KEY" 2>/dev/null || true; cat -- "$1"; } | sha256sum | cut -d' ' -f1
  else
    sha256sum <"$1" | cut -d' ' -f1
  fi
}

if [ "$uninstall" -eq 1 ]; then
  [ -f "$root$MANIFEST" ] || fail "nothing to uninstall: ${root}$MANIFEST, the record of an install, is not there"
  vendor=$(manifest_value vendor)
  [ -n "$vendor" ] || fail "the record ${root}$MANIFEST names no vendor"
  inside_root "/etc/$vendor/exporters/blackbox/agent-jobs.yaml"
  inside_root "/etc/$vendor/agent-config.yaml"
  # The agent file without probekit's jobs (or nothing, when nothing else was in it) is all that stays.
  probekit host remove-jobs --vendor "$vendor" --from "${root:-/}" --out "$staging" || fail "the agent file could not be edited (above); nothing was changed"
else
  if [ -n "$spec" ]; then
    inside_root "/etc/$vendor/exporters/blackbox/agent-jobs.yaml"
    inside_root "/etc/$vendor/agent-config.yaml"
    # The machine's agent file and the record of probekit's jobs are read from the root, and the result staged.
    probekit host render --spec "$spec" --vendor "$vendor" --from "${root:-/}" --out "$staging" || fail "the host files could not be rendered (above); nothing was changed"
  else
    [ -d "$files/etc/systemd/system" ] || fail "--files $files: not a tree from 'probekit host render --out DIR' (it holds etc/systemd/system)"
    odd=$(find "$files" ! -type f ! -type d -print -quit)
    [ -z "$odd" ] || fail "--files $files: $odd is not a file or a folder; the tree holds only what 'probekit host render' writes"
    cp -a -- "$files/." "$staging/"
  fi
  units=("$staging"/etc/systemd/system/*.service)
  [ -f "${units[0]}" ] || fail "no unit was rendered under etc/systemd/system"
  unit_file=${units[0]#"$staging"}
  while IFS= read -r -d '' staged_file; do
    matches "${staged_file#"$staging"}" "$PATH_RULE" || fail "the rendered tree holds '${staged_file#"$staging"}', not a path install.sh installs"
  done < <(find "$staging" -mindepth 1 -print0)
  agent_files=("$staging"/etc/*/agent-config.yaml)
  [ -f "${agent_files[0]}" ] || fail "no agent file was rendered under etc/<vendor>/"
  vendor=$(basename "$(dirname "${agent_files[0]}")")
  # The unit says where the exporter goes and who runs it: ExecStart=NODE BUNDLE FLAGS..., User=NAME.
  read -r node_path bundle_path config_flag _ < <(sed -n 's/^ExecStart=//p' "$staging$unit_file")
  service_user=$(sed -n 's/^User=//p' "$staging$unit_file")
  matches "$(basename "$unit_file")" "$UNIT_RULE" || fail "the rendered unit's name is not a systemd unit name"
  matches "$service_user" "$USER_RULE" || fail "the rendered unit's User= is not a user name (lower-case letters, digits, _ -)"
  for value in "$node_path" "$bundle_path" "${config_flag#--config.file=}"; do
    matches "$value" "$PATH_RULE" || fail "the rendered unit's ExecStart names '$value', not a path install.sh installs"
  done
  install_dir=$(dirname "$bundle_path")
  mkdir -p "$staging$install_dir"
  # The installer and the probekit command go too: /opt/probekit/exporter/install.sh --uninstall works later.
  for part in "${BUNDLE_PARTS[@]}" SHA256SUMS; do cp -p -- "$here/$part" "$staging$install_dir/$part"; done
  if [ "$staged" -eq 0 ]; then
    [ -x "$node_path" ] || fail "$node_path (the unit's ExecStart) is missing; install Node.js 20 or newer from the distribution"
    [ "$(node_version "$node_path")" -ge 20 ] || fail "$node_path is Node.js $(node_version "$node_path"); the exporter needs 20 or newer"
  fi
  # The exporter checks its config before anything is replaced (the bundle's JavaScript runs on any architecture).
  config_file=${config_flag#--config.file=}
  check=$("$node_here" "$staging$bundle_path" --config.check "--config.file=$staging$config_file" 2>&1) || fail "the exporter refuses the rendered config: $check"
fi
# The agent's unit: named, else the one the install recorded (uninstalling), else the vendor's.
[ -n "$agent_service" ] || [ "$uninstall" -eq 0 ] || agent_service=$(manifest_value agent-service)
agent_service=${agent_service:-$vendor-agent.service}
unit_name=$(basename "${unit_file:-$(manifest_value unit)}")
[ "$unit_name" != . ] || fail "the record ${root}$MANIFEST names no unit"

if [ "$uninstall" -eq 1 ] && [ "$systemd_running" -eq 1 ] && [ "$start" -eq 1 ]; then
  systemctl disable --now "$unit_name" || true
fi

# Each staged file replaces the machine's when it differs; a file of the last install not staged now is removed.
# A file that differs from what the installer last wrote is kept as a backup first.
backup() {
  local target=$root$1 kind recorded
  [ -e "$target" ] || return 0
  read -r kind recorded < <(manifest_entry "$1") || true
  [ "$(sum_of "$target" "${kind:-file}")" != "${recorded:-}" ] || return 0
  cp -p -- "$target" "$target.probekit-backup-$(date -u +%Y%m%dT%H%M%S.%NZ)"
}
created_dirs=()
mapfile -t created_dirs < <(manifest | sed -n 's/^dir //p')
make_parents() {
  local dir missing=()
  dir=$(dirname "$1")
  while [ "$dir" != / ] && [ ! -d "$root$dir" ]; do
    missing=("$dir" "${missing[@]}")
    dir=$(dirname "$dir")
  done
  for dir in "${missing[@]}"; do
    inside_root "$dir"
    mkdir -m 0755 -- "$root$dir"
    created_dirs+=("$dir")
  done
}
installed=()
while IFS= read -r -d '' staged_file; do
  path=${staged_file#"$staging"}
  installed+=("$path")
  target=$root$path
  inside_root "$path"
  inside_root "$path.probekit-new"
  mode=$(stat -c %a "$staged_file")
  if [ -f "$target" ] && cmp -s "$staged_file" "$target" && [ "$(stat -c %a "$target")" = "$mode" ]; then continue; fi
  backup "$path"
  make_parents "$path"
  install -m "$mode" -- "$staged_file" "$target.probekit-new"
  mv -f -- "$target.probekit-new" "$target"
done < <(find "$staging" -type f -print0 | sort -z)
while IFS= read -r path; do
  [ -n "$path" ] || continue
  printf '%s\n' "${installed[@]}" | grep -qxF -- "$path" && continue
  inside_root "$path"
  backup "$path"
  rm -f -- "$root$path"
done < <(manifest_files)

user_created=$(manifest_value user)
secrets=()
for path in "${installed[@]}"; do [ "$(stat -c %a "$staging$path")" != 600 ] || secrets+=("$path"); done
if [ "$uninstall" -eq 0 ] && [ "$staged" -eq 0 ]; then
  if ! id -u "$service_user" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$service_user"
    user_created=$service_user
  fi
  # Secret header files: readable by the service user alone.
  for path in "${secrets[@]}"; do chown "$service_user:$service_user" "$root$path"; done
fi

if [ "$uninstall" -eq 1 ]; then
  rm -f -- "$root$MANIFEST" "$root$SUM_KEY"
  for ((index = ${#created_dirs[@]} - 1; index >= 0; index--)); do rmdir -- "$root${created_dirs[index]}" 2>/dev/null || true; done
  [ "$staged" -eq 1 ] || [ -z "$user_created" ] || userdel "$user_created" || true
else
  make_parents "$MANIFEST"
  inside_root "$MANIFEST.probekit-new"
  # The record and its key: root's alone, written with no moment of wider access.
  umask 077
  [ -s "$root$SUM_KEY" ] || od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$root$SUM_KEY"
  new_manifest=$root$MANIFEST.probekit-new
  {
    echo "# What install.sh installed, for the next install and --uninstall. Written by install.sh: do not edit."
    echo "vendor $vendor"
    echo "unit $unit_name"
    echo "agent-service $agent_service"
    [ -z "$user_created" ] || echo "user $user_created"
    for path in "${installed[@]}"; do
      if [ "$(stat -c %a "$staging$path")" = 600 ]; then echo "secret $(sum_of "$staging$path" secret) $path"; else echo "file $(sum_of "$staging$path" file) $path"; fi
    done
    printf 'dir %s\n' "${created_dirs[@]}" | sort -u | grep -v '^dir $' || true
  } >"$new_manifest"
  if cmp -s "$new_manifest" "$root$MANIFEST"; then rm -f -- "$new_manifest"; else mv -f -- "$new_manifest" "$root$MANIFEST"; fi
  # A record an older install.sh wrote was readable by everyone.
  chmod 0600 -- "$root$MANIFEST" "$root$SUM_KEY"
fi

# What remains is done by systemd; where it cannot be done here, it is printed.
# Every value in them was checked against its grammar; each is quoted for the shell all the same.
q() { printf '%q' "$1"; }
if [ "$uninstall" -eq 1 ]; then
  commands=("systemctl disable --now $(q "$unit_name")" "systemctl daemon-reload" "systemctl restart $(q "$agent_service")")
  [ "$staged" -eq 0 ] || [ -z "$user_created" ] || commands+=("userdel $(q "$user_created")")
else
  commands=()
  if [ "$staged" -eq 1 ]; then
    commands+=("id -u $(q "$service_user") >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin $(q "$service_user")")
    for path in "${secrets[@]}"; do commands+=("chown $(q "$service_user:$service_user") $(q "$path")"); done
  fi
  commands+=("systemctl daemon-reload" "systemctl enable $(q "$unit_name")" "systemctl restart $(q "$unit_name")" "systemctl restart $(q "$agent_service")"
    "systemctl --no-pager status $(q "$unit_name") $(q "$agent_service")")
fi
verb=$([ "$uninstall" -eq 1 ] && echo uninstalled || echo "installed ($arch)")
if [ "$start" -eq 0 ]; then
  echo "$verb the probekit exporter under ${root:-/}; --no-start: nothing was restarted"
elif [ "$systemd_running" -eq 0 ]; then
  echo "$verb the probekit exporter under ${root:-/}; systemd does not run here, so on the machine, as root, run:"
  printf '  %s\n' "${commands[@]}"
else
  systemctl daemon-reload
  if [ "$uninstall" -eq 0 ]; then
    systemctl enable "$unit_name"
    systemctl restart "$unit_name"
  fi
  # After the files change, the agent restarts too, and the status of both is shown, as documented.
  if systemctl cat "$agent_service" >/dev/null 2>&1; then
    systemctl restart "$agent_service"
  else
    echo "install.sh: no $agent_service on this machine: restart your agent yourself, or name its unit with --agent-service" >&2
  fi
  echo "$verb the probekit exporter"
  if [ "$uninstall" -eq 0 ]; then
    systemctl --no-pager status "$unit_name" "$agent_service" || true
    systemctl is-active --quiet "$unit_name" || fail "$unit_name is not running: see journalctl -u $unit_name"
  fi
fi
