# Cross toolchain for the linux-arm64 helper: Debian's g++-aarch64-linux-gnu.
#   cmake -S . -B build-linux-arm64 -DCMAKE_TOOLCHAIN_FILE=scripts/toolchain-aarch64.cmake ...
# scripts/build-static linux-arm64 does this and also supplies the header-only libraries.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Libraries and headers come only from the aarch64 sysroot, never from the host's
# /usr/lib or /usr/include, which hold x86-64 glibc. Programs (strip, …) are the host's.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Asio and msgpack-cxx are header-only and architecture-independent, but Debian installs
# them only into the host's /usr/include. Adding all of /usr/include to the include path
# would let x86-64 glibc headers shadow the sysroot's, so the caller must set
# ASIO_INCLUDE_DIR and MSGPACK_INCLUDE_DIR to a directory that holds just those two
# libraries (scripts/build-static links one up in the build directory).
