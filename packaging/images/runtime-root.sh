#!/bin/sh
# The root filesystem of an image's runtime stage, gathered in a build stage from the Node image it runs on, for a
# `FROM scratch` stage to copy whole: Node, the shared libraries it and the other programs named here load (as ldd
# lists them: glibc, libstdc++, libgcc), the users node (1000) and nobody (65534), the name-service order of
# Debian's base, and the files and folders a container runtime mounts over. No shell, no package manager, no npm.
# Usage (in a Dockerfile's build stage): sh runtime-root.sh DEST [PROGRAM...]   e.g. /usr/bin/env for a bin's shebang
set -eu
dest=$1
shift
mkdir -p "$dest/etc" "$dest/dev" "$dest/proc" "$dest/sys" "$dest/usr/local/bin"
install -d -m 1777 "$dest/tmp"
for program in /usr/local/bin/node "$@"; do
  mkdir -p "$dest$(dirname "$program")"
  cp -L "$program" "$dest$program"
  # Every library the program loads, and the dynamic loader (the one line of ldd's output without an arrow).
  ldd "$program" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | while read -r library; do
    [ -e "$dest$library" ] || cp -L --parents "$library" "$dest"
  done
done
cp /etc/nsswitch.conf "$dest/etc/nsswitch.conf"
# What a container runtime mounts over with its own; these serve where none does.
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$dest/etc/hosts"
: >"$dest/etc/resolv.conf"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnode:x:1000:1000::/home/node:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$dest/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n' >"$dest/etc/group"
