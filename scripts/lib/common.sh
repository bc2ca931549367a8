# Shared helpers for hbcast's scripts: where the repository and Open MPI are, and how to talk.
# Sourced, not executed.

HBCAST_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

say()  { printf '%s\n' "hbcast: $*" >&2; }
die()  { printf '%s\n' "hbcast: error: $*" >&2; exit 2; }
is_root() { [ "$(id -u)" = 0 ]; }

# Finds mpirun: OMPI_HOME first (an Open MPI built elsewhere), then PATH. Prints nothing if absent.
find_mpirun() {
  if [ -n "${OMPI_HOME:-}" ] && [ -x "$OMPI_HOME/bin/mpirun" ]; then
    printf '%s\n' "$OMPI_HOME/bin/mpirun"
  else
    command -v mpirun 2>/dev/null || true
  fi
}

# Open MPI's version (e.g. 4.1.4) from the mpirun found by find_mpirun.
ompi_version() {
  "$1" --version 2>/dev/null | sed -n 's/^mpirun (Open MPI) \([0-9][0-9.]*\).*/\1/p' | head -n 1
}

# The directory holding Open MPI's libraries, libmpi_java.so among them.
ompi_libdir() {
  local bindir info
  bindir=$(dirname "$(readlink -f "$1")")
  info="$bindir/ompi_info"
  if [ -x "$info" ]; then
    "$info" --path libdir --parsable 2>/dev/null | sed -n 's/^path:libdir://p'
  else
    printf '%s\n' "$bindir/../lib"
  fi
}

# The mpi.jar shipped with an Open MPI built with --enable-mpi-java, if any.
shipped_mpi_jar() {
  local mpirun=$1 candidate
  for candidate in ${OMPI_HOME:+"$OMPI_HOME/lib/mpi.jar"} \
                   "$(dirname "$(readlink -f "$mpirun")")/../lib/mpi.jar" \
                   "$(ompi_libdir "$mpirun")/mpi.jar"; do
    if [ -f "$candidate" ]; then readlink -f "$candidate"; return 0; fi
  done
  return 0
}

m2_repo() { printf '%s\n' "${HBCAST_M2_REPO:-$HOME/.m2/repository}"; }
mpi_jar_in_repo() { printf '%s\n' "$(m2_repo)/org/open-mpi/mpi/$1/mpi-$1.jar"; }

# Environment every hbcast script and build uses once setup has run.
load_ompi_env() {
  MPIRUN=$(find_mpirun)
  [ -n "$MPIRUN" ] || die "Open MPI is not installed (no mpirun on PATH, OMPI_HOME unset): run scripts/setup"
  OMPI_VERSION=$(ompi_version "$MPIRUN")
  [ -n "$OMPI_VERSION" ] || die "cannot read Open MPI's version from '$MPIRUN --version'"
  OMPI_LIBDIR=$(ompi_libdir "$MPIRUN")
  export MPIRUN OMPI_VERSION OMPI_LIBDIR
}

MVN_FLAGS=(-B -ntp)

# Runs hbcast-bench (org.hbcast.bench.cli.HbcastBench, the experiments' command) in place of the
# calling script, with the build's classpath and, where Open MPI is here, its libraries (tune explain
# and fingerprint load the bindings in that JVM).
exec_bench() {
  local cpfile="$HBCAST_ROOT/bench/target/runtime-classpath.txt" libpath=()
  [ -f "$cpfile" ] || die "no build found ($cpfile is missing): run scripts/setup first"
  if [ -n "$(find_mpirun)" ]; then
    load_ompi_env
    libpath=(-Djava.library.path="$OMPI_LIBDIR")
  fi
  exec java "${libpath[@]}" -Dhbcast.root="$HBCAST_ROOT" \
    -cp "$HBCAST_ROOT/bench/target/classes:$(cat "$cpfile")" org.hbcast.bench.cli.HbcastBench "$@"
}
