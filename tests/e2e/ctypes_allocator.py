#!/usr/bin/env python3
"""A ggml program in Python that calls the graph allocator through ggml-python's ctypes bindings.

Python's ctypes looks every ggml function up with dlsym on ggml's own library handle, which a
preloaded library (gallocsim capture) never sees unless it answers dlsym too: this program is
how the end-to-end tests check that a capture holds exactly the calls it made, and nothing of
ggml's internal calls as if it had made them.

For each of two buffer types of its own (tests/e2e/ctypes_buffer_types.cpp: CHUNKED, with a
small max size so that plans need chunks; PADDED, whose alloc sizes no rule names and whose
buffers are 32 bytes larger than asked) it makes one allocator and calls, in this order:

    ggml_gallocr_new          (CHUNKED) or ggml_gallocr_new_n (PADDED, one buffer id)
    ggml_gallocr_reserve      on the graph of batch 8
    ggml_gallocr_alloc_graph  on the graphs of batch 2, 4 and 16 (16 does not fit the
                              reserved plan: alloc_graph plans again by itself)
    ggml_gallocr_free

The graph is a small MLP block: y = W2 · gelu(W1 · x) + x, the weights in a CPU buffer of
their own (they have memory before the allocator runs), x the input.

    ctypes_allocator.py LIBCTYPES_BUFFER_TYPES.so
"""
import argparse
import ctypes
import pathlib

import ggml

EMBD, HIDDEN = 64, 128
BATCHES = {"reserve": 8, "alloc": [2, 4, 16]}


def cpu_buffer_type():
    # ggml-python declares no pointer return type for it: the pointer would come back cut.
    lib = ctypes.CDLL(str(pathlib.Path(ggml.__file__).parent / "lib" / "libggml-cpu.so"))
    lib.ggml_backend_cpu_buffer_type.restype = ctypes.c_void_p
    return lib.ggml_backend_cpu_buffer_type()


class Mlp:
    """The weights, in a CPU buffer of their own, and graphs of any batch over them."""

    def __init__(self, cpu):
        params = ggml.ggml_init_params(mem_size=4 * ggml.ggml_tensor_overhead(), mem_buffer=None, no_alloc=True)
        self.weights = ggml.ggml_init(params)
        self.w1 = ggml.ggml_new_tensor_2d(self.weights, ggml.GGML_TYPE_F32, EMBD, HIDDEN)
        self.w2 = ggml.ggml_new_tensor_2d(self.weights, ggml.GGML_TYPE_F32, HIDDEN, EMBD)
        ggml.ggml_set_name(self.w1, b"w1")
        ggml.ggml_set_name(self.w2, b"w2")
        self.buffer = ggml.ggml_backend_alloc_ctx_tensors_from_buft(self.weights, cpu)
        self.contexts = []

    def graph(self, batch):
        size = 64 * ggml.ggml_tensor_overhead() + ggml.ggml_graph_overhead()
        ctx = ggml.ggml_init(ggml.ggml_init_params(mem_size=size, mem_buffer=None, no_alloc=True))
        self.contexts.append(ctx)
        x = ggml.ggml_new_tensor_2d(ctx, ggml.GGML_TYPE_F32, EMBD, batch)
        ggml.ggml_set_name(x, b"x")
        ggml.ggml_set_input(x)
        h = ggml.ggml_gelu(ctx, ggml.ggml_mul_mat(ctx, self.w1, x))
        y = ggml.ggml_add(ctx, ggml.ggml_mul_mat(ctx, self.w2, h), x)
        ggml.ggml_set_name(y, b"y")
        ggml.ggml_set_output(y)
        graph = ggml.ggml_new_graph(ctx)
        ggml.ggml_build_forward_expand(graph, y)
        return graph


def run(model, make_allocator):
    galloc = make_allocator()
    calls = [ggml.ggml_gallocr_reserve(galloc, model.graph(BATCHES["reserve"]))]
    calls += [ggml.ggml_gallocr_alloc_graph(galloc, model.graph(batch)) for batch in BATCHES["alloc"]]
    ggml.ggml_gallocr_free(galloc)
    return calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("buffer_types", help="the built libctypes_buffer_types.so")
    args = parser.parse_args()
    types = ctypes.CDLL(args.buffer_types)
    types.gallocsim_chunked_type.restype = ctypes.c_void_p
    types.gallocsim_chunked_type.argtypes = [ctypes.c_size_t]
    types.gallocsim_padded_type.restype = ctypes.c_void_p
    types.gallocsim_padded_type.argtypes = [ctypes.c_size_t]
    chunked = types.gallocsim_chunked_type(4096)  # h of batch 8 alone is 128 * 8 * 4 = 4096 bytes
    padded = types.gallocsim_padded_type(20)

    model = Mlp(cpu_buffer_type())
    results = run(model, lambda: ggml.ggml_gallocr_new(chunked))
    ids = (ctypes.c_void_p * 1)(padded)
    results += run(model, lambda: ggml.ggml_gallocr_new_n(ids, 1))
    print("calls returned", results)
    if not all(results):
        raise SystemExit("a graph allocator call failed")


if __name__ == "__main__":
    main()
