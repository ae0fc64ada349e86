#include "simulator/capture/interposition.hpp"

#include "simulator/capture/ggml_api.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <string_view>

namespace gallocsim::capture {

namespace {

// Whether `symbol` (found by glibc) is defined in the object of `map` itself, not in one of
// its dependencies.
bool defined_in(const void* symbol, const link_map* map) {
    Dl_info info{};
    link_map* owner = nullptr;
    return dladdr1(symbol, &info, reinterpret_cast<void**>(&owner), RTLD_DL_LINKMAP) != 0 && owner == map;
}

// RTLD_NEXT from `caller`: the first definition in the objects loaded after the caller's,
// in load order (the order of the link map, which glibc's global search follows). An
// object loaded with RTLD_LOCAL is searched too, which glibc would skip for a caller in
// the global scope; programs do not look up RTLD_NEXT symbols that only such objects define.
void* next_symbol(const void* caller, const char* symbol) {
    Dl_info info{};
    link_map* map = nullptr;
    if (dladdr1(caller, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr) {
        return nullptr;
    }
    for (map = map->l_next; map != nullptr; map = map->l_next) {
        if (map->l_name == nullptr || map->l_name[0] == '\0') {
            continue;
        }
        void* handle = dlopen(map->l_name, RTLD_NOLOAD | RTLD_LAZY);
        if (handle == nullptr) {
            continue;  // the vDSO, which dlopen does not know by name
        }
        void* found = real_dlsym(handle, symbol);
        dlclose(handle);
        if (found != nullptr && defined_in(found, map)) {
            return found;
        }
    }
    return nullptr;
}

} // namespace

void* interposed_dlsym(void* handle, const char* symbol, const void* caller) {
    if (handle == RTLD_NEXT) {
        return next_symbol(caller, symbol);
    }
    void* found = real_dlsym(handle, symbol);
    if (found == nullptr || symbol == nullptr) {
        return found;
    }
    void* own = capture_function(symbol);
    if (own == nullptr || own == found) {
        return found;
    }
    // Only the program's ggml (the one the capture forwards to) is interposed: a look-up in
    // another copy of ggml gets that copy's function, unrecorded.
    const GgmlApi* ggml = program_ggml();
    if (ggml == nullptr) {
        return found;
    }
    Dl_info theirs{};
    if (dladdr(found, &theirs) == 0 || theirs.dli_fname == nullptr || ggml->library != theirs.dli_fname) {
        return found;
    }
    return own;
}

const char* enclosing_allocator_function(const void* address) {
    Dl_info info{};
    ElfW(Sym)* symbol = nullptr;
    if (dladdr1(address, &info, reinterpret_cast<void**>(&symbol), RTLD_DL_SYMENT) == 0 || symbol == nullptr ||
        info.dli_sname == nullptr) {
        return nullptr;
    }
    const auto start = reinterpret_cast<std::uintptr_t>(info.dli_saddr);
    const auto at = reinterpret_cast<std::uintptr_t>(address);
    // dladdr names the nearest exported symbol below the address; the address is inside it
    // only within the symbol's size (a static function after it is not).
    const bool inside = at >= start && at - start < symbol->st_size;
    // This library's own ggml_gallocr_* functions forward calls; they never nest one.
    Dl_info own{};
    const bool ours = dladdr(reinterpret_cast<const void*>(&enclosing_allocator_function), &own) != 0 &&
                      own.dli_fbase == info.dli_fbase;
    return inside && !ours && std::string_view(info.dli_sname).starts_with("ggml_gallocr_") ? info.dli_sname : nullptr;
}

} // namespace gallocsim::capture
