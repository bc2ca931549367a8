# Environment of the hbcast bundle: its Java, its Open MPI relocated into the bundle, its libraries,
# and the classpath of its jars. Sourced by the other commands in bin/; source it yourself to run
# java or mpirun from the bundle by hand.
B=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export HBCAST_BUNDLE="$B"

glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ -n "$glibc" ] && [ "$(printf '%s\n2.34\n' "$glibc" | sort -V | head -n 1)" != 2.34 ]; then
  echo "hbcast bundle: error: this system has glibc $glibc; the bundle's binaries need glibc 2.34 or newer" >&2
  exit 2
fi

export JAVA_HOME="$B/jre"
export OMPI_HOME="$B/openmpi"
# Open MPI (Debian's build) finds its components, help files and configuration through these.
export OPAL_PREFIX="$OMPI_HOME" OPAL_EXEC_PREFIX="$OMPI_HOME" OPAL_BINDIR="$OMPI_HOME/bin" \
       OPAL_LIBDIR="$OMPI_HOME/lib" OPAL_PKGLIBDIR="$OMPI_HOME/lib/openmpi3" OPAL_DATAROOTDIR="$OMPI_HOME/share" \
       OPAL_DATADIR="$OMPI_HOME/share" OPAL_PKGDATADIR="$OMPI_HOME/share/openmpi" OPAL_SYSCONFDIR="$OMPI_HOME/etc" \
       OPAL_LIBEXECDIR="$OMPI_HOME/bin" OPAL_INCLUDEDIR="$OMPI_HOME/include"
# PMIx (a separate library in Debian) relocates the same way, through its own variables.
export PMIX_PREFIX="$OMPI_HOME" PMIX_EXEC_PREFIX="$OMPI_HOME" PMIX_LIBDIR="$OMPI_HOME/lib" \
       PMIX_PKGLIBDIR="$OMPI_HOME/lib/pmix" PMIX_DATAROOTDIR="$OMPI_HOME/share" PMIX_DATADIR="$OMPI_HOME/share" \
       PMIX_PKGDATADIR="$OMPI_HOME/share/pmix" PMIX_SYSCONFDIR="$OMPI_HOME/etc"
fallback=""
# libstdc++ (for the JVM and JCuda) comes from the system when it has one; the bundle's copy otherwise.
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libstdc++\.so\.6 '; then fallback=":$B/fallback"; fi
export LD_LIBRARY_PATH="$OMPI_HOME/lib$fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$JAVA_HOME/bin:$OMPI_HOME/bin:$PATH"
HBCAST_CP=$(printf '%s:' "$B"/lib/*.jar)
HBCAST_CP=${HBCAST_CP%:}
export HBCAST_CP
