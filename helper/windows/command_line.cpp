#include "windows/command_line.hpp"

#include <windows.h>

#include <algorithm>
#include <cwctype>

namespace spawnhost::windows {

std::wstring widen(std::string_view text) {
  if (text.empty()) return {};
  const int n = MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0);
  std::wstring out(static_cast<std::size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), n);
  return out;
}

std::string narrow(std::wstring_view text) {
  if (text.empty()) return {};
  const int n = WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0, nullptr, nullptr);
  std::string out(static_cast<std::size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), n, nullptr, nullptr);
  return out;
}

std::wstring quote_argument(std::wstring_view arg) {
  if (arg.empty()) return L"\"\"";
  if (arg.find_first_of(L" \t\"") == std::wstring_view::npos) return std::wstring(arg);
  std::wstring out = L"\"";
  std::size_t backslashes = 0;
  for (const wchar_t c : arg) {
    if (c == L'\\') {
      ++backslashes;
      continue;
    }
    // Backslashes are literal unless a quote follows: then each one is doubled and the
    // quote escaped.
    out.append(c == L'"' ? backslashes * 2 + 1 : backslashes, L'\\');
    backslashes = 0;
    out.push_back(c);
  }
  out.append(backslashes * 2, L'\\');  // they precede our closing quote
  out.push_back(L'"');
  return out;
}

std::wstring command_line(const std::vector<std::string>& argv, bool verbatim) {
  std::wstring out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (i) out.push_back(L' ');
    const std::wstring arg = widen(argv[i]);
    out += verbatim ? arg : quote_argument(arg);
  }
  return out;
}

namespace {

std::wstring_view name_of(std::wstring_view entry) {
  // A leading '=' belongs to the name (cmd.exe's per-drive "=C:=C:\dir" entries).
  const std::size_t eq = entry.find(L'=', 1);
  return entry.substr(0, eq == std::wstring_view::npos ? entry.size() : eq);
}

int compare_names(std::wstring_view a, std::wstring_view b) {
  // Windows sorts the block by name in upper case, ordinal: CompareStringOrdinal's
  // ignore-case mode is exactly that.
  const int r = CompareStringOrdinal(a.data(), static_cast<int>(a.size()), b.data(), static_cast<int>(b.size()), TRUE);
  return r - CSTR_EQUAL;
}

}  // namespace

std::wstring environment_block(const std::vector<std::string>& env) {
  std::vector<std::wstring> entries;
  entries.reserve(env.size() + 3);
  for (const auto& e : env) entries.push_back(widen(e));
  for (const wchar_t* required : {L"SYSTEMROOT", L"SYSTEMDRIVE", L"TEMP"}) {
    const bool present = std::any_of(entries.begin(), entries.end(),
                                     [&](const std::wstring& e) { return compare_names(name_of(e), required) == 0; });
    if (present) continue;
    const DWORD n = GetEnvironmentVariableW(required, nullptr, 0);
    if (n == 0) continue;
    std::wstring value(n, L'\0');
    value.resize(GetEnvironmentVariableW(required, value.data(), n));
    entries.push_back(std::wstring(required) + L"=" + value);
  }
  std::stable_sort(entries.begin(), entries.end(), [](const std::wstring& a, const std::wstring& b) {
    return compare_names(name_of(a), name_of(b)) < 0;
  });
  std::wstring block;
  for (const auto& e : entries) {
    block += e;
    block.push_back(L'\0');
  }
  if (entries.empty()) block.push_back(L'\0');
  block.push_back(L'\0');
  return block;
}

std::optional<std::wstring> find_path_variable(const std::vector<std::string>& env) {
  for (const auto& e : env) {
    if (e.size() >= 5 && CompareStringOrdinal(widen(e.substr(0, 5)).c_str(), 5, L"PATH=", 5, TRUE) == CSTR_EQUAL) {
      return widen(std::string_view(e).substr(5));
    }
  }
  return std::nullopt;
}

namespace {

bool is_plain_file(const std::wstring& path) {
  const DWORD attrs = GetFileAttributesW(path.c_str());
  return attrs != INVALID_FILE_ATTRIBUTES && !(attrs & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT));
}

bool is_absolute(std::wstring_view p) {
  return (p.size() >= 2 && p[1] == L':') || (!p.empty() && (p[0] == L'\\' || p[0] == L'/'));
}

// `dir` + `name` (+ "." + ext), relative to cwd unless absolute.
std::optional<std::wstring> try_in(std::wstring_view dir, std::wstring_view name, std::wstring_view ext,
                                   const std::wstring& cwd) {
  std::wstring candidate;
  if (!is_absolute(dir) && !(dir.empty() && is_absolute(name))) {
    candidate = cwd;
    if (!candidate.empty() && candidate.back() != L'\\' && candidate.back() != L'/') candidate.push_back(L'\\');
  }
  candidate += dir;
  if (!dir.empty() && dir.back() != L'\\' && dir.back() != L'/' && dir.back() != L':') candidate.push_back(L'\\');
  candidate += name;
  if (!ext.empty()) {
    if (candidate.back() != L'.') candidate.push_back(L'.');
    candidate += ext;
  }
  if (is_plain_file(candidate)) return candidate;
  return std::nullopt;
}

std::optional<std::wstring> try_extensions(std::wstring_view dir, std::wstring_view name, bool has_ext,
                                           const std::wstring& cwd) {
  if (has_ext) {
    if (auto found = try_in(dir, name, L"", cwd)) return found;
  }
  if (auto found = try_in(dir, name, L"com", cwd)) return found;
  return try_in(dir, name, L"exe", cwd);
}

}  // namespace

std::optional<std::wstring> search_path(const std::wstring& file, const std::wstring& cwd, const std::wstring& path) {
  if (file.empty() || file == L".") return std::nullopt;
  const std::size_t split = file.find_last_of(L"\\/:");
  const std::size_t name_start = split == std::wstring::npos ? 0 : split + 1;
  const std::wstring_view name = std::wstring_view(file).substr(name_start);
  const std::size_t dot = name.find(L'.');
  const bool has_ext = dot != std::wstring_view::npos && dot + 1 < name.size();
  if (name_start > 0) return try_extensions(std::wstring_view(file).substr(0, name_start), name, has_ext, cwd);

  if (auto found = try_extensions(L"", name, has_ext, cwd)) return found;
  std::wstring_view rest = path;
  while (!rest.empty()) {
    const std::size_t semi = rest.find(L';');
    std::wstring_view dir = rest.substr(0, semi);
    rest = semi == std::wstring_view::npos ? std::wstring_view{} : rest.substr(semi + 1);
    if (!dir.empty() && (dir.front() == L'"' || dir.front() == L'\'')) dir.remove_prefix(1);
    if (!dir.empty() && (dir.back() == L'"' || dir.back() == L'\'')) dir.remove_suffix(1);
    if (dir.empty()) continue;
    if (auto found = try_extensions(dir, name, has_ext, cwd)) return found;
  }
  return std::nullopt;
}

bool is_batch_file(std::string_view file) {
  const std::size_t dot = file.rfind('.');
  if (dot == std::string_view::npos) return false;
  std::string ext(file.substr(dot));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".bat" || ext == ".cmd";
}

}  // namespace spawnhost::windows
