# Cross toolchain for the darwin helpers: zig's clang with its bundled macOS libc
# headers and libSystem stubs, run through the wrappers that scripts/build-static
# writes (zig-cc/zig-c++ in the build directory, each `zig cc|c++ -target <arch>-macos`).
#   cmake -S . -B build-darwin-arm64 -DCMAKE_TOOLCHAIN_FILE=scripts/toolchain-darwin.cmake \
#     -DSPAWNHOST_ZIG_WRAPPERS=<dir> -DCMAKE_SYSTEM_PROCESSOR=arm64 ...
set(CMAKE_SYSTEM_NAME Darwin)
set(CMAKE_C_COMPILER "${SPAWNHOST_ZIG_WRAPPERS}/zig-cc")
set(CMAKE_CXX_COMPILER "${SPAWNHOST_ZIG_WRAPPERS}/zig-c++")
# No Xcode here: zig brings the SDK headers, so CMake must not look for a sysroot.
set(CMAKE_OSX_SYSROOT "" CACHE PATH "" FORCE)
set(CMAKE_OSX_DEPLOYMENT_TARGET "" CACHE STRING "" FORCE)
# Nothing from the host's /usr/include or /usr/lib (Linux glibc): the caller sets
# ASIO_INCLUDE_DIR and MSGPACK_INCLUDE_DIR to a directory holding only those two.
set(CMAKE_FIND_ROOT_PATH /nonexistent)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
