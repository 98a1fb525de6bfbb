#!/bin/sh
# Runs pytest as a throwaway unprivileged uid (no passwd entry needed), the way a non-root
# worker runs the sandbox; run it as root:
#     sh tests/sandbox/unprivileged.sh tests/sandbox tests/security -x -q
# The interpreter may live where that uid cannot reach it (pyenv under /root, mode 0700): a
# private mount namespace then covers the blocking directory with an empty tmpfs that shows
# only the interpreter's prefix, at its usual path. The host's mounts are not changed.
set -eu
[ "$(id -u)" -eq 0 ] || { echo "run this as root (it drops to an unprivileged uid)" >&2; exit 2; }
uid=${CODEBIAS_TEST_UID:-4242}
repo=$(cd "$(dirname "$0")/../.." && pwd)
python=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
prefix=$(python3 -c 'import os, sys; print(os.path.realpath(sys.base_prefix))')
# From a virtual environment (scripts/install's .venv), its packages come along.
packages=$(python3 -c 'import site, sys; print(":".join(site.getsitepackages()) if sys.prefix != sys.base_prefix else "")')

# The first directory on the way to the prefix that others cannot traverse, if any.
blocked=""
dir=""
for part in $(echo "$prefix" | tr '/' ' '); do
  dir="$dir/$part"
  [ "$dir" = "$prefix" ] && break
  if [ -z "$(find "$dir" -maxdepth 0 -perm -o+x)" ]; then blocked=$dir; break; fi
done

exec unshare --mount --propagation private sh -eu -c '
blocked=$1 prefix=$2 uid=$3 repo=$4 python=$5 packages=$6; shift 6
if [ -n "$blocked" ]; then
  keep=$(mktemp -d)
  mount --bind "$prefix" "$keep"
  mount -t tmpfs -o mode=0755,size=64k codebias-test "$blocked"
  mkdir -p "$prefix"
  mount --move "$keep" "$prefix"
fi
home=$(mktemp -d)
chown "$uid:$uid" "$home"
cd "$repo"
exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env \
  env HOME="$home" USER=codebias-test LOGNAME=codebias-test PATH="$(dirname "$python"):/usr/bin:/bin" PYTHONPATH="$repo${packages:+:$packages}" \
  PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -p no:cacheprovider "$@"
' sh "$blocked" "$prefix" "$uid" "$repo" "$python" "$packages" "$@"
