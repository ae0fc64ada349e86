// libctypes_buffer_types.so: two buffer types of a program's own, for tests/e2e/ctypes_allocator.py,
// which loads this library with Python's ctypes and hands the types to ggml-python's ctypes
// bindings of the graph allocator. Written in C++ because a buffer type is a struct of
// function pointers whose layout only the ggml headers of that version know (ggml-python's
// Python mirror of it is older than the ggml it ships); compiled against the headers of
// ggml-python 0.0.45's sdist and linked to its libggml-base.so and libggml-cpu.so.
//
// Both keep their bytes in CPU buffers, so the buffers they return carry the CPU buffer
// type's tag, not their own (a case the capture must handle: it finds a tensor's chunk by its
// buffer).
//   chunked(max_size): alignment 32, the given max size, get_alloc_size = ggml_nbytes: plans
//                      that need more are split into chunks.
//   padded(pad):       alignment 32, no max size, get_alloc_size = ggml_nbytes + pad (a rule no
//                      graph file can name), and every buffer 32 bytes larger than asked
//                      (as llama.cpp's Vulkan_Host buffers are).
#include <ggml-alloc.h>
#include <ggml-backend-impl.h>
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>

#include <cstddef>

namespace {

struct Settings {
    const char* name;
    std::size_t max_size;
    std::size_t pad;           // added to every tensor's alloc size
    std::size_t buffer_extra;  // added to every buffer asked for
};

Settings& settings(ggml_backend_buffer_type_t buft) { return *static_cast<Settings*>(buft->context); }

ggml_backend_buffer_type make_type(Settings* s) {
    ggml_backend_buffer_type_i iface{};
    iface.get_name = [](ggml_backend_buffer_type_t buft) { return settings(buft).name; };
    iface.alloc_buffer = [](ggml_backend_buffer_type_t buft, std::size_t size) {
        return ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), size + settings(buft).buffer_extra);
    };
    iface.get_alignment = [](ggml_backend_buffer_type_t) { return std::size_t{32}; };
    iface.get_max_size = [](ggml_backend_buffer_type_t buft) { return settings(buft).max_size; };
    iface.get_alloc_size = [](ggml_backend_buffer_type_t buft, const ggml_tensor* tensor) {
        return ggml_nbytes(tensor) + settings(buft).pad;
    };
    iface.is_host = [](ggml_backend_buffer_type_t) { return true; };
    return {iface, nullptr, s};
}

Settings chunked_settings{"CHUNKED", 0, 0, 0};
Settings padded_settings{"PADDED", SIZE_MAX, 0, 32};
ggml_backend_buffer_type chunked_type = make_type(&chunked_settings);
ggml_backend_buffer_type padded_type = make_type(&padded_settings);

} // namespace

extern "C" {

__attribute__((visibility("default"))) ggml_backend_buffer_type_t gallocsim_chunked_type(std::size_t max_size) {
    chunked_settings.max_size = max_size;
    return &chunked_type;
}

__attribute__((visibility("default"))) ggml_backend_buffer_type_t gallocsim_padded_type(std::size_t pad) {
    padded_settings.pad = pad;
    return &padded_type;
}

}
