#include "simulator/capture/ggml_api.hpp"

#include "reference/version_map.hpp"
#include "simulator/capture/ggml_layouts.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim::capture {

namespace {

// The symbol that identifies the object holding the graph allocator.
constexpr const char* kAnchor = "ggml_gallocr_new_n";

// ggml_tensor_overhead() is sizeof(struct ggml_object) + sizeof(struct ggml_tensor), and
// ggml_object has been 32 bytes in every version (two sizes, a pointer, a type and padding).
constexpr std::size_t kObjectSize = 32;

using DlsymFunction = void* (*)(void*, const char*);

DlsymFunction find_real_dlsym() {
    // dlvsym is not interposed; dlsym's current version first, then the original one.
    for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5"}) {
        if (void* found = dlvsym(RTLD_NEXT, "dlsym", version)) {
            return reinterpret_cast<DlsymFunction>(found);
        }
    }
    return nullptr;
}

std::string object_path(const void* address) {
    Dl_info info{};
    if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
        return {};
    }
    return info.dli_fname;
}

const std::string& own_path() {
    static const std::string path = object_path(reinterpret_cast<const void*>(&program_ggml));
    return path;
}

// A handle for the loaded object at `path`, never loading anything new.
void* loaded_handle(const std::string& path) {
    return path.empty() ? nullptr : dlopen(path.c_str(), RTLD_NOLOAD | RTLD_LAZY);
}

// The loaded objects' paths, this library's left out. Names only: dlopen inside
// dl_iterate_phdr's callback would take the loader's lock while the iteration holds it.
std::vector<std::string> loaded_object_paths() {
    std::vector<std::string> paths;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
            if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
                static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
            }
            return 0;
        },
        &paths);
    std::erase(paths, own_path());
    return paths;
}

// Does the file at `path` contain `needle`? Mapped read-only, so a large library costs no copy.
bool file_contains(const std::string& path, std::string_view needle) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    struct stat info{};
    bool found = false;
    if (::fstat(fd, &info) == 0 && info.st_size > 0) {
        const auto size = static_cast<std::size_t>(info.st_size);
        void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapped != MAP_FAILED) {
            found = ::memmem(mapped, size, needle.data(), needle.size()) != nullptr;
            ::munmap(mapped, size);
        }
    }
    ::close(fd);
    return found;
}

// A loaded object other than this library that defines the anchor, dlopen'ed or not: its
// handle (opened without loading anything) and its path.
struct GgmlObject {
    void* handle = nullptr;
    std::string path;
};

// Each loaded object in turn (RTLD_NEXT, tried first, cannot see one loaded RTLD_LOCAL).
GgmlObject find_among_loaded_objects();

GgmlObject find_ggml_object() {
    if (void* next = real_dlsym(RTLD_NEXT, kAnchor)) {
        const std::string path = object_path(next);
        return {loaded_handle(path), path};
    }
    return find_among_loaded_objects();
}

GgmlObject find_among_loaded_objects() {
    // This library is never reopened (loaded_object_paths leaves it out): at exit that would
    // run its initialisers again.
    for (const std::string& path : loaded_object_paths()) {
        void* handle = loaded_handle(path);
        if (handle == nullptr) {
            continue;
        }
        // dlsym on a handle searches that object and its dependencies, never the preloaded
        // libraries; the check only guards against a program that links this library.
        if (void* symbol = real_dlsym(handle, kAnchor); symbol != nullptr && object_path(symbol) != own_path()) {
            return {handle, object_path(symbol)};
        }
        dlclose(handle);
    }
    return {};
}

// Where the program's ggml keeps a tensor's name: ggml_get_name returns the address of the
// name field without reading the tensor, so asking it about scratch memory is safe.
std::size_t name_offset(const GgmlApi& api) {
    alignas(std::max_align_t) static char scratch[4096];
    const char* name = api.ggml_get_name(reinterpret_cast<ggml_tensor*>(scratch));
    return static_cast<std::size_t>(name - scratch);
}

// The layout that keeps the tensor's name where ggml_get_name finds it, and whose size fits
// the one the program's ggml reports (ggml_tensor_overhead): layouts that moved fields
// around without changing the size (the 2024 grad pointer gone, padding added) differ in
// where the name is. GGML_MAX_NAME is a build option (stable-diffusion.cpp builds ggml with
// 128 where the default is 64); only the fields after the name move with it, and the capture
// reads none of them, so the name's length is what the size leaves for it.
void choose_layout(GgmlApi& api) {
    const std::size_t tensor_size = api.ggml_tensor_overhead() - kObjectSize;
    const std::size_t name = name_offset(api);
    std::string known;
    for (const gallocsim_ggml_layout* layout : ggml_layouts()) {
        known += (known.empty() ? "" : ", ") + std::string(layout->tree) + ": " + std::to_string(layout->tensor_size) +
                 " bytes, name at " + std::to_string(layout->name);
        const std::size_t after_name = layout->tensor_size - layout->name - layout->max_name;
        if (layout->name != name || tensor_size <= name + after_name) {
            continue;
        }
        api.layout = layout;
        api.max_name = tensor_size - name - after_name;
        return;
    }
    api.layout_problem = "the program's ggml_tensor has " + std::to_string(tensor_size) + " bytes and its name at " +
                         std::to_string(name) + ", a layout this capture library was not built for (" + known +
                         "; see docs/your-own-program.md, \"Which ggml versions\")";
}

std::optional<GgmlApi> resolve() {
    const GgmlObject ggml = find_ggml_object();
    void* handle = ggml.handle;
    if (handle == nullptr) {
        return std::nullopt;
    }
    GgmlApi api;
    api.library = ggml.path;
    auto look_up = [&](auto& function, const char* name) {
        function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(real_dlsym(handle, name));
        return function != nullptr;
    };
#define GALLOCSIM_LOOK_UP(name)        \
    if (!look_up(api.name, #name)) {   \
        api.missing.emplace_back(#name); \
    }
    GALLOCSIM_GGML_FUNCTIONS(GALLOCSIM_LOOK_UP)
#undef GALLOCSIM_LOOK_UP
#define GALLOCSIM_LOOK_UP_OPTIONAL(name) look_up(api.name, #name);
    GALLOCSIM_GGML_OPTIONAL_FUNCTIONS(GALLOCSIM_LOOK_UP_OPTIONAL)
#undef GALLOCSIM_LOOK_UP_OPTIONAL
    for (const MarkerFunction& marker : kMarkerFunctions) {
        api.markers.push_back(real_dlsym(handle, std::string(marker.name).c_str()) != nullptr);
    }
    if (api.ggml_tensor_overhead != nullptr && api.ggml_get_name != nullptr) {
        choose_layout(api);
    }
    return api;
}

} // namespace

std::string GgmlApi::unusable_reason() const {
    if (!missing.empty()) {
        std::string names;
        for (const std::string& name : missing) {
            names += (names.empty() ? "" : ", ") + name;
        }
        return "the program's ggml (" + library + ") lacks " + names + ", which the capture needs";
    }
    return layout_problem;
}

void* real_dlsym(void* handle, const char* symbol) {
    static const DlsymFunction real = find_real_dlsym();
    return real != nullptr ? real(handle, symbol) : nullptr;
}

namespace {
std::atomic<bool> resolved{false};  // program_ggml() has looked
} // namespace

// Never destroyed: the capture's exit record reads it after static destructors have run.
const GgmlApi* program_ggml() {
    static const GgmlApi* const api = [] {
        std::optional<GgmlApi> found = resolve();
        resolved = true;
        return found ? new GgmlApi(std::move(*found)) : nullptr;
    }();
    return api;
}

std::string loaded_ggml_library() {
    if (resolved) {
        const GgmlApi* api = program_ggml();
        return api != nullptr ? api->library : std::string();
    }
    // Not looked for while the program ran: among the loaded objects, without RTLD_NEXT
    // (at exit glibc's answer for it is not to be trusted) and without reopening this one.
    const GgmlObject ggml = find_among_loaded_objects();
    if (ggml.handle != nullptr) {
        dlclose(ggml.handle);
    }
    return ggml.path;
}

std::string library_with_hidden_ggml() {
    for (const std::string& path : loaded_object_paths()) {
        if (file_contains(path, "ggml_gallocr_")) {
            return path;
        }
    }
    return {};
}

} // namespace gallocsim::capture
