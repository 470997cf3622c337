// The strings CreateProcessW needs, built the way libuv builds them for Node on Windows
// (src/win/process.c): UTF-16 text, the quoted command line, the sorted environment
// block, and the program found on PATH. Pure functions apart from search_path's file
// checks, so they are easy to reason about against libuv's rules.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spawnhost::windows {

// UTF-8 → UTF-16 (unpaired surrogates encoded as WTF-8 survive, as in libuv).
std::wstring widen(std::string_view text);
std::string narrow(std::wstring_view text);

// One argument quoted by the MSVC C runtime's parsing rules: untouched when it has no
// space, tab or quote; otherwise in quotes, with backslashes doubled only where they
// precede a quote. An empty argument becomes "".
std::wstring quote_argument(std::wstring_view arg);

// argv joined by spaces; `verbatim` (windowsVerbatimArguments) skips quoting.
std::wstring command_line(const std::vector<std::string>& argv, bool verbatim);

// KEY=VALUE strings as a CreateProcessW block: sorted by name ignoring case, as Windows
// expects; SYSTEMROOT, SYSTEMDRIVE and TEMP added from the helper's own environment
// when missing (Winsock fails without SYSTEMROOT); double-NUL terminated.
std::wstring environment_block(const std::vector<std::string>& env);

// The value of PATH in `env` (names compare without case), if any.
std::optional<std::wstring> find_path_variable(const std::vector<std::string>& env);

// libuv's search: a name with a directory part is looked up there only; a bare name
// in `cwd`, then in each PATH entry. In each place the name itself is tried if it has
// an extension, then name.com and name.exe; PATHEXT is not used (nor by Node).
std::optional<std::wstring> search_path(const std::wstring& file, const std::wstring& cwd, const std::wstring& path);

// Node refuses to start these without a shell (CVE-2024-27980): ends in .bat or .cmd,
// any case.
bool is_batch_file(std::string_view file);

}  // namespace spawnhost::windows
