#pragma once
// Overloaded{lambda...}: one visitor from a lambda per event kind, for std::visit. Visitors of
// events name every kind, so a new kind is a compile error where it must be handled.

namespace gallocsim {

template <typename... F>
struct Overloaded : F... {
    using F::operator()...;
};
// Spelled out for clang 14 (the fuzz preset), which lacks C++20's aggregate deduction.
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

} // namespace gallocsim
