# Cross toolchain for the win32-x64 helper: Debian's g++-mingw-w64-x86-64-posix (the
# posix thread model: std::thread for the launch pool).
#   cmake -S . -B build-win32-x64 -DCMAKE_TOOLCHAIN_FILE=scripts/toolchain-mingw64.cmake ...
# scripts/build-static win32-x64 does this and also supplies the header-only libraries.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# As for aarch64: asio and msgpack-cxx headers must come from a directory holding only
# them (ASIO_INCLUDE_DIR, MSGPACK_INCLUDE_DIR), never the host's whole /usr/include.
