#include "engine/pe/position_encoding.h"

#include <array>
#include <utility>

#include "engine/pe/registry.h"

namespace tinyenc {
namespace {

template <class Enum, size_t N>
std::optional<Enum> find_by_name(const std::array<std::pair<Enum, std::string_view>, N>& names,
                                 std::string_view name) {
  for (const auto& [value, value_name] : names) {
    if (value_name == name) return value;
  }
  return std::nullopt;
}

template <class Enum, size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& names,
                         Enum value) {
  for (const auto& [candidate, name] : names) {
    if (candidate == value) return name;
  }
  return "unknown";
}

constexpr std::array<std::pair<SinusoidalLayout, std::string_view>, 2> kLayoutNames{{
    {SinusoidalLayout::kInterleaved, "interleaved"},
    {SinusoidalLayout::kConcat, "concat"},
}};

constexpr std::array<std::pair<RopePairing, std::string_view>, 2> kPairingNames{{
    {RopePairing::kHalf, "half"},
    {RopePairing::kInterleaved, "interleaved"},
}};

}  // namespace

std::string_view position_encoding_name(PositionEncodingKind kind) {
  for (const PositionEncodingType* type : position_encoding_types()) {
    if (type->kind == kind) return type->name;
  }
  return "unknown";
}
std::optional<PositionEncodingKind> parse_position_encoding(std::string_view name) {
  for (const PositionEncodingType* type : position_encoding_types()) {
    if (type->name == name) return type->kind;
  }
  return std::nullopt;
}
std::string_view sinusoidal_layout_name(SinusoidalLayout layout) {
  return name_of(kLayoutNames, layout);
}
std::optional<SinusoidalLayout> parse_sinusoidal_layout(std::string_view name) {
  return find_by_name(kLayoutNames, name);
}
std::string_view rope_pairing_name(RopePairing pairing) { return name_of(kPairingNames, pairing); }
std::optional<RopePairing> parse_rope_pairing(std::string_view name) {
  return find_by_name(kPairingNames, name);
}

}  // namespace tinyenc
