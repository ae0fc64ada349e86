#include "simulator/capture/ggml_api.hpp"

#include <dlfcn.h>
#include <link.h>

#include <optional>
#include <string>
#include <vector>

namespace gallocsim::capture {

namespace {

// The symbol that identifies the object holding the graph allocator.
constexpr const char* kAnchor = "ggml_gallocr_new_n";

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

// A loaded object other than this library that defines the anchor, dlopen'ed or not.
void* find_ggml_object() {
    if (void* next = dlsym(RTLD_NEXT, kAnchor)) {
        return loaded_handle(object_path(next));
    }
    // Names first, handles after: dlopen inside dl_iterate_phdr's callback would take the
    // loader's lock while the iteration holds it.
    std::vector<std::string> paths;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
            if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
                static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
            }
            return 0;
        },
        &paths);
    for (const std::string& path : paths) {
        void* handle = loaded_handle(path);
        if (handle == nullptr) {
            continue;
        }
        // dlsym on a handle searches that object and its dependencies, never the preloaded
        // libraries; the check only guards against a program that links this library.
        if (void* symbol = dlsym(handle, kAnchor); symbol != nullptr && object_path(symbol) != own_path()) {
            return handle;
        }
        dlclose(handle);
    }
    return nullptr;
}

std::optional<GgmlApi> resolve() {
    void* handle = find_ggml_object();
    if (handle == nullptr) {
        return std::nullopt;
    }
    GgmlApi api;
    bool complete = true;
    auto look_up = [&](auto& function, const char* name) {
        function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
        return function != nullptr;
    };
#define GALLOCSIM_LOOK_UP(name) complete = look_up(api.name, #name) && complete;
    GALLOCSIM_GGML_FUNCTIONS(GALLOCSIM_LOOK_UP)
#undef GALLOCSIM_LOOK_UP
    look_up(api.ggml_version, "ggml_version");
    look_up(api.ggml_commit, "ggml_commit");
    api.complete = complete;
    return api;
}

} // namespace

const GgmlApi* program_ggml() {
    static const std::optional<GgmlApi> api = resolve();
    return api ? &*api : nullptr;
}

} // namespace gallocsim::capture
