// Signal names as Node spells them, and lookups over one platform's table: each
// process_*.cpp supplies its table, and signal_number/signal_name are these lookups.
#pragma once
#include <optional>
#include <span>
#include <string_view>

namespace spawnhost {

struct named_signal {
  std::string_view name;
  int number;
};

// Where two names share a number, the first in the table is the one reported.
constexpr std::optional<int> number_in(std::span<const named_signal> table, std::string_view name) noexcept {
  for (const auto& s : table) {
    if (s.name == name) return s.number;
  }
  return std::nullopt;
}

constexpr std::optional<std::string_view> name_in(std::span<const named_signal> table, int number) noexcept {
  for (const auto& s : table) {
    if (s.number == number) return s.name;
  }
  return std::nullopt;
}

}  // namespace spawnhost
