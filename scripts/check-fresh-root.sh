#!/usr/bin/env bash
# Checks that README.md's two commands hold on a fresh Debian 12 (bookworm) machine, not only on
# this one: builds a minimal bookworm root with debootstrap, gives it Swift the way a user has it,
# clones the current commit into it (so .build, out/ and anything uncommitted or ignored are not
# there) and runs, as root inside a chroot (like CI), each line of README.md's fenced block that
# starts with `scripts/setup &&`, verbatim. Prints pass/fail per command, the time of each step
# of the command and the test count from the XCTest summary.
#
#   scripts/check-fresh-root.sh [--root DIR] [--cache DIR] [--keep]
#
#   --root DIR   build the root in DIR (new or empty; default: a new folder under /var/tmp)
#   --cache DIR  where the bare root's tarball and the run logs are kept
#                (default: ${XDG_CACHE_HOME:-$HOME/.cache}/photogrammetry-fresh-root); a rerun
#                unpacks the tarball instead of running debootstrap again (delete it to refresh)
#   --keep       keep the root afterwards (e.g. `chroot DIR` to look around); default: removed
#
# Needs root (debootstrap, mount, chroot) and the network for Debian's packages and PyPI. It
# touches nothing outside its root and its cache folder: every mount is made in a private mount
# namespace (unshare), so none of them is seen outside, and all are gone when it ends. Takes 25
# to 45 minutes on two shared cores (the build and the tests; debootstrap adds 4 minutes when the
# cache is empty); run it under `nice -n 10` on a shared machine. Exit code 0 when every command
# passed.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
swift_dir=/opt/swift
suite=bookworm
mirror=http://deb.debian.org/debian

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

# ---------------------------------------------------------------------------------------------
# Inner part: runs in a private mount namespace (see the end of the file), with the variables
# the outer part exported. Mounts, installs Swift's own dependencies, runs the README commands.
# ---------------------------------------------------------------------------------------------
if [ "${FRESH_ROOT_INNER:-}" = 1 ]; then
  root=$FRESH_ROOT_DIR
  logs=$FRESH_ROOT_LOGS
  mounted=()
  unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
      umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" 2>/dev/null || true
    done
    mounted=()
  }
  trap unmount_all EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  mnt() { # mnt TARGET MOUNT-ARGS...
    local target=$1; shift
    mount "$@" "$target"
    mounted+=("$target")
  }

  # /proc of its own; the machine's /sys with what is mounted below it (/sys/fs/cgroup, which
  # systemd mounts on a fresh machine and slurmd needs: SlurmClusterTests), every mount of it
  # read-only, as a container may give it (a fresh machine's /sys is nobody's scratch space);
  # /dev and /dev/pts, /dev/shm from the host (devices, ptys for tools that want a terminal, POSIX
  # shared memory); /tmp is the root's own folder on disk (a tmpfs would put the build's and
  # tests' temporaries in memory), emptied with mode 1777.
  mnt "$root/proc" -t proc proc
  mnt "$root/sys" --rbind /sys
  mount --make-rslave "$root/sys"
  for m in $(awk -v r="$root/sys" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo); do
    mount -o remount,bind,ro "$m"
  done
  mnt "$root/dev" --bind /dev
  mkdir -p "$root/dev/pts" "$root/dev/shm"
  mnt "$root/dev/pts" --bind /dev/pts
  mnt "$root/dev/shm" --bind /dev/shm
  rm -rf "${root:?}/tmp" && mkdir -m 1777 "$root/tmp"
  # Swift 6 as a user has it installed: the toolchain folder, read-only, on PATH.
  mkdir -p "$root$swift_dir"
  mnt "$root$swift_dir" --bind "$swift_dir"
  mount -o remount,bind,ro "$root$swift_dir"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # debootstrap writes no /etc/hosts; Debian's installer writes this one (the machine's name on
  # 127.0.1.1), and Slurm's daemons (SlurmClusterTests) look the name up.
  [ -e "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n\n::1\tlocalhost ip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n' \
    "$(hostname)" >"$root/etc/hosts"

  path="$swift_dir/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  in_root() { # the environment of a root login on a fresh machine: no LANG, no pip config
    chroot "$root" /usr/bin/env -i HOME=/root PATH="$path" TERM=dumb USER=root LOGNAME=root \
      SHELL=/bin/bash "$@"
  }
  now() { date +%s; }

  # "The Swift install": what swift.org's Linux instructions have a Debian 12 user install
  # beside the toolchain (the compiler driver links with gcc's crt files and libstdc++, Foundation
  # loads libcurl and libxml2, the REPL and the package manager libedit, sqlite, ncurses and
  # Python; git to have cloned the repository). It is not the project's setup, which must bring
  # everything else itself: scripts/setup runs next, on top of exactly this.
  swift_packages=(binutils binutils-gold gcc libc6-dev libstdc++-12-dev libgcc-12-dev
    libcurl4 libxml2 libedit2 libsqlite3-0 libncurses6 libpython3.11 tzdata
    zlib1g-dev uuid-dev git ca-certificates)
  t0=$(now)
  echo "fresh-root: the Swift install: ${swift_packages[*]}"
  if ! in_root bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends ${swift_packages[*]} >/dev/null" >"$logs/swift-install.log" 2>&1; then
    tail -n 30 "$logs/swift-install.log"
    echo "fresh-root: the Swift install failed (log: $logs/swift-install.log)"
    exit 2
  fi
  in_root swift --version >>"$logs/swift-install.log" 2>&1 || {
    tail -n 30 "$logs/swift-install.log"; echo "fresh-root: swift does not run in the root"; exit 2; }
  echo "fresh-root: the Swift install took $(($(now) - t0)) s ($(in_root swift --version 2>&1 | head -n 1))"
  # The network this machine is on: certificate authorities it added locally (a proxy that
  # inspects TLS, as PyPI is reached here) are trusted in the root too, as on any machine of this
  # network; without them pip fails with CERTIFICATE_VERIFY_FAILED. Not a step of the project's.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    in_root update-ca-certificates >>"$logs/swift-install.log" 2>&1
    echo "fresh-root: trusts this network's certificate authorities: $(cd /usr/local/share/ca-certificates && echo *.crt)"
  fi

  # Each README command, verbatim, in a fresh shell at the repository's root; the shell's trace
  # (to its own file, stamped with the time) tells when each step of the command started.
  status=0
  n=0
  while IFS= read -r command; do
    n=$((n + 1))
    log="$logs/command-$n.log"
    trace="$root/tmp/fresh-root-trace-$n"
    echo
    echo "fresh-root: [$n] $command"
    start=$(now)
    set +e
    in_root bash -c 'cd /root/photogrammetry || exit 99
      exec 9>"/tmp/fresh-root-trace-'"$n"'"; BASH_XTRACEFD=9; PS4="+[\$EPOCHSECONDS] "; set -x
      '"$command" 2>&1 </dev/null | tee "$log" | sed -u 's/^/    /'
    rc=${PIPESTATUS[0]}
    set -e
    end=$(now)
    # Steps: the trace's top-level lines ("+[T] word ..."), each lasting until the next starts.
    steps=$(grep -E '^\+\[[0-9]+\] ' "$trace" 2>/dev/null || true)
    summary=""
    if [ -n "$steps" ]; then
      summary=$(printf '%s\n' "$steps" | awk -v end="$end" '
        { t[NR] = substr($1, 3, length($1) - 3); $1 = ""; s[NR] = substr($0, 2) }
        END { for (i = 1; i <= NR; i++) { e = (i < NR) ? t[i + 1] : end
              w = s[i]; if (length(w) > 70) w = substr(w, 1, 67) "..."
              printf "      %5d s  %s\n", e - t[i], w } }')
    fi
    # XCTest's closing summary ("Executed N tests, with [K tests skipped and ]F failures (U
    # unexpected) in S seconds"), Swift Testing's ("Test run with N tests ... passed/failed"), the
    # failed tests, and the skipped ones with their reasons (a skip can hide a missing install).
    xctest=$(grep -E "Executed [0-9]+ tests?, with " "$log" | tail -n 1 \
      | sed -E 's/.*(Executed [0-9]+ tests?, with .*\([0-9]+ unexpected\)).*/\1/' || true)
    testing=$(grep -E "Test run with [0-9]+ tests?" "$log" | tail -n 1 | sed -E 's/^[^A-Za-z]*//' || true)
    failed=$(grep -E "^Test Case '.*' failed" "$log" | sed -E "s/^Test Case '([^']*)' failed.*/\1/" \
      | sort -u || true)
    # SwiftPM's own build times ("Build complete! (372.00s)"): swift test builds the tests first.
    builds=$(grep -oE 'Build complete! \([0-9.]+s\)' "$log" | sed -E 's/.*\(([0-9.]+)s\)/\1 s/' | paste -sd, - \
      | sed 's/,/, /g' || true)
    skipped=$(grep -E " : Test skipped" "$log" | sed -E 's/^.*: ([A-Za-z0-9_]+\.[A-Za-z0-9_]+) : Test skipped( - )?/\1: /' \
      | sort -u || true)
    if [ "$rc" -eq 0 ]; then verdict=PASS; else verdict="FAIL (exit $rc)"; status=1; fi
    {
      echo "fresh-root: [$n] $verdict in $((end - start)) s: $command"
      [ -n "$summary" ] && printf '%s\n' "$summary"
      [ -n "$builds" ] && echo "      SwiftPM builds in it: $builds"
      [ -n "$xctest" ] && echo "      XCTest: $xctest"
      [ -n "$testing" ] && echo "      Swift Testing: $testing"
      [ -n "$failed" ] && { echo "      failed:"; printf '        %s\n' $failed; }
      [ -n "$skipped" ] && { echo "      skipped:"; printf '%s\n' "$skipped" | cut -c1-150 | sed 's/^/        /'; }
      echo "      log: $log"
    } | tee -a "$logs/summary.txt"
  done < <(grep -E '^scripts/setup && ' "$root/root/photogrammetry/README.md")
  if [ "$n" -eq 0 ]; then
    echo "fresh-root: README.md has no line starting with 'scripts/setup && '" | tee -a "$logs/summary.txt"
    status=2
  fi
  exit "$status"
fi

# ---------------------------------------------------------------------------------------------
# Outer part: options, the bare root (from the cache or debootstrap), the clone, then the inner
# part in a private mount namespace, then the root's removal.
# ---------------------------------------------------------------------------------------------
root=""
cache="${XDG_CACHE_HOME:-$HOME/.cache}/photogrammetry-fresh-root"
keep=0
while (($#)); do
  case $1 in
    --root) root=${2:?--root needs a folder}; shift 2 ;;
    --root=*) root=${1#--root=}; shift ;;
    --cache) cache=${2:?--cache needs a folder}; shift 2 ;;
    --cache=*) cache=${1#--cache=}; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "check-fresh-root: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "check-fresh-root: needs root (debootstrap, mount, chroot)" >&2; exit 2; }
[ -x "$swift_dir/usr/bin/swift" ] || { echo "check-fresh-root: no Swift at $swift_dir" >&2; exit 2; }

if [ -z "$root" ]; then
  root=$(mktemp -d /var/tmp/photogrammetry-fresh-root.XXXXXX)
else
  mkdir -p "$root"
  [ -z "$(ls -A "$root")" ] || { echo "check-fresh-root: $root is not empty" >&2; exit 2; }
fi
root=$(cd "$root" && pwd -P)
[ "$root" != / ] || exit 2
mkdir -p "$cache"
cache=$(cd "$cache" && pwd -P)
logs="$cache/logs/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$logs"
: >"$logs/summary.txt"
tarball="$cache/$suite-minbase-$(dpkg --print-architecture).tar.gz"

# Anything still mounted under the root (seen from here) or any process still running in it?
mounts_under_root() { awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo; }
stop_processes_in_root() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill "${p#/proc/}" 2>/dev/null || true
  done
}
cleanup() {
  stop_processes_in_root
  if [ "$keep" = 1 ]; then
    echo "fresh-root: kept the root at $root"
  elif [ -n "$(mounts_under_root)" ]; then
    echo "fresh-root: NOT removing $root: still mounted: $(mounts_under_root | tr '\n' ' ')" >&2
  else
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now() { date +%s; }
t0=$(now)
if [ -s "$tarball" ]; then
  tar -xzpf "$tarball" --numeric-owner -C "$root"
  echo "fresh-root: bare $suite root unpacked from $tarball in $(($(now) - t0)) s"
else
  if ! command -v debootstrap >/dev/null; then
    echo "fresh-root: installing debootstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  echo "fresh-root: debootstrap --variant=minbase $suite (log: $logs/debootstrap.log)"
  # In a private mount namespace too: debootstrap mounts /proc and /sys in the target.
  if ! unshare --mount --propagation private \
      debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$logs/debootstrap.log" 2>&1; then
    tail -n 20 "$logs/debootstrap.log"; echo "fresh-root: debootstrap failed"; exit 2
  fi
  # A fresh install's sources: the release, its updates and security.
  cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb http://deb.debian.org/debian-security $suite-security main
EOF
  rm -rf "${root:?}"/var/cache/apt/archives/*.deb "${root:?}"/var/lib/apt/lists/*
  [ -z "$(mounts_under_root)" ] || { echo "fresh-root: debootstrap left mounts in $root" >&2; exit 2; }
  tar -czpf "$tarball.part" --numeric-owner -C "$root" . && mv "$tarball.part" "$tarball"
  echo "fresh-root: debootstrap took $(($(now) - t0)) s; bare root cached as $tarball"
fi
echo "fresh-root: root at $root, logs in $logs"

# The repository as a user gets it: a clone of the current commit.
commit=$(git -C "$repo" rev-parse HEAD)
branch=$(git -C "$repo" symbolic-ref -q --short HEAD || true)
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] \
  || echo "fresh-root: note: uncommitted changes in $repo are not in the check (it clones $commit)"
git clone -q --no-hardlinks ${branch:+--branch "$branch"} "$repo" "$root/root/photogrammetry"
git -C "$root/root/photogrammetry" checkout -q --detach "$commit"
echo "fresh-root: cloned ${branch:-HEAD} at $(git -C "$repo" log -1 --format='%h %s' | cut -c1-80)"

set +e
FRESH_ROOT_INNER=1 FRESH_ROOT_DIR="$root" FRESH_ROOT_LOGS="$logs" \
  unshare --mount --propagation private "${BASH_SOURCE[0]}"
status=$?
set -e
echo
echo "fresh-root: summary (total $(($(now) - t0)) s; logs in $logs)"
cat "$logs/summary.txt"
if [ "$status" -eq 0 ]; then echo "fresh-root: PASS"; else echo "fresh-root: FAIL"; fi
exit "$status"
